package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/userdp"
)

// Ranking is the ranking part of a user-level model (dpmc train
// --objective ranking; userdp.Ranking): the leading eigenvectors of a
// noisy co-occurrence Gram over the M head items, with the model's noisy
// positive counts (Model.Counts) for everything else. A user ranks from
// it and the user's own history alone (RecommendUser; the billboard
// model). It holds nothing per user.
//
// A model with a Ranking has no rating part: its Rank is 0, its item
// biases and tail bias are 0 and Mu is the scale's midpoint, so it does
// not predict ratings (PredictPairs and FoldIn refuse it: ErrNoRatings).
type Ranking struct {
	// Head lists the model's item indices of the head items, ascending:
	// row r of V is item Head[r].
	Head []int32
	// K is the number of components: the columns of V (0: rank by the
	// noisy counts alone).
	K int
	// V is M × K, row-major (M = len(Head)): orthonormal columns in
	// decreasing order of eigenvalue.
	V []float64
	// Weights are the components' weights in [0, 1] (len K).
	Weights []float64
	// Eigenvalues are the noisy Gram's top K eigenvalues and Edge the
	// noise's bulk edge 2σ_G√M (0 without noise): for reports only.
	Eigenvalues []float64
	Edge        float64
	// Fallback says that the whole budget went to the counts (the model
	// ranks by noisy popularity).
	Fallback bool
	// Positive is the public threshold: a rating ≥ Positive was a
	// positive; −Inf for implicit data (every pair a positive).
	Positive float64
}

// ErrNoRatings is returned when a rating prediction or fold-in is asked
// of a ranking model, which has no rating part.
var ErrNoRatings = errors.New("model: a ranking model (dpmc train --objective ranking) has no rating part: it ranks items for a user (dpmc recommend --history), it does not predict ratings")

// HasRatings reports whether m predicts ratings (has a rating part): every
// model but a ranking one.
func (m *Model) HasRatings() bool { return m.Ranking == nil }

// rankingFrom converts a released userdp.Ranking.
func rankingFrom(r *userdp.Ranking) *Ranking {
	out := &Ranking{K: r.K, V: r.V, Weights: r.Weights, Eigenvalues: r.Eigenvalues, Edge: r.Edge, Fallback: r.Fallback, Positive: r.Positive}
	out.Head = []int32{}
	for j, h := range r.HeadRow {
		if h >= 0 {
			out.Head = append(out.Head, int32(j))
		}
	}
	if out.V == nil {
		out.V = []float64{}
	}
	if out.Weights == nil {
		out.Weights, out.Eigenvalues = []float64{}, []float64{}
	}
	return out
}

// check reports the first inconsistency of r in a model of n items.
func (r *Ranking) check(n int) error {
	if r.K < 0 || r.K > userdp.MaxComponents {
		return fmt.Errorf("ranking: %d components, want in [0, %d]", r.K, userdp.MaxComponents)
	}
	prev := int32(-1)
	for _, j := range r.Head {
		if j <= prev || int(j) >= n {
			return fmt.Errorf("ranking: head item %d, want ascending item indices in [0, %d)", j, n)
		}
		prev = j
	}
	if len(r.V) != len(r.Head)*r.K || len(r.Weights) != r.K || len(r.Eigenvalues) != r.K {
		return fmt.Errorf("ranking: %d entries of V, %d weights and %d eigenvalues for %d head items and %d components", len(r.V), len(r.Weights), len(r.Eigenvalues), len(r.Head), r.K)
	}
	for _, w := range r.Weights {
		if !(w >= 0 && w <= 1) {
			return fmt.Errorf("ranking: weight %v, want in [0, 1]", w)
		}
	}
	if !(r.Edge >= 0) || math.IsInf(r.Edge, 0) {
		return fmt.Errorf("ranking: edge %v, want a finite number ≥ 0", r.Edge)
	}
	if math.IsNaN(r.Positive) || math.IsInf(r.Positive, 1) {
		return fmt.Errorf("ranking: positive threshold %v, want a number or -Inf", r.Positive)
	}
	for _, x := range [][]float64{r.V, r.Eigenvalues} {
		if p := firstNonFinite(x); p >= 0 {
			return fmt.Errorf("ranking: %v, want finite numbers", x[p])
		}
	}
	return nil
}

// headRows returns, for every item of m, its row of the ranking's V or −1.
func (m *Model) headRows() []int32 {
	m.rankOnce.Do(func() {
		m.headRow = make([]int32, len(m.ItemIDs))
		for j := range m.headRow {
			m.headRow[j] = -1
		}
		for r, j := range m.Ranking.Head {
			m.headRow[j] = int32(r)
		}
	})
	return m.headRow
}

// RankScores returns a ranking model's score of every item for a user
// whose history (the user's own rated or interacted items, ratings
// ignored) is the model's item indices history (−1 for an item not in
// the model): userdp.RankScores, the rule training evaluates with. A
// higher score ranks first; the history's items score −Inf unless keep.
// It panics for a model without a ranking part.
func (m *Model) RankScores(history []int32, keep bool, dst []float64) []float64 {
	r := m.Ranking
	if keep {
		return userdp.RankScoresKeep(m.Counts, m.headRows(), r.V, r.K, r.Weights, history, dst)
	}
	return userdp.RankScores(m.Counts, m.headRows(), r.V, r.K, r.Weights, history, dst)
}

// recommendRanking is RecommendUser for a ranking model.
func (m *Model) recommendRanking(req Request, rec *Recommendation) (*Recommendation, error) {
	if req.History == nil || len(req.History.Items) == 0 {
		return nil, errors.New("model: recommend: a ranking model holds no users; give the user's own history (rated or interacted items) to rank for the user")
	}
	hist := make([]int32, 0, len(req.History.Items))
	seen := make(map[int]bool, len(req.History.Items))
	for _, id := range req.History.Items {
		j, ok := m.Item(id)
		if !ok {
			rec.HistoryUnknown++
			continue
		}
		if !seen[j] {
			seen[j] = true
			hist = append(hist, int32(j))
		}
	}
	rec.HistoryRatings = len(req.History.Items)
	if !req.IncludeRated {
		rec.Excluded = len(hist)
	}
	scores := m.RankScores(hist, req.IncludeRated, nil)
	top := metrics.TopK(len(m.ItemIDs), req.K, func(j int) float64 { return scores[j] }, func(j int) bool { return !req.IncludeRated && seen[j] })
	rec.Items = make([]Scored, len(top))
	for p, s := range top {
		rec.Items[p] = Scored{Item: s.Item, ID: m.ItemIDs[s.Item], Score: s.Score}
	}
	return rec, nil
}
