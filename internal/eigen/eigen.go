// Package eigen computes the leading eigenpairs of a dense symmetric
// matrix: the k largest eigenvalues and their eigenvectors, for k much
// smaller than the order n.
//
// dpmc needs only a few leading eigenvectors of its noisy matrices (the
// rank-r PCA start of the rating model over at most 300 items, the k ≤ 16
// components of the ranking model's Gram over up to 1 000 items), but
// gonum's mat.EigenSym computes all n of them: its QR iteration applies
// every rotation to the full n × n basis, which cost about three times the
// reduction itself and most of a ranking run. LAPACK's answer (dsyevr, or
// dstein after dsterf) is not in gonum, so this package writes the
// missing step by hand: the reduction to tridiagonal form (gonum's
// Dsytrd), all eigenvalues of the tridiagonal matrix (Dsterf, O(n²)),
// inverse iteration on it for the k wanted ones (O(n·k), with the vectors
// of close eigenvalues reorthogonalized, as dstein does), and the
// reflectors applied to those k vectors only (Dormqr, O(n²·k)).
//
// Everything is deterministic: the same matrix gives the same result, bit
// for bit, on every run.
package eigen

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Top returns the k largest eigenvalues of the symmetric n × n matrix a,
// in descending order, and unit eigenvectors for them: vecs is n × k,
// row-major, column c the eigenvector of vals[c], signed so that its
// entry of largest magnitude is positive. Only the triangle of a
// (row-major, stride n) that uplo names is read, and a is not modified;
// Top allocates n² + O(n·k) floats. It returns an error if n < 1, k is
// not in [1, n], len(a) < n·n, a holds a NaN or an infinity, or (not
// seen in the tests, which include exactly repeated eigenvalues and
// rank-one matrices) the vectors fail their own check of residual and
// orthogonality.
func Top(uplo blas.Uplo, a []float64, n, k int) (vals, vecs []float64, err error) {
	switch {
	case n < 1:
		return nil, nil, fmt.Errorf("eigen: order %d, want ≥ 1", n)
	case k < 1 || k > n:
		return nil, nil, fmt.Errorf("eigen: %d eigenpairs of an order-%d matrix, want 1 to %d", k, n, n)
	case len(a) < n*n:
		return nil, nil, fmt.Errorf("eigen: %d entries for an order-%d matrix, want %d", len(a), n, n*n)
	}
	if uplo != blas.Upper && uplo != blas.Lower {
		return nil, nil, fmt.Errorf("eigen: uplo %v, want blas.Upper or blas.Lower", uplo)
	}
	w := make([]float64, n*n) // the lower triangle, which Dsytrd reduces
	var amax float64
	for i := range n {
		for j := 0; j <= i; j++ {
			x := a[i*n+j]
			if uplo == blas.Upper {
				x = a[j*n+i]
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, nil, fmt.Errorf("eigen: entry (%d, %d) is %v", i, j, x)
			}
			w[i*n+j] = x
			amax = math.Max(amax, math.Abs(x))
		}
	}
	vals, z := make([]float64, k), make([]float64, n*k) // z: row-major n × k
	if amax == 0 {
		for c := range k { // any orthonormal basis
			z[c*k+c] = 1
		}
		return vals, z, nil
	}
	// Scale by a power of two near 1/max|a_ij| (exact: the result is what
	// it would be unscaled), as dsyev does, so that neither the reduction
	// nor the eigenvalues of T under- or overflow.
	_, exp := math.Frexp(amax)
	for i := range w {
		w[i] = math.Ldexp(w[i], -exp)
	}
	var impl gonum.Implementation
	d, e, tau := make([]float64, n), make([]float64, max(n-1, 1)), make([]float64, max(n-1, 1))
	work := make([]float64, 1)
	impl.Dsytrd(blas.Lower, n, w, n, d, e, tau, work, -1)
	work = make([]float64, int(work[0]))
	impl.Dsytrd(blas.Lower, n, w, n, d, e, tau, work, len(work))
	e = e[:n-1]
	// Entries of T below rounding of its norm are set to zero: a change
	// the size of the reduction's own rounding, which keeps Dsterf away
	// from blocks of nearly zero norm (a low-rank A leaves them), whose
	// rescaling gonum v0.17.0's Dsterf cannot do.
	norm := tridiagNorm(d, e)
	for i := range d {
		if math.Abs(d[i]) <= eps*norm {
			d[i] = 0
		}
	}
	for i := range e {
		if math.Abs(e[i]) <= eps*norm {
			e[i] = 0
		}
	}
	all := append([]float64(nil), d...) // every eigenvalue of T, ascending
	if !impl.Dsterf(n, all, append([]float64(nil), e...)) {
		return nil, nil, errors.New("eigen: the eigenvalues did not converge")
	}
	for c := range k {
		vals[c] = all[n-1-c]
	}
	if err := tridiagVectors(d, e, vals, z); err != nil {
		return nil, nil, err
	}
	for c := range vals {
		vals[c] = math.Ldexp(vals[c], exp)
	}
	// Back to A's basis: vecs = Q·z with Q = H_0 ⋯ H_{n−2}, whose
	// reflectors act on rows 1…n−1 (dormtr for the lower triangle).
	if n > 1 {
		impl.Dormqr(blas.Left, blas.NoTrans, n-1, k, n-1, w[n:], n, tau, z[k:], k, work, -1)
		if need := int(work[0]); need > len(work) {
			work = make([]float64, need)
		}
		impl.Dormqr(blas.Left, blas.NoTrans, n-1, k, n-1, w[n:], n, tau, z[k:], k, work, len(work))
	}
	signs(z, n, k)
	return vals, z, nil
}

