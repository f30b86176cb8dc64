// Package utility measures what user-level privacy costs in accuracy: the
// privacy–utility curve of package userdp's pipeline — test RMSE against
// the total ε — beside the trivial baselines (the training mean, the DP
// item-bias model with locally computed user biases) and the same
// pipeline without noise.
//
// Run trains every model Runs times at every ε, each run unseeded (noise
// from crypto/rand, as a real release) unless Config.Seeded, and
// summarizes each point by its mean and a 95 % Student-t confidence
// interval. Result renders as Markdown (WriteMarkdown), JSON and a plot
// (WritePlot).
//
// RunRanking measures what a recommender's user sees: NDCG@10 and
// recall@20 (package metrics' conventions) against ε, with the same runs
// and intervals, for private series (Ranker: today the DP popularity of
// the default release and the rating model ranking by predicted rating)
// beside non-private baselines that package baseline computes (popularity,
// EASE, PureSVD), under the given split or held-out users
// (ratings.SplitUsers). A new private model joins as one more Ranker:
//
//	utility.RankerFunc{Label: "…", Fit: func(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (utility.HistoryScorer, error) {
//		res, err := userdp.Train(ctx, train, opts(eps, delta, seed)) // seed nil: crypto/rand
//		…
//		return utility.NewReleased(train, res.ItemIDs, func(out []float64, cols []int32, vals []float64) float64 { … }), nil
//	}}
//
// Report renders both studies as one Markdown file. dpmc utility runs them
// on MovieLens 100k and on the MovieLens-1M-shaped generator and writes
// PRIVACY-UTILITY.md.
package utility

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// Model names, as in Point.Model.
const (
	ModelMean             = "training mean (non-private)"
	ModelBiases           = "DP item biases + local user biases (rank 0)"
	ModelDefault          = "dpmc default (userdp.Defaults)"
	ModelCatalogue        = "dpmc default with the public catalogue"
	ModelNonPrivate       = "same pipeline, no noise (non-private)"
	ModelNonPrivateBiases = "biases only, no noise (non-private)"
)

// Config describes one data set's study.
type Config struct {
	// Name labels the data set in reports.
	Name string
	// Train and Test are the split; Test's rows and columns index the
	// same users and items as Train's.
	Train, Test *ratings.Dataset
	// Catalogue, if not nil, is the public item catalogue; the study then
	// adds the ModelCatalogue series.
	Catalogue []string
	// Epsilons are the total ε values, each > 0 and finite; Delta the
	// total δ.
	Epsilons []float64
	Delta    float64
	// Runs per point, ≥ 2.
	Runs int
	// Seeded makes every run reproducible from Seed — NOT private; for
	// tests only. Unseeded runs draw from crypto/rand.
	Seeded bool
	Seed   uint64
	// Progress, if not nil, is called after every run with a short note.
	Progress func(string)
}

// Point is one model at one ε.
type Point struct {
	Model string `json:"model"`
	// Epsilon is the total ε; +Inf (JSON null) for non-private models.
	Epsilon float64 `json:"-"`
	// EpsilonJSON is Epsilon for JSON, nil for +Inf.
	EpsilonJSON *float64 `json:"epsilon"`
	// RMSE holds every run's test RMSE; Mean, Lo and Hi summarize it (95 %
	// Student-t interval of the mean; Lo = Hi = Mean for one run or a
	// deterministic model).
	RMSE []float64 `json:"rmse"`
	Mean float64   `json:"mean"`
	Lo   float64   `json:"ci95_lo"`
	Hi   float64   `json:"ci95_hi"`
	// Factors says whether the default pipeline released factors (from
	// the report of the last run).
	Factors string `json:"factors,omitempty"`
}

// Result is one data set's curve.
type Result struct {
	Name    string  `json:"name"`
	Users   int     `json:"users"`
	Items   int     `json:"items"`
	Train   int     `json:"train_ratings"`
	Test    int     `json:"test_ratings"`
	Delta   float64 `json:"delta"`
	Runs    int     `json:"runs"`
	Seeded  bool    `json:"seeded"`
	Points  []Point `json:"points"`
	Command string  `json:"command,omitempty"`
}

