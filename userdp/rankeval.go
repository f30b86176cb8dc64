package userdp

import (
	"math"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

// RankUsers holds what every user of a data set computes locally from a
// Ranking and the user's own history (h = Vᵀx, weighted): it exists for
// evaluation; in the billboard model nobody holds all of it.
type RankUsers struct {
	r      *Ranking
	itemOf []int32   // dataset column → released item, −1 if not released
	h      []float64 // users × K, each user's w ⊙ Vᵀx
	hist   []bool    // whether the user has history in the head
}

// NewRankUsers computes every user's summary from r (whose items are
// itemIDs, Result.ItemIDs) and the user's ratings in hist (all of them,
// not only positives; columns matched to the released items by ID).
func NewRankUsers(r *Ranking, itemIDs []string, hist *ratings.Dataset) *RankUsers {
	x := hist.Ratings
	idx := make(map[string]int32, len(itemIDs))
	for j, id := range itemIDs {
		idx[id] = int32(j)
	}
	us := &RankUsers{r: r, itemOf: make([]int32, x.Cols()), h: make([]float64, x.Rows()*r.K), hist: make([]bool, x.Rows())}
	for j := range us.itemOf {
		m, ok := idx[hist.Items.ID(j)]
		if !ok {
			m = -1
		}
		us.itemOf[j] = m
	}
	k := r.K
	for i := range x.Rows() {
		items, _ := x.Row(i)
		h := us.h[i*k : (i+1)*k]
		for _, j := range items {
			m := us.itemOf[j]
			if m < 0 || k == 0 {
				continue
			}
			if row := r.HeadRow[m]; row >= 0 {
				for c, v := range r.V[int(row)*k : int(row+1)*k] {
					h[c] += v
				}
				us.hist[i] = true
			}
		}
		for c := range h {
			h[c] *= r.Weights[c]
		}
	}
	return us
}

// Score returns dataset user i's score of column j, as RankScores gives
// it for an item outside the user's history (UnreleasedScore for an item
// that is not released). Safe for concurrent use.
func (us *RankUsers) Score(i, j int) float64 {
	r := us.r
	m := us.itemOf[j]
	if m < 0 {
		return UnreleasedScore
	}
	pop := math.Atan(r.Counts[m]) / math.Pi
	row := r.HeadRow[m]
	switch {
	case row < 0:
		return pop + 0.5
	case !us.hist[i]:
		return 3 + pop
	}
	k := r.K
	h := us.h[i*k : (i+1)*k]
	var s float64
	for c, v := range r.V[int(row)*k : int(row+1)*k] {
		s += v * h[c]
	}
	return 3 + math.Atan(s)/math.Pi
}

// Evaluate returns the ranking metrics (package metrics: every column
// the user did not rate in train is a candidate; relevant = a held-out
// rating ≥ o.Threshold) of the users' rankings on test, whose rows and
// columns index the same users and items as the data set given to
// NewRankUsers. RMSE and MAE are NaN: a ranking predicts no rating.
func (us *RankUsers) Evaluate(train, test *ratings.Matrix, o metrics.Options) metrics.Result {
	o.Ranking, o.Clip = true, false
	m := metrics.Evaluate(train, test, metrics.ScorerFunc(us.Score), o)
	m.RMSE, m.MAE, m.RMSEJSON, m.MAEJSON = math.NaN(), math.NaN(), nil, nil
	return m
}
