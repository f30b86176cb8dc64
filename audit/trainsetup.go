package audit

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/paper/privacy"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

// The modes of a TrainSetup.
const (
	// UserMode audits the userdp pipeline (dpmc train --privacy user):
	// user-level DP of everything it releases, against its accountant.
	UserMode = "user"
	// PaperMode audits the paper's algorithms (package solver): no
	// guarantee to test, only the paper's figures.
	PaperMode = "paper"
)

// Default sweeps of a paper-mode training audit. The noise per release is
// fixed and the bound found at 1000 runs, seeds 1–4, is 2.7–3.2 at T = 30
// from either start; at T = 3 it is 0.9–4.6 from a public start (it
// depends on V₀) and about 0 from random starts.
const DefaultPaperIters = 30

// startStream is the rng stream, under the root seed, of the public start
// V₀ of a paper-mode audit. Train derives the runs' seeds from streams
// phase<<62 | side<<61 | run with phase 0 or 1, so phase 3 is free.
const startStream = 3 << 62

// TrainSetup is one configured training audit on TinyTrainData: what each
// run trains, and the claim the verdict is against. Build it with
// NewUserTrainSetup or NewPaperTrainSetup, optionally replace the claim
// with SetClaim, and pass Options to Train.
type TrainSetup struct {
	// Mode is UserMode or PaperMode.
	Mode string
	// Data is the pair of neighbouring data sets (TinyTrainData).
	Data *TrainData
	// User (user mode) is the userdp options of every run; each run is
	// userdp.AuditFit(*User) with its own seed, on one thread.
	User *userdp.Options
	// UserReport (user mode) is the privacy report of one run with User
	// on Data: its accountant's total is the default claim.
	UserReport *userdp.Report
	// Paper (paper mode) is the solver options of every run, less the
	// seed; Noise is set.
	Paper *solver.Options
	// PaperReport (paper mode) has the paper's figures (no guarantee).
	PaperReport *privacy.Report
	// Claim is the claim under test; HasClaim is false in paper mode
	// unless SetClaim was called (there is then no guarantee to test).
	// ClaimFrom says where the claim comes from, for reports.
	Claim     noise.Guarantee
	HasClaim  bool
	ClaimFrom string
	// Root is the root seed of the runs (and of the public start); Seeded
	// says it was given rather than drawn from crypto/rand.
	Root   uint64
	Seeded bool
	// Fit trains one run.
	Fit TrainFunc
}

// NewUserTrainSetup configures an audit of the userdp pipeline with
// options o, which must be on the built-in data's public scale [TinyMin,
// TinyMax] (userdp.Defaults(ε, δ, TinyMin, TinyMax) and its With
// methods). Every run releases every item of the data (a public
// catalogue: both neighbours release the same item list, as
// userdp.AuditFit does), and the statistic is chosen among those of the
// released item factors, biases and counts; with o.Objective =
// userdp.ObjectiveRanking, among the noisy positive counts and the
// entries of V·diag(w)·Vᵀ of the ranking part (rankingFit). The claim is the total
// (ε, δ) of userdp's accountant for o, taken from one run on D (seeded
// with root: the accounting of an unseeded run is the same). It returns
// an error if o is invalid or not private (NoNoise).
func NewUserTrainSetup(ctx context.Context, o userdp.Options, root uint64, seeded bool) (*TrainSetup, error) {
	data, err := TinyTrainData()
	if err != nil {
		return nil, err
	}
	if o.NoNoise {
		return nil, fmt.Errorf("audit: %w: the non-private pipeline has no guarantee to audit", check.ErrParam)
	}
	if o.Min != data.Min || o.Max != data.Max {
		return nil, fmt.Errorf("audit: %w: userdp options on the scale [%g, %g], want the built-in data's [%g, %g]", check.ErrParam, o.Min, o.Max, data.Min, data.Max)
	}
	// The accounting run: as userdp.AuditFit trains, on D.
	x := data.Data
	d := &ratings.Dataset{Ratings: x, Users: ratings.NumberedIDs(x.Rows(), 0), Items: ratings.NumberedIDs(x.Cols(), 0), Min: o.Min, Max: o.Max}
	acc := o
	if acc.Items == nil {
		acc.Items = make([]string, x.Cols())
		for k := range acc.Items {
			acc.Items[k] = strconv.Itoa(k)
		}
	}
	acc.Seeded, acc.Seed, acc.Workers, acc.Progress = true, root, 1, nil
	res, err := userdp.Train(ctx, d, acc)
	if err != nil {
		return nil, fmt.Errorf("audit: the userdp options: %w", err)
	}
	rep := res.Report
	fit := userdp.AuditFit(o)
	if o.Objective == userdp.ObjectiveRanking {
		fit = rankingFit(o)
	}
	return &TrainSetup{
		Mode: UserMode, Data: data, User: &o, UserReport: rep,
		Claim: noise.Guarantee{Epsilon: rep.TotalEpsilon, Delta: rep.TotalDelta}, HasClaim: true, ClaimFrom: "the accountant's total",
		Root: root, Seeded: seeded, Fit: fit,
	}, nil
}

