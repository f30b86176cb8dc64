package f64

// The reference loops: the generic implementation, and the oracle the
// tests hold the assembly to. Arguments are checked by the exported
// functions.

func dotGeneric(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func axpyGeneric(alpha float64, x, y []float64) {
	for i, v := range x {
		y[i] += alpha * v
	}
}

func gemvNGeneric(m, n int, a []float64, lda int, x, y []float64) {
	if n == 0 {
		clear(y[:m])
		return
	}
	x = x[:n]
	for i := range m {
		row := a[i*lda : i*lda+n]
		var s float64
		for j, v := range row {
			s += v * x[j]
		}
		y[i] = s
	}
}

func gemvTGeneric(m, n int, alpha float64, a []float64, lda int, x []float64, incX int, y []float64) {
	if n == 0 {
		return
	}
	y = y[:n]
	for i := range m {
		xi := alpha * x[i*incX]
		row := a[i*lda : i*lda+n]
		for j, v := range row {
			y[j] += xi * v
		}
	}
}

func gemmTNLowerGeneric(n, k int, sub bool, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	gemmTNLowerRowsGeneric(0, n, k, sub, b, ldb, a, lda, c, ldc)
}

// gemmTNLowerRowsGeneric is gemmTNLowerGeneric on rows [r0, n) of c only.
func gemmTNLowerRowsGeneric(r0, n, k int, sub bool, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	if n <= r0 {
		return
	}
	for p := range k {
		brow := b[p*ldb+r0 : p*ldb+n]
		arow := a[p*lda : p*lda+n]
		for i0, bi := range brow {
			i := r0 + i0
			crow := c[i*ldc : i*ldc+i+1]
			if sub {
				for j, v := range arow[:i+1] {
					crow[j] -= bi * v
				}
				continue
			}
			for j, v := range arow[:i+1] {
				crow[j] += bi * v
			}
		}
	}
}

func gatherGeneric(dst, src []float64, n int, rows []int32) {
	for p, r := range rows {
		copy(dst[p*n:p*n+n], src[int(r)*n:int(r)*n+n])
	}
}
