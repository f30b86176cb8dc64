//go:build !purego

package f32

// The assembly kernels. Callers check every length: the assembly trusts
// its arguments. Leading dimensions are in elements.

// syrk4AVX512 adds to rows 0–3 of c, columns j < ncols − 4 + row + 1 (the
// lower triangle of a 4-row block whose diagonal tile is its last 4
// columns), Σ_p b[p·ldb+row]·a[p·lda+j] over p < k. ncols is a positive
// multiple of 4, and masks holds, in bits 16r to 16r+15, the lanes of the
// last 16-column vector that row r writes (diagMasks).
//
//go:noescape
func syrk4AVX512(k, ncols int, b []float32, ldb int, a []float32, lda int, c []float32, ldc int, masks uint64)

// gemvTAVX512 adds Aᵀ·x to y[:n] (m, n > 0), x strided by incX.
//
//go:noescape
func gemvTAVX512(m, n int, a []float32, lda int, x []float32, incX int, y []float32)

// gatherAVX2 copies row rows[p] of src (rows of n > 0 values) to row p of
// dst, for p < len(rows) (len(rows) > 0), issuing PREFETCHT0 for the lines
// of row rows[p+ahead] before copying row p, and for rows[0:ahead] first.
//
//go:noescape
func gatherAVX2(dst, src []float32, n int, rows []int32, ahead int)

// gatherWidenAVX2 is gatherAVX2 writing each value as a float64 into dst.
//
//go:noescape
func gatherWidenAVX2(dst []float64, src []float32, n int, rows []int32, ahead int)
