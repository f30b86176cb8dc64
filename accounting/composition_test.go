package accounting

import (
	"math"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

func TestBasicIsKTimesEpsilon0(t *testing.T) {
	tests := []struct {
		m     noise.Mechanism
		s     noise.Sensitivity
		k     int
		eps0  float64
		delta float64 // of the Total
	}{
		{mustLaplace(t, 2), noise.Sensitivity{L1: 1}, 10, 0.5, 0},
		{mustLaplace(t, 0.1), noise.Sensitivity{L1: 3}, 7, 30, 0},
		{mustHuber(t, 3, 1), noise.Sensitivity{L1: 5}, 100, 15, 0},
		{mustHuber(t, 0.5, 2), noise.Sensitivity{L1: 1}, 1, 0.25, 0},
	}
	for _, tt := range tests {
		got, err := Basic(tt.m, tt.s, tt.k, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(tt.k) * tt.eps0; math.Abs(got.Epsilon-want) > 1e-12*want || got.Delta != tt.delta {
			t.Errorf("%v k=%d: basic = %v, want (%g, %g)", tt.m, tt.k, got, want, tt.delta)
		}
	}
	// The Gaussian spends δ/k per release at the analytic ε₀.
	g, _ := gaussian.New(4)
	got, err := Basic(g, noise.Sensitivity{L2: 1}, 20, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	eps0, _ := gaussian.Epsilon(4, 1, 1e-5/20)
	if math.Abs(got.Epsilon-20*eps0) > 1e-12 || got.Delta != 1e-5 {
		t.Errorf("gaussian basic = %v, want (%g, 1e-5)", got, 20*eps0)
	}
}

// TestAdvancedOrdering: for pure mechanisms the optimal theorem (KOV) is
// never worse than DRV, which is never worse than basic composition.
func TestAdvancedOrdering(t *testing.T) {
	for _, eps0 := range []float64{0.01, 0.1, 0.5, 1, 3} {
		for _, k := range []int{1, 2, 10, 100, 1000, 10000} {
			for _, delta := range []float64{1e-3, 1e-6, 1e-10} {
				m := mustLaplace(t, 1/eps0)
				s := noise.Sensitivity{L1: 1}
				b, err1 := Basic(m, s, k, delta)
				d, err2 := DRV(m, s, k, delta)
				o, err3 := KOV(m, s, k, delta)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatal(err1, err2, err3)
				}
				if !(o.Epsilon <= d.Epsilon && d.Epsilon <= b.Epsilon) {
					t.Errorf("ε₀=%g k=%d δ=%g: KOV %g, DRV %g, basic %g: want KOV ≤ DRV ≤ basic", eps0, k, delta, o.Epsilon, d.Epsilon, b.Epsilon)
				}
				// The advanced theorems must actually help for many small steps.
				if k >= 1000 && eps0 <= 0.1 && !(o.Epsilon < 0.5*b.Epsilon) {
					t.Errorf("ε₀=%g k=%d δ=%g: KOV %g is not well below basic %g", eps0, k, delta, o.Epsilon, b.Epsilon)
				}
			}
		}
	}
}

// TestKOVSingleRelease: for k = 1 the theorem's δ(ε) is
// (e^{ε₀} − e^ε)/(1 + e^{ε₀}) (randomized response), so ε is just below ε₀.
func TestKOVSingleRelease(t *testing.T) {
	for _, eps0 := range []float64{0.1, 1, 5} {
		for _, delta := range []float64{1e-3, 1e-8} {
			got, _ := kovEpsilon(func() error { return nil }, eps0, 1, delta)
			want := math.Log(math.Exp(eps0) - delta*(1+math.Exp(eps0)))
			if math.Abs(got-want) > 1e-10 {
				t.Errorf("ε₀=%g δ=%g: KOV ε = %.15g, want %.15g", eps0, delta, got, want)
			}
			if got > eps0 || eps0-got > 2*delta*(1+math.Exp(-eps0)) {
				t.Errorf("ε₀=%g δ=%g: KOV ε = %g, want ε₀ up to O(δ)", eps0, delta, got)
			}
		}
		if d, _ := KOVDelta(eps0, 1, eps0); d != 0 {
			t.Errorf("δ(ε₀) = %g for k = 1, want 0", d)
		}
	}
}

// TestKOVDeltaAgainstEnumeration checks the log-space sum against direct
// enumeration of k-fold randomized response in linear space.
func TestKOVDeltaAgainstEnumeration(t *testing.T) {
	for _, eps0 := range []float64{0.2, 1} {
		for _, k := range []int{1, 3, 8, 20} {
			p := math.Exp(eps0) / (1 + math.Exp(eps0))
			for _, eps := range []float64{0, 0.3, 1.1, float64(k) * eps0 / 2} {
				// l = number of releases that came out "against" P.
				want := 0.0
				for l := 0; l <= k; l++ {
					pl := math.Exp(lchoose(k, l)) * math.Pow(p, float64(k-l)) * math.Pow(1-p, float64(l))
					ql := math.Exp(lchoose(k, l)) * math.Pow(1-p, float64(k-l)) * math.Pow(p, float64(l))
					want += math.Max(pl-math.Exp(eps)*ql, 0)
				}
				got, err := KOVDelta(eps0, k, eps)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-12+1e-10*want {
					t.Errorf("ε₀=%g k=%d ε=%g: δ = %.15g, want %.15g", eps0, k, eps, got, want)
				}
			}
		}
	}
}

// TestKOVLargeK: the truncated sum handles k in the millions quickly and
// agrees with the central limit: for small ε₀, k-fold composition behaves
// like a Gaussian mechanism with μ = √k·ε₀ (Dong, Roth & Su 2022).
func TestKOVLargeK(t *testing.T) {
	eps0, k := 0.001, 1_000_000
	got, _ := kovEpsilon(func() error { return nil }, eps0, k, 1e-6)
	clt, _ := gaussian.Epsilon(1, math.Sqrt(float64(k))*eps0, 1e-6)
	if math.Abs(got-clt) > 0.01*clt {
		t.Errorf("KOV ε = %g, want ≈ %g (CLT)", got, clt)
	}
}

func TestApproximateDPComposition(t *testing.T) {
	// For the Gaussian mechanism KOV and DRV use δ₀ = δ/(2k) per release;
	// KOV is optimal for the same (ε₀, δ₀), so KOV ≤ DRV.
	for _, sigma := range []float64{1, 5, 50} {
		for _, k := range []int{1, 10, 1000} {
			m, _ := gaussian.New(sigma)
			s := noise.Sensitivity{L2: 1}
			d, err1 := DRV(m, s, k, 1e-6)
			o, err2 := KOV(m, s, k, 1e-6)
			b, err3 := Basic(m, s, k, 1e-6)
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatal(err1, err2, err3)
			}
			if o.Epsilon > d.Epsilon || d.Epsilon > b.Epsilon || o.Delta != 1e-6 || d.Delta != 1e-6 {
				t.Errorf("σ=%g k=%d: KOV %v, DRV %v, basic %v", sigma, k, o, d, b)
			}
		}
	}
}

func mustLaplace(t testing.TB, b float64) *laplace.Mechanism {
	t.Helper()
	m, err := laplace.New(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustHuber(t testing.TB, alpha, s float64) *huber.Mechanism {
	t.Helper()
	m, err := huber.New(alpha, s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustGaussian(t testing.TB, sigma float64) *gaussian.Mechanism {
	t.Helper()
	m, err := gaussian.New(sigma)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
