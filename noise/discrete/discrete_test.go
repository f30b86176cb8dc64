package discrete

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/rng"
)

// Statistical tests: each check runs at a fixed seed; under a correct
// sampler it fails with probability at most alarm (so with a fixed seed it
// either always passes or always fails).
const alarm = 1e-6

// zAlarm is the two-sided normal quantile for alarm.
var zAlarm = math.Sqrt2 * math.Erfinv(1-alarm)

func TestBernoulliExp(t *testing.T) {
	const n = 400000
	cases := []struct{ num, den u128 }{
		{from64(0), from64(1)},
		{from64(1), from64(3)},
		{from64(7), from64(10)},
		{from64(1), from64(1)},
		{from64(5), from64(2)},
		{from64(13), from64(4)},
		{from64(1<<63 + 12345), from64(1<<63 + 99999)},
		// 128-bit path: x = 3·2⁷⁰/2⁷² = 0.75 and 5·2⁷⁰/2⁷² = 1.25.
		{u128{3 << 6, 0}, u128{1 << 8, 0}},
		{u128{5 << 6, 0}, u128{1 << 8, 0}},
	}
	for i, c := range cases {
		r := rng.Seeded(uint64(100 + i))
		hits := 0
		for range n {
			if bernExp(r, c.num, c.den) {
				hits++
			}
		}
		x, _ := new(big.Rat).SetFrac(c.num.big(), c.den.big()).Float64()
		p := math.Exp(-x)
		sd := math.Sqrt(p * (1 - p) / n)
		got := float64(hits) / n
		if sd == 0 {
			if got != p {
				t.Errorf("x = %g: frequency %g, want exactly %g", x, got, p)
			}
			continue
		}
		if z := (got - p) / sd; math.Abs(z) > zAlarm {
			t.Errorf("x = %g: frequency %g, want %g (z = %.2f)", x, got, p, z)
		}
	}
	// The math/big path must agree in distribution too.
	r := rng.Seeded(7)
	num, den := big.NewInt(9), big.NewInt(4) // x = 2.25
	hits := 0
	for range n {
		if bernExpBig(r, num, den) {
			hits++
		}
	}
	p := math.Exp(-2.25)
	if z := (float64(hits)/n - p) / math.Sqrt(p*(1-p)/n); math.Abs(z) > zAlarm {
		t.Errorf("big path x = 2.25: frequency %g, want %g", float64(hits)/n, p)
	}
	if num.Int64() != 9 || den.Int64() != 4 {
		t.Errorf("bernExpBig modified its arguments: %v/%v", num, den)
	}
	if !BernoulliExp(r, 0, 5) {
		t.Error("BernoulliExp(0) = false, want always true")
	}
}

// chiSquare draws n values from draw, bins them against the exact pmf
// (given as log weights on [−kmax, kmax], normalized here; mass beyond is
// below 1e-15) and fails if the χ² statistic exceeds its 1 − alarm
// quantile.
func chiSquare(t *testing.T, name string, n int, kmax int64, logw func(k int64) float64, draw func() int64) {
	t.Helper()
	size := 2*kmax + 1
	w := make([]float64, size)
	sum := 0.0
	for k := -kmax; k <= kmax; k++ {
		w[k+kmax] = math.Exp(logw(k))
		sum += w[k+kmax]
	}
	counts := make([]int, size)
	for range n {
		k := draw()
		if k < -kmax || k > kmax {
			t.Fatalf("%s: draw %d outside [−%d, %d], where the pmf has mass < 1e-15", name, k, kmax, kmax)
		}
		counts[k+kmax]++
	}
	// Pool neighbouring values from each end inwards until every bin
	// expects at least 20 draws.
	var exp, obs []float64
	e, o := 0.0, 0.0
	for i := range size {
		e += w[i] / sum * float64(n)
		o += float64(counts[i])
		if e >= 20 {
			exp, obs = append(exp, e), append(obs, o)
			e, o = 0, 0
		}
	}
	exp[len(exp)-1] += e
	obs[len(obs)-1] += o
	stat := 0.0
	for i := range exp {
		d := obs[i] - exp[i]
		stat += d * d / exp[i]
	}
	df := float64(len(exp) - 1)
	crit := 2 * mathext.GammaIncRegCompInv(df/2, alarm)
	if stat > crit {
		t.Errorf("%s: χ² = %.1f on %g degrees of freedom, above the 1−%g quantile %.1f", name, stat, df, alarm, crit)
	}
}

