package accounting

import (
	"math"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
)

// TestPLDLaplaceExact compares the PLD accountant with the exact privacy
// curve of k-fold Laplace noise (laplaceExactDelta): δ(ε) never below the
// truth and the ε at a target δ above it by less than 1e-5·(1 + ε).
func TestPLDLaplaceExact(t *testing.T) {
	tests := []struct {
		b float64 // scale; Δ₁ = 1, so ε₀ = 1/b
		k int
	}{
		{1, 1}, {1, 2}, {2, 5}, {1, 10}, {10, 10}, {0.5, 3},
	}
	for _, tt := range tests {
		m := mustLaplace(t, tt.b)
		s := noise.Sensitivity{L1: 1}
		d, k := 1/tt.b, tt.k
		top := float64(k) * d
		for _, f := range []float64{0, 0.2, 0.5, 0.9, 0.999} {
			eps := f * top
			got, err := PLDDelta(m, s, k, eps)
			if err != nil {
				t.Fatal(err)
			}
			want := laplaceExactDelta(d, k, eps)
			if got < want*(1-1e-12)-1e-15 || got > want*(1+1e-3)+1e-12 {
				t.Errorf("b=%g k=%d ε=%g: PLD δ = %.12g, exact %.12g", tt.b, k, eps, got, want)
			}
		}
		for _, delta := range []float64{1e-2, 1e-5, 1e-9} {
			got, err := PLD(m, s, k, delta)
			if err != nil {
				t.Fatal(err)
			}
			want := invertDelta(func(e float64) float64 { return laplaceExactDelta(d, k, e) }, delta, top)
			if got.Epsilon < want-1e-9 || got.Epsilon > want+1e-5*(1+want) {
				t.Errorf("b=%g k=%d δ=%g: PLD ε = %.12g, exact %.12g", tt.b, k, delta, got.Epsilon, want)
			}
		}
	}
}

// TestPLDGaussianExact: k releases of N(0, σ²) are exactly one release with
// sensitivity √k·Δ₂, whose curve is the analytic one of Balle & Wang.
func TestPLDGaussianExact(t *testing.T) {
	for _, c := range []struct {
		sigma float64
		k     int
	}{{0.5, 1}, {2, 7}, {0.5, 1000}, {10, 1000}, {100, 30000}} {
		sigma, k := c.sigma, c.k
		{
			m := mustGaussian(t, sigma)
			s := noise.Sensitivity{L2: 1}
			for _, delta := range []float64{1e-3, 1e-6, 1e-12} {
				got, err := PLD(m, s, k, delta)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := gaussian.Epsilon(sigma, math.Sqrt(float64(k)), delta)
				if got.Epsilon < want || got.Epsilon > want*(1+1e-3)+1e-9 {
					t.Errorf("σ=%g k=%d δ=%g: PLD ε = %.10g, exact %.10g", sigma, k, delta, got.Epsilon, want)
				}
			}
			for _, eps := range []float64{0.1, 1, 5} {
				got, err := PLDDelta(m, s, k, eps)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := gaussian.Delta(sigma, math.Sqrt(float64(k)), eps)
				if got < want || got > want*(1+1e-3)+1e-15 {
					t.Errorf("σ=%g k=%d ε=%g: PLD δ = %.10g, exact %.10g", sigma, k, eps, got, want)
				}
			}
		}
	}
}

// TestPLDPublishedGaussian reproduces the number in Google's dp_accounting
// test suite (privacy_loss_distribution_test.py,
// test_self_composition_truncation): 400 releases of the Gaussian mechanism
// with σ = 20 are like one with σ = 1, and δ(ε = 3) = 0.00153 to four
// decimals (their assertAlmostEqual(…, 4)). The analytic value is
// 0.0015372.
func TestPLDPublishedGaussian(t *testing.T) {
	got, err := PLDDelta(mustGaussian(t, 20), noise.Sensitivity{L2: 1}, 400, 3)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := gaussian.Delta(1, 1, 3)
	if math.Abs(got-0.00153) >= 0.5e-4 || got < exact || got > exact*(1+1e-4) {
		t.Errorf("δ(3) = %.6g, want 0.00153 (analytic %.6g)", got, exact)
	}
}

// TestPLDHuberSingleRelease checks the Huber PLD against the privacy curve
// of one release computed directly from the noise CDF, and against the RDP
// bound: δ(ε) from one release at order α is at most the Chernoff-type
// bound implied by the Rényi divergence.
func TestPLDHuberSingleRelease(t *testing.T) {
	for _, alpha := range []float64{0.2, 1, 3} {
		for _, scale := range []float64{0.5, 2} {
			m := mustHuber(t, alpha, scale)
			s := noise.Sensitivity{L1: 1}
			nz, _ := huberNoise(alpha, 1/scale)
			eps0 := alpha / scale
			for _, f := range []float64{0, 0.3, 0.7, 0.95} {
				eps := f * eps0
				want := exactSingleDelta(nz, eps)
				got, err := PLDDelta(m, s, 1, eps)
				if err != nil {
					t.Fatal(err)
				}
				if got < want*(1-1e-12) || got > want*(1+1e-4)+1e-14 {
					t.Errorf("α=%g s=%g ε=%g: PLD δ = %.12g, direct %.12g", alpha, scale, eps, got, want)
				}
			}
		}
	}
}

