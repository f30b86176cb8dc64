package accounting

import (
	"errors"
	"math"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// smallLattice is a discrete mechanism at a grid small enough for the
// exact LatticePLD: the pessimistic distribution and the exact one.
type smallLattice struct {
	name  string
	noise func() (*latticeNoise, error)
	exact func() (*LatticePLD, error)
	big   bool // too many points for a fast exact 4-fold convolution
}

func smallLattices() []smallLattice {
	return []smallLattice{
		{"laplace t=4 d=4", func() (*latticeNoise, error) { return discreteLaplaceNoise(4, 4) }, func() (*LatticePLD, error) { return DiscreteLaplacePLD(4, 4) }, false},
		{"laplace t=20 d=10", func() (*latticeNoise, error) { return discreteLaplaceNoise(20, 10) }, func() (*LatticePLD, error) { return DiscreteLaplacePLD(20, 10) }, false},
		{"laplace t=50 d=100", func() (*latticeNoise, error) { return discreteLaplaceNoise(50, 100) }, func() (*LatticePLD, error) { return DiscreteLaplacePLD(50, 100) }, false},
		{"gaussian S=25 d=5", func() (*latticeNoise, error) { return discreteGaussianNoise(25, 5) }, func() (*LatticePLD, error) { return DiscreteGaussianPLD(25, 5) }, false},
		{"gaussian S=400 d=20", func() (*latticeNoise, error) { return discreteGaussianNoise(400, 20) }, func() (*LatticePLD, error) { return DiscreteGaussianPLD(400, 20) }, true},
		{"gaussian S=2500 d=10", func() (*latticeNoise, error) { return discreteGaussianNoise(2500, 10) }, func() (*LatticePLD, error) { return DiscreteGaussianPLD(2500, 10) }, true},
		{"gaussian S=10000 d=20", func() (*latticeNoise, error) { return discreteGaussianNoise(10000, 20) }, func() (*LatticePLD, error) { return DiscreteGaussianPLD(10000, 20) }, true},
		{"huber τ=10 a=10 d=10", func() (*latticeNoise, error) { return discreteHuberNoise(10, 10, 10) }, func() (*LatticePLD, error) { return DiscreteHuberPLD(10, 10, 10) }, false},
		{"huber τ=20 a=5 d=20", func() (*latticeNoise, error) { return discreteHuberNoise(20, 5, 20) }, func() (*LatticePLD, error) { return DiscreteHuberPLD(20, 5, 20) }, false},
		{"huber τ=30 a=90 d=15", func() (*latticeNoise, error) { return discreteHuberNoise(30, 90, 15) }, func() (*LatticePLD, error) { return DiscreteHuberPLD(30, 90, 15) }, false},
		{"huber τ=200 a=400 d=100", func() (*latticeNoise, error) { return discreteHuberNoise(200, 400, 100) }, func() (*LatticePLD, error) { return DiscreteHuberPLD(200, 400, 100) }, true},
	}
}

// pessimisticDelta composes the pessimistic distribution of n k times on
// the grid of width h and returns δ̂(ε) at each ε and the +∞ atom of one
// release. With tilt it composes once per ε, tilted for precision there;
// else once, untilted.
func pessimisticDelta(t *testing.T, n *latticeNoise, h float64, ctd, tilt bool, k int, eps []float64) ([]float64, float64) {
	t.Helper()
	m, err := n.pessimistic(h, ctd)
	if err != nil {
		t.Fatal(err)
	}
	m.summarize(k)
	parts := []part{{m, k}}
	out := make([]float64, len(eps))
	var c *composed
	for i, e := range eps {
		if tilt || c == nil {
			theta := 0.0
			if tilt {
				theta = saddle(parts, e)
			}
			if c, err = compose(parts, theta); err != nil {
				t.Fatal(err)
			}
		}
		out[i] = c.delta(e)
	}
	return out, m.inf
}

// TestDiscretePLDAgainstLattice: on small grids the pessimistic
// distribution, rounded up or connected, composed by FFT, is never below
// the exact lattice δ(ε) (brute-force convolution of LatticePLD) and at
// most the exact δ(ε − k·h) plus the +∞ atoms and the FFT error: rounding
// up moves each release's loss up by less than one bucket width h.
func TestDiscretePLDAgainstLattice(t *testing.T) {
	eps := []float64{0, 0.1, 0.25, 0.5, 1, 2, 4}
	for _, c := range smallLattices() {
		n, err := c.noise()
		if err != nil {
			t.Fatal(err)
		}
		one, err := c.exact()
		if err != nil {
			t.Fatal(err)
		}
		ks := []int{1, 4}
		if c.big {
			ks = ks[:1]
		}
		for _, k := range ks {
			exact, err := one.Compose(k)
			if err != nil {
				t.Fatal(err)
			}
			h, err := n.grid(k)
			if err != nil {
				t.Fatal(err)
			}
			for _, ctd := range []bool{false, true} {
				got, inf := pessimisticDelta(t, n, h, ctd, true, k, eps)
				if inf > 1e-13 {
					t.Errorf("%s: +∞ atom %g of one release, want ≤ 1e-13", c.name, inf)
				}
				for i, e := range eps {
					lo := exact.Delta(e)
					hi := exact.Delta(e-float64(k)*h) + float64(k)*inf + 1e-12
					if got[i] < lo*(1-1e-10) || got[i] > hi {
						t.Errorf("%s k=%d ctd=%v ε=%g: δ̂ = %.12g, want in [exact δ(ε) = %.12g, exact δ(ε − kh) + slack = %.12g] (h = %g)",
							c.name, k, ctd, e, got[i], lo, hi, h)
					}
				}
			}
		}
	}
}

// TestDiscretePLDMonotone: table-driven checks that could fail if the
// construction understated: δ̂(ε) is non-increasing in ε and
// non-decreasing in the shift d, and the accountant's ε at a target δ is
// never below the exact lattice ε (the smallest ε with exact δ(ε) ≤ δ,
// found by bisection).
func TestDiscretePLDMonotone(t *testing.T) {
	type build func(d int64) (*latticeNoise, *LatticePLD, error)
	cases := []struct {
		name string
		b    build
	}{
		{"laplace t=10", func(d int64) (*latticeNoise, *LatticePLD, error) {
			n, err := discreteLaplaceNoise(10, d)
			if err != nil {
				return nil, nil, err
			}
			e, err := DiscreteLaplacePLD(10, d)
			return n, e, err
		}},
		{"gaussian S=100", func(d int64) (*latticeNoise, *LatticePLD, error) {
			n, err := discreteGaussianNoise(100, d)
			if err != nil {
				return nil, nil, err
			}
			e, err := DiscreteGaussianPLD(100, d)
			return n, e, err
		}},
		{"huber τ=10 a=15", func(d int64) (*latticeNoise, *LatticePLD, error) {
			n, err := discreteHuberNoise(10, 15, d)
			if err != nil {
				return nil, nil, err
			}
			e, err := DiscreteHuberPLD(10, 15, d)
			return n, e, err
		}},
	}
	eps := []float64{0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2}
	for _, c := range cases {
		for _, k := range []int{1, 4} {
			var prev []float64
			for _, d := range []int64{2, 4, 8} {
				n, ex, err := c.b(d)
				if err != nil {
					t.Fatal(err)
				}
				// A common grid for every d, so that only d changes.
				base, _, _ := c.b(2)
				h, err := base.grid(k)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := pessimisticDelta(t, n, h, true, false, k, eps)
				for i := 1; i < len(got); i++ {
					if got[i] > got[i-1] {
						t.Errorf("%s d=%d k=%d: δ̂(%g) = %g > δ̂(%g) = %g", c.name, d, k, eps[i], got[i], eps[i-1], got[i-1])
					}
				}
				for i := range prev {
					if got[i] < prev[i]*(1-1e-9)-1e-10 {
						t.Errorf("%s k=%d ε=%g: δ̂ = %g at d=%d below %g at a smaller shift", c.name, k, eps[i], got[i], d, prev[i])
					}
				}
				prev = got
				parts, err := n.pldParts(k)
				if err != nil {
					t.Fatal(err)
				}
				exk, err := ex.Compose(k)
				if err != nil {
					t.Fatal(err)
				}
				for _, delta := range []float64{1e-2, 1e-5, 1e-9} {
					e, ok, err := pldEpsilon(parts, delta)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						continue // the pure fallback k·ε₀ is then used
					}
					lo, hi := 0.0, 100.0
					for range 100 {
						mid := (lo + hi) / 2
						if exk.Delta(mid) > delta {
							lo = mid
						} else {
							hi = mid
						}
					}
					if e < lo {
						t.Errorf("%s d=%d k=%d δ=%g: PLD ε %.10g below the exact %.10g", c.name, d, k, delta, e, lo)
					}
				}
			}
		}
	}
}

