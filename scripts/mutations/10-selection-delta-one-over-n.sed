# file: userdp/budget.go
# bug: SelectionDelta with 1/n instead of 1/√n for a lone user's count
s|(tau-1/math.Sqrt(n))/sigma|(tau-1/n)/sigma|