// eps is the unit roundoff of float64, 2⁻⁵².
const eps = 0x1p-52

// tridiagNorm returns ‖T‖₁ of the symmetric tridiagonal matrix with
// diagonal d and off-diagonal e.
func tridiagNorm(d, e []float64) float64 {
	var norm float64
	for i := range d {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < len(e) {
			s += math.Abs(e[i])
		}
		norm = math.Max(norm, s)
	}
	return norm
}

// signs makes the entry of largest magnitude of each column of z (n × k,
// row-major) positive (the first such entry on a tie), so that the sign
// of an eigenvector is a function of the matrix, not of the algorithm:
// dpmc adds noise coordinate by coordinate in the basis the vectors span,
// so a flipped sign would draw, in effect, other noise.
func signs(z []float64, n, k int) {
	for c := range k {
		at, big := 0, -1.0
		for i := range n {
			if a := math.Abs(z[i*k+c]); a > big {
				at, big = i, a
			}
		}
		if z[at*k+c] < 0 {
			for i := range n {
				z[i*k+c] = -z[i*k+c]
			}
		}
	}
}

// tridiagVectors writes into the columns of z (n × len(vals), row-major)
// unit eigenvectors of the symmetric tridiagonal matrix T with diagonal d
// and off-diagonal e, one for each of vals (its eigenvalues, descending):
// inverseIters steps of inverse iteration from a fixed start. As in
// LAPACK's dstein, the shifts of equal or nearly equal eigenvalues are
// spread apart by 10 rounding units of ‖T‖, and a vector whose eigenvalue
// lies within 10⁻³‖T‖ of an earlier one's is orthogonalized against it
// after every solve (twice: Gram–Schmidt, repeated), so that a cluster of
// eigenvalues gets an orthonormal basis of its space; a vector that
// orthogonalization cancels is started again elsewhere. It returns an
// error if a vector fails the final check: residual ‖Tz − λz‖ ≤ 10⁻⁹‖T‖
// and |zᵀz′ − δ| ≤ 10⁻⁹ with the vectors before it.
func tridiagVectors(d, e, vals, z []float64) error {
	n, k := len(d), len(vals)
	norm := tridiagNorm(d, e)
	if norm == 0 {
		norm = 1
	}
	tiny := eps * norm
	ortol := 1e-3 * norm
	lu := newTridiagLU(n)
	x := make([]float64, n)
	var shift float64
	for c, l := range vals {
		if c == 0 || shift-l >= 10*tiny {
			shift = l
		} else {
			shift -= 10 * tiny
		}
		lu.factor(d, e, shift, tiny)
		ok := false
		for attempt := 0; attempt < 3 && !ok; attempt++ {
			for i := range x { // a fixed start with every component nonzero
				x[i] = 1 + 0.5*math.Sin(float64(i*(c+1+attempt*k))+0.25)
			}
			orthogonalize(x, z, k, c, vals, ortol)
			ok = true
			for range inverseIters {
				scale(x)
				lu.solve(x)
				before := scale(x)
				orthogonalize(x, z, k, c, vals, ortol)
				if before > 0 && norm2(x) < 1e-3 {
					ok = false // mostly along earlier vectors: start again
					break
				}
			}
		}
		scale(x)
		for i := range n {
			z[i*k+c] = x[i]
		}
	}
	return checkVectors(d, e, vals, z, norm)
}

