# file: userdp/steps.go
# bug: the residual clip of the PCA start dropped
/e = math.Min(math.Max(e, -o.ResidualBound), o.ResidualBound)/d
