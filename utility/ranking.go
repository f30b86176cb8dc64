package utility

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dpmc/dpmc/baseline"
	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// The ranking study's list lengths: NDCG at NDCGK, recall at RecallK.
const (
	NDCGK   = 10
	RecallK = 20
)

// HistoryScorer scores every item for one user from that user's history
// alone, as a billboard model serves a user: dst (one entry per column of
// the training set) receives the scores of a user whose history is
// items[k] (training-set column indices) rated vals[k] (vals nil for
// implicit data). Higher is better; the history's items are scored like
// any other (package metrics leaves them out of the candidates). It must
// be safe for concurrent use. Every baseline.Model is one.
type HistoryScorer interface {
	ScoreInto(dst []float64, items []int32, vals []float64)
}

// Ranker is one series of the ranking study: a model family trained on
// the training set. A private Ranker's Train releases a model with
// user-level (eps, delta)-DP — drawing its noise from crypto/rand when
// seed is nil, and reproducibly from *seed otherwise (NOT private: for
// tests only) — and returns the scorer that each user runs on the release
// and their own history. A non-private Ranker (a baseline) ignores eps,
// delta and seed.
type Ranker interface {
	Name() string
	Train(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error)
}

// RankerFunc is a Ranker made of a name and a function.
type RankerFunc struct {
	// Label is the series' name (Name); Fit is Train.
	Label string
	Fit   func(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error)
}

// Name returns f.Label.
func (f RankerFunc) Name() string { return f.Label }

// Train calls f.Fit.
func (f RankerFunc) Train(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error) {
	return f.Fit(ctx, train, eps, delta, seed)
}

// Released adapts a model that scores the items of a release (its item
// IDs, as userdp.Result.ItemIDs) to a HistoryScorer over the columns of a
// training set: it maps the history's columns to released items by ID
// and back.
type Released struct {
	itemOf []int32 // training column → released item, −1 (or its WithTailIndex index) if not released
	n      int
	score  func(out []float64, cols []int32, vals []float64) float64
}

// NewReleased returns the HistoryScorer over train's columns of a release
// of the items itemIDs. score writes the score of every released item
// into out (len(itemIDs)) for a user whose history is cols[k] (indices
// into itemIDs, −1 for an item that was not released, or its
// WithTailIndex index) rated vals[k], and
// returns the score of every item that was not released. score must be
// safe for concurrent use.
func NewReleased(train *ratings.Dataset, itemIDs []string, score func(out []float64, cols []int32, vals []float64) (unreleased float64)) *Released {
	idx := make(map[string]int32, len(itemIDs))
	for j, id := range itemIDs {
		idx[id] = int32(j)
	}
	r := &Released{itemOf: make([]int32, train.Items.Len()), n: len(itemIDs), score: score}
	for j := range r.itemOf {
		m, ok := idx[train.Items.ID(j)]
		if !ok {
			m = -1
		}
		r.itemOf[j] = m
	}
	return r
}

// WithTailIndex makes the history of an item that was not released
// reach score as index(its ID) (< 0) instead of −1 — for a release with
// tail buckets, userdp.Result.TailIndex, so that its fold-in uses the
// item's bucket — and returns r. Unreleased items are still all scored
// with score's return value.
func (r *Released) WithTailIndex(index func(id string) int32, train *ratings.Dataset) *Released {
	for j, m := range r.itemOf {
		if m < 0 {
			r.itemOf[j] = index(train.Items.ID(j))
		}
	}
	return r
}

// ScoreInto implements HistoryScorer.
func (r *Released) ScoreInto(dst []float64, items []int32, vals []float64) {
	cols := make([]int32, len(items))
	for k, j := range items {
		cols[k] = r.itemOf[j]
	}
	out := make([]float64, r.n)
	tail := r.score(out, cols, vals)
	for j, m := range r.itemOf {
		if m >= 0 {
			dst[j] = out[m]
		} else {
			dst[j] = tail
		}
	}
}

