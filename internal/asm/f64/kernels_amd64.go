//go:build !purego

package f64

import "golang.org/x/sys/cpu"

// best returns the fastest implementation the CPU and operating system
// support.
func best() Impl {
	switch {
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F:
		return AVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return AVX2
	}
	return Generic
}

func dot(x, y []float64) float64 {
	if active == Generic {
		return dotGeneric(x, y)
	}
	return dotAVX2(x, y)
}

func axpy(alpha float64, x, y []float64) {
	if active == Generic {
		axpyGeneric(alpha, x, y)
		return
	}
	axpyAVX2(alpha, x, y)
}

func gemvN(m, n int, a []float64, lda int, x, y []float64) {
	if active == Generic {
		gemvNGeneric(m, n, a, lda, x, y)
		return
	}
	gemvNAVX2(m, n, a, lda, x, y)
}

func gemvT(m, n int, alpha float64, a []float64, lda int, x []float64, incX int, y []float64) {
	if active == Generic {
		gemvTGeneric(m, n, alpha, a, lda, x, incX, y)
		return
	}
	gemvTAVX2(m, n, alpha, a, lda, x, incX, y)
}

// gemmTNLower works on rows [r0, n) of C in blocks of 4 rows: block i0
// covers columns [0, i0+4), its last 4 the diagonal tile, written only on
// and below the diagonal. The rows before the first multiple of 4 at or
// after r0, and the last n mod 4, are one GemvT each. With sub, it
// subtracts.
func gemmTNLower(r0, n, k int, sub bool, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	if active == Generic {
		gemmTNLowerRowsGeneric(r0, n, k, sub, b, ldb, a, lda, c, ldc)
		return
	}
	alpha := 1.0
	if sub {
		alpha = -1
	}
	first := min((r0+3)&^3, n)
	for i := r0; i < first; i++ {
		gemvTAVX2(k, i+1, alpha, a, lda, b[i:], ldb, c[i*ldc:])
	}
	n4 := max(n&^3, first)
	for i0 := first; i0 < n4; i0 += 4 {
		switch {
		case active == AVX512 && sub:
			syrk4SubAVX512(k, i0+4, b[i0:], ldb, a, lda, c[i0*ldc:], ldc, diagMasks(i0+4))
		case active == AVX512:
			syrk4AVX512(k, i0+4, b[i0:], ldb, a, lda, c[i0*ldc:], ldc, diagMasks(i0+4))
		case sub:
			syrk4SubAVX2(k, i0+4, b[i0:], ldb, a, lda, c[i0*ldc:], ldc)
		default:
			syrk4AVX2(k, i0+4, b[i0:], ldb, a, lda, c[i0*ldc:], ldc)
		}
	}
	for i := n4; i < n; i++ {
		gemvTAVX2(k, i+1, alpha, a, lda, b[i:], ldb, c[i*ldc:])
	}
}

// diagMasks returns syrk4AVX512's masks for a block of ncols columns, a
// positive multiple of 4: the last 8-column vector starts at column
// 8·(⌈ncols/8⌉ − 1), and row r writes columns up to ncols − 4 + r, so
// row r writes r+1 lanes of it if ncols mod 8 = 4, and r+5 if it is 0.
// (The masks are two constants; the kernels of small blocks call this
// once per 4 rows.)
func diagMasks(ncols int) uint64 {
	if ncols%8 == 4 {
		return 0x0f07_0301
	}
	return 0xff7f_3f1f
}

// gatherAhead returns how many rows ahead of the one it copies gatherAVX2
// prefetches, for rows of n values: 8 rows, and at least 1 KiB (16 cache
// lines), enough to keep the fill buffers of a core busy. On the shared
// 2-core development machine (BenchmarkGatherAhead: 512 random rows of a
// 100 000-row matrix, several runs) 8 rows took 20–44 ns per row at
// n = 32, against 34–61 with no prefetch and 57–62 for the generic copy;
// at n = 8, 16 rows took 6.3–6.7 ns per row against 7.1–9.0 for 8. More
// did not help.
func gatherAhead(n int) int { return max(8, 128/n) }

func gather(dst, src []float64, n int, rows []int32) {
	if active == Generic {
		gatherGeneric(dst, src, n, rows)
		return
	}
	gatherAVX2(dst, src, n, rows, gatherAhead(n))
}

// trsmRows8 runs the assembly on whole groups of 4 rows and the generic
// loop on the last m mod 4.
func trsmRows8(m int, l []float64, ldl int, a []float64, lda int, p []float64, ldp int) {
	m4 := m &^ 3
	if active == Generic {
		m4 = 0
	}
	if m4 > 0 {
		var coef [36]float64
		trsmCoef(&coef, l, ldl)
		trsmRows8AVX2(m4, a, lda, coef[:], p, ldp)
	}
	if m4 < m {
		trsmRows8Generic(m-m4, l, ldl, a[m4*lda:], lda, p[m4:], ldp)
	}
}

// transposeLower runs the assembly on the 4 × 4 tiles below the diagonal
// tiles of the first n − n mod 4 rows, and Go on the rest.
func transposeLower(n int, src []float64, lds int, dst []float64, ldd int) {
	if active == Generic {
		transposeLowerGeneric(n, src, lds, dst, ldd)
		return
	}
	n4 := n &^ 3
	if n4 >= 8 {
		transposeLowerAVX2(n4, src, lds, dst, ldd)
	}
	transposeLowerDiag(n4, n, src, lds, dst, ldd)
}

// trsmLower4 runs the assembly on whole groups of 4 columns and the
// generic loop on the last w mod 4.
func trsmLower4(w int, l []float64, ldl int, b []float64, ldb int) {
	w4 := w &^ 3
	if active == Generic {
		w4 = 0
	}
	if w4 > 0 {
		coef := [10]float64{
			1 / l[0], 1 / l[ldl+1], 1 / l[2*ldl+2], 1 / l[3*ldl+3],
			l[ldl], l[2*ldl], l[2*ldl+1], l[3*ldl], l[3*ldl+1], l[3*ldl+2],
		}
		trsmLower4AVX2(w4, b, ldb, coef[:])
	}
	if w4 < w {
		trsmLower4Generic(w-w4, l, ldl, b[w4:], ldb)
	}
}
