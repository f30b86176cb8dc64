// Package dense holds the small dense kernels of dpmc's solvers: symmetric
// rank-one updates and an in-place Cholesky solve of r × r normal
// equations. They are written by hand, not taken from gonum, because the
// solvers call them millions of times per run on tiny matrices (r ≈ 5–64)
// and must not allocate; gonum's mat.Cholesky allocates per factorization
// and its BLAS call overhead dominates at these sizes. The tests check them
// against gonum.
//
// Matrices are row-major []float64 of length n·n.
package dense

import (
	"errors"
	"math"
)

// ErrNotPositiveDefinite reports a Cholesky factorization that met a
// non-positive or non-finite pivot.
var ErrNotPositiveDefinite = errors.New("matrix is not positive definite")

// AddOuter adds w·x·xᵀ to the lower triangle of the n × n matrix a.
func AddOuter(a []float64, n int, w float64, x []float64) {
	x = x[:n]
	for i, xi := range x {
		wxi := w * xi
		row := a[i*n : i*n+i+1]
		for j := range row {
			row[j] += wxi * x[j]
		}
	}
}

// Axpy adds w·x to y.
func Axpy(y []float64, w float64, x []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += w * x[i]
	}
}

// Dot returns xᵀy.
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// SetRidge sets a to λI (the lower triangle and diagonal; the strict upper
// triangle is left alone, since nothing here reads it).
func SetRidge(a []float64, n int, lambda float64) {
	for i := range n {
		row := a[i*n : i*n+i+1]
		clear(row)
		row[i] = lambda
	}
}

// CholeskySolve solves a·x = b for symmetric positive definite a, given by
// its lower triangle. It overwrites a with its Cholesky factor L and b with
// x. It returns ErrNotPositiveDefinite, leaving a and b unusable, if a pivot
// is not positive and finite.
func CholeskySolve(a []float64, n int, b []float64) error {
	for j := range n {
		rowj := a[j*n : j*n+n]
		d := rowj[j] - Dot(rowj[:j], rowj[:j])
		if !(d > 0) || math.IsInf(d, 0) {
			return ErrNotPositiveDefinite
		}
		d = math.Sqrt(d)
		rowj[j] = d
		for i := j + 1; i < n; i++ {
			rowi := a[i*n : i*n+n]
			rowi[j] = (rowi[j] - Dot(rowi[:j], rowj[:j])) / d
		}
	}
	// Forward: L y = b.
	for i := range n {
		rowi := a[i*n : i*n+n]
		b[i] = (b[i] - Dot(rowi[:i], b[:i])) / rowi[i]
	}
	// Backward: Lᵀ x = y.
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= a[k*n+i] * b[k]
		}
		b[i] = s / a[i*n+i]
	}
	return nil
}