// TestPLDBelowOtherAccountants: PLD is the tightest, RDP next, for many
// releases of each mechanism.
func TestPLDBelowOtherAccountants(t *testing.T) {
	s := noise.Sensitivity{L1: 1, L2: 1}
	for _, m := range []noise.Mechanism{mustLaplace(t, 3), mustGaussian(t, 4), mustHuber(t, 1, 3)} {
		for _, k := range []int{10, 300} {
			tot, err := Compose(m, s, k, 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			best, _ := tot.Tightest()
			if best.Accountant != NamePLD {
				t.Errorf("%v k=%d: tightest is %v, want pld", m, k, best)
			}
			for _, other := range []*Total{tot.Basic, tot.AdvancedKOV, tot.AdvancedDRV, tot.RDP} {
				if other.Epsilon < tot.PLD.Epsilon {
					t.Errorf("%v k=%d: %v below %v", m, k, other, tot.PLD)
				}
			}
		}
	}
}

// exactSingleDelta is δ(ε) of one release straight from the noise CDF:
// P(L > ε) − e^ε·Q(L > ε), with {L > ε} = {T < crossing}.
func exactSingleDelta(n *unitNoise, eps float64) float64 {
	l := n.loss()
	lmin, lmax := lossRange(l)
	c := crossing(l, lmin, lmax, eps)
	pl, _ := n.cdf(c)
	ql, _ := n.cdf(c - n.d)
	return math.Max(pl-math.Exp(eps)*ql, 0)
}

// TestLossFunctions checks the piecewise representation of the log
// densities against the mechanisms' own LogPDF.
func TestLossFunctions(t *testing.T) {
	for _, alpha := range []float64{0.1, 1, 3} {
		nz, _ := huberNoise(alpha, 0.7)
		m := mustHuber(t, alpha, 1)
		for _, x := range []float64{-9, -alpha - 0.1, -alpha / 2, 0, 0.3, alpha + 0.01, 12} {
			got := -nz.rho.at(x) - nz.logZ
			if want := m.LogPDF(x); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("huber α=%g: log p(%g) = %.15g, want %.15g", alpha, x, got, want)
			}
			if l, want := nz.loss().at(x), m.LogPDF(x)-m.LogPDF(x-0.7); math.Abs(l-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("huber α=%g: L(%g) = %.15g, want %.15g", alpha, x, l, want)
			}
		}
	}
	lm, gm := mustLaplace(t, 1), mustGaussian(t, 1)
	ln, gn := laplaceNoise(0.7), gaussianNoise(0.7)
	for _, x := range []float64{-3, -0.2, 0, 0.5, 4} {
		if got, want := -ln.rho.at(x)-ln.logZ, lm.LogPDF(x); math.Abs(got-want) > 1e-14 {
			t.Errorf("laplace log p(%g) = %g, want %g", x, got, want)
		}
		if got, want := -gn.rho.at(x)-gn.logZ, gm.LogPDF(x); math.Abs(got-want) > 1e-14 {
			t.Errorf("gaussian log p(%g) = %g, want %g", x, got, want)
		}
	}
}

// TestCrossing: crossing inverts the loss on every piece, including the
// quadratic ones of the Huber loss, and handles the plateaus.
func TestCrossing(t *testing.T) {
	for _, c := range []struct{ alpha, d float64 }{{1, 0.5}, {1, 3}, {0.2, 10}} {
		nz, _ := huberNoise(c.alpha, c.d)
		l := nz.loss()
		lmin, lmax := lossRange(l)
		if lmax != c.alpha*c.d || lmin != -c.alpha*c.d {
			t.Errorf("α=%g d=%g: range [%g, %g], want ±%g", c.alpha, c.d, lmin, lmax, c.alpha*c.d)
		}
		for _, f := range []float64{-0.99, -0.5, 0, 0.4, 0.9, 0.999} {
			eps := f * lmax
			x := crossing(l, lmin, lmax, eps)
			if got := l.at(x); math.Abs(got-eps) > 1e-12*(1+lmax) {
				t.Errorf("α=%g d=%g: L(crossing(%g)) = %g", c.alpha, c.d, eps, got)
			}
		}
		if x := crossing(l, lmin, lmax, lmax); !math.IsInf(x, -1) {
			t.Errorf("crossing(ε₀) = %g, want −Inf", x)
		}
		if x := crossing(l, lmin, lmax, lmin-1); !math.IsInf(x, 1) {
			t.Errorf("crossing(below range) = %g, want +Inf", x)
		}
	}
}

