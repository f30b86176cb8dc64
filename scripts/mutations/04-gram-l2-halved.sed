# file: userdp/plan.go
# bug: Δ₂ of the Gram release halved
s|c\*c, h\*rk\*(rk+1)/2|c*c/2, h*rk*(rk+1)/2|
