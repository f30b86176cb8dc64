//go:build !amd64 || purego

package f64

// best returns the fastest implementation: only Generic in this build.
func best() Impl { return Generic }

func dot(x, y []float64) float64 { return dotGeneric(x, y) }

func axpy(alpha float64, x, y []float64) { axpyGeneric(alpha, x, y) }

func gemvN(m, n int, a []float64, lda int, x, y []float64) { gemvNGeneric(m, n, a, lda, x, y) }

func gemvT(m, n int, alpha float64, a []float64, lda int, x []float64, incX int, y []float64) {
	gemvTGeneric(m, n, alpha, a, lda, x, incX, y)
}

func gemmTNLower(r0, n, k int, sub bool, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	gemmTNLowerRowsGeneric(r0, n, k, sub, b, ldb, a, lda, c, ldc)
}

func gather(dst, src []float64, n int, rows []int32) { gatherGeneric(dst, src, n, rows) }

func trsmRows8(m int, l []float64, ldl int, a []float64, lda int, p []float64, ldp int) {
	trsmRows8Generic(m, l, ldl, a, lda, p, ldp)
}

func transposeLower(n int, src []float64, lds int, dst []float64, ldd int) {
	transposeLowerGeneric(n, src, lds, dst, ldd)
}

func trsmLower4(w int, l []float64, ldl int, b []float64, ldb int) {
	trsmLower4Generic(w, l, ldl, b, ldb)
}
