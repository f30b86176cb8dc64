package train

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/paper/privacy"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
)

// Data is what a paper-mode run trains and tests on.
type Data struct {
	// Describe says in words what the data is (printed as "data:").
	Describe string
	// Train and Test (nil for none) share row and column indices.
	Train, Test *ratings.Matrix
	// Users and Items are the external IDs (nil: numbered from 1).
	Users, Items *ratings.IDs
	// Min and Max are the rating range.
	Min, Max float64
	// Implicit says that the data is implicit feedback (ratings.Dataset.
	// Implicit: pairs without ratings, each stored as 1).
	Implicit bool
	// Problem is the synthetic truth (nil for real data): the run then
	// reports the full RMSE against it; SyntheticSeed generated it.
	Problem       *synthetic.Problem
	SyntheticSeed uint64
	// Overlap is the number of (user, item) pairs rated in both Train and
	// Test (see Warnings).
	Overlap int
}

// Warnings returns what is wrong with the data for an honest evaluation,
// one sentence each (none if nothing is): today, a test set that shares
// (user, item) pairs with the training set, whose test error then
// measures in part the fit to the training data, not the prediction of
// held-out ratings. It is a warning, not an error: an in-sample check is
// a legitimate experiment, but it must not pass for a test error.
func (d *Data) Warnings() []string {
	var w []string
	if d.Overlap > 0 && d.Test != nil {
		w = append(w, fmt.Sprintf("the test set shares %d of its %d (user, item) pairs (%.1f %%) with the training set: on those pairs the test error measures the fit to the training data, not a prediction; hold out disjoint ratings (e.g. MovieLens u1.base with u1.test, or --test-fraction)",
			d.Overlap, d.Test.Len(), 100*float64(d.Overlap)/float64(max(d.Test.Len(), 1))))
	}
	return w
}

// Settings are the run's settings besides the solver's.
type Settings struct {
	// Clip clips predictions to the rating range before measuring error.
	Clip bool
	// Delta is the total δ of the privacy report (in (0, 1)).
	Delta float64
	// Metrics are the ranking settings (zero: k = 10, relevant ≥ 4).
	Metrics metrics.Options
}

// MinLambda is the smallest ridge λ (squared rating units) a paper-mode
// run accepts. A smaller one adds nothing that float64 normal equations
// can hold: on MovieLens 100k u1 at rank 32, λ = 1e-12 already leaves an
// item's normal equations not positive definite (1e-9 still solves), so
// the floor keeps a margin of 10⁶ above that failure while being far
// below any ridge that changes a model.
const MinLambda = 1e-6

// DefaultThreshold is the Huber threshold of the IRLS weights when none
// is given: the Huber noise's α, else the paper's α = 3.
func DefaultThreshold(noise noise.Mechanism) float64 {
	if h, ok := noise.(*huber.Mechanism); ok {
		return h.Alpha()
	}
	return huber.PaperAlpha
}

// Result is the report of a paper-mode run, as dpmc train --json prints
// it.
type Result struct {
	Algo          string          `json:"algo"`
	Mechanism     string          `json:"mechanism"`
	Noise         string          `json:"noise"`
	Variance      *float64        `json:"variance"`
	Rank          int             `json:"rank"`
	Lambda        float64         `json:"lambda"`
	Iters         int             `json:"iters"`
	IRLSIters     *int            `json:"irls_iters"`
	IRLSThreshold *float64        `json:"irls_threshold"`
	Init          *string         `json:"init"`
	Users         int             `json:"users"`
	Items         int             `json:"items"`
	TrainRatings  int             `json:"train_ratings"`
	TestRatings   int             `json:"test_ratings"`
	TrainRMSE     float64         `json:"train_rmse"`
	TestRMSE      *float64        `json:"test_rmse"`
	TestMAE       *float64        `json:"test_mae"`
	FullRMSE      *float64        `json:"full_rmse"`
	Clipped       bool            `json:"clipped"`
	Seconds       float64         `json:"seconds"`
	Workers       int             `json:"workers"`
	Seed          *uint64         `json:"seed"`
	DataSeed      *uint64         `json:"data_seed,omitempty"`
	Data          string          `json:"data"`
	Privacy       *privacy.Report `json:"privacy"`
	PrivacyMode   string          `json:"privacy_mode"`
	TestMetrics   *metrics.Result `json:"test_metrics,omitempty"`

	model *solver.Model
	data  *Data
	opts  solver.Options
}

// Paper trains opts (Workers 0 means all cores) on d, then measures the
// model and reports on its privacy. It returns an error wrapping ctx.Err()
// if ctx is done before it returns, even after the last sweep (the
// evaluation itself is not interrupted, but its result is dropped).
func Paper(ctx context.Context, d *Data, opts solver.Options, s Settings) (*Result, error) {
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	sm, err := solver.Train(ctx, d.Train, opts)
	if err != nil {
		return nil, err
	}
	secs := time.Since(start).Seconds()
	opts.Progress = nil
	// A cancellation during the last sweep or the evaluation ends the run
	// with no result, so that nothing is printed or saved after it.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	r := &Result{model: sm, data: d, opts: opts}
	// The report comes after training, which has validated the options.
	if opts.Noise != nil {
		if r.Privacy, err = privacy.Paper(opts, math.Max(math.Abs(d.Min), math.Abs(d.Max)), d.Train.MaxRowLen(), s.Delta); err != nil {
			return nil, err
		}
	}
	r.fill(s, secs)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return r, nil
}