// TestDiscretePLDConvergesToContinuous: at the grids package discrete
// chooses (2⁴⁰ points per Laplace or Huber scale, S ≈ 2⁵⁶ for the
// Gaussian) the lattice accountant at the rounded sensitivity approaches
// the continuous mechanism's PLD at the unrounded one from above: δ(ε) is
// never below the continuous δ(ε) by more than 1e-9 relative (both are
// computed in floating point; the rounding adds about 2⁻⁴⁰ or 2⁻²⁸
// relative to the shift) and above it by at most 1e-6 relative plus
// k·1e-14 (the +∞ atom of each release: the mass the lower bounds miss);
// at δ = 1e-5 the ε agree to 1e-6 relative, at δ = 1e-8 (where the atom
// shows) to 1e-5.
func TestDiscretePLDConvergesToContinuous(t *testing.T) {
	s := noise.Sensitivity{L1: 1, L2: 1}
	type pair struct {
		disc, cont func() (noise.Mechanism, error)
	}
	pairs := []pair{
		{func() (noise.Mechanism, error) { return discrete.NewLaplace(3) }, func() (noise.Mechanism, error) { return laplace.New(3) }},
		{func() (noise.Mechanism, error) { return discrete.NewGaussian(5) }, func() (noise.Mechanism, error) { return gaussian.New(5) }},
		{func() (noise.Mechanism, error) { return discrete.NewHuber(1, 3) }, func() (noise.Mechanism, error) { return huber.New(1, 3) }},
		{func() (noise.Mechanism, error) { return discrete.NewHuber(0.2, 0.5) }, func() (noise.Mechanism, error) { return huber.New(0.2, 0.5) }},
	}
	for _, p := range pairs {
		dm, err := p.disc()
		if err != nil {
			t.Fatal(err)
		}
		cm, err := p.cont()
		if err != nil {
			t.Fatal(err)
		}
		rs, err := discrete.RoundedSensitivity(s, 1, dm.(discrete.Mechanism).Granularity())
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 100} {
			// One changed coordinate, so that PLD covers the discrete
			// Gaussian too.
			tot, _, err := ComposeDiscrete(dm.(discrete.Mechanism), s, 1, k, 1e-5)
			if err != nil {
				t.Fatalf("%s k=%d: %v", dm, k, err)
			}
			d := tot.PLD
			c, err := PLD(cm, s, k, 1e-5)
			if err != nil {
				t.Fatalf("%s k=%d: %v", dm, k, err)
			}
			if rel := (d.Epsilon - c.Epsilon) / c.Epsilon; rel > 1e-6 || rel < -1e-9 {
				t.Errorf("%s k=%d: lattice ε %.12g, continuous %.12g (relative %.3g)", dm, k, d.Epsilon, c.Epsilon, rel)
			}
			// At δ = 1e-8 the +∞ atom (k·5e-15) shows: within 1e-5.
			tot8, _, err := ComposeDiscrete(dm.(discrete.Mechanism), s, 1, k, 1e-8)
			if err != nil {
				t.Fatal(err)
			}
			c8, err := PLD(cm, s, k, 1e-8)
			if err != nil {
				t.Fatal(err)
			}
			rel8 := (tot8.PLD.Epsilon - c8.Epsilon) / c8.Epsilon
			t.Logf("%s k=%d: ε at δ = 1e-8 %.10g (lattice), %.10g (continuous), relative %.3g", dm, k, tot8.PLD.Epsilon, c8.Epsilon, rel8)
			if rel8 > 1e-5 || rel8 < -1e-9 {
				t.Errorf("%s k=%d δ=1e-8: lattice ε %.12g, continuous %.12g (relative %.3g)", dm, k, tot8.PLD.Epsilon, c8.Epsilon, rel8)
			}
			for _, f := range []float64{0.5, 1.5} {
				eps := f * c.Epsilon
				dd := scalarPLDDelta(t, dm, rs, k, eps)
				cd, err := PLDDelta(cm, s, k, eps)
				if err != nil {
					t.Fatal(err)
				}
				if dd < cd*(1-1e-9) || dd > cd*(1+1e-6)+float64(k)*1e-14 {
					t.Errorf("%s k=%d ε=%g: lattice δ %.12g, continuous %.12g", dm, k, eps, dd, cd)
				}
			}
		}
	}
}

