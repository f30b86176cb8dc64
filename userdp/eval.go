package userdp

import (
	"math"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/metrics"

	"github.com/dpmc/dpmc/ratings"
)

// Users holds every user's locally computed bias and factor: what each
// user would compute on their own device from the release and their own
// training ratings (FoldIn). It exists for evaluation; in the billboard
// model nobody holds all of it.
type Users struct {
	res    *Result
	itemOf []int32 // dataset column → released item, or its TailIndex if not released
	U      []float64
	Bias   []float64
}

// FoldInAll computes every user's bias and factor from the release and
// the user's ratings in train, whose columns are matched to the released
// items by ID.
func (res *Result) FoldInAll(train *ratings.Dataset) *Users {
	x := train.Ratings
	idx := make(map[string]int32, len(res.ItemIDs))
	for j, id := range res.ItemIDs {
		idx[id] = int32(j)
	}
	itemOf := make([]int32, x.Cols())
	for j := range itemOf {
		m, ok := idx[train.Items.ID(j)]
		if !ok {
			m = res.TailIndex(train.Items.ID(j))
		}
		itemOf[j] = m
	}
	r := res.Rank
	us := &Users{res: res, itemOf: itemOf, U: make([]float64, x.Rows()*r), Bias: make([]float64, x.Rows())}
	ws := newWorkspace(r)
	var cols []int32
	var vals []float64
	for i := range x.Rows() {
		items, vs := x.Row(i)
		cols, vals = cols[:0], vals[:0]
		for p, j := range items {
			cols = append(cols, itemOf[j])
			vals = append(vals, math.Min(math.Max(vs.At(p), res.Min), res.Max))
		}
		ws.foldIn(res, res.V, cols, vals, us.U[i*r:(i+1)*r], &us.Bias[i])
	}
	return us
}

// Score returns the unclipped prediction for dataset user i and column
// j: μ + b_j + b_i + u_iᵀv_j (summed in that order, as model.Model.Predict
// does), or ScoreTail's prediction for an item that was not released.
func (us *Users) Score(i, j int) float64 {
	res := us.res
	if m := us.itemOf[j]; m >= 0 {
		r := res.Rank
		return res.Mu + res.ItemBias[m] + us.Bias[i] + dense.Dot(us.U[i*r:(i+1)*r], res.V[int(m)*r:int(m+1)*r])
	}
	r := res.Rank
	return res.ScoreTail(us.itemOf[j], us.U[i*r:(i+1)*r], us.Bias[i])
}

// Predict returns Score clipped to the rating range.
func (us *Users) Predict(i, j int) float64 {
	return math.Min(math.Max(us.Score(i, j), us.res.Min), us.res.Max)
}

// Errors returns the RMSE and MAE of the (clipped) predictions over the
// ratings of test, whose rows and columns index the same users and items
// as the training set given to FoldInAll.
func (us *Users) Errors(test *ratings.Matrix) (rmse, mae float64) {
	return metrics.Errors(test, us)
}

// Evaluate returns the error and ranking metrics (package metrics) of the
// users' predictions on test, ranking the items each user did not rate in
// train by unclipped score; errors use clipped predictions (Predict). The
// ranking scores an item outside the release at the tail's prediction
// (ScoreTail with index −1), not its bucket's: a model file recommends
// its released items only, and the ranking measures that.
func (us *Users) Evaluate(train, test *ratings.Matrix, o metrics.Options) metrics.Result {
	o.Ranking, o.Clip, o.ClipMin, o.ClipMax = true, true, us.res.Min, us.res.Max
	r := metrics.Evaluate(train, test, metrics.ScorerFunc(us.rankScore), o)
	if len(us.res.BucketBias) > 0 {
		rmse, mae := us.Errors(test)
		r.RMSE, r.MAE = rmse, mae
		if r.RMSEJSON != nil {
			r.RMSEJSON, r.MAEJSON = &rmse, &mae
		}
	}
	return r
}

// rankScore is Score, except for an item outside the release: the tail's
// prediction (see Evaluate).
func (us *Users) rankScore(i, j int) float64 {
	if m := us.itemOf[j]; m < -1 {
		r := us.res.Rank
		return us.res.ScoreTail(-1, us.U[i*r:(i+1)*r], us.Bias[i])
	}
	return us.Score(i, j)
}
