//go:build !purego

package f32

import "golang.org/x/sys/cpu"

// best returns the fastest implementation the CPU and operating system
// support.
func best() Impl {
	switch {
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F:
		return AVX512
	case cpu.X86.HasAVX2:
		return AVX2
	}
	return Generic
}

// syrkLower works in blocks of 4 rows of C: block i0 covers columns
// [0, i0+4), its last 4 the diagonal tile, written only on and below the
// diagonal. The last n mod 4 rows are one GemvT each (row i of Aᵀ·A is
// Aᵀ times column i of A).
func syrkLower(n, k int, a []float32, lda int, c []float32, ldc int) {
	if active < AVX512 {
		syrkLowerGeneric(0, n, k, a, lda, c, ldc)
		return
	}
	n4 := n &^ 3
	for i0 := 0; i0 < n4; i0 += 4 {
		syrk4AVX512(k, i0+4, a[i0:], lda, a, lda, c[i0*ldc:], ldc, diagMasks(i0+4))
	}
	for i := n4; i < n; i++ {
		gemvTAVX512(k, i+1, a, lda, a[i:], lda, c[i*ldc:])
	}
}

// diagMasks returns syrk4AVX512's masks for a block of ncols columns, a
// positive multiple of 4: the last 16-column vector starts at column
// 16·(⌈ncols/16⌉ − 1), and row r writes columns up to ncols − 4 + r, so
// it writes m − 3 + r lanes of that vector, where m = ncols mod 16 (16 if
// that is 0). Row r's mask is bits 16r to 16r+15.
func diagMasks(ncols int) uint64 {
	m := ncols % 16
	if m == 0 {
		m = 16
	}
	var masks uint64
	for r := range 4 {
		masks |= (uint64(1)<<(m-3+r) - 1) << (16 * r)
	}
	return masks
}

func gemvT(m, n int, a []float32, lda int, x []float32, incX int, y []float32) {
	if active < AVX512 {
		gemvTGeneric(m, n, a, lda, x, incX, y)
		return
	}
	gemvTAVX512(m, n, a, lda, x, incX, y)
}

// gatherAhead returns how many rows ahead of the one it copies gatherAVX2
// prefetches, for rows of n values: 8 rows, and at least 1 KiB, as in
// package f64.
func gatherAhead(n int) int { return max(8, 256/n) }

func gather(dst, src []float32, n int, rows []int32) {
	if active == Generic {
		gatherGeneric(dst, src, n, rows)
		return
	}
	gatherAVX2(dst, src, n, rows, gatherAhead(n))
}

func gatherWiden(dst []float64, src []float32, n int, rows []int32) {
	if active == Generic {
		gatherWidenGeneric(dst, src, n, rows)
		return
	}
	gatherWidenAVX2(dst, src, n, rows, gatherAhead(n))
}
