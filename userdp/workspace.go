package userdp

import (
	"math"

	"github.com/dpmc/dpmc/internal/asm/f64"
	"github.com/dpmc/dpmc/internal/dense"
)

// workspace is one worker's scratch space; nothing in the hot loops
// allocates.
type workspace struct {
	r         int
	gram, rhs []float64 // r × r and r: a noisy Gram matrix and right-hand side
	// gramSum and rhsSum are an item's exact sums (lower triangle).
	gramSum, rhsSum []Sum
	uc              []float64 // a clipped user factor
	a, b            []float64 // (r+1) × (r+1) and r+1: a fold-in's or exact item step's system
	chol, sol       []float64 // r × r and r copies for shifted solves
	// rows and ys hold up to normalBlock least-squares rows of r+1
	// features (a fold-in's [v_j; 1], an exact item step's [u_i; 1]),
	// contiguous, and their targets: fixed buffers, whatever the length
	// of a history or of an item's raters.
	rows, ys []float64
}

// normalBlock is the most rows one addNormal call takes: a fold-in or an
// exact item step adds its rows block by block, so a worker's buffers stay
// normalBlock·(r+1) floats and each kernel call still spans many rows.
const normalBlock = 256

func newWorkspace(r int) *workspace {
	return &workspace{
		r: r, gram: make([]float64, r*r), rhs: make([]float64, r), uc: make([]float64, r),
		gramSum: make([]Sum, r*r), rhsSum: make([]Sum, r),
		a: make([]float64, (r+1)*(r+1)), b: make([]float64, r+1),
		rows: make([]float64, normalBlock*(r+1)), ys: make([]float64, normalBlock),
		chol: make([]float64, r*r), sol: make([]float64, r),
	}
}

// foldIn fits a user's factor u and bias bu from the released model and
// the user's own ratings (items, vals): the ridge solve of
//
//	min Σ_j (x_j − μ − b_j − b_u − uᵀv_j)² + λ_u‖u‖² + λ_b·b_u²
//
// over [u; b_u] with features [v_j; 1]; an item index −1 is a rating of
// an item that was not released, with b_j the tail bias and v_j = 0. A user without
// ratings gets u = 0 and b_u = 0.
func (ws *workspace) foldIn(res *Result, v []float64, items []int32, vals []float64, u []float64, bu *float64) {
	r := ws.r
	n := r + 1
	dense.SetRidge(ws.a, n, res.UserLambda+res.UserLambdaPerRating*float64(len(items)))
	ws.a[r*n+r] = res.UserBiasLambda
	clear(ws.b)
	for lo := 0; lo < len(items); lo += normalBlock {
		block := items[lo:min(lo+normalBlock, len(items))]
		for q, j := range block {
			row := ws.rows[q*n : (q+1)*n]
			y := vals[lo+q] - res.Mu
			if j < 0 {
				// an item that was not released: the tail's bias, or its
				// bucket's bias and feature columns
				y -= res.tailRow(j, row[:r])
			} else {
				copy(row[:r], v[int(j)*r:int(j+1)*r])
				y -= res.ItemBias[j]
			}
			row[r] = 1
			ws.ys[q] = y
		}
		ws.addNormal(n, len(block))
	}
	if err := dense.CholeskySolve(ws.a, n, ws.b); err != nil {
		// The system is λ-ridged and cannot be singular; only non-finite
		// input gets here. Fall back to the prior.
		clear(u)
		*bu = 0
		return
	}
	copy(u, ws.b[:r])
	*bu = ws.b[r]
}

// addNormal adds the normal equations of the first k rows of ws.rows (n
// features each, k ≤ normalBlock) and their targets ws.ys to ws.a (lower
// triangle, n × n) and ws.b: one rank-k update and one product over
// contiguous rows, rather than a rank-1 update per rating, whose per-call
// cost was most of a fold-in at rank 4.
func (ws *workspace) addNormal(n, k int) {
	rows, ys := ws.rows[:k*n], ws.ys[:k]
	f64.GemmTNLower(n, k, rows, n, rows, n, ws.a, n)
	f64.GemvT(k, n, 1, rows, n, ys, 1, ws.b)
}

// solveShifted solves (g + λI) x = h for the lower triangle g, raising the
// shift until the matrix is positive definite (a noisy Gram matrix need
// not be). g and h are left unchanged; x is written to dst. This is
// post-processing of released statistics, so the data-dependent shift
// costs no privacy.
func (ws *workspace) solveShifted(g, h []float64, lambda float64, dst []float64) {
	r := ws.r
	shift := lambda
	for range 200 {
		copy(ws.chol, g)
		for k := range r {
			ws.chol[k*r+k] += shift
		}
		copy(ws.sol, h)
		if dense.CholeskySolve(ws.chol, r, ws.sol) == nil {
			copy(dst, ws.sol)
			return
		}
		shift = math.Max(2*shift, 1e-6)
	}
	clear(dst)
}
