package f32

// The reference loops: the generic implementation, and the oracle the
// tests hold the assembly to. Arguments are checked by the exported
// functions.

// syrkLowerGeneric is SyrkLower's loop on rows [r0, n) of c.
func syrkLowerGeneric(r0, n, k int, a []float32, lda int, c []float32, ldc int) {
	for p := range k {
		arow := a[p*lda : p*lda+n]
		for i := r0; i < n; i++ {
			ai := arow[i]
			crow := c[i*ldc : i*ldc+i+1]
			for j, v := range arow[:i+1] {
				crow[j] += ai * v
			}
		}
	}
}

func gemvTGeneric(m, n int, a []float32, lda int, x []float32, incX int, y []float32) {
	y = y[:n]
	for i := range m {
		xi := x[i*incX]
		row := a[i*lda : i*lda+n]
		for j, v := range row {
			y[j] += xi * v
		}
	}
}

func gatherGeneric(dst, src []float32, n int, rows []int32) {
	for p, r := range rows {
		copy(dst[p*n:p*n+n], src[int(r)*n:int(r)*n+n])
	}
}

func gatherWidenGeneric(dst []float64, src []float32, n int, rows []int32) {
	for p, r := range rows {
		s, d := src[int(r)*n:int(r)*n+n], dst[p*n:p*n+n]
		for q, x := range s {
			d[q] = float64(x)
		}
	}
}
