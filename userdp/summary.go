package userdp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

// Summary is what dpmc train --privacy user reports about one run: the
// settings, the privacy report of the release, and figures computed from
// the raw data, which are for the operator's evaluation only. Its text
// and JSON forms keep the two apart and say so.
type Summary struct {
	// Data describes the training data (evaluation only: it holds exact
	// counts).
	Data string `json:"-"`
	// Options are the settings used (after Defaults and flags).
	Options Options `json:"options"`
	// Release describes what was released.
	Release ReleaseSummary `json:"release"`
	// Privacy is the release's privacy report.
	Privacy *Report `json:"privacy"`
	// Evaluation holds exact figures of the private data. NOT released,
	// NOT covered by the guarantee.
	Evaluation EvaluationSummary `json:"evaluation_only_not_released"`
}

// ReleaseSummary counts what the release holds; these are functions of the
// release itself, so they are as private as the release.
type ReleaseSummary struct {
	Items int `json:"items"`
	// Rank is the number of learned factors; Features names the feature
	// columns V also has (Result.Features).
	Rank     int      `json:"rank"`
	Features []string `json:"feature_columns"`
	Mu       float64  `json:"mu"`
	// HeadItems is the number of items with a nonzero learned factor.
	HeadItems int `json:"head_items"`
	// Ranking describes the ranking part of the ranking objective (nil
	// for the rating objective).
	Ranking *RankingRelease `json:"ranking,omitempty"`
}

// RankingRelease describes a released Ranking.
type RankingRelease struct {
	// HeadItems is M, Components k (0: noisy popularity alone).
	HeadItems  int `json:"head_items"`
	Components int `json:"components"`
	// Fallback: the whole budget went to the counts (RankingOptions.FallbackRatio).
	Fallback bool `json:"fallback"`
	// Positive is the public threshold, nil for implicit data (every
	// pair a positive).
	Positive *float64 `json:"positive"`
}

// EvaluationSummary holds exact, non-private figures.
type EvaluationSummary struct {
	Data                    string   `json:"data"`
	Users                   int      `json:"users"`
	Items                   int      `json:"items"`
	TrainRatings            int      `json:"train_ratings"`
	TestRatings             int      `json:"test_ratings"`
	DroppedOutsideCatalogue int      `json:"dropped_outside_catalogue"`
	TrainRMSE               float64  `json:"-"`
	TestRMSE                float64  `json:"-"`
	TestMAE                 float64  `json:"-"`
	TrainRMSEJSON           *float64 `json:"train_rmse"`
	TestRMSEJSON            *float64 `json:"test_rmse"`
	TestMAEJSON             *float64 `json:"test_mae"`
	Seconds                 float64  `json:"seconds"`
	// Test holds the error and ranking metrics on the test set (nil
	// without one).
	Test *metrics.Result `json:"test_metrics,omitempty"`
	// RankNDCG and RankRecall are a ranking model's test metrics at k = 10
	// and k = 20 (NDCG@10, recall@20), and PopNDCG and PopRecall those of
	// the noisy popularity the same release holds (Ranking.Popularity);
	// nil without a test set or for the rating objective.
	RankNDCG   *metrics.Result `json:"test_ranking_at_10,omitempty"`
	RankRecall *metrics.Result `json:"test_ranking_at_20,omitempty"`
	PopNDCG    *metrics.Result `json:"test_noisy_popularity_at_10,omitempty"`
	PopRecall  *metrics.Result `json:"test_noisy_popularity_at_20,omitempty"`
}

// summarizeRanking is Summarize for the ranking objective: no rating
// errors; NDCG@10 and recall@20 of the users' rankings (and of the noisy
// popularity) on test, relevant = a test rating ≥ Positive (every test
// pair of implicit data).
func summarizeRanking(s *Summary, res *Result, opts Options, train, test *ratings.Dataset) {
	rk := res.Ranking
	rr := &RankingRelease{HeadItems: rk.Head(), Components: rk.K, Fallback: rk.Fallback}
	if !math.IsInf(opts.Positive, -1) {
		p := opts.Positive
		rr.Positive = &p
	}
	s.Release.Ranking = rr
	e := &s.Evaluation
	e.TrainRMSE, e.TestRMSE, e.TestMAE = math.NaN(), math.NaN(), math.NaN()
	if test == nil {
		return
	}
	e.TestRatings = test.Ratings.Len()
	thr := opts.Positive
	if math.IsInf(thr, -1) {
		thr = test.Min
		if thr == 0 { // metrics reads 0 as its default, 4
			thr = math.SmallestNonzeroFloat64
		}
	}
	for _, c := range []struct {
		r   *Ranking
		dst []**metrics.Result
	}{{rk, []**metrics.Result{&e.RankNDCG, &e.RankRecall}}, {rk.Popularity(), []**metrics.Result{&e.PopNDCG, &e.PopRecall}}} {
		us := NewRankUsers(c.r, res.ItemIDs, train)
		for q, k := range []int{10, 20} {
			m := us.Evaluate(train.Ratings, test.Ratings, metrics.Options{K: k, Threshold: thr, Workers: opts.Workers})
			*c.dst[q] = &m
		}
	}
}