// scalarPLDDelta is PLDDelta for one changed coordinate (the discrete
// Gaussian's lattice PLD applies).
func scalarPLDDelta(t *testing.T, m noise.Mechanism, s noise.Sensitivity, k int, eps float64) float64 {
	t.Helper()
	md, err := prepare(m, s, k)
	if err != nil {
		t.Fatal(err)
	}
	if md.scalar != nil {
		md.lattice = md.scalar
	}
	parts, err := md.pldParts(k)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compose(parts, saddle(parts, eps))
	if err != nil {
		t.Fatal(err)
	}
	return math.Min(c.delta(eps), 1)
}

// TestSumGaussBounds: the Euler–Maclaurin bounds on runs of the discrete
// Gaussian's weights (S ≥ 2⁴⁰) contain the term-by-term sum and are tight
// to 1e-13 relative (plus the margin for exponent errors in far tails);
// below 2⁴⁰ the term-by-term sum is used.
func TestSumGaussBounds(t *testing.T) {
	g := newGaussLegendre()
	const s40 = 1 << 40 // √S = 2²⁰
	for _, c := range []struct {
		s    float64
		a, b int64
	}{
		{s40, 0, 100}, {s40, 0, 200000}, {s40, 900000, 1100000}, {s40, 1500000, 1700000},
		{s40, 3000000, 3100000}, {s40, 8000000, 8000500}, {4 * s40, 10, 300000},
		{1e6, 0, 5000}, {100, 30, 200},
	} {
		exact, comp := 0.0, 0.0
		for y := c.a; y <= c.b; y++ {
			fy := float64(y)
			x := math.Exp(-fy * fy / (2 * c.s))
			tt := exact + x
			if exact >= x {
				comp += (exact - tt) + x
			} else {
				comp += (x - tt) + exact
			}
			exact = tt
		}
		exact += comp
		got := g.sumGauss(c.a, c.b, c.s)
		// Allowed width: 1e-13 plus the margin for exponent errors.
		vb2 := float64(c.b) * float64(c.b) / (2 * c.s)
		if got.lo > exact || got.hi < exact || got.hi-got.lo > (1e-13+2*massRelExp*vb2)*exact {
			t.Errorf("S=%g [%d, %d]: bounds [%.17g, %.17g], exact %.17g", c.s, c.a, c.b, got.lo, got.hi, exact)
		}
	}
	// The unbounded tail: ∫ ≤ Σ ≤ f(a) + ∫.
	exact := 0.0
	for y := int64(3000); y < 20000; y++ {
		fy := float64(y)
		exact += math.Exp(-fy * fy / 2e6)
	}
	if got := g.sumGauss(3000, posInf, 1e6); got.lo > exact || got.hi < exact {
		t.Errorf("tail: bounds %+v, exact %.17g", got, exact)
	}
}

