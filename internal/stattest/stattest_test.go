package stattest

import (
	"math"
	"testing"

	"github.com/dpmc/dpmc/rng"
)

func TestKolmogorovQ(t *testing.T) {
	// Reference values of the Kolmogorov distribution's survival function:
	// Q(0.5) and Q(1) to 16 digits, and the classic critical values 1.3581,
	// 1.6276 and 1.9495 for levels 0.05, 0.01 and 0.001.
	tests := []struct{ lambda, want float64 }{
		{0.5, 0.9639452436648751},
		{1.0, 0.2699996716773546},
		{1.3581, 0.05},
		{1.6276, 0.01},
		{1.9495, 0.001},
	}
	for _, tt := range tests {
		if got := KolmogorovQ(tt.lambda); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("KolmogorovQ(%v) = %v, want %v", tt.lambda, got, tt.want)
		}
	}
}

// TestKSDetectsWrongDistribution checks both directions at a fixed seed:
// uniforms fit the uniform CDF and do not fit a shifted one.
func TestKSDetectsWrongDistribution(t *testing.T) {
	r := rng.Seeded(7)
	x := make([]float64, 20000)
	for i := range x {
		x[i] = r.Float64()
	}
	uniform := func(v float64) float64 { return math.Min(1, math.Max(0, v)) }
	if _, p := KS(x, uniform); p < 1e-3 {
		t.Errorf("uniform samples rejected against their own CDF: p = %v", p)
	}
	shifted := func(v float64) float64 { return uniform(v - 0.02) }
	if _, p := KS(x, shifted); p > 1e-3 {
		t.Errorf("shifted CDF not rejected: p = %v", p)
	}
}

func TestMoments(t *testing.T) {
	mean, v, _, _ := Moments([]float64{1, 2, 3, 4})
	if mean != 2.5 || math.Abs(v-5.0/3) > 1e-15 {
		t.Errorf("Moments = %v, %v; want 2.5, 1.6667", mean, v)
	}
}