func TestLaplaceExactPMF(t *testing.T) {
	for i, c := range []struct {
		num  u128
		den  uint64
		kmax int64
	}{
		{from64(1), 1, 40},
		{from64(3), 1, 110},
		{from64(7), 2, 130},
		{from64(2), 5, 10},
		// 128-bit numerator: scale (2⁶⁴ + 2⁶²)/2⁶³ = 2.5.
		{u128{1, 1 << 62}, 1 << 63, 90},
	} {
		scale, _ := new(big.Rat).SetFrac(c.num.big(), new(big.Int).SetUint64(c.den)).Float64()
		r := rng.Seeded(uint64(200 + i))
		chiSquare(t, "laplace", 200000, c.kmax,
			func(k int64) float64 { return -math.Abs(float64(k)) / scale },
			func() int64 { return laplaceInt(r, c.num, c.den) })
	}
}

func TestGaussianExactPMF(t *testing.T) {
	for i, s := range []int64{1, 2, 5, 50, 1000} {
		r := rng.Seeded(uint64(300 + i))
		m := newGaussianGrid(1, big.NewInt(s))
		kmax := int64(9*math.Sqrt(float64(s))) + 2
		chiSquare(t, "gaussian", 200000, kmax,
			func(k int64) float64 { return -float64(k*k) / (2 * float64(s)) },
			func() int64 { return m.Int(r) })
	}
}

func TestHuberExactPMF(t *testing.T) {
	for i, c := range []struct{ tau, a uint64 }{
		{20, 1},  // α = 0.05
		{4, 1},   // α = 0.25
		{10, 5},  // α = 0.5
		{4, 4},   // α = 1
		{3, 12},  // α = 4
		{1, 40},  // α = 40
		{8, 320}, // α = 40, finer grid
	} {
		r := rng.Seeded(uint64(400 + i))
		m := newHuberGrid(1, c.tau, c.a)
		alpha := float64(c.a) / float64(c.tau)
		// ρ grows at least like min(α,1)·|u| − 1/2 in the tails.
		kmax := int64(float64(c.tau)*(40/min(alpha, 1)+2)) + 2
		chiSquare(t, "huber", 200000, kmax,
			func(k int64) float64 { return -huber.Loss(alpha, float64(k)/float64(c.tau)) },
			func() int64 { return m.Int(r) })
	}
}

// TestProductionScales bins draws of the public constructors, at tiny,
// typical and huge scales and extreme α, against the continuous CDF of the
// same parameters; with the grid 2⁻⁴⁰ (2⁻²⁸) of the scale, the bin
// probabilities of the discrete law differ from it by O(2⁻⁴⁰) (O(2⁻²⁸)),
// far below what 10⁵ draws resolve.
func TestProductionScales(t *testing.T) {
	type cdfMech struct {
		m   Mechanism
		cdf func(x float64) float64
		sd  float64
	}
	var cases []cdfMech
	for _, b := range []float64{1e-90, 1, 3.7, 100, 1e90} {
		m, err := NewLaplace(b)
		if err != nil {
			t.Fatal(err)
		}
		bb := m.Scale()
		cases = append(cases, cdfMech{m, func(x float64) float64 {
			if x < 0 {
				return math.Exp(x/bb) / 2
			}
			return 1 - math.Exp(-x/bb)/2
		}, bb})
	}
	for _, s := range []float64{1e-90, 1, 49, 1000, 1e90} {
		m, err := NewGaussian(s)
		if err != nil {
			t.Fatal(err)
		}
		sg := m.Sigma()
		cases = append(cases, cdfMech{m, func(x float64) float64 { return 0.5 * math.Erfc(-x/(sg*math.Sqrt2)) }, sg})
	}
	for _, p := range [][2]float64{{MinHuberAlpha, 1}, {0.05, 1}, {1, 25.3}, {3, 1e-90}, {40, 1e90}, {40, 2}, {MaxHuberAlpha, 3}} {
		m, err := NewHuber(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		c, err := huber.New(m.Alpha(), m.Scale())
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, cdfMech{m, c.CDF, math.Sqrt(m.Variance())})
	}
	for i, c := range cases {
		r := rng.Seeded(uint64(500 + i))
		// 40 bins between quantile-ish edges ±3 sd.
		const nb, n = 40, 100000
		edges := make([]float64, nb+1)
		for j := range edges {
			edges[j] = c.sd * (-3 + 6*float64(j)/nb)
		}
		counts := make([]float64, nb+2)
		for range n {
			x := c.m.Sample(r)
			j := 0
			for j < len(edges) && x >= edges[j] {
				j++
			}
			counts[j]++
		}
		stat := 0.0
		prev := 0.0
		for j := 0; j <= nb+1; j++ {
			next := 1.0
			if j < len(edges) {
				next = c.cdf(edges[j])
			}
			e := (next - prev) * n
			prev = next
			d := counts[j] - e
			stat += d * d / e
		}
		crit := 2 * mathext.GammaIncRegCompInv(float64(nb+1)/2, alarm)
		if stat > crit {
			t.Errorf("%s: χ² = %.1f above the 1−%g quantile %.1f", c.m, stat, alarm, crit)
		}
	}
}