// TestPLDExtremes: tiny and huge noise relative to the sensitivity, and δ
// close to 1 (where the answer lies below the bulk of the composed
// distribution), against the exact Gaussian and the pure-DP bound.
func TestPLDExtremes(t *testing.T) {
	for _, c := range []struct {
		sigma float64
		k     int
		delta float64
	}{
		{1e-6, 3, 1e-5}, {1e6, 3, 1e-5}, {1e90, 1, 1e-5}, {3, 200, 0.5}, {3, 200, 0.95}, {0.2, 1, 0.999},
	} {
		got, err := PLD(mustGaussian(t, c.sigma), noise.Sensitivity{L2: 1}, c.k, c.delta)
		if err != nil {
			t.Fatalf("σ=%g: %v", c.sigma, err)
		}
		// gaussian.Epsilon stops at ε = 1e12; invert the exact profile here.
		l2 := math.Sqrt(float64(c.k))
		want := invertDelta(func(e float64) float64 { d, _ := gaussian.Delta(c.sigma, l2, e); return d }, c.delta, 1e14)
		if got.Epsilon < want*(1-1e-12) || got.Epsilon > want*(1+1e-3)+1e-12 {
			t.Errorf("σ=%g k=%d δ=%g: PLD ε = %.10g, exact %.10g", c.sigma, c.k, c.delta, got.Epsilon, want)
		}
	}
	for _, b := range []float64{1e-6, 1e6} {
		tot, err := Compose(mustLaplace(t, b), noise.Sensitivity{L1: 1}, 5, 1e-6)
		if err != nil {
			t.Fatalf("b=%g: %v", b, err)
		}
		best, _ := tot.Tightest()
		if eps0 := 1 / b; best.Epsilon > 5*eps0 || (b < 1 && best.Epsilon < 5*eps0*(1-1e-6)) {
			t.Errorf("b=%g: tightest %v, basic 5ε₀ = %g", b, best, 5*eps0)
		}
	}
	if _, err := Compose(mustLaplace(t, 1e-100), noise.Sensitivity{L1: 1e300}, 1e9, 1e-6); err == nil {
		t.Error("overflowing ε gave no error")
	}
}

// TestPLDGaussianExactLargeK: at the paper report's k = 685 000 (and
// 34 250) the grid is capped (pldMaxGrowth), so h grows like √k; the PLD ε
// must still be at least the exact one (K releases at μ₀ are one at
// √K·μ₀) and within 1e-3 of it (measured: at most 4.6e-4 at k = 685 000,
// 2.4e-5 at k = 34 250). The δ of PLDDelta likewise.
func TestPLDGaussianExactLargeK(t *testing.T) {
	if testing.Short() {
		t.Skip("composes 685 000 releases")
	}
	for _, k := range []int{34250, 685000} {
		for _, sigma := range []float64{100, 1000} {
			m := mustGaussian(t, sigma)
			s := noise.Sensitivity{L2: 1}
			for _, delta := range []float64{1e-6, 1e-12} {
				got, err := PLD(m, s, k, delta)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := gaussian.Epsilon(sigma, math.Sqrt(float64(k)), delta)
				if got.Epsilon < want || got.Epsilon > want*(1+1e-3) {
					t.Errorf("σ=%g k=%d δ=%g: PLD ε = %.10g, exact %.10g", sigma, k, delta, got.Epsilon, want)
				}
			}
			eps, _ := gaussian.Epsilon(sigma, math.Sqrt(float64(k)), 1e-6)
			got, err := PLDDelta(m, s, k, eps)
			if err != nil {
				t.Fatal(err)
			}
			if want := 1e-6; got < want*(1-1e-9) || got > want*1.1 {
				t.Errorf("σ=%g k=%d ε=%g: PLD δ = %.10g, exact %g", sigma, k, eps, got, want)
			}
		}
	}
}

// TestPLDMemoryBounded: the FFT of the PLD accountant has at most 2¹⁹
// points (about 20 MiB of buffers) however many releases are composed, for
// the continuous and the discrete Huber at the paper report's sensitivity.
func TestPLDMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("composes up to 10⁷ releases")
	}
	dh, err := discrete.NewHuber(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := discrete.RoundedSensitivity(noise.Sensitivity{L1: 5, L2: 5}, 32, dh.Granularity())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m noise.Mechanism
		s noise.Sensitivity
	}{{mustGaussian(t, 100), noise.Sensitivity{L2: 1}}, {mustHuber(t, 3, 1), noise.Sensitivity{L1: 5}}, {dh, rs}} {
		for _, k := range []int{1000, 34250, 685000, 10_000_000} {
			md, err := prepare(c.m, c.s, k)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := md.pldParts(k)
			if err != nil {
				t.Fatal(err)
			}
			for _, theta := range []float64{0, chernoffTilt(parts, 1e-6)} {
				cp, err := compose(parts, theta)
				if err != nil {
					t.Fatal(err)
				}
				if n := len(cp.w); n > 1<<19 {
					t.Errorf("%s k=%d θ=%g: FFT of %d points, want ≤ 2¹⁹", c.m, k, theta, n)
				}
			}
		}
	}
}
