# file: userdp/plan.go
# bug: Δ₂ of the right-hand-side release halved
s|o.ResidualBound\*c, h\*rk,|o.ResidualBound*c/2, h*rk,|
