//go:build !amd64 || purego

package f32

// best returns the fastest implementation: only Generic in this build.
func best() Impl { return Generic }

func syrkLower(n, k int, a []float32, lda int, c []float32, ldc int) {
	syrkLowerGeneric(0, n, k, a, lda, c, ldc)
}

func gemvT(m, n int, a []float32, lda int, x []float32, incX int, y []float32) {
	gemvTGeneric(m, n, a, lda, x, incX, y)
}

func gather(dst, src []float32, n int, rows []int32) { gatherGeneric(dst, src, n, rows) }

func gatherWiden(dst []float64, src []float32, n int, rows []int32) {
	gatherWidenGeneric(dst, src, n, rows)
}