// TestHuberAcceptance measures the acceptance rate of the discrete Huber
// proposal at production scale: the package comment proves ≥ 0.760 in the
// limit of a fine grid; with 40000 proposals the measured rate falls below
// 0.74 with probability < 1e-6 if the true rate is ≥ 0.76.
func TestHuberAcceptance(t *testing.T) {
	for i, alpha := range []float64{MinHuberAlpha, 0.05, 0.5, 1, 3, 40, MaxHuberAlpha} {
		m, err := NewHuber(alpha, 1)
		if err != nil {
			t.Fatal(err)
		}
		r := rng.Seeded(uint64(600 + i))
		acc := 0
		const n = 40000
		for range n {
			if m.accept(r, abs64(laplaceInt(r, m.lapNum, m.lapDen))) {
				acc++
			}
		}
		if rate := float64(acc) / n; rate < 0.74 {
			t.Errorf("α = %g: acceptance %.4f, want ≥ 0.74", alpha, rate)
		}
	}
}

func TestOnGridBitForBit(t *testing.T) {
	lap, _ := NewLaplace(3.7)
	gau, _ := NewGaussian(49)
	hub, _ := NewHuber(1, 25.3)
	xs := []float64{0, 0.1, -0.35, 1000, 1001.123456789, -7.77e6, 3e-12}
	for _, m := range []Mechanism{lap, gau, hub} {
		g := m.Granularity()
		for _, add := range []func(x []float64, r *rand.Rand) error{
			func(x []float64, r *rand.Rand) error { return Release(m, x, r) },
			func(x []float64, r *rand.Rand) error { noise.AddNoise(m, x, r); return nil },
		} {
			x := append([]float64(nil), xs...)
			if err := add(x, rng.Seeded(9)); err != nil {
				t.Fatal(err)
			}
			twin := rng.Seeded(9)
			for i, y := range x {
				k := m.Int(twin)
				want := (math.Round(xs[i]/g) + float64(k)) * g
				if y != want {
					t.Errorf("%s: release of %v = %v, want γ·(round(x/γ)+K) = %v", m, xs[i], y, want)
				}
				if q := y / g; q != math.Trunc(q) {
					t.Errorf("%s: release %v is not a multiple of γ = %g", m, y, g)
				}
			}
		}
	}
	// Far from the origin the sum is formed exactly then rounded once.
	if got, want := addTo(0, 1, 1<<60+1), math.Ldexp(1, 60); got != want {
		t.Errorf("addTo(0, 1, 2⁶⁰+1) = %v, want %v", got, want)
	}
	// 0.5·(3·2⁵⁶ + 2⁵⁵ + 3) = 7·2⁵⁴ + 1.5, nearest float64 7·2⁵⁴.
	if got := addTo(3<<55, 0.5, 1<<55+3); got != float64(7<<54) {
		t.Errorf("addTo large = %v", got)
	}
}

func TestReleaseErrors(t *testing.T) {
	m, _ := NewLaplace(1e-90)
	for _, v := range []float64{math.NaN(), math.Inf(1), 1e300} {
		x := []float64{1, v}
		if err := Release(m, x, rng.Seeded(1)); err == nil {
			t.Errorf("Release(%v) succeeded, want error", v)
		} else if x[0] != 1 {
			t.Errorf("Release(%v) changed x before failing", v)
		}
	}
}

