package audit

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// False alarms: every audit below holds its bounds jointly with probability
// at least 95 % (the union-bounded Confidence), so a correct claim is
// flagged with probability at most 5 % per audit. The draws are seeded, so
// each test is deterministic: it never flakes, and the seeds used pass.

// TestClopperPearsonReference compares with R's binom.test, which computes
// the same exact interval (values checked by bisection on exact binomial
// tail sums).
func TestClopperPearsonReference(t *testing.T) {
	tests := []struct {
		k, n   int
		conf   float64
		lo, hi float64
	}{
		{0, 10, 0.95, 0, 0.3084971},
		{5, 10, 0.95, 0.1870860, 0.8129140},
		{1, 10, 0.95, 0.002528579, 0.4450161},
		{10, 10, 0.95, 0.6915029, 1},
		{7, 20, 0.95, 0.1539092, 0.5921885},
		{50, 100, 0.95, 0.3983211, 0.6016789},
		{3, 1000, 0.99, 0.0003381445, 0.01093378},
		{0, 1000, 0.999, 0, 0.007572089},
	}
	for _, tt := range tests {
		lo, hi, err := ClopperPearson(tt.k, tt.n, tt.conf)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lo-tt.lo) > 2e-6*max(tt.lo, 1e-3) || math.Abs(hi-tt.hi) > 2e-6*tt.hi {
			t.Errorf("ClopperPearson(%d, %d, %v) = [%.7g, %.7g], want [%.7g, %.7g]", tt.k, tt.n, tt.conf, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestClopperPearsonBadArguments(t *testing.T) {
	tests := []struct {
		k, n int
		conf float64
		want string
	}{
		{0, 0, 0.95, "trials n"},
		{-1, 10, 0.95, "successes k"},
		{11, 10, 0.95, "successes k"},
		{1, 10, 1, "confidence"},
		{1, 10, math.NaN(), "confidence"},
	}
	for _, tt := range tests {
		_, _, err := ClopperPearson(tt.k, tt.n, tt.conf)
		if !errors.Is(err, check.ErrParam) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ClopperPearson(%d, %d, %v): error %v, want one naming %q", tt.k, tt.n, tt.conf, err, tt.want)
		}
	}
}

// draw returns n values of f.
func draw(n int, r *rand.Rand, f func(*rand.Rand) float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = f(r)
	}
	return x
}

// randomizedResponse draws 1 with probability e^ε/(1+e^ε) if truth, else
// with the complementary probability: exactly ε-DP, and no better.
func randomizedResponse(eps float64, truth bool) func(*rand.Rand) float64 {
	p := math.Exp(eps) / (1 + math.Exp(eps))
	return func(r *rand.Rand) float64 {
		yes := r.Float64() < p
		if yes == truth {
			return 1
		}
		return 0
	}
}

// TestSamples audits statistics whose exact privacy is known, including a
// two-point one (ties, degenerate histogram range) and a smooth one.
func TestSamples(t *testing.T) {
	const n = 100000
	gauss := func(mu float64) func(*rand.Rand) float64 {
		return func(r *rand.Rand) float64 { return mu + r.NormFloat64() }
	}
	tests := []struct {
		name    string
		a, b    func(*rand.Rand) float64
		claim   noise.Guarantee
		want    Verdict
		atLeast float64 // EpsilonLower must reach this
	}{
		{"identical, ε = 0 claimed", gauss(0), gauss(0), noise.Guarantee{}, Pass, 0},
		{"randomized response ε = 1, claim 1", randomizedResponse(1, false), randomizedResponse(1, true), noise.Guarantee{Epsilon: 1}, Pass, 0.9},
		{"randomized response ε = 1, claim 0.5", randomizedResponse(1, false), randomizedResponse(1, true), noise.Guarantee{Epsilon: 0.5}, Violation, 0.9},
		{"Gaussian μ = 1, exact δ(1)", gauss(0), gauss(1), noise.Guarantee{Epsilon: 1, Delta: 0.1269}, Pass, 0.9},
		{"Gaussian μ = 1, δ(1)/10", gauss(0), gauss(1), noise.Guarantee{Epsilon: 1, Delta: 0.01269}, Violation, 1.5},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rng.Stream(3, uint64(i))
			res, err := Samples(draw(n, r, tt.a), draw(n, r, tt.b), Options{Claim: tt.claim})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tt.want || res.EpsilonLower < tt.atLeast {
				t.Errorf("verdict %s with ε ≥ %.4f (δ(ε) ≥ %.4g, event %q), want %s with ε ≥ %v",
					res.Verdict, res.EpsilonLower, res.DeltaLower, res.Best.Description, tt.want, tt.atLeast)
			}
			if res.Samples != n || res.Selection != n/10 {
				t.Errorf("Samples, Selection = %d, %d; want %d, %d", res.Samples, res.Selection, n, n/10)
			}
		})
	}
}

