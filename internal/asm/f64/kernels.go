package f64

import "fmt"

// Dot returns the dot product of x and y[:len(x)]:
//
//	for i, v := range x {
//		s += v * y[i]
//	}
//	return s
func Dot(x, y []float64) float64 {
	need("y", len(y), len(x))
	return dot(x, y)
}

// Axpy adds alpha·x to y[:len(x)]:
//
//	for i, v := range x {
//		y[i] += alpha * v
//	}
func Axpy(alpha float64, x, y []float64) {
	need("y", len(y), len(x))
	axpy(alpha, x, y)
}

// GemvN sets y[:m] to A·x[:n] for the m × n matrix A with leading
// dimension lda:
//
//	for i := range m {
//		var s float64
//		for j := range n {
//			s += a[i*lda+j] * x[j]
//		}
//		y[i] = s
//	}
func GemvN(m, n int, a []float64, lda int, x, y []float64) {
	need("a", len(a), matLen("a", m, n, lda))
	need("x", len(x), n)
	need("y", len(y), m)
	if m == 0 || n == 0 {
		clear(y[:m])
		return
	}
	gemvN(m, n, a, lda, x, y)
}

// GemvT adds alpha·Aᵀ·x to y[:n], for the m × n matrix A with leading
// dimension lda and the vector x with elements incX ≥ 1 apart:
//
//	for i := range m {
//		xi := alpha * x[i*incX]
//		for j := range n {
//			y[j] += xi * a[i*lda+j]
//		}
//	}
func GemvT(m, n int, alpha float64, a []float64, lda int, x []float64, incX int, y []float64) {
	need("a", len(a), matLen("a", m, n, lda))
	if incX < 1 {
		panic("f64: GemvT: incX < 1")
	}
	if m > 0 {
		need("x", len(x), (m-1)*incX+1)
	}
	need("y", len(y), n)
	if m == 0 || n == 0 {
		return
	}
	gemvT(m, n, alpha, a, lda, x, incX, y)
}

// GemmTNLower adds the lower triangle (diagonal included) of Bᵀ·A to that
// of the n × n matrix C, for k × n matrices A and B; the strict upper
// triangle of C is neither read nor written:
//
//	for p := range k {
//		for i := range n {
//			for j := range i + 1 {
//				c[i*ldc+j] += b[p*ldb+i] * a[p*lda+j]
//			}
//		}
//	}
//
// With B = A this is the symmetric rank-k update C += Σ_p a_p·a_pᵀ of the
// rows a_p of A; with B = diag(w)·A it is the weighted Σ_p w_p·a_p·a_pᵀ.
func GemmTNLower(n, k int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	gemmTNLowerChecked(n, k, false, b, ldb, a, lda, c, ldc)
}

// GemmTNLowerSub is GemmTNLower subtracting: the lower triangle of C −=
// Bᵀ·A, with c[i*ldc+j] -= b[p*ldb+i] * a[p*lda+j] in the loop.
func GemmTNLowerSub(n, k int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	gemmTNLowerChecked(n, k, true, b, ldb, a, lda, c, ldc)
}

func gemmTNLowerChecked(n, k int, sub bool, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	need("b", len(b), matLen("b", k, n, ldb))
	need("a", len(a), matLen("a", k, n, lda))
	need("c", len(c), matLen("c", n, n, ldc))
	if n == 0 || k == 0 {
		return
	}
	gemmTNLower(0, n, k, sub, b, ldb, a, lda, c, ldc)
}

// Gather copies the rows rows[p] of src, a matrix of rows of n values with
// no padding, to the consecutive rows of dst:
//
//	for p, r := range rows {
//		copy(dst[p*n:p*n+n], src[int(r)*n:int(r)*n+n])
//	}
//
// It panics if dst holds fewer than len(rows)·n values or a row is
// negative or past the end of src. The assembly prefetches the rows a few
// places ahead of the one it copies, so that, when src is larger than the
// caches, the cache misses of several rows are in flight at once instead
// of one after the other.
func Gather(dst, src []float64, n int, rows []int32) {
	if n < 0 {
		panic(fmt.Sprintf("f64: Gather: row length %d", n))
	}
	need("dst", len(dst), len(rows)*n)
	if n == 0 || len(rows) == 0 {
		return
	}
	var hi uint32 // the largest row; a negative one converts to more than 2³¹
	for _, r := range rows {
		hi = max(hi, uint32(r))
	}
	need("src", len(src), (int(hi)+1)*n)
	gather(dst, src, n, rows)
}
