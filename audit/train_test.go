package audit_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

// False alarms: every training audit below holds its bounds jointly with
// probability at least 95 % (Confidence), so a correct claim is flagged
// with probability at most 5 % per audit. All are seeded, hence
// deterministic: they never flake, and the seeds used pass. 300 audited
// runs per side (plus 60 selection runs) keep them fast.

const testRuns = 300

// tiny returns the built-in training-audit data.
func tiny(t *testing.T) *audit.TrainData {
	t.Helper()
	d, err := audit.TinyTrainData()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// solverFit trains with o, seeded by the run's seed, on one goroutine.
func solverFit(o solver.Options) audit.TrainFunc {
	return func(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
		o := o // each call its own copy: calls are concurrent
		o.Seed, o.Seeded, o.Workers = seed, true, 1
		m, err := solver.Train(ctx, x, o)
		if err != nil {
			return nil, err
		}
		return m.V, nil
	}
}

// userSetup is the audit setup of the userdp pipeline with options o on
// the tiny data, as dpmc audit --train --privacy user builds it: every run
// is userdp.AuditFit(o), and the claim is the total of userdp's
// accountant for o.
func userSetup(t *testing.T, o userdp.Options) *audit.TrainSetup {
	t.Helper()
	s, err := audit.NewUserTrainSetup(context.Background(), o, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTinyTrainData(t *testing.T) {
	d := tiny(t)
	if d.Data.Rows() != audit.TinyUsers || d.Data.Cols() != audit.TinyItems ||
		d.Neighbour.Rows() != audit.TinyUsers || d.Neighbour.Cols() != audit.TinyItems {
		t.Fatalf("shapes %d × %d and %d × %d", d.Data.Rows(), d.Data.Cols(), d.Neighbour.Rows(), d.Neighbour.Cols())
	}
	items, vals := d.Data.Row(d.Target)
	if len(items) != audit.TinyItems || slices.ContainsFunc(vals.CopyTo(make([]float64, vals.Len())), func(v float64) bool { return v != audit.TinyMax }) {
		t.Errorf("target user %d rates %v %v, want %g on every item", d.Target, items, vals, audit.TinyMax)
	}
	if items, _ := d.Neighbour.Row(d.Target); len(items) != 0 {
		t.Errorf("the neighbour keeps %d ratings of the target", len(items))
	}
	if d.Data.Len() != d.Neighbour.Len()+audit.TinyItems {
		t.Errorf("%d and %d ratings: the neighbour must lack exactly the target's", d.Data.Len(), d.Neighbour.Len())
	}
	for tr := range d.Neighbour.All() {
		if got, _ := d.Data.Get(int(tr.User), int(tr.Item)); got != tr.Value || tr.Value < 2 || tr.Value > 4 {
			t.Errorf("background rating %+v (in D: %v), want the same in D and moderate", tr, got)
		}
	}
	for j := range audit.TinyItems {
		if users, _ := d.Neighbour.Col(j); len(users) < 7 {
			t.Errorf("item %d has %d background ratings, want ≥ 7", j, len(users))
		}
	}
	if d.Min != 1 || d.Max != 5 || !strings.Contains(d.Description, "12 users × 6 items") {
		t.Errorf("scale [%g, %g], description %q", d.Min, d.Max, d.Description)
	}
}

// TestTrainKnownMechanism checks the pipeline end to end on a "training"
// whose exact ε is known: one item, rank 1, V = √exp(μ + Laplace(1)) with
// μ = 0 on Data and 1 on Neighbour. The Gram entry G = exp(μ + noise) is a
// monotone function of the Laplace release, which is exactly 1-DP, so the
// audit must pass the claim 1 and catch the claim 0.3.
func TestTrainKnownMechanism(t *testing.T) {
	if audit.RaceEnabled {
		t.Skip("statistical: runs without -race")
	}
	data, err := ratings.New(1, 1, []ratings.Triple{{Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := ratings.New(1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(_ context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
		r := rng.Seeded(seed)
		noise := r.ExpFloat64()
		if r.IntN(2) == 0 {
			noise = -noise
		}
		mu := 0.0
		if x.Len() == 0 {
			mu = 1
		}
		return []float64{math.Sqrt(math.Exp(mu + noise))}, nil
	}
	tests := []struct {
		claim   float64
		verdict audit.Verdict
		atLeast float64
	}{
		{1, audit.Pass, 0.5},
		{0.3, audit.Violation, 0.5},
	}
	for _, tt := range tests {
		res, err := audit.Train(context.Background(), audit.TrainOptions{
			Options: audit.Options{Claim: noise.Guarantee{Epsilon: tt.claim}},
			Data:    data, Neighbour: empty, Fit: fit, Runs: 5000, Seeded: true, Seed: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tt.verdict || res.EpsilonLower < tt.atLeast || res.EpsilonLower > 1 {
			t.Errorf("claim %g: %s with ε ≥ %.4f (statistic %s, event %q), want %s with ε in [%g, 1]",
				tt.claim, res.Verdict, res.EpsilonLower, res.Statistic, res.Best.Description, tt.verdict, tt.atLeast)
		}
		if res.Rank != 1 || res.Runs != 5000 || res.SelectRuns != 1000 || len(res.Weights) != len(res.Features) || res.Ceiling < res.EpsilonLower {
			t.Errorf("rank %d, runs %d + %d, %d weights for %d features, ceiling %v", res.Rank, res.Runs, res.SelectRuns, len(res.Weights), len(res.Features), res.Ceiling)
		}
	}
}

// TestTrainUserDPPasses: the userdp pipeline calibrated to a total ε = 1
// (δ = 10⁻⁶) passes its accountant's total, with biases only, with
// factors, and with factors, uniform weights and the float sampler
// (accounted as μ-GDP). Each run releases [v_j, b_j, count_j] per item.
func TestTrainUserDPPasses(t *testing.T) {
	if audit.RaceEnabled {
		t.Skip("statistical: runs without -race")
	}
	d := tiny(t)
	base := userdp.Defaults(1, 1e-6, audit.TinyMin, audit.TinyMax)
	floatUniform := base.WithFactors(2, 1, 0.4)
	floatUniform.Sampler, floatUniform.Weights = userdp.SamplerFloat, userdp.WeightsUniform
	tests := []struct {
		name string
		o    userdp.Options
		rank int // columns of the release: factors, bias, count
	}{
		{"biases only", base, 2},
		{"rank 2", base.WithFactors(2, 1, 0.4), 4},
		{"rank 2, uniform weights, float sampler", floatUniform, 4},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := userSetup(t, tt.o)
			claim := s.Claim
			if math.Abs(claim.Epsilon-1) > 1e-3 || claim.Delta > 1e-6 {
				t.Fatalf("accountant's total %v, want ε = 1, δ ≤ 1e-6 (calibrated)", claim)
			}
			res, err := audit.Train(context.Background(), audit.TrainOptions{
				Options: audit.Options{Claim: claim},
				Data:    d.Data, Neighbour: d.Neighbour, Fit: s.Fit, Runs: testRuns, Seeded: true, Seed: uint64(10 + i),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("ε ≥ %.4f (ceiling %.4f) by %s; accountant %v", res.EpsilonLower, res.Ceiling, res.Statistic, claim)
			if res.Verdict != audit.Pass || res.EpsilonLower > claim.Epsilon {
				t.Errorf("%s: ε ≥ %.4f against the accountant's %v (statistic %s, event %q)", res.Verdict, res.EpsilonLower, claim, res.Statistic, res.Best.Description)
			}
			if res.Rank != tt.rank || res.Runs != testRuns || res.SelectRuns != testRuns/5 || res.Samples != testRuns {
				t.Errorf("rank %d (want %d), runs %d + %d, samples %d", res.Rank, tt.rank, res.Runs, res.SelectRuns, res.Samples)
			}
		})
	}
}

// TestTrainRankingAudit audits the ranking objective (noisy positive
// counts and the Gram's weighted projection V·diag(w)·Vᵀ): the
// accountant's true claim at ε = 1 passes, and the pipeline calibrated to
// ε = 100 but claimed at ε = 0.5 is flagged.
func TestTrainRankingAudit(t *testing.T) {
	if audit.RaceEnabled {
		t.Skip("statistical: runs without -race")
	}
	d := tiny(t)
	ranking := func(eps float64) userdp.Options {
		o := userdp.Defaults(eps, 1e-6, audit.TinyMin, audit.TinyMax)
		o.Objective = userdp.ObjectiveRanking
		return o
	}
	truth := userSetup(t, ranking(1))
	loose := userSetup(t, ranking(100))
	if math.Abs(truth.Claim.Epsilon-1) > 1e-3 {
		t.Fatalf("accountant's total %v, want ε = 1", truth.Claim)
	}
	for i, tt := range []struct {
		name  string
		s     *audit.TrainSetup
		claim noise.Guarantee
		want  audit.Verdict
	}{
		{"ε = 1, the accountant's claim", truth, truth.Claim, audit.Pass},
		{"ε = 100, claim ε = 0.5", loose, noise.Guarantee{Epsilon: 0.5, Delta: 1e-6}, audit.Violation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := audit.Train(context.Background(), audit.TrainOptions{
				Options: audit.Options{Claim: tt.claim},
				Data:    d.Data, Neighbour: d.Neighbour, Fit: tt.s.Fit, Runs: testRuns, Seeded: true, Seed: uint64(40 + i),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("ε ≥ %.4f (ceiling %.4f) by %s", res.EpsilonLower, res.Ceiling, res.Statistic)
			if res.Verdict != tt.want || res.Rank != audit.TinyItems+1 {
				t.Errorf("%s (want %s) with ε ≥ %.4f, statistic %s, %d outputs", res.Verdict, tt.want, res.EpsilonLower, res.Statistic, res.Rank)
			}
		})
	}
}

// TestTrainCatchesBrokenClaims shows the training audit's power on
// configurations whose claim is false:
//   - the paper's ALS with tiny noise (σ = 0.01) run to convergence: the
//     un-noised Gram matrices make V nearly a function of the data, so a
//     claim of ε = 1 is far off;
//   - the userdp pipeline calibrated to ε = 100 but claimed at ε = 0.5.
func TestTrainCatchesBrokenClaims(t *testing.T) {
	if audit.RaceEnabled {
		t.Skip("statistical: runs without -race")
	}
	d := tiny(t)
	tiny, err := gaussian.New(0.01)
	if err != nil {
		t.Fatal(err)
	}
	paper := solver.Options{Rank: 2, Lambda: 0.5, Iters: 30, Noise: tiny}
	loose := userSetup(t, userdp.Defaults(100, 1e-6, audit.TinyMin, audit.TinyMax))
	tests := []struct {
		name    string
		fit     audit.TrainFunc
		claim   noise.Guarantee
		atLeast float64
	}{
		{"paper mode, σ = 0.01, claim ε = 1", solverFit(paper), noise.Guarantee{Epsilon: 1, Delta: 1e-6}, 2},
		{"user mode at ε = 100, claim ε = 0.5", loose.Fit, noise.Guarantee{Epsilon: 0.5, Delta: 1e-6}, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := audit.Train(context.Background(), audit.TrainOptions{
				Options: audit.Options{Claim: tt.claim},
				Data:    d.Data, Neighbour: d.Neighbour, Fit: tt.fit, Runs: testRuns, Seeded: true, Seed: uint64(20 + i),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("ε ≥ %.4f (ceiling %.4f) by %s", res.EpsilonLower, res.Ceiling, res.Statistic)
			if res.Verdict != audit.Violation || res.EpsilonLower < tt.atLeast {
				t.Errorf("%s with ε ≥ %.4f (statistic %s, event %q), want VIOLATION with ε ≥ %v",
					res.Verdict, res.EpsilonLower, res.Statistic, res.Best.Description, tt.atLeast)
			}
		})
	}
}

// TestTrainDeterministic: a seed fixes the result whatever the number of
// workers; another seed, or none, gives other runs.
func TestTrainDeterministic(t *testing.T) {
	d := tiny(t)
	s := userSetup(t, userdp.Defaults(50, 1e-6, audit.TinyMin, audit.TinyMax).WithFactors(2, 1, 0.4))
	run := func(seeded bool, seed uint64, workers int) audit.TrainResult {
		t.Helper()
		res, err := audit.Train(context.Background(), audit.TrainOptions{
			Options: audit.Options{Claim: s.Claim},
			Data:    d.Data, Neighbour: d.Neighbour, Fit: s.Fit, Runs: 100, Seeded: seeded, Seed: seed, Workers: workers,
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(true, 5, 1), run(true, 5, 3)
	if a.EpsilonLower != b.EpsilonLower || a.Statistic != b.Statistic || !slices.Equal(a.Weights, b.Weights) ||
		a.Best != b.Best || a.Separation != b.Separation || a.RootSeed != 5 || !a.Seeded {
		t.Errorf("seed 5 on 1 and 3 workers: ε ≥ %v by %q (%v) and ε ≥ %v by %q (%v)",
			a.EpsilonLower, a.Statistic, a.Best, b.EpsilonLower, b.Statistic, b.Best)
	}
	c := run(true, 6, 2)
	if c.Separation == a.Separation && slices.Equal(c.Weights, a.Weights) {
		t.Error("seeds 5 and 6 chose the same statistic with the same separation")
	}
	u := run(false, 5, 2)
	if u.Seeded || u.RootSeed == 5 {
		t.Errorf("unseeded audit: Seeded %v, root seed %d", u.Seeded, u.RootSeed)
	}
}

func TestTrainProgress(t *testing.T) {
	d := tiny(t)
	var calls, last, total int
	_, err := audit.Train(context.Background(), audit.TrainOptions{
		Data: d.Data, Neighbour: d.Neighbour, Fit: solverFit(solver.Options{Rank: 2, Lambda: 0.5, Iters: 1}),
		Runs: 100, SelectRuns: 30, Seeded: true, Seed: 1,
		Progress: func(done, tot int) {
			if done != last+1 {
				t.Errorf("progress %d after %d", done, last)
			}
			calls, last, total = calls+1, done, tot
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * (100 + 30); calls != want || last != want || total != want {
		t.Errorf("%d calls, last %d of %d; want %d", calls, last, total, want)
	}
}

func TestTrainCancel(t *testing.T) {
	d := tiny(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := audit.Train(ctx, audit.TrainOptions{Data: d.Data, Neighbour: d.Neighbour,
		Fit: solverFit(solver.Options{Rank: 2, Lambda: 0.5, Iters: 1}), Runs: 100})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want one wrapping context.Canceled", err)
	}
}

func TestTrainBadOptions(t *testing.T) {
	d := tiny(t)
	fit := solverFit(solver.Options{Rank: 2, Lambda: 0.5, Iters: 1})
	other, err := ratings.New(3, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := ratings.New(1, audit.MaxTrainItems+1, nil)
	if err != nil {
		t.Fatal(err)
	}
	good := audit.TrainOptions{Data: d.Data, Neighbour: d.Neighbour, Fit: fit, Runs: 100}
	tests := []struct {
		name string
		edit func(*audit.TrainOptions)
		want string
	}{
		{"no data", func(o *audit.TrainOptions) { o.Data = nil }, "data and neighbour"},
		{"no neighbour", func(o *audit.TrainOptions) { o.Neighbour = nil }, "data and neighbour"},
		{"shapes differ", func(o *audit.TrainOptions) { o.Neighbour = other }, "same shape"},
		{"too many items", func(o *audit.TrainOptions) { o.Data, o.Neighbour = wide, wide }, "items"},
		{"no fit", func(o *audit.TrainOptions) { o.Fit = nil }, "training function"},
		{"few runs", func(o *audit.TrainOptions) { o.Runs = 99 }, "runs"},
		{"few select runs", func(o *audit.TrainOptions) { o.SelectRuns = audit.MinSelectRuns - 1 }, "select runs"},
		{"workers", func(o *audit.TrainOptions) { o.Workers = -1 }, "workers"},
		{"claim", func(o *audit.TrainOptions) { o.Claim.Epsilon = math.NaN() }, "claimed epsilon"},
		{"confidence", func(o *audit.TrainOptions) { o.Confidence = 1 }, "confidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := good
			tt.edit(&o)
			_, err := audit.Train(context.Background(), o)
			if !errors.Is(err, check.ErrParam) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a check.ErrParam naming %q", err, tt.want)
			}
		})
	}
}

// TestTrainBadFit: a failing or malformed training run stops the audit
// with an error naming the run, the side and the problem.
func TestTrainBadFit(t *testing.T) {
	d := tiny(t)
	boom := errors.New("boom")
	// bad returns V for the tiny data (6 × 2) except on side B's run 7.
	bad := func(v []float64, err error) audit.TrainFunc {
		return func(_ context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
			r := rand.New(rand.NewPCG(seed, 0))
			if x.Len() == d.Neighbour.Len() && r.IntN(50) == 7 {
				return v, err
			}
			good := make([]float64, 12)
			for i := range good {
				good[i] = r.NormFloat64()
			}
			return good, nil
		}
	}
	nan := make([]float64, 12)
	nan[5] = math.NaN()
	tests := []struct {
		name string
		fit  audit.TrainFunc
		want []string
	}{
		{"error", bad(nil, boom), []string{"on side B", "boom"}},
		{"empty V", bad(nil, nil), []string{"on side B", "V has 0 entries"}},
		{"ragged V", bad(make([]float64, 13), nil), []string{"on side B", "multiple"}},
		{"other rank", bad(make([]float64, 18), nil), []string{"on side B", "rank 2"}},
		{"NaN", bad(nan, nil), []string{"on side B", "V[2, 1] = NaN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := audit.Train(context.Background(), audit.TrainOptions{Data: d.Data, Neighbour: d.Neighbour, Fit: tt.fit, Runs: 100, Seeded: true, Seed: 1, Workers: 1})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tt.name == "error" && !errors.Is(err, boom) {
				t.Errorf("error %v does not wrap the training error", err)
			}
		})
	}
}
