# file: userdp/steps.go
# bug: with tail buckets the tail's own two terms keep their whole weight (bias release Δ₂ above B_b)
s|		share = TailAggregateShare$|		share = 1|
