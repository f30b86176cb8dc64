# file: userdp/budget.go
# bug: SelectionDelta with 1/n instead of 1/√n for a lone user's count
s|z := (tau - 1/math.Sqrt(float64(n))) / sigma|z := (tau - 1/float64(n)) / sigma|