// Summarize evaluates res on its training set and, if test is not nil, a
// test set (same user and item indices), with every user's bias and
// factor folded in from the user's training ratings, predictions clipped
// to the rating range. A ranking release (Result.Ranking) is evaluated by
// NDCG@10 and recall@20 of every user's ranking from the user's training
// history, beside the noisy popularity of the same release.
func Summarize(res *Result, opts Options, train, test *ratings.Dataset, data string, seconds float64) *Summary {
	s := &Summary{Data: data, Options: opts, Privacy: res.Report}
	s.Release = ReleaseSummary{Items: len(res.ItemIDs), Rank: res.LearnedRank(), Features: res.Features, Mu: res.Mu}
	if res.Ranking != nil {
		e := &s.Evaluation
		e.Data, e.Seconds = data, seconds
		e.Users, e.Items, e.TrainRatings = train.Ratings.Rows(), train.Ratings.Cols(), train.Ratings.Len()
		e.DroppedOutsideCatalogue = res.Evaluation.DroppedOutsideCatalogue
		summarizeRanking(s, res, opts, train, test)
		return s
	}
	for j := range res.ItemIDs {
		for k := range res.LearnedRank() {
			if res.V[j*res.Rank+k] != 0 {
				s.Release.HeadItems++
				break
			}
		}
	}
	users := res.FoldInAll(train)
	e := &s.Evaluation
	e.Data = data
	e.Users, e.Items, e.TrainRatings = train.Ratings.Rows(), train.Ratings.Cols(), train.Ratings.Len()
	e.DroppedOutsideCatalogue = res.Evaluation.DroppedOutsideCatalogue
	e.TrainRMSE, _ = users.Errors(train.Ratings)
	e.TestRMSE, e.TestMAE = math.NaN(), math.NaN()
	if test != nil {
		e.TestRatings = test.Ratings.Len()
		m := users.Evaluate(train.Ratings, test.Ratings, metrics.Options{})
		e.TestRMSE, e.TestMAE, e.Test = m.RMSE, m.MAE, &m
	}
	num := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	e.TrainRMSEJSON, e.TestRMSEJSON, e.TestMAEJSON = num(e.TrainRMSE), num(e.TestRMSE), num(e.TestMAE)
	e.Seconds = seconds
	return s
}

// Warnings returns what an operator must know before using the release,
// one sentence each (none for a usable release): a release with no
// item, which private selection gives when no item's noisy weighted count
// clears the threshold — too few users for ε (such a model predicts every
// item by the centre, the tail bias and the user's own bias, and
// recommends nothing); and a catalogue (--items) that no training rating
// matches.
func (s *Summary) Warnings() []string {
	var w []string
	if s.Release.Items == 0 {
		why := "no item was released"
		if s.Privacy != nil && s.Privacy.Threshold > 0 {
			why = fmt.Sprintf("no item was released: no item's noisy weighted count cleared the selection threshold %.4g at ε = %g", s.Privacy.Threshold, s.Options.Epsilon)
		}
		w = append(w, why+"; the model predicts every item by μ, the tail bias (or its tail bucket's bias and columns) and the user's own bias, and recommends nothing (remedies: a larger --epsilon, more users, or a public item catalogue with --items FILE, which releases every catalogue item)")
	}
	// A catalogue that none of the data matches releases noise alone.
	// The figures are the operator's evaluation, not released.
	if e := s.Evaluation; e.DroppedOutsideCatalogue > 0 && e.DroppedOutsideCatalogue == e.TrainRatings {
		w = append(w, fmt.Sprintf("none of the training ratings is of an item in the catalogue (--items): all %d were dropped, and the released counts, biases and factors are noise alone (check that the catalogue's IDs are the data's item IDs)", e.DroppedOutsideCatalogue))
	}
	return w
}