// logPMF returns log P(K = k) − log P(K = 0) of m's integer noise.
func laplaceLog(t uint64) func(int64) float64 {
	return func(k int64) float64 { return -math.Abs(float64(k)) / float64(t) }
}

func TestGuaranteesAgainstBruteForce(t *testing.T) {
	// Pure mechanisms: ε must equal the largest log-pmf ratio over every
	// integer value, for a shift of D grid units.
	brute := func(logp func(int64) float64, d int64, span int64) float64 {
		best := 0.0
		for k := -span; k <= span; k++ {
			best = max(best, math.Abs(logp(k)-logp(k+d)))
		}
		return best
	}
	for _, c := range []struct {
		tau, a uint64
		d      int64
	}{{4, 1, 3}, {4, 4, 1}, {3, 12, 5}, {20, 1, 7}, {1, 40, 2}} {
		m := newHuberGrid(0.25, c.tau, c.a)
		alpha := float64(c.a) / float64(c.tau)
		logp := func(k int64) float64 { return -huber.Loss(alpha, float64(k)/float64(c.tau)) }
		want := brute(logp, c.d, int64(c.tau)*int64(80/min(alpha, 1)+10))
		g, err := m.Guarantee(noise.Sensitivity{L1: float64(c.d) * 0.25}, 0)
		if err != nil {
			t.Fatal(err)
		}
		exact := new(big.Rat).SetFrac64(int64(c.a)*c.d, int64(c.tau*c.tau))
		if g.Delta != 0 || new(big.Rat).SetFloat64(g.Epsilon).Cmp(exact) < 0 || math.Abs(g.Epsilon-want) > 1e-12*want {
			t.Errorf("huber τ=%d a=%d D=%d: %v, want ε = %g", c.tau, c.a, c.d, g, want)
		}
	}
	for _, tt := range []uint64{1, 3, 10} {
		m := &Laplace{gamma: 0.5, t: tt}
		for _, d := range []int64{1, 4} {
			want := brute(laplaceLog(tt), d, 100)
			// A sensitivity between grid points rounds up to the next one.
			g, err := m.Guarantee(noise.Sensitivity{L1: float64(d)*0.5 - 0.1}, 0)
			if err != nil {
				t.Fatal(err)
			}
			exact := new(big.Rat).SetFrac64(d, int64(tt))
			if new(big.Rat).SetFloat64(g.Epsilon).Cmp(exact) < 0 || math.Abs(g.Epsilon-want) > 1e-12*want {
				t.Errorf("laplace t=%d D=%d: %v, want ε = %g", tt, d, g, want)
			}
		}
	}
	// Discrete Gaussian: at integer orders and an integer shift the Rényi
	// divergence equals order·ρ exactly (the completed square is centred
	// on an integer), so the brute-force sum must match ZCDP.
	for _, s := range []int64{1, 3, 40} {
		m := newGaussianGrid(1, big.NewInt(s))
		for _, d := range []int64{1, 2, 5} {
			rho, err := m.ZCDP(float64(d))
			if err != nil {
				t.Fatal(err)
			}
			for _, order := range []float64{2, 3} {
				span := int64(60*math.Sqrt(float64(s))) + 10*d
				var z, sum float64
				for k := -span; k <= span; k++ {
					p := math.Exp(-float64(k*k) / (2 * float64(s)))
					q := math.Exp(-float64((k-d)*(k-d)) / (2 * float64(s)))
					z += p
					sum += math.Pow(p, order) * math.Pow(q, 1-order)
				}
				renyi := math.Log(sum/z) / (order - 1)
				if math.Abs(renyi-order*rho) > 1e-9*order*rho {
					t.Errorf("gaussian S=%d d=%d: D_%g = %g, want %g·ρ = %g", s, d, order, renyi, order, order*rho)
				}
			}
		}
	}
}

