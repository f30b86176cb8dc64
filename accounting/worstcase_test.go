package accounting

import (
	"testing"
)

// The accountants treat the ℓ1 worst case of Laplace and Huber noise as a
// shift of the whole sensitivity Δ₁ in one coordinate. These tests check
// numerically that spreading Δ₁ over 2–4 coordinates (noise i.i.d. per
// coordinate, so the divergences add and the privacy-loss distributions
// convolve) never gives a larger Rényi divergence or privacy curve. The
// finding is recorded in doc.go.

var worstCaseSplits = [][]float64{
	{0.5, 0.5}, {0.7, 0.3}, {0.9, 0.1},
	{1. / 3, 1. / 3, 1. / 3}, {0.5, 0.25, 0.25},
	{0.25, 0.25, 0.25, 0.25},
}

// splitNoise returns the per-coordinate noises for a split of the
// unit-scale shift d.
func splitNoise(t *testing.T, alpha, d float64, split []float64) []*unitNoise {
	t.Helper()
	var out []*unitNoise
	for _, f := range split {
		var nz *unitNoise
		if alpha == 0 {
			nz = laplaceNoise(d * f)
		} else {
			var err error
			if nz, err = huberNoise(alpha, d*f); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, nz)
	}
	return out
}

// TestL1WorstCaseRenyi: Σ_i D_order(d_i) ≤ D_order(Σ d_i) for Huber (and
// Laplace, α = 0 here) at every order of the RDP grid.
func TestL1WorstCaseRenyi(t *testing.T) {
	for _, alpha := range []float64{0, 0.05, 0.3, 1, 3, 10} {
		for _, d := range []float64{0.05, 0.3, 1, 3, 10} {
			single := splitNoise(t, alpha, d, []float64{1})[0]
			for _, order := range Orders() {
				whole, err := single.renyiNumeric(order)
				if err != nil {
					t.Fatal(err)
				}
				for _, split := range worstCaseSplits {
					sum := 0.0
					for _, nz := range splitNoise(t, alpha, d, split) {
						r, err := nz.renyiNumeric(order)
						if err != nil {
							t.Fatal(err)
						}
						sum += r
					}
					if sum > whole {
						t.Errorf("α=%g d=%g order %g split %v: Σ D = %.12g > D(whole) = %.12g", alpha, d, order, split, sum, whole)
					}
				}
			}
		}
	}
}

// TestL1WorstCasePLD: the pessimistic PLD of the split (an upper bound on
// its true privacy curve) is below the exact curve of the single shift, at
// every ε where that is at least 1e-9 — a certificate, not an estimate.
func TestL1WorstCasePLD(t *testing.T) {
	for _, alpha := range []float64{0, 0.05, 0.3, 1, 3, 10} {
		for _, d := range []float64{0.05, 0.3, 1, 3, 10} {
			single := splitNoise(t, alpha, d, []float64{1})[0]
			_, eps0 := lossRange(single.loss())
			h := eps0 / 2048
			for _, split := range worstCaseSplits {
				var parts []part
				for _, nz := range splitNoise(t, alpha, d, split) {
					m, err := nz.discretize(h)
					if err != nil {
						t.Fatal(err)
					}
					m.summarize(len(split))
					parts = append(parts, part{m, 1})
				}
				c, err := compose(parts, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range []float64{0, 0.1, 0.3, 0.5, 0.8, 0.95, 0.99} {
					eps := f * eps0
					whole := exactSingleDelta(single, eps)
					if whole < 1e-9 {
						continue
					}
					if got := c.delta(eps); got > whole {
						t.Errorf("α=%g d=%g ε=%g split %v: δ = %.10g > δ(whole) = %.10g", alpha, d, eps, split, got, whole)
					}
				}
			}
		}
	}
}