// TestDiscretePLDBadInput: parameters outside the supported range are
// errors naming them, not panics.
func TestDiscretePLDBadInput(t *testing.T) {
	if _, err := discreteLaplaceNoise(0, 1); err == nil {
		t.Error("t = 0 accepted")
	}
	if _, err := discreteGaussianNoise(10, 0); err == nil {
		t.Error("d = 0 accepted")
	}
	if _, err := discreteHuberNoise(10, 0, 1); err == nil {
		t.Error("a = 0 accepted")
	}
	n, _ := discreteLaplaceNoise(10, 10)
	if _, err := n.pessimistic(0, true); err == nil {
		t.Error("h = 0 accepted")
	}
	if _, err := n.pessimistic(1e-9, true); err == nil {
		t.Error("a grid of 2·10⁹ points accepted")
	}
}

// TestComposeDiscrete: ComposeDiscrete rounds the sensitivity to the
// mechanism's grid, applies PLD to all three discrete mechanisms for one
// changed coordinate and not to the discrete Gaussian for more, and its
// GridCost compares with the unrounded sensitivity.
func TestComposeDiscrete(t *testing.T) {
	lap, _ := discrete.NewLaplace(2)
	hub, _ := discrete.NewHuber(1, 2)
	gau, _ := discrete.NewGaussian(5)
	s := noise.Sensitivity{L1: 1, L2: 1}
	for _, m := range []discrete.Mechanism{lap, hub, gau} {
		for _, n := range []int{1, 4} {
			tot, cost, err := ComposeDiscrete(m, s, n, 50, 1e-6)
			if err != nil {
				t.Fatal(err)
			}
			rs, _ := discrete.RoundedSensitivity(s, n, m.Granularity())
			want := rs.L1
			if m == discrete.Mechanism(gau) {
				want = rs.L2
			}
			if cost.Grid != m.Granularity() || cost.Coordinates != n || cost.Sensitivity != 1 || cost.Rounded != want {
				t.Errorf("%s n=%d: cost %+v, want grid %g, Δ′ %g", m, n, cost, m.Granularity(), want)
			}
			best, _ := tot.Tightest()
			if cost.EpsilonCost < 0 || cost.EpsilonCost > 1e-6*best.Epsilon || best.Epsilon-cost.EpsilonCost != cost.EpsilonUnrounded && cost.EpsilonCost > 0 {
				t.Errorf("%s n=%d: cost %+v against tightest %v", m, n, cost, best)
			}
			gotPLD := tot.PLD != nil
			if wantPLD := n == 1 || m != discrete.Mechanism(gau); gotPLD != wantPLD {
				t.Errorf("%s n=%d: PLD %v, want applied %v (n/a: %v)", m, n, tot.PLD, wantPLD, tot.NotApplicable)
			}
		}
	}
	if _, _, err := ComposeDiscrete(lap, s, 0, 5, 1e-6); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, _, err := ComposeDiscrete(nil, s, 1, 5, 1e-6); err == nil {
		t.Error("nil mechanism accepted")
	}
}

