package baseline

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

// DefaultEASELambda is EASE's ridge λ by default: 500, the best value on
// MovieLens 100k u1 (48.5 ratings per item); see the package doc for other
// data.
const DefaultEASELambda = 500

// MaxEASEItems is the most items FitEASE takes: EASE holds about three
// items × items float64 matrices while fitting (20 000 items: 9.6 GB).
const MaxEASEItems = 20000

// EASEOptions are EASE's settings; the zero value means the defaults.
type EASEOptions struct {
	// Lambda is the ridge λ > 0 (default DefaultEASELambda).
	Lambda float64
	// Positive is the lowest rating that enters X as a 1 (in training
	// and in a history); 0 makes every rating a 1.
	Positive float64
}

// EASE is Steck's shallow autoencoder (see the package doc). Non-private.
type EASE struct {
	// Lambda and Positive are the settings used.
	Lambda, Positive float64
	// B is the items × items weight matrix, row-major, with a zero
	// diagonal: user u's score of item j is Σ_{i ∈ u's positives} B[i·n+j].
	B []float64
	n int
	// train scores the training users for Predict.
	train metrics.Scorer
}

// FitEASE fits EASE to train. It returns an error for λ ≤ 0, more than
// MaxEASEItems items, or a Gram matrix that is not positive definite
// (which λ > 0 rules out but for rounding).
func FitEASE(train *ratings.Matrix, o EASEOptions) (*EASE, error) {
	if o.Lambda == 0 {
		o.Lambda = DefaultEASELambda
	}
	if !(o.Lambda > 0) {
		return nil, fmt.Errorf("baseline: EASE λ = %v, want > 0", o.Lambda)
	}
	n := train.Cols()
	if n > MaxEASEItems {
		return nil, fmt.Errorf("baseline: EASE on %d items would need about %.1f GB (three %d × %d matrices); at most %d items", n, 3*8*float64(n)*float64(n)/1e9, n, n, MaxEASEItems)
	}
	if n == 0 {
		return nil, errors.New("baseline: EASE without items")
	}
	// G = XᵀX + λI, accumulated one user's positives at a time.
	g := make([]float64, n*n)
	var pos []int32
	for i := range train.Rows() {
		items, vs := train.Row(i)
		pos = pos[:0]
		for k, j := range items {
			if o.Positive == 0 || vs.At(k) >= o.Positive {
				pos = append(pos, j)
			}
		}
		for _, a := range pos {
			row := g[int(a)*n : int(a+1)*n]
			for _, b := range pos {
				row[b]++
			}
		}
	}
	for j := range n {
		g[j*n+j] += o.Lambda
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, g)) {
		return nil, errors.New("baseline: EASE: XᵀX + λI is not positive definite")
	}
	var p mat.SymDense
	if err := ch.InverseTo(&p); err != nil {
		return nil, fmt.Errorf("baseline: EASE: %w", err)
	}
	// B = I − P·diagMat(1/diag(P)): B_ij = −P_ij / P_jj off the diagonal,
	// 0 on it. g's memory is reused.
	b := g
	inv := make([]float64, n)
	for j := range n {
		inv[j] = 1 / p.At(j, j)
	}
	for i := range n {
		row := b[i*n : (i+1)*n]
		for j := range n {
			row[j] = -p.At(i, j) * inv[j]
		}
		row[i] = 0
	}
	e := &EASE{Lambda: o.Lambda, Positive: o.Positive, B: b, n: n}
	e.train = For(e, train)
	return e, nil
}

// Name implements Model.
func (e *EASE) Name() string { return fmt.Sprintf("EASE, λ = %g (non-private)", e.Lambda) }

// Items implements Model.
func (e *EASE) Items() int { return e.n }

// ScoreInto implements Model: dst = x_u B, x_u the user's positives.
func (e *EASE) ScoreInto(dst []float64, items []int32, vals []float64) {
	clear(dst)
	n := e.n
	for k, i := range items {
		if !positive(vals, k, e.Positive) {
			continue
		}
		row := e.B[int(i)*n : int(i+1)*n]
		for j, x := range row {
			dst[j] += x
		}
	}
}

// Score returns every item's score for a user with the given history
// (item indices, every one a positive).
func (e *EASE) Score(history []int) []float64 { return score(e, history) }

// Predict implements metrics.Scorer for the users of the training matrix:
// user i's score of item j from their training ratings.
func (e *EASE) Predict(i, j int) float64 { return e.train.Predict(i, j) }
