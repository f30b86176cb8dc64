package solver

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// psd is one worker's scratch space for projectPSD on n × n matrices.
//
// The eigen-decomposition is gonum's LAPACK Dsyev (Householder
// tridiagonalization, then implicit QL/QR), called directly with this
// preallocated workspace: unlike mat.EigenSym it then allocates nothing,
// and at r ≈ 32 it costs about 9r³ flops, several times less than a cyclic
// Jacobi solver of the same accuracy. The common case, a noisy Gram matrix
// that is already positive definite above the floor, is detected by a
// Cholesky factorization (r³/6 flops) and skips the decomposition.
type psd struct {
	n     int
	chol  []float64 // n × n: Cholesky test of a − floor·I
	vecs  []float64 // n × n: the eigenvectors, as columns
	vals  []float64 // n: the eigenvalues, ascending
	vec   []float64 // n: one eigenvector, contiguous
	work  []float64 // Dsyev's workspace
	lwork int
}

func newPSD(n int) *psd {
	p := &psd{n: n, chol: make([]float64, n*n), vecs: make([]float64, n*n), vals: make([]float64, n), vec: make([]float64, n)}
	var query [1]float64
	gonum.Implementation{}.Dsyev(lapack.EVCompute, blas.Lower, n, p.vecs, max(1, n), p.vals, query[:], -1)
	p.lwork = max(int(query[0]), 3*n-1, 1)
	p.work = make([]float64, p.lwork)
	return p
}

// project replaces the symmetric n × n matrix a, given by its lower
// triangle (row-major; the strict upper triangle is neither read nor
// written), by the matrix with the same eigenvectors whose eigenvalues
// below floor are raised to floor: Q·max(Λ, floor)·Qᵀ, the nearest matrix
// in Frobenius norm whose eigenvalues are all ≥ floor. With floor = λ and
// a = G + λI this is the same as projecting G onto the PSD cone and then
// adding λI. It leaves a bit-for-bit untouched when its eigenvalues are
// all > floor (a − floor·I positive definite), and changes it only at
// rounding level when the smallest equals floor. It returns false, leaving a
// untouched, if an entry of a is not finite or the eigen-decomposition
// does not converge.
func (p *psd) project(a []float64, floor float64) bool {
	n := p.n
	for i := range n {
		for _, v := range a[i*n : i*n+i+1] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	// Fast path: a − floor·I positive definite ⇒ every eigenvalue > floor.
	for i := range n {
		row := p.chol[i*n : i*n+i+1]
		copy(row, a[i*n:i*n+i+1])
		row[i] -= floor
	}
	if choleskyInPlace(p.chol, n) {
		return true
	}
	for i := range n {
		copy(p.vecs[i*n:i*n+i+1], a[i*n:i*n+i+1])
	}
	if !(gonum.Implementation{}).Dsyev(lapack.EVCompute, blas.Lower, n, p.vecs, n, p.vals, p.work, p.lwork) {
		return false
	}
	// a ← a + Σ_{μₖ < floor} (floor − μₖ) qₖqₖᵀ, which equals Q·max(Λ, floor)·Qᵀ
	// and touches only the clamped directions. Eigenvalues are ascending.
	for k, mu := range p.vals {
		if !(mu < floor) {
			break
		}
		for i := range n {
			p.vec[i] = p.vecs[i*n+k]
		}
		d := floor - mu
		for i, qi := range p.vec {
			dqi := d * qi
			row := a[i*n : i*n+i+1]
			for j := range row {
				row[j] += dqi * p.vec[j]
			}
		}
	}
	return true
}

// choleskyInPlace factors the symmetric n × n matrix a (lower triangle)
// as L·Lᵀ in place and reports whether every pivot was positive and
// finite, that is whether a is positive definite.
func choleskyInPlace(a []float64, n int) bool {
	for j := range n {
		rowj := a[j*n : j*n+j+1]
		d := rowj[j]
		for _, l := range rowj[:j] {
			d -= l * l
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		d = math.Sqrt(d)
		rowj[j] = d
		for i := j + 1; i < n; i++ {
			rowi := a[i*n : i*n+j+1]
			s := rowi[j]
			for k := range j {
				s -= rowi[k] * rowj[k]
			}
			rowi[j] = s / d
		}
	}
	return true
}