// checkVectors returns an error unless every column of z is an
// eigenvector of T (residual ≤ 10⁻⁹‖T‖) and the columns are orthonormal
// to within 10⁻⁹.
func checkVectors(d, e, vals, z []float64, norm float64) error {
	n, k := len(d), len(vals)
	for c, l := range vals {
		var res float64
		for i := range n {
			s := (d[i] - l) * z[i*k+c]
			if i > 0 {
				s += e[i-1] * z[(i-1)*k+c]
			}
			if i < n-1 {
				s += e[i] * z[(i+1)*k+c]
			}
			res += s * s
		}
		if !(math.Sqrt(res) <= 1e-9*norm) {
			return fmt.Errorf("eigen: inverse iteration did not converge for eigenvalue %d of %d (residual %.3g of ‖T‖ %.3g)", c+1, k, math.Sqrt(res), norm)
		}
		for q := 0; q <= c; q++ {
			var dot float64
			for i := range n {
				dot += z[i*k+c] * z[i*k+q]
			}
			want := 0.0
			if q == c {
				want = 1
			}
			if !(math.Abs(dot-want) <= 1e-9) {
				return fmt.Errorf("eigen: eigenvectors %d and %d of %d are not orthonormal (dot %.3g)", q+1, c+1, k, dot)
			}
		}
	}
	return nil
}

// inverseIters is the number of inverse-iteration steps per vector. With
// a shift within rounding of the eigenvalue, each step shrinks the other
// components by the ratio of its distance to theirs, about 10⁻¹⁰ or less
// unless eigenvalues are closer than 10⁻⁶‖T‖; clusters are handled by
// the orthogonalization.
const inverseIters = 4

// orthogonalize removes from x, twice over, its components along the
// columns q < c of z (n × k) whose eigenvalue vals[q] is within ortol of
// vals[c].
func orthogonalize(x, z []float64, k, c int, vals []float64, ortol float64) {
	for range 2 {
		for q := c - 1; q >= 0 && vals[q]-vals[c] < ortol; q-- {
			var dot float64
			for i, v := range x {
				dot += v * z[i*k+q]
			}
			for i := range x {
				x[i] -= dot * z[i*k+q]
			}
		}
	}
}

// norm2 returns the Euclidean norm of x, without overflow or underflow
// for finite x.
func norm2(x []float64) float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	if ss > 0x1p-900 && ss < 0x1p900 {
		return math.Sqrt(ss)
	}
	var big float64
	for _, v := range x {
		big = math.Max(big, math.Abs(v))
	}
	if big == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += (v / big) * (v / big)
	}
	return big * math.Sqrt(s)
}

// scale makes x a unit vector and returns the norm it had (a zero x
// becomes the first unit vector).
func scale(x []float64) float64 {
	s := norm2(x)
	if s == 0 {
		x[0] = 1
		return 0
	}
	for i := range x {
		x[i] /= s
	}
	return s
}

// tridiagLU is the LU factorization with partial pivoting of T − σI for
// a symmetric tridiagonal T: L has one subdiagonal (multipliers l, row
// swaps swap), U two superdiagonals (u0 diagonal, u1, u2).
type tridiagLU struct {
	u0, u1, u2, l []float64
	swap          []bool
}

func newTridiagLU(n int) *tridiagLU {
	return &tridiagLU{u0: make([]float64, n), u1: make([]float64, n), u2: make([]float64, n), l: make([]float64, n), swap: make([]bool, n)}
}

// factor factors T − σI, replacing a zero pivot by tiny (the eigenvalue
// being exact makes T − σI singular: inverse iteration wants it nearly so).
func (f *tridiagLU) factor(d, e []float64, sigma, tiny float64) {
	n := len(d)
	// Row i of the working matrix: (diag a, super b, super-super c).
	a := d[0] - sigma
	var b float64
	if n > 1 {
		b = e[0]
	}
	for i := range n - 1 {
		sub := e[i]             // T[i+1][i]
		nextA := d[i+1] - sigma // T[i+1][i+1]
		var nextB float64       // T[i+1][i+2]
		if i+1 < n-1 {
			nextB = e[i+1]
		}
		if math.Abs(a) >= math.Abs(sub) {
			if a == 0 {
				a = tiny
			}
			m := sub / a
			f.swap[i], f.l[i] = false, m
			f.u0[i], f.u1[i], f.u2[i] = a, b, 0
			a, b = nextA-m*b, nextB
		} else {
			m := a / sub
			f.swap[i], f.l[i] = true, m
			f.u0[i], f.u1[i], f.u2[i] = sub, nextA, nextB
			a, b = b-m*nextA, -m*nextB
		}
	}
	if a == 0 {
		a = tiny
	}
	f.u0[n-1], f.u1[n-1], f.u2[n-1] = a, 0, 0
}

// solve overwrites x with (T − σI)⁻¹x.
func (f *tridiagLU) solve(x []float64) {
	n := len(x)
	for i := range n - 1 {
		if f.swap[i] {
			x[i], x[i+1] = x[i+1], x[i]
		}
		x[i+1] -= f.l[i] * x[i]
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		if i+1 < n {
			s -= f.u1[i] * x[i+1]
		}
		if i+2 < n {
			s -= f.u2[i] * x[i+2]
		}
		x[i] = s / f.u0[i]
	}
}
