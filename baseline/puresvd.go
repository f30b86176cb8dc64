package baseline

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// DefaultPureSVDRank is PureSVD's number of factors by default.
const DefaultPureSVDRank = 20

// PureSVDOptions are PureSVD's settings; the zero value means the
// defaults.
type PureSVDOptions struct {
	// K is the number of factors (default DefaultPureSVDRank); at most
	// the number of items.
	K int
	// Positive is the lowest rating that enters X; 0 takes every rating.
	Positive float64
	// Ratings puts the ratings themselves in X (and in a history's x_u)
	// instead of 1s.
	Ratings bool
}

// PureSVD is Cremonesi, Koren and Turrin's PureSVD (see the package doc).
// Non-private.
type PureSVD struct {
	// K, Positive and Ratings are the settings used.
	K        int
	Positive float64
	Ratings  bool
	// V holds the top K right singular vectors of X, items × K,
	// row-major; Sigma2 the matching eigenvalues of XᵀX (σ²), highest
	// first.
	V      []float64
	Sigma2 []float64
	// Iterations is the number of subspace iterations run.
	Iterations int
	n          int
	train      metrics.Scorer
}

// pureSVDTol is the convergence test: every Ritz pair (λ, v) of the top K
// has ‖XᵀX v − λ v‖ ≤ pureSVDTol·λ₁.
const pureSVDTol = 1e-9

// pureSVDMaxIter bounds the subspace iterations.
const pureSVDMaxIter = 2000

// FitPureSVD fits PureSVD to train: the top K eigenvectors of XᵀX by
// subspace iteration on a block of 2K vectors (at most the items), from a
// fixed pseudo-random start, with a Rayleigh–Ritz step each iteration,
// until every one of the K residuals is below 10⁻⁹ of the top eigenvalue.
// It returns an error for a bad K or if the iteration does not converge.
func FitPureSVD(train *ratings.Matrix, o PureSVDOptions) (*PureSVD, error) {
	if o.K == 0 {
		o.K = DefaultPureSVDRank
	}
	n := train.Cols()
	if o.K < 1 || o.K > n {
		return nil, fmt.Errorf("baseline: PureSVD k = %d, want in [1, items = %d]", o.K, n)
	}
	s := &PureSVD{K: o.K, Positive: o.Positive, Ratings: o.Ratings, n: n}
	// X's rows as compressed lists.
	var ptr = []int{0}
	var idx []int32
	var val []float64
	for i := range train.Rows() {
		items, vs := train.Row(i)
		for k, j := range items {
			x := vs.At(k)
			if o.Positive != 0 && x < o.Positive {
				continue
			}
			if !o.Ratings {
				x = 1
			}
			idx = append(idx, j)
			val = append(val, x)
		}
		ptr = append(ptr, len(idx))
	}
	b := min(2*o.K, n)
	q := make([]float64, n*b) // row-major n × b
	r := rng.Seeded(1)
	for k := range q {
		q[k] = r.NormFloat64()
	}
	orthonormalize(q, n, b)
	y := make([]float64, b)
	z := make([]float64, n*b)
	t := mat.NewSymDense(b, nil)
	var eig mat.EigenSym
	var w mat.Dense
	zw := make([]float64, n*b)
	ritz := make([]float64, n*b)
	wc := make([]float64, b*b) // wc[c·b+a] = W[a, b−1−c]
	for it := 1; ; it++ {
		// z = XᵀX q, one user at a time.
		clear(z)
		for i := range len(ptr) - 1 {
			clear(y)
			for p := ptr[i]; p < ptr[i+1]; p++ {
				axpy(val[p], q[int(idx[p])*b:int(idx[p]+1)*b], y)
			}
			for p := ptr[i]; p < ptr[i+1]; p++ {
				axpy(val[p], y, z[int(idx[p])*b:int(idx[p]+1)*b])
			}
		}
		// Rayleigh–Ritz: t = qᵀ z, t = W Λ Wᵀ.
		for a := range b {
			for c := a; c < b; c++ {
				var sum float64
				for j := range n {
					sum += q[j*b+a] * z[j*b+c]
				}
				t.SetSym(a, c, sum)
			}
		}
		if !eig.Factorize(t, true) {
			return nil, errors.New("baseline: PureSVD: eigendecomposition failed")
		}
		vals := eig.Values(nil) // ascending
		eig.VectorsTo(&w)
		// Order descending: column c of the Ritz basis is w's column b−1−c.
		lam := make([]float64, b)
		for c := range b {
			lam[c] = vals[b-1-c]
		}
		// Ritz vectors qW and zW (= XᵀX qW); residuals of the top K.
		for c := range b {
			for a := range b {
				wc[c*b+a] = w.At(a, b-1-c)
			}
		}
		for j := range n {
			qj, zj := q[j*b:(j+1)*b], z[j*b:(j+1)*b]
			for c := range b {
				var sq, sz float64
				for a, wa := range wc[c*b : (c+1)*b] {
					sq += qj[a] * wa
					sz += zj[a] * wa
				}
				ritz[j*b+c], zw[j*b+c] = sq, sz
			}
		}
		worst := 0.0
		for c := range o.K {
			var res float64
			for j := range n {
				d := zw[j*b+c] - lam[c]*ritz[j*b+c]
				res += d * d
			}
			worst = math.Max(worst, math.Sqrt(res))
		}
		if worst <= pureSVDTol*math.Max(lam[0], math.SmallestNonzeroFloat64) || b == n && it > 1 {
			s.Iterations = it
			s.V = make([]float64, n*o.K)
			for j := range n {
				copy(s.V[j*o.K:(j+1)*o.K], ritz[j*b:j*b+o.K])
			}
			s.Sigma2 = lam[:o.K]
			break
		}
		if it == pureSVDMaxIter {
			return nil, fmt.Errorf("baseline: PureSVD did not converge in %d iterations (residual %.3g of λ₁)", it, worst/lam[0])
		}
		copy(q, zw)
		orthonormalize(q, n, b)
	}
	s.train = For(s, train)
	return s, nil
}

