package discrete

import (
	"math"
	"math/big"
	"testing"
)

// FuzzAddTo checks the release arithmetic for any value, grid and noise:
// the result is the float64 nearest γ·(round(v/γ) + k), computed exactly in
// math/big, and so a multiple of γ.
func FuzzAddTo(f *testing.F) {
	f.Add(0.1, -40, int64(12345))
	f.Add(1000.0, -23, int64(-1)<<60)
	f.Add(-7.77e6, -36, int64(1)<<53+1)
	f.Add(1e300, 900, int64(-3))
	f.Add(5e-300, -1000, int64(7))
	f.Fuzz(func(t *testing.T, v float64, e int, k int64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || e < -1000 || e > 1000 {
			return
		}
		g := math.Ldexp(1, e)
		got := addTo(v, g, k)
		q := math.Round(v / g)
		if math.IsInf(q, 0) {
			if !math.IsInf(got, 0) {
				t.Fatalf("addTo(%v, 2^%d, %d) = %v, want ±Inf (off the grid's range)", v, e, k, got)
			}
			return
		}
		s := new(big.Float).SetPrec(2200).SetFloat64(q)
		s.Add(s, new(big.Float).SetInt64(k))
		s.SetMantExp(s, e)
		want, _ := s.Float64()
		if math.IsInf(want, 0) || math.Abs(want) < 0x1p-1000 {
			return // overflow or near the subnormal range: not compared
		}
		if got != want {
			t.Fatalf("addTo(%v, 2^%d, %d) = %v, want %v", v, e, k, got, want)
		}
		if r := got / g; r != math.Trunc(r) {
			t.Fatalf("addTo(%v, 2^%d, %d) = %v is not a multiple of γ", v, e, k, got)
		}
	})
}
