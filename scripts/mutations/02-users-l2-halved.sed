# file: userdp/plan.go
# bug: Δ₂ of the number-of-users release halved
s|p.calibrate("number of users", 1, 1,|p.calibrate("number of users", 0.5, 1,|g