// userdpOptions are userdp.Defaults for the study, seeded if seed is not
// nil.
func userdpOptions(train *ratings.Dataset, eps, delta float64, seed *uint64) userdp.Options {
	o := userdp.Defaults(eps, delta, train.Min, train.Max)
	if seed != nil {
		o.Seeded, o.Seed = true, *seed
	}
	return o
}

// Series names of the built-in private rankers.
const (
	RankerRating       = "dpmc rating model (userdp.Defaults), ranked by predicted rating"
	RankerDPPopularity = "DP popularity (the noisy item counts of the same release)"
	nonPrivateLabel    = "non-private"
)

// RatingRanker is today's user-level private rating model (userdp.Train
// with userdp.Defaults) ranking items by predicted rating: each user folds
// in their bias and factor from the release and their history (userdp's
// FoldIn) and scores μ + b_j + b_u + uᵀv_j, or μ + b_tail + b_u for an item
// outside the release. An implicit history (vals nil) counts each item as
// rated the scale's maximum.
func RatingRanker() Ranker {
	return RankerFunc{Label: RankerRating, Fit: func(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error) {
		res, err := userdp.Train(ctx, train, userdpOptions(train, eps, delta, seed))
		if err != nil {
			return nil, err
		}
		r := res.Rank
		return NewReleased(train, res.ItemIDs, func(out []float64, cols []int32, vals []float64) float64 {
			if vals == nil {
				vals = make([]float64, len(cols))
				for k := range vals {
					vals[k] = res.Max
				}
			}
			u, b := res.FoldIn(cols, vals)
			for m := range out {
				s := res.Mu + res.ItemBias[m] + b
				for c := range r {
					s += u[c] * res.V[m*r+c]
				}
				out[m] = s
			}
			// Items outside the release cannot be recommended (a model
			// file's candidates are its items): they rank at the tail's
			// score, as before the buckets.
			return res.Mu + res.TailBias + b
		}).WithTailIndex(res.TailIndex, train), nil
	}}
}

// DPPopularityRanker ranks the released items by the noisy item counts
// that userdp's default release holds anyway (the same for every user),
// and every item outside the release below them.
func DPPopularityRanker() Ranker {
	return RankerFunc{Label: RankerDPPopularity, Fit: func(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error) {
		res, err := userdp.Train(ctx, train, userdpOptions(train, eps, delta, seed))
		if err != nil {
			return nil, err
		}
		floor := 0.0
		for _, c := range res.Counts {
			floor = math.Min(floor, c)
		}
		return NewReleased(train, res.ItemIDs, func(out []float64, _ []int32, _ []float64) float64 {
			copy(out, res.Counts)
			return floor - 1
		}), nil
	}}
}

// BaselineRanker is a non-private baseline: fit on the training matrix.
func BaselineRanker(name string, fit func(train *ratings.Matrix) (baseline.Model, error)) Ranker {
	return RankerFunc{Label: name, Fit: func(_ context.Context, train *ratings.Dataset, _, _ float64, _ *uint64) (HistoryScorer, error) {
		return fit(train.Ratings)
	}}
}

// DefaultBaselines are the non-private baselines of the study: popularity
// (every training rating counts), EASE with λ = easeLambda (0: baseline's
// default) and PureSVD with k = 20, on the 0/1 matrix of every rating,
// and the userdp ranking pipeline without noise.
func DefaultBaselines(easeLambda float64) []Ranker {
	if easeLambda == 0 {
		easeLambda = baseline.DefaultEASELambda
	}
	return []Ranker{
		BaselineRanker("popularity (non-private)", func(x *ratings.Matrix) (baseline.Model, error) { return baseline.NewPopularity(x, 0), nil }),
		BaselineRanker(fmt.Sprintf("EASE, λ = %g (non-private)", easeLambda), func(x *ratings.Matrix) (baseline.Model, error) {
			return baseline.FitEASE(x, baseline.EASEOptions{Lambda: easeLambda})
		}),
		BaselineRanker(fmt.Sprintf("PureSVD, k = %d (non-private)", baseline.DefaultPureSVDRank), func(x *ratings.Matrix) (baseline.Model, error) {
			return baseline.FitPureSVD(x, baseline.PureSVDOptions{})
		}),
		RankingRanker(true),
	}
}

