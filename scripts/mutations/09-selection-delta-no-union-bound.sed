# file: userdp/budget.go
# bug: SelectionDelta without its union bound over n
s|p := float64(n) \* 0.5 \* math.Erfc(z/math.Sqrt2)|p := 0.5 * math.Erfc(z/math.Sqrt2)|
