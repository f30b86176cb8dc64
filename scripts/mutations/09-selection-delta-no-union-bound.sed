# file: userdp/budget.go
# bug: SelectionDelta without its union bound over n
s|worst = math.Max(worst, float64(n)\*tailAt(float64(n)))|worst = math.Max(worst, tailAt(float64(n)))|
s|worst = math.Max(worst, float64(b)\*tailAt(float64(a)))|worst = math.Max(worst, tailAt(float64(a)))|