// DefaultPrivate are the private series of the study: the userdp ranking
// model (--objective ranking) with its defaults, the DP popularity that
// the same kind of release holds (its noisy positive counts), the DP
// popularity of the default rating release, and the rating model.
func DefaultPrivate() []Ranker {
	return []Ranker{RankingRanker(false), RankingPopularityRanker(), DPPopularityRanker(), RatingRanker()}
}

// RankerRanking and RankerRankingPopularity name the ranking objective's
// series.
const (
	RankerRanking           = "dpmc ranking model (--objective ranking, userdp.Defaults)"
	RankerRankingNoNoise    = "dpmc ranking model, no noise (non-private)"
	RankerRankingPopularity = "DP popularity of the ranking release (its noisy positive counts)"
)

// rankingOptions are userdpOptions with the ranking objective.
func rankingOptions(train *ratings.Dataset, eps, delta float64, seed *uint64, noNoise bool) userdp.Options {
	o := userdpOptions(train, eps, delta, seed)
	o.Objective = userdp.ObjectiveRanking
	o.NoNoise = noNoise
	return o
}

// rankingScorer scores with a released ranking part: each user's scores
// come from the release and the user's own history (userdp.RankScores);
// unreleased items rank below every released one.
func rankingScorer(train *ratings.Dataset, res *userdp.Result, r *userdp.Ranking) HistoryScorer {
	return NewReleased(train, res.ItemIDs, func(out []float64, cols []int32, _ []float64) float64 {
		r.Scores(cols, out)
		return userdp.UnreleasedScore
	})
}

// RankingRanker is the userdp ranking objective with its default rule
// (private), or the same pipeline without noise (noNoise: non-private; ε
// is then ignored, and the study trains it once as a baseline).
func RankingRanker(noNoise bool) Ranker {
	label := RankerRanking
	if noNoise {
		label = RankerRankingNoNoise
	}
	return RankerFunc{Label: label, Fit: func(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error) {
		if noNoise {
			eps, delta = 1, 1e-6 // not used without noise; valid for Defaults
		}
		res, err := userdp.Train(ctx, train, rankingOptions(train, eps, delta, seed, noNoise))
		if err != nil {
			return nil, err
		}
		return rankingScorer(train, res, res.Ranking), nil
	}}
}

// RankingPopularityRanker ranks by the noisy positive counts of the
// ranking release alone: the DP popularity that release holds.
func RankingPopularityRanker() Ranker {
	return RankerFunc{Label: RankerRankingPopularity, Fit: func(ctx context.Context, train *ratings.Dataset, eps, delta float64, seed *uint64) (HistoryScorer, error) {
		res, err := userdp.Train(ctx, train, rankingOptions(train, eps, delta, seed, false))
		if err != nil {
			return nil, err
		}
		return rankingScorer(train, res, res.Ranking.Popularity()), nil
	}}
}

