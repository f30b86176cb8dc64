// Package dense holds the small dense kernels of dpmc's solvers: the Gram
// matrix and right-hand side of a row's normal equations, from a block of
// gathered factor rows or one rank-one update at a time, and an in-place
// Cholesky factorization and solve of the r × r system. They are written
// here, not taken from gonum, because the solvers call them millions of
// times per run on small matrices (r ≈ 5–64) and must not allocate;
// gonum's mat.Cholesky allocates per factorization and its BLAS call
// overhead dominates at these sizes. The tests check them against gonum.
//
// The arithmetic runs in package internal/asm/f64, in assembly (AVX2+FMA,
// AVX-512) where the CPU has it. The fast way to build a row's normal
// equations from k ratings is to [Gather] the k factor rows into a block
// and call [SyrkLower] and [AddMulTransVec] once each; [AddOuter] and
// [Axpy] per rating give the same result, at rounding level, several times
// slower.
//
// Matrices are row-major []float64 of length n·n, and symmetric ones are
// held by their lower triangle: no function here reads or writes the strict
// upper triangle. A block of k rows of length n is a []float64 of length
// k·n.
package dense

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/internal/asm/f64"
)

// ErrNotPositiveDefinite reports a Cholesky factorization that met a
// non-positive or non-finite pivot.
var ErrNotPositiveDefinite = errors.New("matrix is not positive definite")

// AddOuter adds w·x·xᵀ to the lower triangle of the n × n matrix a.
func AddOuter(a []float64, n int, w float64, x []float64) {
	x = x[:n]
	if n <= 64 {
		var wx [64]float64
		for i, v := range x {
			wx[i] = w * v
		}
		f64.GemmTNLower(n, 1, wx[:n], n, x, n, a, n)
		return
	}
	for i, xi := range x {
		f64.Axpy(w*xi, x[:i+1], a[i*n:i*n+i+1])
	}
}

// Axpy adds w·x to y.
func Axpy(y []float64, w float64, x []float64) {
	f64.Axpy(w, x[:len(y)], y)
}

