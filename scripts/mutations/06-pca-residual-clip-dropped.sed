# file: userdp/steps.go
# bug: the residual clip of the PCA start dropped
s|\te = math.Min(math.Max(e, -o.ResidualBound), o.ResidualBound)|\t_ = o // the clip, dropped|
