package f32

import "fmt"

// SyrkLower adds the lower triangle (diagonal included) of Aᵀ·A to that
// of the n × n matrix C, for the k × n matrix A: the Gram matrix
// C += Σ_p a_p·a_pᵀ of the rows a_p of A, accumulated in float32. The
// strict upper triangle of C is neither read nor written:
//
//	for p := range k {
//		for i := range n {
//			for j := range i + 1 {
//				c[i*ldc+j] += a[p*lda+i] * a[p*lda+j]
//			}
//		}
//	}
func SyrkLower(n, k int, a []float32, lda int, c []float32, ldc int) {
	need("a", len(a), matLen("a", k, n, lda))
	need("c", len(c), matLen("c", n, n, ldc))
	if n == 0 || k == 0 {
		return
	}
	syrkLower(n, k, a, lda, c, ldc)
}

// GemvT adds Aᵀ·x to y[:n], for the m × n matrix A with leading
// dimension lda and the vector x with elements incX ≥ 1 apart:
//
//	for i := range m {
//		xi := x[i*incX]
//		for j := range n {
//			y[j] += xi * a[i*lda+j]
//		}
//	}
func GemvT(m, n int, a []float32, lda int, x []float32, incX int, y []float32) {
	need("a", len(a), matLen("a", m, n, lda))
	if incX < 1 {
		panic("f32: GemvT: incX < 1")
	}
	if m > 0 {
		need("x", len(x), (m-1)*incX+1)
	}
	need("y", len(y), n)
	if m == 0 || n == 0 {
		return
	}
	gemvT(m, n, a, lda, x, incX, y)
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
// places ahead of the one it copies, as f64.Gather does.
func Gather(dst, src []float32, n int, rows []int32) {
	if n < 0 {
		panic(fmt.Sprintf("f32: Gather: row length %d", n))
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

// GatherWiden is Gather into float64s: it copies the rows rows[p] of src,
// a matrix of rows of n float32s with no padding, to the consecutive rows
// of dst, each value converted (exactly) to float64:
//
//	for p, r := range rows {
//		for q := range n {
//			dst[p*n+q] = float64(src[int(r)*n+q])
//		}
//	}
//
// It panics as Gather does. It is the gather of a Mixed run on a CPU
// without AVX-512, whose rows the float64 kernels then sum.
func GatherWiden(dst []float64, src []float32, n int, rows []int32) {
	if n < 0 {
		panic(fmt.Sprintf("f32: GatherWiden: row length %d", n))
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
	gatherWiden(dst, src, n, rows)
}
