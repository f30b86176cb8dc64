package userdp

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// Item 2: the contribution cap no longer costs time linear in its value
// (a billion plans and trains; a cost linear in it would run for hours),
// and an absurd value is refused by Validate, naming the field and the
// flag, before any work. No wall-clock bound is asserted: the test must
// not depend on the machine's speed or load.
func TestMaxItemsPerUserFastAndBounded(t *testing.T) {
	d := small(t, "")
	for _, k := range []int{1_000_000, MaxMaxItemsPerUser} {
		o := Defaults(1, 1e-6, 1, 5)
		o.MaxItemsPerUser = k
		res := train(t, d, o)
		if !(res.Report.Threshold > 0) {
			t.Errorf("MaxItemsPerUser = %d: threshold %v", k, res.Report.Threshold)
		}
	}
	for _, k := range []int{MaxMaxItemsPerUser + 1, 9_000_000_000_000_000_000} {
		o := Defaults(1, 1e-6, 1, 5)
		o.MaxItemsPerUser = k
		err := o.Validate()
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != "MaxItemsPerUser" || !strings.Contains(err.Error(), "--max-user-ratings") || !errors.Is(err, ErrParam) {
			t.Errorf("MaxItemsPerUser = %d: %v, want a ParamError naming MaxItemsPerUser and --max-user-ratings", k, err)
		}
	}
}

// The block bound beyond selectionExactItems is an upper bound of the
// exact maximum, and close to it.
func TestSelectionDeltaBlockBound(t *testing.T) {
	exact := func(tau, sigma float64, k int) float64 {
		var w float64
		for n := 1; n <= k; n++ {
			w = max(w, float64(n)*tailProb(tau-1/sqrt(float64(n)), sigma))
		}
		return w
	}
	for _, c := range []struct{ tau, sigma float64 }{{3, 1}, {20, 4}, {50, 10}, {8, 0.5}} {
		k := 3 * selectionExactItems
		got, want := SelectionDelta(c.tau, c.sigma, k), exact(c.tau, c.sigma, k)
		if got < want || got > want*1.05 {
			t.Errorf("τ = %v, σ = %v: SelectionDelta %v, exact max %v", c.tau, c.sigma, got, want)
		}
	}
}

// Item 7: δ is held against the released number of users: with 30 users
// a δ of 0.01 (≥ 1/n) is refused, naming Delta and --delta; 1e-6 passes.
func TestDeltaAgainstUsers(t *testing.T) {
	d := small(t, "")
	for _, delta := range []float64{0.5, 0.01} {
		o := Defaults(1, delta, 1, 5)
		o.Seeded = true
		_, err := Train(context.Background(), d, o)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != "Delta" || !strings.Contains(err.Error(), "--delta") || !strings.Contains(err.Error(), "1/n") {
			t.Errorf("δ = %v with 30 users: %v, want a refusal naming Delta, --delta and 1/n", delta, err)
		}
	}
	train(t, d, Defaults(1, 1e-6, 1, 5))
	// 943 users (MovieLens 100k) and δ = 1e-3: refused by the plan alone.
	p, err := NewPlan(Defaults(1, 1e-3, 1, 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Decide(943); !errors.Is(err, ErrParam) {
		t.Errorf("δ = 1e-3 with 943 released users: %v, want a refusal", err)
	}
}

// Policy in the library: Validate refuses what dpmc train's user-mode
// flags refused, naming the field and the flag, with the command line's
// wording in FlagMessage.
func TestValidateNamesFieldAndFlag(t *testing.T) {
	base := Defaults(1, 1e-6, 1, 5)
	none := Defaults(inf, 1e-6, 1, 5)
	cases := []struct {
		name   string
		o      Options
		field  string
		inFlag string // FlagMessage must contain it
	}{
		{"rank < 0", with(base, func(o *Options) { o.Rank = -1 }), "Rank", "--rank = -1, want ≥ 0"},
		{"iters < 0", with(base, func(o *Options) { o.Iters = -1 }), "Iters", "--iters = -1, want ≥ 0"},
		{"rank > head", with(base, func(o *Options) { o.Rank, o.HeadItems = 20, 10 }), "Rank", "--rank = 20 exceeds the 10 most popular items that get factors"},
		{"head items 0", with(base, func(o *Options) { o.HeadItems = 0 }), "HeadItems", "--head-items = 0, want ≥ 1"},
		{"max items 0", with(base, func(o *Options) { o.MaxItemsPerUser = 0 }), "MaxItemsPerUser", "--max-user-ratings = 0, want in [1, 1000000000]"},
		{"clip norm", with(base, func(o *Options) { o.ClipNorm = inf }), "ClipNorm", "--clip-norm = +Inf, want a finite number > 0"},
		{"epsilon 0", with(base, func(o *Options) { o.Epsilon = 0 }), "Epsilon", "--epsilon = 0, want in [1e-06, 1000]"},
		{"epsilon 1e300", with(base, func(o *Options) { o.Epsilon = 1e300 }), "Epsilon", "--epsilon = 1e+300, want in [1e-06, 1000]"},
		{"delta 1", with(base, func(o *Options) { o.Delta = 1 }), "Delta", "--delta = 1, want in (0, 1)"},
		{"float unseeded", with(base, func(o *Options) { o.Sampler = SamplerFloat }), "Sampler", "--sampler float is not private"},
		{"workers", with(base, func(o *Options) { o.Workers = 9e18 }), "Workers", "--workers = 9000000000000000000, want in [0, 4096]"},
		{"rank huge", with(base, func(o *Options) { o.Rank, o.HeadItems = 1<<20, 1<<21 }), "Rank", "--rank = 1048576, want ≤ 1024"},
		{"none iters 0", with(none, func(o *Options) { o.Iters = 0 }), "Iters", "--iters = 0: the non-private baseline"},
	}
	for _, c := range cases {
		err := c.o.Validate()
		var pe *ParamError
		if !errors.As(err, &pe) || !errors.Is(err, ErrParam) {
			t.Errorf("%s: %v, want a ParamError", c.name, err)
			continue
		}
		if pe.Field != c.field || !strings.Contains(err.Error(), c.field+" = ") || !strings.Contains(err.Error(), "("+pe.Flag+")") {
			t.Errorf("%s: %q, want field %s and its flag", c.name, err, c.field)
		}
		if !strings.Contains(pe.FlagMessage(), c.inFlag) {
			t.Errorf("%s: FlagMessage %q, want it to contain %q", c.name, pe.FlagMessage(), c.inFlag)
		}
		if _, err := NewPlan(c.o); !errors.Is(err, ErrParam) {
			t.Errorf("%s: NewPlan accepted what Validate refused", c.name)
		}
	}
	if err := base.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if err := none.Validate(); err != nil {
		t.Errorf("non-private defaults: %v", err)
	}
}

// A noise scale outside the exact sampler's range is blamed on ε (with
// its accepted range), not reported as a bare σ.
func TestSigmaRangeBlamesEpsilon(t *testing.T) {
	o := Defaults(MaxEpsilon, 1e-6, 1, 5)
	o.ClipNorm = 1e-60 // Gram sensitivity C² = 1e-120
	_, err := NewPlan(o)
	if err == nil {
		p, _ := NewPlan(o)
		err = p.Decide(1e4)
	}
	if !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), "Epsilon = 1000 (--epsilon) is too large") || !strings.Contains(err.Error(), "[1e-06, 1000]") {
		t.Errorf("σ below the sampler's range: %v", err)
	}
}