// rankingFit is the training function of a ranking-objective audit: one
// seeded run of userdp.Train with o (every item released: a public
// catalogue, as userdp.AuditFit does) on one thread, whose output has
// one row per item j (n × (n+1), row-major): the item's noisy positive
// count, then row j of the n × n matrix P = V·diag(w)·Vᵀ of the ranking
// part, 0 outside the head: the quantity
// every user's scores are computed from (RankScores: s = P·x on the
// head). P does not depend on the eigenvectors' signs, which are
// arbitrary, so a statistic of it tests the release and not the
// eigensolver's sign convention.
func rankingFit(o userdp.Options) TrainFunc {
	return func(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
		d := &ratings.Dataset{Ratings: x, Users: ratings.NumberedIDs(x.Rows(), 0), Items: ratings.NumberedIDs(x.Cols(), 0), Min: o.Min, Max: o.Max}
		o := o
		if o.Items == nil {
			o.Items = make([]string, x.Cols())
			for k := range o.Items {
				o.Items[k] = strconv.Itoa(k)
			}
		}
		o.Seeded, o.Seed, o.Workers, o.Progress = true, seed, 1, nil
		res, err := userdp.Train(ctx, d, o)
		if err != nil {
			return nil, err
		}
		rk, n := res.Ranking, len(res.ItemIDs)
		if rk == nil || n != x.Cols() {
			return nil, fmt.Errorf("audit: ranking run released %d items, want %d, and a ranking part", n, x.Cols())
		}
		out := make([]float64, 0, n*(n+1))
		k := rk.K
		for a := range n {
			out = append(out, rk.Counts[a])
			for b := range n {
				ra, rb := rk.HeadRow[a], rk.HeadRow[b]
				var p float64
				if ra >= 0 && rb >= 0 {
					va, vb := rk.V[int(ra)*k:int(ra+1)*k], rk.V[int(rb)*k:int(rb+1)*k]
					for c := range k {
						p += va[c] * rk.Weights[c] * vb[c]
					}
				}
				out = append(out, p)
			}
		}
		return out, nil
	}
}

// NewPaperTrainSetup configures an audit of the paper's algorithms with
// solver options o (Noise required; Seed, Seeded and
// Workers are set per run). With publicStart every run starts from one
// V₀ drawn from root (it does not depend on the data, so the runs differ
// only by the noise); otherwise each run draws its own. Threshold 0 means
// the Huber noise's α, or huber.PaperAlpha for other noise. The paper's
// figures at delta are reported, and there is no claim (see SetClaim).
func NewPaperTrainSetup(o solver.Options, publicStart bool, delta float64, root uint64, seeded bool) (*TrainSetup, error) {
	if o.Noise == nil {
		return nil, fmt.Errorf("audit: %w: a paper-mode audit needs noise", check.ErrParam)
	}
	data, err := TinyTrainData()
	if err != nil {
		return nil, err
	}
	o.Init = solver.InitWarm
	if publicStart {
		// One start for every run, selection and audited alike, drawn
		// before any run and independently of the data.
		src := rng.Stream(root, startStream)
		o.StartV = make([]float64, data.Data.Cols()*o.Rank)
		for k := range o.StartV {
			o.StartV[k] = src.NormFloat64()
		}
	}
	if o.Threshold == 0 {
		o.Threshold = huber.PaperAlpha
		if h, ok := o.Noise.(*huber.Mechanism); ok {
			o.Threshold = h.Alpha()
		}
	}
	rep, err := privacy.Paper(o, math.Max(math.Abs(data.Min), math.Abs(data.Max)), data.Data.MaxRowLen(), delta)
	if err != nil {
		return nil, fmt.Errorf("the paper's figures at δ = %g: %w", delta, err)
	}
	s := &TrainSetup{
		Mode: PaperMode, Data: data, Paper: &o, PaperReport: rep,
		Claim: noise.Guarantee{Delta: delta}, // only its δ is used: the bound on ε at δ
		Root:  root, Seeded: seeded,
	}
	s.Fit = func(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
		o := *s.Paper
		o.Seed, o.Seeded, o.Workers = seed, true, 1
		m, err := solver.Train(ctx, x, o)
		if err != nil {
			return nil, err
		}
		return m.V, nil
	}
	return s, nil
}

// SetClaim replaces the claim under test by g; from says where it comes
// from, for reports (such as "the claim given by --claim-epsilon").
func (s *TrainSetup) SetClaim(g noise.Guarantee, from string) {
	s.Claim, s.HasClaim, s.ClaimFrom = g, true, from
}

// Options returns the options of Train for this setup: runs audited runs
// per side, workers at once (0: GOMAXPROCS), joint confidence, seeded
// from Root.
func (s *TrainSetup) Options(runs, workers int, confidence float64) TrainOptions {
	return TrainOptions{
		Options: Options{Claim: s.Claim, Confidence: confidence},
		Data:    s.Data.Data, Neighbour: s.Data.Neighbour, Fit: s.Fit,
		Runs: runs, Seeded: true, Seed: s.Root, Workers: workers,
	}
}
