# file: userdp/steps.go
# bug: a tail bucket's weight w_b without the buckets' share (1 − a) of the tail (bias release Δ₂ above B_b)
s|wb := math.Sqrt((1 - TailAggregateShare) \* m / (2 \* float64(ncontrib)))|wb := math.Sqrt(m / (2 * float64(ncontrib)))|
