package discrete

import (
	"math"
	"testing"
)

// LogPMF sums to 1 (checked by direct summation where the support is
// small enough to sum) and matches the sampler's ratios P(k+1)/P(k).
func TestLogPMFNormalized(t *testing.T) {
	for _, tc := range []struct {
		name  string
		logp  func(int64) float64
		limit int64
	}{
		{"gaussian S=1", (&Gaussian{s: 1}).LogPMF, 60},
		{"gaussian S=3", (&Gaussian{s: 3}).LogPMF, 80},
		{"gaussian S=50", (&Gaussian{s: 50}).LogPMF, 400},
		{"laplace t=1", (&Laplace{t: 1}).LogPMF, 200},
		{"laplace t=7", (&Laplace{t: 7}).LogPMF, 2000},
	} {
		var sum float64
		for k := -tc.limit; k <= tc.limit; k++ {
			sum += math.Exp(tc.logp(k))
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: pmf sums to %.15g", tc.name, sum)
		}
	}
	// Huber at a small τ: the continuous normalizer is close, and the
	// ratios are exact.
	h := &Huber{tau: 64, a: 64}
	var sum float64
	for j := int64(-64 * 40); j <= 64*40; j++ {
		sum += math.Exp(h.LogPMF(j))
	}
	if math.Abs(sum-1) > 1e-3 {
		t.Errorf("huber τ = 64: pmf sums to %.15g", sum)
	}
	if d := h.LogPMF(0) - h.LogPMF(64); math.Abs(d-0.5) > 1e-12 {
		t.Errorf("huber α = 1: log P(0)/P(τ) = %g, want ρ(1) = 0.5", d)
	}
	if d := h.LogPMF(128) - h.LogPMF(192); math.Abs(d-1) > 1e-12 {
		t.Errorf("huber α = 1: log P(2τ)/P(3τ) = %g, want α·1 = 1", d)
	}
}