// Dot returns xᵀy.
func Dot(x, y []float64) float64 {
	return f64.Dot(x, y[:len(x)])
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

// Gather copies the rows src[r·n : r·n+n] for r in rows, in order, into
// dst and returns the block they fill, dst[:len(rows)·n]. It panics if dst
// is shorter than that or a row is outside src.
func Gather(dst, src []float64, n int, rows []int32) []float64 {
	dst = dst[:len(rows)*n]
	f64.Gather(dst, src, n, rows)
	return dst
}

// blockRows returns the number of rows of length n in block, panicking if
// its length is not a multiple of n.
func blockRows(block []float64, n int) int {
	if n <= 0 {
		if len(block) != 0 {
			panic(fmt.Sprintf("dense: block of %d values with rows of length %d", len(block), n))
		}
		return 0
	}
	if len(block)%n != 0 {
		panic(fmt.Sprintf("dense: block of %d values is not made of rows of length %d", len(block), n))
	}
	return len(block) / n
}

// SyrkLower adds Σ_p w_p·b_p·b_pᵀ to the lower triangle of the n × n
// matrix a, over the rows b_p of block (k rows of length n, k·n values):
// the Gram matrix of a row's ratings, from the other side's factors
// gathered with Gather. A nil w means every weight is 1; otherwise w holds
// the k weights. It equals k calls of AddOuter, at rounding level.
func SyrkLower(a []float64, n int, block []float64, w []float64) {
	k := blockRows(block, n)
	if w == nil {
		f64.GemmTNLower(n, k, block, n, block, n, a, n)
		return
	}
	if len(w) != k {
		panic(fmt.Sprintf("dense: %d weights for %d rows", len(w), k))
	}
	if k == 0 {
		return
	}
	// The kernel takes the weights as a second, scaled copy of the rows,
	// made here chunk by chunk on the stack. (Go zeroes a stack array on
	// every call, so a small one serves small blocks.)
	if k*n <= 512 {
		var buf [512]float64
		syrkWeighted(a, n, block, w, buf[:])
		return
	}
	var buf [4096]float64
	syrkWeighted(a, n, block, w, buf[:])
}

// syrkWeighted is SyrkLower with weights, scaling chunks of rows into buf.
func syrkWeighted(a []float64, n int, block, w, buf []float64) {
	k := len(w)
	chunk := len(buf) / n
	if chunk == 0 {
		for p, wp := range w {
			AddOuter(a, n, wp, block[p*n:p*n+n])
		}
		return
	}
	for p0 := 0; p0 < k; p0 += chunk {
		kk := min(chunk, k-p0)
		scaled := buf[:kk*n]
		for p := range kk {
			wp, src, dst := w[p0+p], block[(p0+p)*n:(p0+p)*n+n], scaled[p*n:p*n+n]
			for j, v := range src {
				dst[j] = wp * v
			}
		}
		f64.GemmTNLower(n, kk, scaled, n, block[p0*n:], n, a, n)
	}
}

// MulVec sets y[p] to b_pᵀx for every row b_p of block (k rows of length
// n): the predictions of a row's ratings from the gathered factors of the
// other side. y must hold at least k values and x at least n.
func MulVec(y, block []float64, n int, x []float64) {
	k := blockRows(block, n)
	f64.GemvN(k, n, block, max(n, 1), x, y)
}

// AddMulTransVec adds Σ_p x_p·b_p to y[:n], over the rows b_p of block (k
// rows of length n): the right-hand side Σ x·v of a row's normal equations,
// with x its ratings (or weighted ratings). x must hold at least k values.
func AddMulTransVec(y, block []float64, n int, x []float64) {
	k := blockRows(block, n)
	f64.GemvT(k, n, 1, block, max(n, 1), x, 1, y)
}

// CholeskySolve solves a·x = b for symmetric positive definite a, given by
// its lower triangle. It overwrites a with its Cholesky factor L and b with
// x. It returns ErrNotPositiveDefinite, leaving a and b unusable, if a pivot
// is not positive and finite. It is Cholesky then SolveCholesky.
func CholeskySolve(a []float64, n int, b []float64) error {
	if err := Cholesky(a, n); err != nil {
		return err
	}
	SolveCholesky(a, n, b)
	return nil
}

// cholBlock is the panel width of the blocked factorization, and
// cholMaxBlocked the largest n it handles (its scratch space, cholBlock·n
// values, lives on the stack); larger matrices are factored unblocked.
const (
	cholBlock      = 8
	cholMaxBlocked = 256
)

// Cholesky overwrites the lower triangle of the symmetric positive
// definite n × n matrix a with its Cholesky factor L (a = L·Lᵀ). It
// returns ErrNotPositiveDefinite, leaving a unusable, if a pivot is not
// positive and finite.
//
// It works in panels of 8 columns: each panel's diagonal block is factored
// unblocked (unrolled, in registers), the rows below it are solved against
// that block all at once by f64.TrsmRows8, which also leaves them
// transposed, and the rest of the matrix is updated by one rank-8
// GemmTNLowerSub, where the flops are.
func Cholesky(a []float64, n int) error {
	a = a[:n*n]
	// The panel's scratch space lives on the stack, sized to n: Go zeroes
	// a stack array on every call.
	switch {
	case n <= cholBlock:
		return choleskyDiag(a, n, n)
	case n <= 16:
		var buf [cholBlock * 16]float64
		return choleskyBlocked(a, n, buf[:])
	case n <= 32:
		var buf [cholBlock * 32]float64
		return choleskyBlocked(a, n, buf[:])
	case n <= 64:
		var buf [cholBlock * 64]float64
		return choleskyBlocked(a, n, buf[:])
	case n <= cholMaxBlocked:
		var buf [cholBlock * cholMaxBlocked]float64
		return choleskyBlocked(a, n, buf[:])
	}
	return choleskyUnblocked(a, n, n)
}

// choleskyBlocked is Cholesky with scratch space buf of at least
// cholBlock·n values.
func choleskyBlocked(a []float64, n int, buf []float64) error {
	for j0 := 0; j0 < n; j0 += cholBlock {
		jb := min(cholBlock, n-j0)
		if err := choleskyDiag(a[j0*n+j0:], jb, n); err != nil {
			return err
		}
		m := n - j0 - jb
		if m == 0 {
			break
		}
		p := buf[:jb*m]
		panelSolve(a, n, j0, jb, p)
		// A22 −= L_panel·L_panelᵀ (lower triangle).
		f64.GemmTNLowerSub(m, jb, p, m, p, m, a[(j0+jb)*n+j0+jb:], n)
	}
	return nil
}

// panelSolve solves the rows below the factored diagonal block of panel
// j0 (width jb) in place, L_panel = A_panel·L11⁻ᵀ, one row at a time by
// forward substitution (the rows are independent, so their chains
// overlap), and copies them transposed into p: p[c·m+i] = L[j0+jb+i][j0+c]
// for the m rows below. A full panel of 8 is f64.TrsmRows8 (in assembly,
// 4 rows at a time, where the CPU has AVX2).
func panelSolve(a []float64, n, j0, jb int, p []float64) {
	if jb == 8 {
		m := n - j0 - 8
		f64.TrsmRows8(m, a[j0*n+j0:], n, a[(j0+8)*n+j0:], n, p, m)
		return
	}
	m := n - j0 - jb
	var l [cholBlock][cholBlock]float64
	var inv [cholBlock]float64
	for c := range jb {
		copy(l[c][:c+1], a[(j0+c)*n+j0:(j0+c)*n+j0+c+1])
		inv[c] = 1 / l[c][c]
	}
	for i := range m {
		row := a[(j0+jb+i)*n+j0 : (j0+jb+i)*n+j0+jb]
		var x [cholBlock]float64
		for c, v := range row {
			for k, lk := range l[c][:c] {
				v -= lk * x[k]
			}
			x[c] = v * inv[c]
		}
		copy(row, x[:jb])
		for c, v := range x[:jb] {
			p[c*m+i] = v
		}
	}
}

// cholesky8 is choleskyUnblocked for an 8 × 8 block, unrolled: the same
// operations in the same order, held in registers (and so the same
// result, bit for bit). It reads and writes only the lower triangle.
func cholesky8(a []float64, lda int) error {
	_ = a[7*lda+7]
	a00 := a[0]
	a10, a11 := a[lda], a[lda+1]
	a20, a21, a22 := a[2*lda], a[2*lda+1], a[2*lda+2]
	a30, a31, a32, a33 := a[3*lda], a[3*lda+1], a[3*lda+2], a[3*lda+3]
	a40, a41, a42, a43, a44 := a[4*lda], a[4*lda+1], a[4*lda+2], a[4*lda+3], a[4*lda+4]
	a50, a51, a52, a53, a54, a55 := a[5*lda], a[5*lda+1], a[5*lda+2], a[5*lda+3], a[5*lda+4], a[5*lda+5]
	a60, a61, a62, a63, a64, a65, a66 := a[6*lda], a[6*lda+1], a[6*lda+2], a[6*lda+3], a[6*lda+4], a[6*lda+5], a[6*lda+6]
	a70, a71, a72, a73, a74, a75, a76, a77 := a[7*lda], a[7*lda+1], a[7*lda+2], a[7*lda+3], a[7*lda+4], a[7*lda+5], a[7*lda+6], a[7*lda+7]
	ok := true
	d0 := a00
	ok = ok && d0 > 0 && d0 <= math.MaxFloat64
	a00 = math.Sqrt(d0)
	inv0 := 1 / a00
	a10 = a10 * inv0
	a20 = a20 * inv0
	a30 = a30 * inv0
	a40 = a40 * inv0
	a50 = a50 * inv0
	a60 = a60 * inv0
	a70 = a70 * inv0
	d1 := a11 - a10*a10
	ok = ok && d1 > 0 && d1 <= math.MaxFloat64
	a11 = math.Sqrt(d1)
	inv1 := 1 / a11
	a21 = (a21 - a20*a10) * inv1
	a31 = (a31 - a30*a10) * inv1
	a41 = (a41 - a40*a10) * inv1
	a51 = (a51 - a50*a10) * inv1
	a61 = (a61 - a60*a10) * inv1
	a71 = (a71 - a70*a10) * inv1
	d2 := a22 - a20*a20 - a21*a21
	ok = ok && d2 > 0 && d2 <= math.MaxFloat64
	a22 = math.Sqrt(d2)
	inv2 := 1 / a22
	a32 = (a32 - a30*a20 - a31*a21) * inv2
	a42 = (a42 - a40*a20 - a41*a21) * inv2
	a52 = (a52 - a50*a20 - a51*a21) * inv2
	a62 = (a62 - a60*a20 - a61*a21) * inv2
	a72 = (a72 - a70*a20 - a71*a21) * inv2
	d3 := a33 - a30*a30 - a31*a31 - a32*a32
	ok = ok && d3 > 0 && d3 <= math.MaxFloat64
	a33 = math.Sqrt(d3)
	inv3 := 1 / a33
	a43 = (a43 - a40*a30 - a41*a31 - a42*a32) * inv3
	a53 = (a53 - a50*a30 - a51*a31 - a52*a32) * inv3
	a63 = (a63 - a60*a30 - a61*a31 - a62*a32) * inv3
	a73 = (a73 - a70*a30 - a71*a31 - a72*a32) * inv3
	d4 := a44 - a40*a40 - a41*a41 - a42*a42 - a43*a43
	ok = ok && d4 > 0 && d4 <= math.MaxFloat64
	a44 = math.Sqrt(d4)
	inv4 := 1 / a44
	a54 = (a54 - a50*a40 - a51*a41 - a52*a42 - a53*a43) * inv4
	a64 = (a64 - a60*a40 - a61*a41 - a62*a42 - a63*a43) * inv4
	a74 = (a74 - a70*a40 - a71*a41 - a72*a42 - a73*a43) * inv4
	d5 := a55 - a50*a50 - a51*a51 - a52*a52 - a53*a53 - a54*a54
	ok = ok && d5 > 0 && d5 <= math.MaxFloat64
	a55 = math.Sqrt(d5)
	inv5 := 1 / a55
	a65 = (a65 - a60*a50 - a61*a51 - a62*a52 - a63*a53 - a64*a54) * inv5
	a75 = (a75 - a70*a50 - a71*a51 - a72*a52 - a73*a53 - a74*a54) * inv5
	d6 := a66 - a60*a60 - a61*a61 - a62*a62 - a63*a63 - a64*a64 - a65*a65
	ok = ok && d6 > 0 && d6 <= math.MaxFloat64
	a66 = math.Sqrt(d6)
	inv6 := 1 / a66
	a76 = (a76 - a70*a60 - a71*a61 - a72*a62 - a73*a63 - a74*a64 - a75*a65) * inv6
	d7 := a77 - a70*a70 - a71*a71 - a72*a72 - a73*a73 - a74*a74 - a75*a75 - a76*a76
	ok = ok && d7 > 0 && d7 <= math.MaxFloat64
	a77 = math.Sqrt(d7)
	if !ok {
		return ErrNotPositiveDefinite
	}
	a[0] = a00
	a[lda], a[lda+1] = a10, a11
	a[2*lda], a[2*lda+1], a[2*lda+2] = a20, a21, a22
	a[3*lda], a[3*lda+1], a[3*lda+2], a[3*lda+3] = a30, a31, a32, a33
	a[4*lda], a[4*lda+1], a[4*lda+2], a[4*lda+3], a[4*lda+4] = a40, a41, a42, a43, a44
	a[5*lda], a[5*lda+1], a[5*lda+2], a[5*lda+3], a[5*lda+4], a[5*lda+5] = a50, a51, a52, a53, a54, a55
	a[6*lda], a[6*lda+1], a[6*lda+2], a[6*lda+3], a[6*lda+4], a[6*lda+5], a[6*lda+6] = a60, a61, a62, a63, a64, a65, a66
	a[7*lda], a[7*lda+1], a[7*lda+2], a[7*lda+3], a[7*lda+4], a[7*lda+5], a[7*lda+6], a[7*lda+7] = a70, a71, a72, a73, a74, a75, a76, a77
	return nil
}

// choleskyDiag factors a diagonal block of a panel, n ≤ 8 rows: unrolled
// at 8, else choleskyUnblocked.
func choleskyDiag(a []float64, n, lda int) error {
	if n == 8 {
		return cholesky8(a, lda)
	}
	return choleskyUnblocked(a, n, lda)
}

// choleskyUnblocked factors the n × n block of a with leading dimension lda
// in place, dot product by dot product.
func choleskyUnblocked(a []float64, n, lda int) error {
	for j := range n {
		rowj := a[j*lda : j*lda+j+1]
		d := rowj[j]
		for _, v := range rowj[:j] {
			d -= v * v
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return ErrNotPositiveDefinite
		}
		d = math.Sqrt(d)
		rowj[j] = d
		inv := 1 / d
		for i := j + 1; i < n; i++ {
			rowi := a[i*lda : i*lda+j+1]
			s := rowi[j]
			for k, v := range rowi[:j] {
				s -= v * rowj[k]
			}
			rowi[j] = s * inv
		}
	}
	return nil
}

// SolveCholesky overwrites b with the solution x of L·Lᵀ·x = b, for the
// Cholesky factor L of an n × n matrix (the lower triangle of l, as
// Cholesky leaves it). L is not modified, so one factorization serves any
// number of right-hand sides.
//
// Both triangular solves go 4 rows at a time: a GemvN or GemvT brings in
// the rows already solved, and a 4 × 4 triangle is solved in place.
func SolveCholesky(l []float64, n int, b []float64) {
	l, b = l[:n*n], b[:n]
	var t [4]float64
	// Forward: L y = b.
	for i0 := 0; i0 < n; i0 += 4 {
		ib := min(4, n-i0)
		if i0 > 0 {
			f64.GemvN(ib, i0, l[i0*n:], n, b[:i0], t[:ib])
			for q := range ib {
				b[i0+q] -= t[q]
			}
		}
		if ib == 4 {
			forward4(l[i0*n+i0:], n, (*[4]float64)(b[i0:]))
			continue
		}
		for i := i0; i < i0+ib; i++ {
			row := l[i*n : i*n+i+1]
			s := b[i]
			for k := i0; k < i; k++ {
				s -= row[k] * b[k]
			}
			b[i] = s * (1 / row[i]) // the division is off the dependency chain
		}
	}
	// Backward: Lᵀ x = y, from the last block; once a block of x is known,
	// its rows of L (columns of Lᵀ) are subtracted from the rest.
	for i0 := (n - 1) &^ 3; i0 >= 0; i0 -= 4 {
		ib := min(4, n-i0)
		if ib == 4 {
			backward4(l[i0*n+i0:], n, (*[4]float64)(b[i0:]))
		} else {
			for i := i0 + ib - 1; i >= i0; i-- {
				s := b[i]
				for k := i + 1; k < i0+ib; k++ {
					s -= l[k*n+i] * b[k]
				}
				b[i] = s * (1 / l[i*n+i])
			}
		}
		if i0 > 0 {
			f64.GemvT(ib, i0, -1, l[i0*n:], n, b[i0:i0+ib], 1, b[:i0])
		}
	}
}

// forward4 solves the 4 × 4 lower triangle at d (leading dimension n)
// against b in place: SolveCholesky's forward step for a full block,
// unrolled (the same operations in the same order).
func forward4(d []float64, n int, b *[4]float64) {
	_ = d[3*n+3]
	b0 := b[0] * (1 / d[0])
	b1 := (b[1] - d[n]*b0) * (1 / d[n+1])
	b2 := (b[2] - d[2*n]*b0 - d[2*n+1]*b1) * (1 / d[2*n+2])
	b3 := (b[3] - d[3*n]*b0 - d[3*n+1]*b1 - d[3*n+2]*b2) * (1 / d[3*n+3])
	b[0], b[1], b[2], b[3] = b0, b1, b2, b3
}

// backward4 solves the transpose of the 4 × 4 lower triangle at d
// (leading dimension n) against b in place: SolveCholesky's backward
// step for a full block, unrolled (the same operations in the same
// order).
func backward4(d []float64, n int, b *[4]float64) {
	_ = d[3*n+3]
	b3 := b[3] * (1 / d[3*n+3])
	b2 := (b[2] - d[3*n+2]*b3) * (1 / d[2*n+2])
	b1 := (b[1] - d[2*n+1]*b2 - d[3*n+1]*b3) * (1 / d[n+1])
	b0 := (b[0] - d[n]*b1 - d[2*n]*b2 - d[3*n]*b3) * (1 / d[0])
	b[0], b[1], b[2], b[3] = b0, b1, b2, b3
}

// CholeskyInverse sets inv, an n × n matrix (both triangles), to the
// inverse (L·Lᵀ)⁻¹ of the matrix whose Cholesky factor L is in l (as
// Cholesky leaves it), using work (n × n values) as scratch: for a matrix
// solved with many right-hand sides, each solve is then one matrix–vector
// product (MulVec(x, inv, n, b)) instead of two triangular solves. It
// costs about two factorizations (2n³/3 flops).
//
// It forms X = L⁻¹ in work by blocks of 4 rows, each block one
// GemmTNLowerRowsSub against the rows above it (L's rows, transposed into
// inv as scratch, times X) and one TrsmLower4 against L's diagonal block,
// then inv = Xᵀ·X by blocks of 4 rows, each one GemmTNLowerRows over the
// rows of X at and below the block (the rows above are zero there), and
// mirrors the lower triangle into the upper (f64.TransposeLower). Below
// n = 8 it runs plain loops, and at n = 8 the same loops unrolled.
func CholeskyInverse(inv, l []float64, n int, work []float64) {
	l, inv, x := l[:n*n], inv[:n*n], work[:n*n]
	switch {
	case n == 8:
		choleskyInverse8(inv, l)
		return
	case n < 8:
		choleskyInverseSmall(inv, l, n, x)
		return
	}
	// inv holds Lᵀ while X is formed: inv[k·n+i] = L_ik for k < i.
	f64.TransposeLower(n, l, n, inv, n)
	// X = L⁻¹, lower triangular with zeros above the diagonal. Block
	// rows I = [i0, i1): X_I = L_II⁻¹·([0 | I] − L_I,0:i0·X_0:i0), the
	// product over the rows above, which are already X's.
	clear(x)
	for i0 := 0; i0 < n; i0 += 4 {
		i1 := min(i0+4, n)
		for i := i0; i < i1; i++ {
			x[i*n+i] = 1
		}
		f64.GemmTNLowerRowsSub(i0, i1, i0, inv, n, x, n, x, n)
		if i1-i0 == 4 {
			// The rows' entries above the diagonal are zero, and stay so.
			f64.TrsmLower4(i1, l[i0*n+i0:], n, x[i0*n:], n)
			continue
		}
		for i := i0; i < i1; i++ {
			xi := x[i*n : i*n+i+1]
			for q := i0; q < i; q++ {
				f64.Axpy(-l[i*n+q], x[q*n:q*n+q+1], xi[:q+1])
			}
			d := 1 / l[i*n+i]
			for j := range xi {
				xi[j] *= d
			}
		}
	}
	// inv = L⁻ᵀ·L⁻¹ = Xᵀ·X, lower triangle: row i is Σ_{p≥i} x_pi·x_p, so
	// the rows [i0, i1) need the rows of X from i0 on only.
	clear(inv)
	for i0 := 0; i0 < n; i0 += 4 {
		i1 := min(i0+4, n)
		f64.GemmTNLowerRows(i0, i1, n-i0, x[i0*n:], n, x[i0*n:], n, inv, n)
	}
	f64.TransposeLower(n, inv, n, inv, n)
}

// choleskyInverseSmall is CholeskyInverse with plain loops: X = L⁻¹ row by
// row (x_ij = −(1/L_ii)·Σ_{j≤k<i} L_ik·x_kj), then the lower triangle of
// Xᵀ·X (inv_ij = Σ_{p≥i} x_pi·x_pj), mirrored.
func choleskyInverseSmall(inv, l []float64, n int, x []float64) {
	for i := range n {
		li, xi := l[i*n:i*n+i+1], x[i*n:i*n+i+1]
		d := 1 / li[i]
		for j := range i {
			var s float64
			for k := j; k < i; k++ {
				s += li[k] * x[k*n+j]
			}
			xi[j] = -d * s
		}
		xi[i] = d
	}
	for i := range n {
		for j := range i + 1 {
			var s float64
			for p := i; p < n; p++ {
				s += x[p*n+i] * x[p*n+j]
			}
			inv[i*n+j], inv[j*n+i] = s, s
		}
	}
}

// choleskyInverse8 is choleskyInverseSmall at n = 8, unrolled: the same
// operations in the same order (so the same result, bit for bit), with no
// loops, whose short and varying trip counts cost more in mispredicted
// branches than the arithmetic.
func choleskyInverse8(inv, l []float64) {
	_, _ = inv[63], l[63]
	l00 := l[0]
	l10, l11 := l[8], l[9]
	l20, l21, l22 := l[16], l[17], l[18]
	l30, l31, l32, l33 := l[24], l[25], l[26], l[27]
	l40, l41, l42, l43, l44 := l[32], l[33], l[34], l[35], l[36]
	l50, l51, l52, l53, l54, l55 := l[40], l[41], l[42], l[43], l[44], l[45]
	l60, l61, l62, l63, l64, l65, l66 := l[48], l[49], l[50], l[51], l[52], l[53], l[54]
	l70, l71, l72, l73, l74, l75, l76, l77 := l[56], l[57], l[58], l[59], l[60], l[61], l[62], l[63]
	x00 := 1 / l00
	x11 := 1 / l11
	x10 := -x11 * (l10 * x00)
	x22 := 1 / l22
	x20 := -x22 * (l20*x00 + l21*x10)
	x21 := -x22 * (l21 * x11)
	x33 := 1 / l33
	x30 := -x33 * (l30*x00 + l31*x10 + l32*x20)
	x31 := -x33 * (l31*x11 + l32*x21)
	x32 := -x33 * (l32 * x22)
	x44 := 1 / l44
	x40 := -x44 * (l40*x00 + l41*x10 + l42*x20 + l43*x30)
	x41 := -x44 * (l41*x11 + l42*x21 + l43*x31)
	x42 := -x44 * (l42*x22 + l43*x32)
	x43 := -x44 * (l43 * x33)
	x55 := 1 / l55
	x50 := -x55 * (l50*x00 + l51*x10 + l52*x20 + l53*x30 + l54*x40)
	x51 := -x55 * (l51*x11 + l52*x21 + l53*x31 + l54*x41)
	x52 := -x55 * (l52*x22 + l53*x32 + l54*x42)
	x53 := -x55 * (l53*x33 + l54*x43)
	x54 := -x55 * (l54 * x44)
	x66 := 1 / l66
	x60 := -x66 * (l60*x00 + l61*x10 + l62*x20 + l63*x30 + l64*x40 + l65*x50)
	x61 := -x66 * (l61*x11 + l62*x21 + l63*x31 + l64*x41 + l65*x51)
	x62 := -x66 * (l62*x22 + l63*x32 + l64*x42 + l65*x52)
	x63 := -x66 * (l63*x33 + l64*x43 + l65*x53)
	x64 := -x66 * (l64*x44 + l65*x54)
	x65 := -x66 * (l65 * x55)
	x77 := 1 / l77
	x70 := -x77 * (l70*x00 + l71*x10 + l72*x20 + l73*x30 + l74*x40 + l75*x50 + l76*x60)
	x71 := -x77 * (l71*x11 + l72*x21 + l73*x31 + l74*x41 + l75*x51 + l76*x61)
	x72 := -x77 * (l72*x22 + l73*x32 + l74*x42 + l75*x52 + l76*x62)
	x73 := -x77 * (l73*x33 + l74*x43 + l75*x53 + l76*x63)
	x74 := -x77 * (l74*x44 + l75*x54 + l76*x64)
	x75 := -x77 * (l75*x55 + l76*x65)
	x76 := -x77 * (l76 * x66)
	inv[0] = x00*x00 + x10*x10 + x20*x20 + x30*x30 + x40*x40 + x50*x50 + x60*x60 + x70*x70
	inv[8] = x11*x10 + x21*x20 + x31*x30 + x41*x40 + x51*x50 + x61*x60 + x71*x70
	inv[1] = inv[8]
	inv[9] = x11*x11 + x21*x21 + x31*x31 + x41*x41 + x51*x51 + x61*x61 + x71*x71
	inv[16] = x22*x20 + x32*x30 + x42*x40 + x52*x50 + x62*x60 + x72*x70
	inv[2] = inv[16]
	inv[17] = x22*x21 + x32*x31 + x42*x41 + x52*x51 + x62*x61 + x72*x71
	inv[10] = inv[17]
	inv[18] = x22*x22 + x32*x32 + x42*x42 + x52*x52 + x62*x62 + x72*x72
	inv[24] = x33*x30 + x43*x40 + x53*x50 + x63*x60 + x73*x70
	inv[3] = inv[24]
	inv[25] = x33*x31 + x43*x41 + x53*x51 + x63*x61 + x73*x71
	inv[11] = inv[25]
	inv[26] = x33*x32 + x43*x42 + x53*x52 + x63*x62 + x73*x72
	inv[19] = inv[26]
	inv[27] = x33*x33 + x43*x43 + x53*x53 + x63*x63 + x73*x73
	inv[32] = x44*x40 + x54*x50 + x64*x60 + x74*x70
	inv[4] = inv[32]
	inv[33] = x44*x41 + x54*x51 + x64*x61 + x74*x71
	inv[12] = inv[33]
	inv[34] = x44*x42 + x54*x52 + x64*x62 + x74*x72
	inv[20] = inv[34]
	inv[35] = x44*x43 + x54*x53 + x64*x63 + x74*x73
	inv[28] = inv[35]
	inv[36] = x44*x44 + x54*x54 + x64*x64 + x74*x74
	inv[40] = x55*x50 + x65*x60 + x75*x70
	inv[5] = inv[40]
	inv[41] = x55*x51 + x65*x61 + x75*x71
	inv[13] = inv[41]
	inv[42] = x55*x52 + x65*x62 + x75*x72
	inv[21] = inv[42]
	inv[43] = x55*x53 + x65*x63 + x75*x73
	inv[29] = inv[43]
	inv[44] = x55*x54 + x65*x64 + x75*x74
	inv[37] = inv[44]
	inv[45] = x55*x55 + x65*x65 + x75*x75
	inv[48] = x66*x60 + x76*x70
	inv[6] = inv[48]
	inv[49] = x66*x61 + x76*x71
	inv[14] = inv[49]
	inv[50] = x66*x62 + x76*x72
	inv[22] = inv[50]
	inv[51] = x66*x63 + x76*x73
	inv[30] = inv[51]
	inv[52] = x66*x64 + x76*x74
	inv[38] = inv[52]
	inv[53] = x66*x65 + x76*x75
	inv[46] = inv[53]
	inv[54] = x66*x66 + x76*x76
	inv[56] = x77 * x70
	inv[7] = inv[56]
	inv[57] = x77 * x71
	inv[15] = inv[57]
	inv[58] = x77 * x72
	inv[23] = inv[58]
	inv[59] = x77 * x73
	inv[31] = inv[59]
	inv[60] = x77 * x74
	inv[39] = inv[60]
	inv[61] = x77 * x75
	inv[47] = inv[61]
	inv[62] = x77 * x76
	inv[55] = inv[62]
	inv[63] = x77 * x77
}