func ptr[T any](v T) *T { return &v }

// fill computes the result fields.
func (r *Result) fill(s Settings, secs float64) {
	o, d, m := &r.opts, r.data, r.model
	clip := solver.Clip{Min: d.Min, Max: d.Max, On: s.Clip}
	r.Algo, r.Mechanism, r.Noise, r.Rank, r.Lambda, r.Iters = o.Algorithm.String(), "none", "none", o.Rank, o.Lambda, o.Iters
	r.Users, r.Items, r.TrainRatings, r.Clipped = d.Train.Rows(), d.Train.Cols(), d.Train.Len(), s.Clip
	r.Seconds, r.Workers, r.Data, r.PrivacyMode = math.Round(secs*1000)/1000, o.Workers, d.Describe, "paper"
	if o.Algorithm == solver.IRLS {
		r.IRLSIters, r.IRLSThreshold, r.Init = ptr(o.IRLSIters), ptr(o.Threshold), ptr(o.Init.String())
	}
	if o.Seeded {
		r.Seed = ptr(o.Seed)
	}
	if d.Problem != nil {
		r.DataSeed = ptr(d.SyntheticSeed)
		r.FullRMSE = ptr(d.Problem.FullRMSE(metrics.ScorerFunc(func(i, j int) float64 { return clip.Apply(m.Predict(i, j)) })))
	}
	r.TrainRMSE, _ = m.Errors(d.Train, clip)
	if d.Test != nil {
		r.TestRatings = d.Test.Len()
		if d.Test.Len() > 0 {
			mo := s.Metrics
			mo.Ranking, mo.Clip, mo.ClipMin, mo.ClipMax = true, s.Clip, d.Min, d.Max
			mr := metrics.Evaluate(d.Train, d.Test, m, mo)
			r.TestRMSE, r.TestMAE, r.TestMetrics = ptr(mr.RMSE), ptr(mr.MAE), &mr
		}
	}
	if o.Noise != nil {
		r.Mechanism, r.Noise, r.Variance = o.Noise.Name(), o.Noise.String(), ptr(o.Noise.Variance())
	}
}

// SolverModel returns the trained factors.
func (r *Result) SolverModel() *solver.Model { return r.model }

// Model returns the run as a model file (kind paper): the data's IDs (or
// "1" … "n"), U, V, the rating range, the mean training rating, this result (without its privacy
// report) as its settings, and the privacy report.
func (r *Result) Model() (*model.Model, error) {
	sm, d := r.model, r.data
	settings := *r
	settings.Privacy = nil
	var sum float64
	for t := range d.Train.All() {
		sum += t.Value
	}
	mean := sum / float64(d.Train.Len())
	return model.FromSolver(sm, idList(d.Users, sm.Users), idList(d.Items, sm.Items), d.Min, d.Max, mean, &settings, r.Privacy)
}

// idList returns the n IDs of ids, or "1" … "n" if ids is nil.
func idList(ids *ratings.IDs, n int) []string {
	if ids == nil {
		ids = ratings.NumberedIDs(n, 1)
	}
	s := make([]string, n)
	for i := range s {
		s[i] = ids.ID(i)
	}
	return s
}

// WriteJSON writes the result as one indented JSON object.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func fmtOpt(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 4, 64)
}

// WriteText writes the summary dpmc train prints: data, algorithm,
// noise and privacy, errors, ranking metrics and time.
func (r *Result) WriteText(w io.Writer) error {
	o := &r.opts
	fmt.Fprintf(w, "data:       %s\n", r.Data)
	algo := fmt.Sprintf("%s, rank %d, λ = %g, T = %d sweeps", r.Algo, r.Rank, r.Lambda, r.Iters)
	if o.Algorithm == solver.IRLS {
		algo += fmt.Sprintf(", K = %d inner iterations, threshold c = %g, init %s", o.IRLSIters, o.Threshold, o.Init)
	}
	fmt.Fprintf(w, "algorithm:  %s, %d workers\n", algo, r.Workers)
	if r.Privacy == nil {
		fmt.Fprintf(w, "noise:      none (non-private baseline)\n")
	} else if err := r.Privacy.WriteText(w); err != nil {
		return err
	}
	clip := ""
	if r.Clipped {
		clip = " (predictions clipped to the rating range)"
	}
	fmt.Fprintf(w, "error:      train RMSE %.4f, test RMSE %s, test MAE %s, full RMSE %s%s\n",
		r.TrainRMSE, fmtOpt(r.TestRMSE), fmtOpt(r.TestMAE), fmtOpt(r.FullRMSE), clip)
	if t := r.TestMetrics; t != nil && t.Users > 0 {
		fmt.Fprintf(w, "ranking:    precision@%d %.4f, recall@%d %.4f, NDCG@%d %.4f, MAP@%d %.4f over %d test users with a rating ≥ %g\n",
			t.K, t.Precision, t.K, t.Recall, t.K, t.NDCG, t.K, t.MAP, t.Users, t.Threshold)
	}
	_, err := fmt.Fprintf(w, "time:       %.2f s\n", r.Seconds)
	return err
}