// TestUnionBound: each interval is at level 1 − α/(2K) for K events, so
// adding events (here the bit family) widens every interval.
func TestUnionBound(t *testing.T) {
	r := rng.Seeded(5)
	a := draw(20000, r, randomizedResponse(1, false))
	b := draw(20000, r, randomizedResponse(1, true))
	var prev Result
	for i, opts := range []Options{
		{Claim: noise.Guarantee{Epsilon: 1}, Thresholds: 4},
		{Claim: noise.Guarantee{Epsilon: 1}, Thresholds: 4, Bits: true},
		{Claim: noise.Guarantee{Epsilon: 1}, Thresholds: 4, Bits: true, Confidence: 0.99},
	} {
		res, err := Samples(a, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		conf := opts.Confidence
		if conf == 0 {
			conf = 0.95
		}
		if want := 1 - (1-conf)/(2*float64(res.Events)); math.Abs(res.IntervalConfidence-want) > 1e-15 {
			t.Errorf("case %d: IntervalConfidence = %v with %d events, want %v", i, res.IntervalConfidence, res.Events, want)
		}
		// The reported bounds are the intervals at that level.
		e := res.Best
		lo, _, _ := ClopperPearson(e.Count1, e.N1, res.IntervalConfidence)
		_, hi, _ := ClopperPearson(e.Count2, e.N2, res.IntervalConfidence)
		if math.Abs(e.P1Lower-lo) > 1e-12 || math.Abs(e.P2Upper-hi) > 1e-12 {
			t.Errorf("case %d: best event bounds %v, %v; want the intervals at %v: %v, %v", i, e.P1Lower, e.P2Upper, res.IntervalConfidence, lo, hi)
		}
		if i > 0 && !(res.IntervalConfidence > prev.IntervalConfidence && res.EpsilonLower < prev.EpsilonLower) {
			t.Errorf("case %d: %d events at %v gave ε ≥ %v; want a higher level and a lower bound than %d events at %v (ε ≥ %v)",
				i, res.Events, res.IntervalConfidence, res.EpsilonLower, prev.Events, prev.IntervalConfidence, prev.EpsilonLower)
		}
		prev = res
	}
}

// TestAuditCombines: two statistics under one union bound count all their
// events, and the best event may come from either.
func TestAuditCombines(t *testing.T) {
	r := rng.Seeded(6)
	same := Statistic{Name: "same", A: draw(5000, r, randomizedResponse(0, false)), B: draw(5000, r, randomizedResponse(0, true))}
	diff := Statistic{Name: "diff", Symbol: "rr", A: draw(5000, r, randomizedResponse(2, false)), B: draw(5000, r, randomizedResponse(2, true))}
	one, err := Audit([]Statistic{same}, Options{Claim: noise.Guarantee{Epsilon: 1}})
	if err != nil {
		t.Fatal(err)
	}
	both, err := Audit([]Statistic{same, diff}, Options{Claim: noise.Guarantee{Epsilon: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if one.Verdict != Pass || both.Verdict != Violation || both.Best.Statistic != "diff" || !strings.HasPrefix(both.Best.Description, "rr ") {
		t.Errorf("one: %s; both: %s from %q %q", one.Verdict, both.Verdict, both.Best.Statistic, both.Best.Description)
	}
	if both.Events <= one.Events {
		t.Errorf("both statistics: %d events, want more than the first alone (%d)", both.Events, one.Events)
	}
	families := map[string]bool{}
	for _, p := range both.Parts {
		families[p.Statistic+"/"+p.Family.String()] = true
	}
	for _, want := range []string{"same/thresholds", "same/histogram", "diff/thresholds", "diff/histogram"} {
		if !families[want] {
			t.Errorf("no part %s in %v", want, families)
		}
	}
}

func TestAuditLeavesInputAlone(t *testing.T) {
	r := rng.Seeded(7)
	a := draw(1000, r, func(r *rand.Rand) float64 { return r.NormFloat64() })
	b := draw(1000, r, func(r *rand.Rand) float64 { return r.NormFloat64() })
	a0, b0 := slices.Clone(a), slices.Clone(b)
	if _, err := Samples(a, b, Options{Bits: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, a0) || !slices.Equal(b, b0) {
		t.Error("Samples modified its input")
	}
}

func TestSamplesBadInput(t *testing.T) {
	ok := make([]float64, 100)
	nan := slices.Clone(ok)
	nan[42] = math.NaN()
	tests := []struct {
		name string
		a, b []float64
		opts Options
		want string
	}{
		{"too few", ok[:10], ok, Options{}, "10 values on side A"},
		{"NaN", ok, nan, Options{}, "B[42] is NaN"},
		{"negative epsilon", ok, ok, Options{Claim: noise.Guarantee{Epsilon: -1}}, "claimed epsilon"},
		{"delta above 1", ok, ok, Options{Claim: noise.Guarantee{Delta: 2}}, "claimed delta"},
		{"confidence 1", ok, ok, Options{Confidence: 1}, "confidence"},
		{"thresholds", ok, ok, Options{Thresholds: -3}, "thresholds"},
		{"bins", ok, ok, Options{MaxBins: -1}, "max bins"},
		{"select fraction", ok, ok, Options{SelectFraction: 0.9}, "select fraction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Samples(tt.a, tt.b, tt.opts)
			if !errors.Is(err, check.ErrParam) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a check.ErrParam naming %q", err, tt.want)
			}
		})
	}
	if _, err := Audit(nil, Options{}); !errors.Is(err, check.ErrParam) {
		t.Errorf("Audit(nil): error %v, want a check.ErrParam", err)
	}
}

func TestBitEvents(t *testing.T) {
	if got := binadeString(1023); got != "+[1, 2)" {
		t.Errorf("binade 1023 = %q", got)
	}
	if got := binadeString(1<<11 | 1021); got != "−[0.25, 0.5)" {
		t.Errorf("binade −1021 = %q", got)
	}
	// 1.5 = 1.1b: mantissa ends in 0; 1 + 2⁻⁵² ends in 1.
	vals := []float64{1.5, 1 + 0x1p-52, -0.375, 1 + 3*0x1p-52}
	tab := newBitTable(vals)
	for _, tt := range []struct {
		p    bitPattern
		want int
	}{
		{bitPattern{key: 1023, k: 1, v: 1}, 2},
		{bitPattern{key: 1023, k: 2, v: 3}, 1},
		{bitPattern{key: 1023, k: 1, v: 0}, 1},
		{bitPattern{key: -1, k: 1, v: 0}, 2},
		{bitPattern{key: 1<<11 | 1021, k: 3, v: 0}, 1},
	} {
		if got := tab.count(tt.p); got != tt.want {
			t.Errorf("count %+v = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestFamilyString(t *testing.T) {
	for f, want := range map[Family]string{0: "none", Thresholds: "thresholds", Thresholds | Histogram | Bits: "thresholds+histogram+bits"} {
		if got := f.String(); got != want {
			t.Errorf("%d: %q, want %q", f, got, want)
		}
	}
}
