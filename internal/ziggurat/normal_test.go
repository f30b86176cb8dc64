package ziggurat

import (
	"math"
	"testing"

	"github.com/dpmc/dpmc/internal/stattest"
	"github.com/dpmc/dpmc/rng"
)

// TestZigguratLayers checks the ziggurat's construction: every layer but
// the base is a strip of area v (width x_i, from f(x_i) up to f(x_{i−1}),
// the top one up to f(0) = 1), the base (rectangle plus the normal tail
// beyond r) has area v too, each to 1e-12, and r is Marsaglia and Tsang's
// 3.442619855899 to 11 decimals (theirs leave the top layer 1.2e-9 off).
func TestZigguratLayers(t *testing.T) {
	const tol = 1e-12
	f := func(x float64) float64 { return math.Exp(-x * x / 2) }
	x := func(i int) float64 { return Width(i) * Scale } // right edge of layer i ≥ 1
	if math.Abs(TailStart()-3.442619855899) > 1e-11 {
		t.Errorf("r = %.15g, want 3.442619855899", TailStart())
	}
	if math.Abs(x(Layers-1)-TailStart()) > 0 {
		t.Errorf("layer %d ends at %.15g, want r = %.15g", Layers-1, x(Layers-1), TailStart())
	}
	tail := math.Sqrt(math.Pi/2) * math.Erfc(TailStart()/math.Sqrt2)
	if got := TailStart()*f(TailStart()) + tail; math.Abs(got-LayerArea())/LayerArea() > tol {
		t.Errorf("base layer area %.15g, want %.15g", got, LayerArea())
	}
	for i := 1; i < Layers; i++ {
		top := 1.0
		if i > 1 {
			top = f(x(i - 1))
		}
		if got := x(i) * (top - f(x(i))); math.Abs(got-LayerArea())/LayerArea() > tol {
			t.Errorf("layer %d: area %.15g, want %.15g", i, got, LayerArea())
		}
	}
}

// TestNormalFitsCDF checks Normal against the standard normal CDF with
// 10⁵ draws at a fixed seed (see stattest.CheckSampler for the false-alarm
// rate), and that the draws beyond the tail start, which take the slow
// path, number about what the normal tail predicts (|z| < 4.5).
func TestNormalFitsCDF(t *testing.T) {
	const n = 100000
	r := rng.Seeded(11)
	beyond := 0
	stattest.CheckSampler(t, n, func() float64 {
		x := Normal(r.Uint64(), r)
		if math.Abs(x) > TailStart() {
			beyond++
		}
		return x
	}, func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }, 1)
	p := math.Erfc(TailStart() / math.Sqrt2)
	if z := (float64(beyond) - n*p) / math.Sqrt(n*p*(1-p)); math.Abs(z) > stattest.ZLimit {
		t.Errorf("%d draws beyond ±r, want about %.0f (z = %.2f)", beyond, n*p, z)
	}
}

// TestInsideAgreesWithNormal checks that Inside's value is Normal's for
// every word Inside accepts.
func TestInsideAgreesWithNormal(t *testing.T) {
	r := rng.Seeded(12)
	for range 100000 {
		u := r.Uint64()
		if x, ok := Inside(u); ok {
			if y := Normal(u, nil); x != y {
				t.Fatalf("word %#x: Inside %v, Normal %v", u, x, y)
			}
		}
	}
}

// TestInsideLimit checks InsideLimit against its definition, Inside and
// |value| ≤ a, for every layer at the positions around each bound (where
// an error would show) and at random words, for bounds a that cut layers
// (0.3, 1, 3, the paper's Huber shape 3.3), that cut none (40) and 0.
func TestInsideLimit(t *testing.T) {
	r := rng.Seeded(13)
	for _, a := range []float64{0, 0.3, 1, 3, 3.3, 40} {
		lim := Limits(a)
		check := func(u uint64) {
			x, ok := Inside(u)
			want := ok && math.Abs(x) <= a
			y, got := InsideLimit(u, &lim)
			if got != want || y != x {
				t.Fatalf("a = %g, word %#x (layer %d, position %d): InsideLimit %v, %v; want %v, %v", a, u, (u>>32)&(Layers-1), int32(u), y, got, x, want)
			}
		}
		for l := range uint64(Layers) {
			for _, d := range []int64{-2, -1, 0, 1} {
				j := int64(lim[l].Bound()) + d
				if j < 0 || j > math.MaxInt32 {
					continue
				}
				check(l<<32 | uint64(uint32(int32(j))))
				check(l<<32 | uint64(uint32(-int32(j))))
			}
		}
		for range 100000 {
			check(r.Uint64())
		}
	}
}

// TestLimitBound checks Limit's test uint32(j) + Off < Span against
// |j| < L at the positions where it could fail (both ends of int32, ±L,
// ±(L − 1)) for bounds from 0 to the largest a layer can have, and that
// Bound gives L back.
func TestLimitBound(t *testing.T) {
	for _, L := range []uint32{0, 1, 2, 3, 1 << 20, math.MaxInt32 - 1, math.MaxInt32, 1 << 31} {
		lim := limitOf(5, L)
		if lim.Bound() != L {
			t.Errorf("L = %d: Bound() = %d", L, lim.Bound())
		}
		for _, j := range []int64{math.MinInt32, math.MinInt32 + 1, -int64(L) - 1, -int64(L), -int64(L) + 1, -1, 0, 1, int64(L) - 1, int64(L), int64(L) + 1, math.MaxInt32 - 1, math.MaxInt32} {
			if j < math.MinInt32 || j > math.MaxInt32 {
				continue
			}
			want := j > -int64(L) && j < int64(L)
			if got := uint32(int32(j))+lim.Off < lim.Span; got != want {
				t.Errorf("L = %d, j = %d: accepted %v, want %v", L, j, got, want)
			}
		}
	}
}