// RankingConfig describes one ranking study: one data set under one
// protocol.
type RankingConfig struct {
	// Name labels the data set and Protocol the protocol in reports, e.g.
	// "given split (u1.base / u1.test)" or "held-out users"; Note, if not
	// empty, is printed under the table's heading (a caveat on the data).
	Name, Protocol, Note string
	// Train is what every model is fitted to. History and Test are the
	// users scored, one row each in both: History holds what each user
	// gives the model (their fold-in; their candidates are the items not
	// in it), Test the ratings scored. All three share columns. For the
	// given split, History is Train and Test the test set; for held-out
	// users (ratings.SplitUsers), the three parts of the split.
	Train, History, Test *ratings.Dataset
	// Private are trained Runs times at every ε; Baselines once.
	Private, Baselines []Ranker
	// Epsilons are the total ε values, each > 0 and finite; Delta the
	// total δ.
	Epsilons []float64
	Delta    float64
	// Runs per private point, ≥ 2.
	Runs int
	// Threshold is the lowest relevant test rating (default 4).
	Threshold float64
	// Seeded makes every run reproducible from Seed — NOT private; for
	// tests only. Unseeded runs draw from crypto/rand.
	Seeded bool
	Seed   uint64
	// Progress, if not nil, is called after every point with a short
	// note.
	Progress func(string)
}

// Stat is one metric over the runs of a point: every run's value, the
// mean and its 95 % Student-t interval (Lo = Hi = Mean for one run).
type Stat struct {
	Runs []float64 `json:"runs"`
	Mean float64   `json:"mean"`
	Lo   float64   `json:"ci95_lo"`
	Hi   float64   `json:"ci95_hi"`
}

func stat(xs []float64) Stat {
	s := Stat{Runs: xs}
	s.Mean, s.Lo, s.Hi = meanCI(xs)
	return s
}

// RankPoint is one model at one ε (private) or once (non-private).
type RankPoint struct {
	Model string `json:"model"`
	// Private says whether the model is a private release at Epsilon;
	// non-private points have Epsilon +Inf (JSON null).
	Private     bool     `json:"private"`
	Epsilon     float64  `json:"-"`
	EpsilonJSON *float64 `json:"epsilon"`
	// NDCG is NDCG@NDCGK, Recall recall@RecallK (package metrics).
	NDCG   Stat `json:"ndcg_at_10"`
	Recall Stat `json:"recall_at_20"`
}

// RankingResult is one ranking study's curves, as RunRanking measured
// them; Name, Protocol and Note come from the config.
type RankingResult struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	Note     string `json:"note,omitempty"`
	// Users and Items are the training set's; TrainRatings its ratings.
	Users        int `json:"train_users"`
	Items        int `json:"items"`
	TrainRatings int `json:"train_ratings"`
	// Scored is the number of users scored, HistoryRatings and
	// TestRatings theirs; Ranked the users with a relevant test rating
	// (those the metrics average over).
	Scored         int `json:"scored_users"`
	HistoryRatings int `json:"history_ratings"`
	TestRatings    int `json:"test_ratings"`
	Ranked         int `json:"ranked_users"`
	// Threshold, Delta, Runs and Seeded are the config's; Points the
	// baselines, then each private series at each ε.
	Threshold float64     `json:"relevance_threshold"`
	Delta     float64     `json:"delta"`
	Runs      int         `json:"runs"`
	Seeded    bool        `json:"seeded"`
	Points    []RankPoint `json:"points"`
}

