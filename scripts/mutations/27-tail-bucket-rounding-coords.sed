# file: userdp/plan.go
# bug: the bias release's rounding counts k + 2 coordinates with tail buckets (a user changes up to 2k + 2), so Δ₂′ is too small
s|, p.Buckets()), 2\*k+2|, p.Buckets()), k+2|
