# file: userdp/steps.go
# bug: the start's rated term added to the clipped residual without scaling the residual by (1 − a), so a term reaches (1 + a)·B_r
s|\te = math.Min((1-o.StartRatedWeight)\*e+o.StartRatedWeight\*o.ResidualBound, o.ResidualBound)|\te = e + o.StartRatedWeight*o.ResidualBound|
