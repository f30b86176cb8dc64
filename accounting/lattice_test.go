package accounting

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
)

// bruteDelta returns δ(ε) of two releases by summing (P − e^ε Q)₊ over
// every pair of outputs in [−w, w]², with P and Q the pmf products of the
// noise and of the noise shifted by d.
func bruteDelta(logp func(int64) float64, w, d int64, eps float64) float64 {
	z := 0.0
	for y := -w - d; y <= w+d; y++ {
		z += math.Exp(logp(y))
	}
	p := func(y int64) float64 { return math.Exp(logp(y)) / z }
	delta := 0.0
	for y1 := -w; y1 <= w+d; y1++ {
		for y2 := -w; y2 <= w+d; y2++ {
			v := p(y1)*p(y2) - math.Exp(eps)*p(y1-d)*p(y2-d)
			if v > 0 {
				delta += v
			}
		}
	}
	return delta
}

func TestLatticeAgainstBruteForce(t *testing.T) {
	cases := []struct {
		name string
		pld  func() (*LatticePLD, error)
		logp func(int64) float64
		w, d int64
	}{
		{"laplace t=3 d=2", func() (*LatticePLD, error) { return DiscreteLaplacePLD(3, 2) },
			func(y int64) float64 { return -math.Abs(float64(y)) / 3 }, 120, 2},
		{"gaussian S=4 d=1", func() (*LatticePLD, error) { return DiscreteGaussianPLD(4, 1) },
			func(y int64) float64 { return -float64(y*y) / 8 }, 40, 1},
		{"gaussian S=10 d=3", func() (*LatticePLD, error) { return DiscreteGaussianPLD(10, 3) },
			func(y int64) float64 { return -float64(y*y) / 20 }, 60, 3},
		{"huber τ=3 a=6 d=2", func() (*LatticePLD, error) { return DiscreteHuberPLD(3, 6, 2) },
			func(y int64) float64 { return -huber.Loss(2, float64(y)/3) }, 120, 2},
		{"huber τ=4 a=1 d=3", func() (*LatticePLD, error) { return DiscreteHuberPLD(4, 1, 3) },
			func(y int64) float64 { return -huber.Loss(0.25, float64(y)/4) }, 400, 3},
	}
	for _, c := range cases {
		one, err := c.pld()
		if err != nil {
			t.Fatal(err)
		}
		two, err := one.Compose(2)
		if err != nil {
			t.Fatal(err)
		}
		for _, eps := range []float64{0, 0.1, 0.5, 1, 2} {
			want := bruteDelta(c.logp, c.w, c.d, eps)
			got := two.Delta(eps)
			if math.Abs(got-want) > 1e-9*want+1e-13 {
				t.Errorf("%s: 2-fold δ(%g) = %.15g, brute force %.15g", c.name, eps, got, want)
			}
		}
	}
}

// TestLatticePureEpsilon: for the pure mechanisms, one release has δ = 0
// exactly at the ε their Guarantee states and δ > 0 just below it.
func TestLatticePureEpsilon(t *testing.T) {
	for _, c := range []struct {
		pld *LatticePLD
		eps float64
	}{
		{must(DiscreteLaplacePLD(5, 3)), 3.0 / 5},
		{must(DiscreteHuberPLD(4, 8, 3)), 8.0 * 3 / 16},
		{must(DiscreteHuberPLD(10, 2, 7)), 2.0 * 7 / 100},
	} {
		if d := c.pld.Delta(c.eps); d > 1e-300 {
			t.Errorf("δ(ε₀ = %g) = %g, want 0", c.eps, d)
		}
		if d := c.pld.Delta(c.eps * 0.99); d <= 0 {
			t.Errorf("δ(0.99·ε₀ = %g) = %g, want > 0", c.eps, d)
		}
	}
}