func TestRoundedSensitivity(t *testing.T) {
	const gamma = 0.25
	s, err := RoundedSensitivity(noise.Sensitivity{L1: 3, L2: 2}, 4, gamma)
	if err != nil {
		t.Fatal(err)
	}
	if s.L1 < 4 || s.L1 > 4*(1+1e-15) || s.L2 < 2.5 || s.L2 > 2.5*(1+1e-15) {
		t.Errorf("RoundedSensitivity = %+v, want L1 = 4, L2 = 2.5 (rounded up)", s)
	}
	// Brute force: random pairs of 4-vectors within (Δ₁, Δ₂) of each other;
	// the rounded pairs must stay within the rounded sensitivities.
	r := rng.Seeded(11)
	for range 200000 {
		var d1, d2 float64
		var x, y [4]float64
		for i := range x {
			x[i] = (r.Float64() - 0.5) * 10
			y[i] = x[i] + (r.Float64()-0.5)*1.5
			d1 += math.Abs(x[i] - y[i])
			d2 += (x[i] - y[i]) * (x[i] - y[i])
		}
		if d1 > 3 || math.Sqrt(d2) > 2 {
			continue
		}
		var r1, r2 float64
		for i := range x {
			d := math.Round(x[i]/gamma)*gamma - math.Round(y[i]/gamma)*gamma
			r1 += math.Abs(d)
			r2 += d * d
		}
		if r1 > s.L1 || math.Sqrt(r2) > s.L2 {
			t.Fatalf("x = %v, y = %v: rounded distance (%g, %g) exceeds %+v", x, y, r1, math.Sqrt(r2), s)
		}
	}
}

func TestBadArguments(t *testing.T) {
	bad := []struct {
		name string
		err  error
	}{}
	add := func(name string, err error) {
		bad = append(bad, struct {
			name string
			err  error
		}{name, err})
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1), 1e-200, 1e200} {
		_, err := NewLaplace(v)
		add("NewLaplace", err)
		_, err = NewGaussian(v)
		add("NewGaussian", err)
		_, err = NewHuber(1, v)
		add("NewHuber s", err)
	}
	for _, a := range []float64{0, -1, math.NaN(), math.Inf(1), MinHuberAlpha / 2, MaxHuberAlpha * 2} {
		_, err := NewHuber(a, 1)
		add("NewHuber α", err)
	}
	_, err := RoundedSensitivity(noise.Sensitivity{L1: 1}, 0, 1)
	add("RoundedSensitivity n", err)
	_, err = RoundedSensitivity(noise.Sensitivity{L1: 1}, 1, 0.3)
	add("RoundedSensitivity γ", err)
	_, err = RoundedSensitivity(noise.Sensitivity{L1: math.NaN()}, 1, 1)
	add("RoundedSensitivity L1", err)
	g, _ := NewGaussian(1)
	_, err = g.Guarantee(noise.Sensitivity{L2: 1}, 0)
	add("Gaussian δ = 0", err)
	_, err = g.Guarantee(noise.Sensitivity{L2: -1}, 1e-5)
	add("Gaussian L2 < 0", err)
	l, _ := NewLaplace(1)
	_, err = l.Guarantee(noise.Sensitivity{L1: math.Inf(1)}, 0)
	add("Laplace L1 = Inf", err)
	_, err = ZCDPEpsilon(-1, 1e-5)
	add("ZCDPEpsilon ρ < 0", err)
	for _, b := range bad {
		if !errors.Is(b.err, ErrParam) {
			t.Errorf("%s: error %v, want one wrapping ErrParam", b.name, b.err)
		}
	}
}

func TestZCDPEpsilon(t *testing.T) {
	// The conversion must never beat the exact Gaussian curve (whose zCDP
	// is exactly ρ), and must be within a few percent of it.
	for _, c := range []struct{ sigma, delta float64 }{{1, 1e-5}, {3.73, 1e-5}, {10, 1e-6}} {
		rho := 1 / (2 * c.sigma * c.sigma)
		eps, err := ZCDPEpsilon(rho, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		// Exact δ(ε) of the Gaussian mechanism with Δ/σ = 1/σ.
		mu := 1 / c.sigma
		d := 0.5*math.Erfc(-(-eps/mu+mu/2)/math.Sqrt2) - math.Exp(eps)*0.5*math.Erfc(-(-eps/mu-mu/2)/math.Sqrt2)
		if d > c.delta {
			t.Errorf("σ = %g: zCDP ε = %g has exact δ = %g > %g", c.sigma, eps, d, c.delta)
		}
	}
}