// Run measures the curve. It returns an error naming the field for a bad
// Config, ctx.Err() if cancelled, or a training error.
func Run(ctx context.Context, c Config) (*Result, error) {
	if c.Train == nil || c.Test == nil {
		return nil, fmt.Errorf("utility: %s: train and test sets are required", c.Name)
	}
	if c.Runs < 2 {
		return nil, fmt.Errorf("utility: runs = %d, want ≥ 2", c.Runs)
	}
	for _, e := range c.Epsilons {
		if !(e > 0) || math.IsInf(e, 0) {
			return nil, fmt.Errorf("utility: epsilon %v, want a finite number > 0", e)
		}
	}
	lo, hi := c.Train.Min, c.Train.Max
	res := &Result{
		Name: c.Name, Users: c.Train.Ratings.Rows(), Items: c.Train.Ratings.Cols(),
		Train: c.Train.Ratings.Len(), Test: c.Test.Ratings.Len(),
		Delta: c.Delta, Runs: c.Runs, Seeded: c.Seeded,
	}
	mean := meanRMSE(c.Train.Ratings, c.Test.Ratings)
	res.Points = append(res.Points, point(ModelMean, math.Inf(1), []float64{mean}, ""))
	run := 0
	fit := func(o userdp.Options) (float64, string, error) {
		run++
		o.Seeded, o.Seed = c.Seeded, c.Seed+uint64(run)
		m, err := userdp.Train(ctx, c.Train, o)
		if err != nil {
			return 0, "", err
		}
		rmse, _ := m.FoldInAll(c.Train).Errors(c.Test.Ratings)
		return rmse, m.Report.Factors, nil
	}
	type series struct {
		name string
		opts func(eps float64) userdp.Options
	}
	all := []series{
		{ModelBiases, func(e float64) userdp.Options { return bareBiases(userdp.Defaults(e, c.Delta, lo, hi)) }},
		{ModelDefault, func(e float64) userdp.Options { return userdp.Defaults(e, c.Delta, lo, hi) }},
	}
	if c.Catalogue != nil {
		all = append(all, series{ModelCatalogue, func(e float64) userdp.Options {
			return userdp.Defaults(e, c.Delta, lo, hi).WithCatalogue(c.Catalogue)
		}})
	}
	for _, s := range all {
		for _, e := range c.Epsilons {
			var xs []float64
			var factors string
			for range c.Runs {
				x, f, err := fit(s.opts(e))
				if err != nil {
					return nil, fmt.Errorf("utility: %s, %s at ε = %g: %w", c.Name, s.name, e, err)
				}
				xs = append(xs, x)
				factors = f
			}
			res.Points = append(res.Points, point(s.name, e, xs, factors))
			if c.Progress != nil {
				c.Progress(fmt.Sprintf("%s: %s at ε = %g: RMSE %.4f", c.Name, s.name, e, res.Points[len(res.Points)-1].Mean))
			}
		}
	}
	// The non-private models are deterministic given the data: one run.
	for _, np := range []struct {
		name string
		opts userdp.Options
	}{
		{ModelNonPrivateBiases, bareBiases(userdp.Defaults(math.Inf(1), c.Delta, lo, hi))},
		{ModelNonPrivate, userdp.Defaults(math.Inf(1), c.Delta, lo, hi)},
	} {
		x, _, err := fit(np.opts)
		if err != nil {
			return nil, fmt.Errorf("utility: %s, %s: %w", c.Name, np.name, err)
		}
		res.Points = append(res.Points, point(np.name, math.Inf(1), []float64{x}, ""))
	}
	return res, nil
}

// point summarizes runs.
func point(model string, eps float64, xs []float64, factors string) Point {
	p := Point{Model: model, Epsilon: eps, RMSE: xs, Factors: factors}
	if !math.IsInf(eps, 0) {
		e := eps
		p.EpsilonJSON = &e
	}
	p.Mean, p.Lo, p.Hi = meanCI(xs)
	return p
}

// meanCI returns the mean of xs and its 95 % Student-t interval.
func meanCI(xs []float64) (mean, lo, hi float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, mean, mean
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	h := t * sd / math.Sqrt(n)
	return mean, mean - h, mean + h
}

// meanRMSE is the test RMSE of predicting the training mean.
func meanRMSE(train, test *ratings.Matrix) float64 {
	var s float64
	for t := range train.All() {
		s += t.Value
	}
	m := s / float64(train.Len())
	rmse, _ := metrics.Errors(test, metrics.ScorerFunc(func(int, int) float64 { return m }))
	return rmse
}

// bareBiases returns o as a bare bias model: no factors and no feature
// columns (each user's bias alone), the baseline that shows what the
// default's factors and columns add.
func bareBiases(o userdp.Options) userdp.Options {
	o = o.WithFactors(0, 0, 0)
	o.PopularityScale, o.BiasColumnScale = 0, 0
	return o
}