// TestLatticeGaussianVsZCDP: the exact curve of one discrete Gaussian
// release must give at most δ at the ε of the zCDP conversion (which is a
// valid but looser bound), and be tighter than it.
func TestLatticeGaussianVsZCDP(t *testing.T) {
	for _, c := range []struct{ s, d int64 }{{100, 10}, {2500, 30}, {40000, 100}} {
		pld := must(DiscreteGaussianPLD(c.s, c.d))
		rho := float64(c.d*c.d) / (2 * float64(c.s))
		eps, err := discrete.ZCDPEpsilon(rho, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if d := pld.Delta(eps); d > 1e-6 || d < 1e-9 {
			t.Errorf("S=%d d=%d: exact δ(zCDP ε = %g) = %g, want in [1e-9, 1e-6]", c.s, c.d, eps, d)
		}
	}
}

func TestLatticeAgainstSampler(t *testing.T) {
	// The integer parameters the discrete mechanisms expose are the ones
	// the lattice PLDs take.
	m, err := discrete.NewHuber(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	tau, a := m.GridParams()
	if tau != a || new(big.Int).SetUint64(tau).BitLen() != 41 {
		t.Errorf("NewHuber(1, 1): τ = %d, a = %d, want equal 41-bit integers", tau, a)
	}
	if _, err := DiscreteHuberPLD(int64(tau), int64(a), 1); !errors.Is(err, check.ErrParam) {
		t.Errorf("production-size lattice: error %v, want ErrParam (too large to enumerate)", err)
	}
}

func TestLatticeBadArguments(t *testing.T) {
	for _, f := range []func() (*LatticePLD, error){
		func() (*LatticePLD, error) { return DiscreteLaplacePLD(0, 1) },
		func() (*LatticePLD, error) { return DiscreteLaplacePLD(3, -1) },
		func() (*LatticePLD, error) { return DiscreteGaussianPLD(0, 1) },
		func() (*LatticePLD, error) { return DiscreteHuberPLD(3, 0, 1) },
	} {
		if _, err := f(); !errors.Is(err, check.ErrParam) {
			t.Errorf("error %v, want ErrParam", err)
		}
	}
	if _, err := must(DiscreteLaplacePLD(3, 1)).Compose(0); err == nil {
		t.Error("Compose(0) succeeded")
	}
}

func must(l *LatticePLD, err error) *LatticePLD {
	if err != nil {
		panic(err)
	}
	return l
}

// TestComposeDiscreteMechanisms: the generic accountants take the discrete
// mechanisms through their per-release Guarantee (with the rounded
// sensitivity); basic composition is then exactly k times it; RDP and PLD
// apply.
func TestComposeDiscreteMechanisms(t *testing.T) {
	lap, _ := discrete.NewLaplace(2)
	hub, _ := discrete.NewHuber(1, 2)
	gau, _ := discrete.NewGaussian(5)
	for _, m := range []discrete.Mechanism{lap, hub, gau} {
		s, err := discrete.RoundedSensitivity(noise.Sensitivity{L1: 1, L2: 1}, 1, m.Granularity())
		if err != nil {
			t.Fatal(err)
		}
		tot, err := Compose(m, s, 10, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		b := tot.ByName(NameBasic)
		if b == nil {
			t.Fatalf("%s: no basic composition: %v", m, tot.NotApplicable)
		}
		// RDP applies to every discrete mechanism (the discrete Gaussian's
		// Rényi curve, or the pure-ε bounds; at 10 releases of a pure
		// mechanism basic composition can still be tighter).
		r := tot.ByName(NameRDP)
		if r == nil {
			t.Fatalf("%s: no RDP accountant: %v", m, tot.NotApplicable)
		}
		if !(r.Epsilon > 0) || math.IsInf(r.Epsilon, 0) {
			t.Errorf("%s: RDP ε %v", m, r.Epsilon)
		}
		// PLD applies too (the pessimistic lattice distribution), never
		// looser than RDP here, except to the discrete Gaussian, whose
		// one-coordinate shift is not the worst case of a spread change
		// (ComposeDiscrete with n = 1 applies it).
		p := tot.ByName(NamePLD)
		if m == discrete.Mechanism(gau) {
			if p != nil || !strings.Contains(tot.NotApplicable[NamePLD], "several coordinates") {
				t.Errorf("discrete Gaussian: PLD %v, n/a %q", p, tot.NotApplicable[NamePLD])
			}
		} else if p == nil || p.Epsilon > r.Epsilon {
			t.Errorf("%s: PLD %v, RDP %v (n/a: %v)", m, p, r, tot.NotApplicable)
		}
		if m == discrete.Mechanism(gau) {
			// Never below the exact curve of the continuous Gaussian with
			// the same σ and Δ₂ composed 10 times (μ = √10·Δ₂/σ): the
			// Rényi curve is the continuous one, and RDP's conversion only
			// loosens it.
			exact, err := gaussian.Epsilon(1, math.Sqrt(10)*s.L2/gau.Sigma(), 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			if r.Epsilon < exact {
				t.Errorf("discrete Gaussian: RDP ε %v below the continuous exact %v", r.Epsilon, exact)
			}
			continue
		}
		g, _ := m.Guarantee(s, 0)
		if math.Abs(b.Epsilon-10*g.Epsilon) > 1e-12*b.Epsilon || b.Delta != 0 {
			t.Errorf("%s: basic %v, want 10 × %v", m, b, g)
		}
	}
}
