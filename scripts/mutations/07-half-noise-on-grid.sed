# file: userdp/plan.go
# bug: half the noise added (kept on the grid), report unchanged
s|return z.d.AddTo(x, r)|return (math.Round(x/z.d.Granularity()) + float64(z.d.Int(r)/2)) * z.d.Granularity()|
s|return x + z.sigma\*r.NormFloat64()|return x + z.sigma/2*r.NormFloat64()|
