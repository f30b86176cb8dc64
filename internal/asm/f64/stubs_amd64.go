//go:build !purego

package f64

// The assembly kernels. Callers check every length: the assembly trusts
// its arguments. Leading dimensions are in elements.

// dotAVX2 returns Σ x[i]·y[i] over i < len(x).
//
//go:noescape
func dotAVX2(x, y []float64) float64

// axpyAVX2 adds alpha·x to y[:len(x)].
//
//go:noescape
func axpyAVX2(alpha float64, x, y []float64)

// gemvNAVX2 sets y[:m] to A·x for the m × n matrix A.
//
//go:noescape
func gemvNAVX2(m, n int, a []float64, lda int, x, y []float64)

// gemvTAVX2 adds alpha·Aᵀ·x to y[:n], x strided by incX.
//
//go:noescape
func gemvTAVX2(m, n int, alpha float64, a []float64, lda int, x []float64, incX int, y []float64)

// syrk4AVX2 adds to rows 0–3 of c, columns j < ncols − 4 + row + 1 (the
// lower triangle of a 4-row block whose diagonal tile is its last 4
// columns), Σ_p b[p·ldb+row]·a[p·lda+j] over p < k. ncols is a positive
// multiple of 4.
//
//go:noescape
func syrk4AVX2(k, ncols int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int)

// syrk4SubAVX2 is syrk4AVX2 subtracting the products.
//
//go:noescape
func syrk4SubAVX2(k, ncols int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int)

// syrk4AVX512 is syrk4AVX2 in AVX-512. masks holds, in byte r, the lanes
// of the last 8-column vector that row r writes.
//
//go:noescape
func syrk4AVX512(k, ncols int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int, masks uint64)

// syrk4SubAVX512 is syrk4AVX512 subtracting the products.
//
//go:noescape
func syrk4SubAVX512(k, ncols int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int, masks uint64)

// fmaLoopAVX2 and fmaLoopAVX512 run n iterations of 12 independent
// vector FMAs (96 and 192 flops): the machine's peak, for benchmarks.
//
//go:noescape
func fmaLoopAVX2(n int)

//go:noescape
func fmaLoopAVX512(n int)

// gatherAVX2 copies row rows[p] of src (rows of n > 0 values) to row p of
// dst, for p < len(rows) (len(rows) > 0), issuing PREFETCHT0 for the lines
// of row rows[p+ahead] before copying row p, and for rows[0:ahead] first.
//
//go:noescape
func gatherAVX2(dst, src []float64, n int, rows []int32, ahead int)

// trsmRows8AVX2 is TrsmRows8 on the first m4 rows, m4 a positive multiple
// of 4, with coef packed by trsmCoef.
//
//go:noescape
func trsmRows8AVX2(m4 int, a []float64, lda int, coef []float64, p []float64, ldp int)

// transposeLowerAVX2 is TransposeLower on the 4 × 4 tiles strictly below
// the diagonal tiles of the first n4 rows, n4 a multiple of 4.
//
//go:noescape
func transposeLowerAVX2(n4 int, src []float64, lds int, dst []float64, ldd int)

// trsmLower4AVX2 is TrsmLower4 on the first w4 columns, w4 a positive
// multiple of 4, with coef holding 1/l_00 … 1/l_33, then l_10, l_20,
// l_21, l_30, l_31, l_32.
//
//go:noescape
func trsmLower4AVX2(w4 int, b []float64, ldb int, coef []float64)
