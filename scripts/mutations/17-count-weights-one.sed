# file: userdp/steps.go
# bug (caught before): count weights 1 instead of 1/√n
s|return 1 / math.Sqrt(float64(n))|return 1|