// WriteText writes the summary as labelled lines: the release and its
// guarantee first, then the evaluation-only figures, marked as such.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	o := s.Options
	mode := "user-level private"
	if o.NoNoise {
		mode = "NON-PRIVATE baseline (--mechanism none)"
	}
	if rr := s.Release.Ranking; rr != nil {
		return s.writeRankingText(w, &b, mode, rr)
	}
	pop := ""
	for _, f := range s.Release.Features {
		switch f {
		case FeaturePopularity:
			pop += " + γ_user·pop_item"
		case FeatureItemBias:
			pop += " + κ_user·b_item"
		}
	}
	if s.Release.Rank == 0 {
		fmt.Fprintf(&b, "model:      %s: μ + b_item + b_user%s (no factors)\n", mode, pop)
	} else {
		fmt.Fprintf(&b, "model:      %s: μ + b_item + b_user + u_userᵀv_item%s; rank %d, %d ALS step(s)\n", mode, pop, s.Release.Rank, o.Iters)
	}
	fmt.Fprintf(&b, "released:   %d items, %d with factors; global centre μ = %.4g\n", s.Release.Items, s.Release.HeadItems, s.Release.Mu)
	if err := s.Privacy.WriteText(&b); err != nil {
		return err
	}
	e := s.Evaluation
	fmt.Fprintf(&b, "evaluation (evaluation only, NOT released, NOT private — exact figures of the raw data):\n")
	fmt.Fprintf(&b, "            data: %s\n", e.Data)
	if e.DroppedOutsideCatalogue > 0 {
		fmt.Fprintf(&b, "            %d training ratings of items outside the catalogue were dropped\n", e.DroppedOutsideCatalogue)
	}
	f := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return fmt.Sprintf("%.4f", x)
	}
	fmt.Fprintf(&b, "            train RMSE %s, test RMSE %s, test MAE %s (predictions clipped to [%g, %g]; each user's bias and factor fitted from the user's own training ratings)\n",
		f(e.TrainRMSE), f(e.TestRMSE), f(e.TestMAE), o.Min, o.Max)
	if e.Test != nil && e.Test.Users > 0 {
		t := e.Test
		fmt.Fprintf(&b, "            ranking: precision@%d %s, recall@%d %s, NDCG@%d %s, MAP@%d %s over %d test users with a rating ≥ %g (ranking every item the user did not rate in training; conventions: package metrics)\n",
			t.K, f(t.Precision), t.K, f(t.Recall), t.K, f(t.NDCG), t.K, f(t.MAP), t.Users, t.Threshold)
	}
	fmt.Fprintf(&b, "            time %.2f s\n", e.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRankingText is WriteText for a ranking release.
func (s *Summary) writeRankingText(w io.Writer, b *strings.Builder, mode string, rr *RankingRelease) error {
	pos := "every pair (implicit data)"
	if rr.Positive != nil {
		pos = fmt.Sprintf("a rating ≥ %g", *rr.Positive)
	}
	fmt.Fprintf(b, "model:      %s top-k ranking (--objective ranking): positives = %s; head Gram eigenvectors + noisy popularity; no rating part\n", mode, pos)
	switch {
	case rr.Fallback:
		fmt.Fprintf(b, "released:   %d items; ranking: noisy popularity only (fallback: too few users for the Gram at this ε), M = 0, k = 0\n", s.Release.Items)
	default:
		fmt.Fprintf(b, "released:   %d items; ranking: M = %d head items, k = %d components (fallback: no)\n", s.Release.Items, rr.HeadItems, rr.Components)
	}
	if err := s.Privacy.WriteText(b); err != nil {
		return err
	}
	e := s.Evaluation
	fmt.Fprintf(b, "evaluation (evaluation only, NOT released, NOT private — exact figures of the raw data):\n")
	fmt.Fprintf(b, "            data: %s\n", e.Data)
	if e.DroppedOutsideCatalogue > 0 {
		fmt.Fprintf(b, "            %d training ratings of items outside the catalogue were dropped\n", e.DroppedOutsideCatalogue)
	}
	f := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return fmt.Sprintf("%.4f", x)
	}
	if e.RankNDCG != nil {
		fmt.Fprintf(b, "            ranking: NDCG@10 %s, recall@20 %s over %d test users with a relevant test item; noisy popularity of the same release: NDCG@10 %s, recall@20 %s (each user ranked from the user's own training history; every item the user did not rate in training is a candidate; package metrics)\n",
			f(e.RankNDCG.NDCG), f(e.RankRecall.Recall), e.RankNDCG.Users, f(e.PopNDCG.NDCG), f(e.PopRecall.Recall))
	} else {
		fmt.Fprintf(b, "            no test set (--test or --test-fraction): no ranking metrics\n")
	}
	fmt.Fprintf(b, "            time %.2f s\n", e.Seconds)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the summary as one indented JSON object.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
