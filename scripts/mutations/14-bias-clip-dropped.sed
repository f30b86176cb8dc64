# file: userdp/steps.go
# bug (caught before): the clip of the bias deviations dropped
/d = math.Min(math.Max(d, -o.BiasBound), o.BiasBound)/d
