package userdp

import "math"

// The non-private ridges (Options.RidgeScale). ALS-WR regularizes a row
// with n ratings by λ·n; the λ that minimizes test error is not a
// constant of the method but falls as the rows get longer: on MovieLens
// 100k u1 the best per-rating λ of the no-noise pipeline was 0.13 on
// the full training set, about 0.2 on a random half of its ratings (rows
// half as long on both sides) and 0.16 on half of its users (item rows
// half as long, user rows unchanged). A row's ridge trades the variance
// of its own solve, which shrinks with its own length, against the
// shrinkage bias, so each side gets
//
//	λ_side = RidgeScale / √(mean ratings per row of that side),
//
// which puts the optimum of all three within 0.002 of the best grid
// value with one constant. Without noise the data's shape is no secret
// (that pipeline releases everything exactly), so the ridges may depend
// on it; with noise RidgeScale is unused.

// setUserRidge sets the per-rating user ridge from the number of users
// and of their ratings, without noise and with RidgeScale > 0.
func (p *Plan) setUserRidge(users, ratings float64) {
	o := &p.opts
	if !o.NoNoise || !(o.RidgeScale > 0) || !(users > 0 && ratings > 0) {
		return
	}
	o.UserLambdaPerRating = o.RidgeScale / math.Sqrt(ratings/users)
}

// setItemRidge sets the per-rating item ridge Lambda from the released
// items' exact counts, without noise and with RidgeScale > 0.
func (p *Plan) setItemRidge(counts []float64) {
	o := &p.opts
	if !o.NoNoise || !(o.RidgeScale > 0) || len(counts) == 0 {
		return
	}
	var n float64
	for _, c := range counts {
		n += c
	}
	if n > 0 {
		o.Lambda = o.RidgeScale / math.Sqrt(n/float64(len(counts)))
	}
}