// axpy adds a·x to y.
func axpy(a float64, x, y []float64) {
	for k, v := range x {
		y[k] += a * v
	}
}

// orthonormalize makes the b columns of the row-major n × b matrix q
// orthonormal by modified Gram–Schmidt, twice; a column that vanishes is
// replaced by a unit vector.
func orthonormalize(q []float64, n, b int) {
	for range 2 {
		for c := range b {
			for a := range c {
				var d float64
				for j := range n {
					d += q[j*b+a] * q[j*b+c]
				}
				for j := range n {
					q[j*b+c] -= d * q[j*b+a]
				}
			}
			var norm float64
			for j := range n {
				norm += q[j*b+c] * q[j*b+c]
			}
			norm = math.Sqrt(norm)
			if norm < 1e-300 {
				for j := range n {
					q[j*b+c] = 0
				}
				q[(c%n)*b+c] = 1
				continue
			}
			for j := range n {
				q[j*b+c] /= norm
			}
		}
	}
}

// Name implements Model.
func (s *PureSVD) Name() string {
	if s.Ratings {
		return fmt.Sprintf("PureSVD of the ratings, k = %d (non-private)", s.K)
	}
	return fmt.Sprintf("PureSVD, k = %d (non-private)", s.K)
}

// Items implements Model.
func (s *PureSVD) Items() int { return s.n }

// ScoreInto implements Model: dst = x_u V Vᵀ.
func (s *PureSVD) ScoreInto(dst []float64, items []int32, vals []float64) {
	k := s.K
	t := make([]float64, k)
	for p, j := range items {
		if !positive(vals, p, s.Positive) {
			continue
		}
		x := 1.0
		if s.Ratings && vals != nil {
			x = vals[p]
		}
		axpy(x, s.V[int(j)*k:int(j+1)*k], t)
	}
	for j := range s.n {
		var sum float64
		for c, v := range s.V[j*k : (j+1)*k] {
			sum += v * t[c]
		}
		dst[j] = sum
	}
}

// Score returns every item's score for a user with the given history
// (item indices, every one a positive).
func (s *PureSVD) Score(history []int) []float64 { return score(s, history) }

// Predict implements metrics.Scorer for the users of the training matrix:
// user i's score of item j from their training ratings.
func (s *PureSVD) Predict(i, j int) float64 { return s.train.Predict(i, j) }
