# file: userdp/steps.go
# bug: the tail's weight w_t without its ½ (tail Δ₂ above B_b)
s|wt := math.Sqrt(share \* float64(len(tail)) / (2 \* float64(ncontrib)))|wt := math.Sqrt(share * float64(len(tail)) / float64(ncontrib))|
