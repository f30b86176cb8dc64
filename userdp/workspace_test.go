package userdp

import (
	"math"
	"testing"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/rng"
)

// A fold-in adds its rows to the normal equations in blocks of
// normalBlock; whatever the history's length (one block, a block's edge,
// several blocks), its solution is the ridge solve of the whole history,
// computed here one rating at a time.
func TestFoldInBlocks(t *testing.T) {
	const r, items = 3, 50
	src := rng.Seeded(7)
	res := &Result{Rank: r, Mu: 3.5, TailBias: -0.3, UserLambda: 1, UserLambdaPerRating: 0.1, UserBiasLambda: 5,
		ItemBias: make([]float64, items), V: make([]float64, items*r)}
	for j := range res.ItemBias {
		res.ItemBias[j] = src.NormFloat64() / 2
	}
	for k := range res.V {
		res.V[k] = src.NormFloat64()
	}
	for _, k := range []int{0, 1, normalBlock - 1, normalBlock, normalBlock + 1, 3*normalBlock + 17} {
		its := make([]int32, k)
		vals := make([]float64, k)
		for p := range its {
			its[p] = int32(src.IntN(items+5)) - 5 // some −1…−5: not released
			if its[p] < 0 {
				its[p] = -1
			}
			vals[p] = 1 + 4*src.Float64()
		}
		n := r + 1
		a := make([]float64, n*n)
		b := make([]float64, n)
		dense.SetRidge(a, n, res.UserLambda+res.UserLambdaPerRating*float64(k))
		a[r*n+r] = res.UserBiasLambda
		f := make([]float64, n)
		for p, j := range its {
			y := vals[p] - res.Mu - res.TailBias
			clear(f)
			if j >= 0 {
				copy(f, res.V[int(j)*r:int(j+1)*r])
				y = vals[p] - res.Mu - res.ItemBias[j]
			}
			f[r] = 1
			for x := range n {
				for z := 0; z <= x; z++ {
					a[x*n+z] += f[x] * f[z]
				}
				b[x] += y * f[x]
			}
		}
		if err := dense.CholeskySolve(a, n, b); err != nil {
			t.Fatal(err)
		}
		u := make([]float64, r)
		var bu float64
		newWorkspace(r).foldIn(res, res.V, its, vals, u, &bu)
		for x := range r {
			if math.Abs(u[x]-b[x]) > 1e-9*(1+math.Abs(b[x])) {
				t.Errorf("%d ratings: u[%d] = %v, want %v", k, x, u[x], b[x])
			}
		}
		if math.Abs(bu-b[r]) > 1e-9*(1+math.Abs(b[r])) {
			t.Errorf("%d ratings: bias %v, want %v", k, bu, b[r])
		}
	}
}
