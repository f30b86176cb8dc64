# file: userdp/plan.go
# bug: Δ₂ of the PCA-start release halved
s|o.ResidualBound\*o.ResidualBound, hs\*(hs+1)/2|o.ResidualBound*o.ResidualBound/2, hs*(hs+1)/2|
