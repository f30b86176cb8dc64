# file: userdp/plan.go
# bug (caught before): Δ₂ of the item-count release halved
s|p.calibrate("item counts (weights 1/√n per user)", 1, k,|p.calibrate("item counts (weights 1/√n per user)", 0.5, k,|
