package userdp

import (
	"math"

	"github.com/dpmc/dpmc/ratings"
)

// Users holds every user's locally computed bias and factor: what each
// user would compute on their own device from the release and their own
// training ratings (FoldIn). It exists for evaluation; in the billboard
// model nobody holds all of it.
type Users struct {
	res    *Result
	itemOf []int32 // dataset column → released item, −1 if not released
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
			m = -1
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

// Predict returns the prediction for dataset user i and column j,
// clipped to the rating range: μ + b_j + b_i + u_iᵀv_j, with b_j and v_j
// zero for an item that was not released.
func (us *Users) Predict(i, j int) float64 {
	res := us.res
	p := res.Mu + us.Bias[i]
	if m := us.itemOf[j]; m >= 0 {
		p += res.ItemBias[m]
		r := res.Rank
		for k := range r {
			p += us.U[i*r+k] * res.V[int(m)*r+k]
		}
	}
	return math.Min(math.Max(p, res.Min), res.Max)
}

// Errors returns the RMSE and MAE of the predictions over the ratings of
// test, whose rows and columns index the same users and items as the
// training set given to FoldInAll.
func (us *Users) Errors(test *ratings.Matrix) (rmse, mae float64) {
	var se, ae float64
	n := 0
	for i := range test.Rows() {
		items, vals := test.Row(i)
		for p, j := range items {
			d := us.Predict(i, int(j)) - vals.At(p)
			se += d * d
			ae += math.Abs(d)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return math.Sqrt(se / float64(n)), ae / float64(n)
}