func with(o Options, f func(*Options)) Options { f(&o); return o }

var inf = math.Inf(1)

func sqrt(x float64) float64 { return math.Sqrt(x) }

// tailProb is P[N(0, σ²) ≥ x].
func tailProb(x, sigma float64) float64 { return 0.5 * math.Erfc(x/sigma/math.Sqrt2) }

// Options without a flag are refused by name, too.
func TestValidateHeadRule(t *testing.T) {
	base := Defaults(5, 1e-6, 1, 5)
	for _, c := range []struct {
		field string
		set   func(*Options)
	}{
		{"HeadNoiseRatio", func(o *Options) { o.HeadNoiseRatio = -1 }},
		{"HeadNoiseRatio", func(o *Options) { o.HeadNoiseRatio = math.NaN() }},
		{"StartItems", func(o *Options) { o.StartItems = -1 }},
	} {
		o := base
		c.set(&o)
		var pe *ParamError
		if err := o.Validate(); !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("%s: %v, want a ParamError naming it", c.field, err)
		}
	}
}

// The noise oracle of the rule experiments (Options.oracle) divides a
// release's noise below what the report's ε pays for, so Validate refuses
// it on any run that could be taken for a release (unseeded), with the
// discrete sampler (whose noise it would not divide), and any name that
// is not a release's.
func TestValidateRefusesOracleUnlessSeeded(t *testing.T) {
	for _, c := range []struct {
		oracle []string
		seeded bool
		ok     bool
	}{
		{nil, false, true},
		{[]string{"gram", "rhs"}, true, true},
		{[]string{"gram"}, false, false},
		{[]string{"biases", "counts", "pca"}, false, false},
		{[]string{"gram", "everything"}, true, false},
		{[]string{"gram"}, true, false}, // seeded, but the discrete sampler
	} {
		o := Defaults(5, 1e-6, 1, 5)
		o.oracle, o.Seeded = c.oracle, c.seeded
		if c.seeded && c.ok {
			o.Sampler = SamplerFloat
		}
		err := o.Validate()
		var pe *ParamError
		if c.ok && err != nil {
			t.Errorf("oracle %q, seeded %v: %v", c.oracle, c.seeded, err)
		}
		if !c.ok && (!errors.As(err, &pe) || pe.Field != "oracle") {
			t.Errorf("oracle %q, seeded %v: %v, want a ParamError naming oracle", c.oracle, c.seeded, err)
		}
	}
}
