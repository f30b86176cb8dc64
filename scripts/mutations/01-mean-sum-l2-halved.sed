# file: userdp/plan.go
# bug: Δ₂ of the global-mean release halved (noise calibrated to it)
s|p.calibrate("global mean: sum of users' mean ratings minus the scale's midpoint", B0,|p.calibrate("global mean: sum of users' mean ratings minus the scale's midpoint", B0/2,|