// TestCalibrateDiscrete: the scale found meets the target at the rounded
// sensitivity, and 1 % less noise does not.
func TestCalibrateDiscrete(t *testing.T) {
	s := noise.Sensitivity{L1: 1, L2: 1}
	family := func(p float64) (discrete.Mechanism, error) { return discrete.NewGaussian(p) }
	p, tot, err := CalibrateDiscrete(family, s, 1, 20, 1, 1e-5, 0.1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if best, _ := tot.Tightest(); best.Epsilon > 1 || tot.PLD == nil {
		t.Fatalf("σ = %g: %+v", p, tot)
	}
	m, _ := family(0.99 * p)
	again, _, err := ComposeDiscrete(m, s, 1, 20, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if best, _ := again.Tightest(); best.Epsilon <= 1 {
		t.Errorf("σ = 0.99 × %g still meets ε = 1: %v", p, best)
	}
}

// TestDiscretePLDConstruction: across shapes, scales and shifts at the
// production grids (including extreme α and ε₀ from 10⁻³ to 10³) the
// pessimistic distribution builds without error, has non-negative masses
// summing with the +∞ atom to 1 and an atom below 1e-13, and its largest
// finite loss is at least ε₀ (pure mechanisms) — the construction's
// invariants, where floating-point noise at bucket edges once indexed
// outside the grid. (A top loss below ε₀ is right where the tail at ε₀
// has probability below what float64 holds.)
func TestDiscretePLDConstruction(t *testing.T) {
	var ms []discrete.Mechanism
	for _, sc := range []float64{1e-3, 0.37, 1e3} {
		l, _ := discrete.NewLaplace(sc)
		g, _ := discrete.NewGaussian(sc)
		ms = append(ms, l, g)
		for _, a := range []float64{1.0 / 256, 1, 40} {
			h, err := discrete.NewHuber(a, sc)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, h)
		}
	}
	for _, m := range ms {
		for _, sens := range []float64{1} {
			for _, k := range []int{1, 100} {
				rs, err := discrete.RoundedSensitivity(noise.Sensitivity{L1: sens, L2: sens}, 1, m.Granularity())
				if err != nil {
					t.Fatal(err)
				}
				md, err := prepare(m, rs, k)
				if err != nil {
					t.Fatal(err)
				}
				if md.scalar != nil {
					md.lattice = md.scalar
				}
				if md.lattice == nil {
					continue // beyond 2⁵² grid units: PLD not applicable
				}
				parts, err := md.pldParts(k)
				if errors.Is(err, ErrNotApplicable) {
					continue // a grid too fine for the FFT: PLD not applicable
				}
				if err != nil {
					t.Errorf("%s Δ=%g k=%d: %v", m, sens, k, err)
					continue
				}
				p := parts[0].m
				sum := p.inf
				for _, v := range p.p {
					if !(v >= 0) {
						t.Fatalf("%s Δ=%g k=%d: mass %v", m, sens, k, v)
					}
					sum += v
				}
				if math.Abs(sum-1) > 1e-12 || p.inf > 1e-13 || len(p.p) > 1<<22 {
					t.Errorf("%s Δ=%g k=%d: total %.15g, +∞ atom %g", m, sens, k, sum, p.inf)
				}
				if md.pure && p.top() > md.eps0*(1+1e-12)+p.h {
					t.Errorf("%s Δ=%g k=%d: top loss %g above ε₀ %g + h", m, sens, k, p.top(), md.eps0)
				}
			}
		}
	}
}