// RunRanking measures the ranking curves: every baseline once, every
// private ranker Runs times at every ε, each scored by NDCG@10 and
// recall@20 under package metrics' conventions over the users of History
// and Test. It returns an error naming the field for a bad config,
// ctx.Err() if cancelled, or a training error naming the series.
func RunRanking(ctx context.Context, c RankingConfig) (*RankingResult, error) {
	if c.Train == nil || c.History == nil || c.Test == nil {
		return nil, fmt.Errorf("utility: %s: train, history and test sets are required", c.Name)
	}
	h, te := c.History.Ratings, c.Test.Ratings
	if h.Rows() != te.Rows() || h.Cols() != te.Cols() || c.Train.Ratings.Cols() != h.Cols() {
		return nil, fmt.Errorf("utility: %s: history %d × %d, test %d × %d and training %d columns do not match", c.Name, h.Rows(), h.Cols(), te.Rows(), te.Cols(), c.Train.Ratings.Cols())
	}
	if c.Runs < 2 {
		return nil, fmt.Errorf("utility: runs = %d, want ≥ 2", c.Runs)
	}
	for _, e := range c.Epsilons {
		if !(e > 0) || math.IsInf(e, 0) {
			return nil, fmt.Errorf("utility: epsilon %v, want a finite number > 0", e)
		}
	}
	if c.Threshold == 0 {
		c.Threshold = 4
	}
	res := &RankingResult{
		Name: c.Name, Protocol: c.Protocol, Note: c.Note,
		Users: c.Train.Ratings.Rows(), Items: c.Train.Ratings.Cols(), TrainRatings: c.Train.Ratings.Len(),
		Scored: h.Rows(), HistoryRatings: h.Len(), TestRatings: te.Len(),
		Threshold: c.Threshold, Delta: c.Delta, Runs: c.Runs, Seeded: c.Seeded,
	}
	note := func(p RankPoint) {
		if c.Progress != nil {
			at := "non-private"
			if p.Private {
				at = fmt.Sprintf("ε = %g", p.Epsilon)
			}
			c.Progress(fmt.Sprintf("%s, %s: %s at %s: NDCG@%d %.4f, recall@%d %.4f", c.Name, c.Protocol, p.Model, at, NDCGK, p.NDCG.Mean, RecallK, p.Recall.Mean))
		}
	}
	for _, b := range c.Baselines {
		hs, err := b.Train(ctx, c.Train, math.Inf(1), c.Delta, nil)
		if err != nil {
			return nil, fmt.Errorf("utility: %s, %s: %w", c.Name, b.Name(), err)
		}
		ndcg, recall, ranked := c.evaluate(hs)
		res.Ranked = ranked
		name := b.Name()
		if !strings.Contains(name, nonPrivateLabel) {
			name += " (" + nonPrivateLabel + ")"
		}
		p := RankPoint{Model: name, Epsilon: math.Inf(1), NDCG: stat([]float64{ndcg}), Recall: stat([]float64{recall})}
		res.Points = append(res.Points, p)
		note(p)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	run := 0
	for _, r := range c.Private {
		for _, e := range c.Epsilons {
			var ns, rs []float64
			for range c.Runs {
				run++
				var seed *uint64
				if c.Seeded {
					s := c.Seed + uint64(run)
					seed = &s
				}
				hs, err := r.Train(ctx, c.Train, e, c.Delta, seed)
				if err != nil {
					return nil, fmt.Errorf("utility: %s, %s at ε = %g: %w", c.Name, r.Name(), e, err)
				}
				ndcg, recall, ranked := c.evaluate(hs)
				res.Ranked = ranked
				ns, rs = append(ns, ndcg), append(rs, recall)
			}
			eps := e
			p := RankPoint{Model: r.Name(), Private: true, Epsilon: e, EpsilonJSON: &eps, NDCG: stat(ns), Recall: stat(rs)}
			res.Points = append(res.Points, p)
			note(p)
		}
	}
	return res, nil
}

// evaluate returns NDCG@NDCGK and recall@RecallK of hs over the users of
// c.History and c.Test, and the number of users ranked.
func (c *RankingConfig) evaluate(hs HistoryScorer) (ndcg, recall float64, ranked int) {
	h := c.History.Ratings
	sc := func() metrics.Scorer {
		return baseline.NewRows(h.Cols(), func(i int, dst []float64, buf *[]float64) {
			items, vals := baseline.RowOf(h, i, buf)
			hs.ScoreInto(dst, items, vals)
		})
	}
	a := metrics.Evaluate(h, c.Test.Ratings, sc(), metrics.Options{K: NDCGK, Threshold: c.Threshold, Ranking: true})
	b := metrics.Evaluate(h, c.Test.Ratings, sc(), metrics.Options{K: RecallK, Threshold: c.Threshold, Ranking: true})
	return a.NDCG, b.Recall, a.Users
}
