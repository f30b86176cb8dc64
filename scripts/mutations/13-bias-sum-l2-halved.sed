# file: userdp/plan.go
# bug (caught before): Δ₂ of the bias-sum release halved
s|p.calibrate(biasName, o.BiasBound, biasCoords|p.calibrate(biasName, o.BiasBound/2, biasCoords|
