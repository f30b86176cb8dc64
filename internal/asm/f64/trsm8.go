package f64

import "fmt"

// TrsmRows8 solves X·Lᵀ = A for the m rows of A, 8 values each (leading
// dimension lda), with L the 8 × 8 lower triangular matrix in l (leading
// dimension ldl; only its lower triangle is read), overwrites A with X and
// copies X transposed into the 8 rows of m values of P (leading dimension
// ldp):
//
//	for i := range m {
//		for c := range 8 {
//			s := a[i*lda+c]
//			for k := range c {
//				s -= l[c*ldl+k] * a[i*lda+k]
//			}
//			x := s * (1 / l[c*ldl+c])
//			a[i*lda+c] = x
//			p[c*ldp+i] = x
//		}
//	}
//
// It is the panel of a blocked Cholesky factorization with panels of 8
// columns: the rows below the factored diagonal block, and their
// transposed copy for the update of the rest of the matrix.
func TrsmRows8(m int, l []float64, ldl int, a []float64, lda int, p []float64, ldp int) {
	if m < 0 {
		panic(fmt.Sprintf("f64: TrsmRows8: %d rows", m))
	}
	need("l", len(l), matLen("l", 8, 8, ldl))
	need("a", len(a), matLen("a", m, 8, lda))
	need("p", len(p), matLen("p", 8, m, ldp))
	if m == 0 {
		return
	}
	trsmRows8(m, l, ldl, a, lda, p, ldp)
}

// trsmCoef packs what the assembly of TrsmRows8 broadcasts: 1/l_cc at c
// and l_ck (k < c) at 8 + c(c−1)/2 + k.
func trsmCoef(coef *[36]float64, l []float64, ldl int) {
	for c := range 8 {
		coef[c] = 1 / l[c*ldl+c]
		copy(coef[8+c*(c-1)/2:8+c*(c-1)/2+c], l[c*ldl:c*ldl+c])
	}
}

// trsmRows8Generic is the reference loop of TrsmRows8, unrolled: the same
// operations in the same order, with L and the reciprocals of its
// diagonal held in variables.
func trsmRows8Generic(m int, l []float64, ldl int, a []float64, lda int, p []float64, ldp int) {
	_ = l[7*ldl+7]
	l10 := l[1*ldl+0]
	l20, l21 := l[2*ldl+0], l[2*ldl+1]
	l30, l31, l32 := l[3*ldl+0], l[3*ldl+1], l[3*ldl+2]
	l40, l41, l42, l43 := l[4*ldl+0], l[4*ldl+1], l[4*ldl+2], l[4*ldl+3]
	l50, l51, l52, l53, l54 := l[5*ldl+0], l[5*ldl+1], l[5*ldl+2], l[5*ldl+3], l[5*ldl+4]
	l60, l61, l62, l63, l64, l65 := l[6*ldl+0], l[6*ldl+1], l[6*ldl+2], l[6*ldl+3], l[6*ldl+4], l[6*ldl+5]
	l70, l71, l72, l73, l74, l75, l76 := l[7*ldl+0], l[7*ldl+1], l[7*ldl+2], l[7*ldl+3], l[7*ldl+4], l[7*ldl+5], l[7*ldl+6]
	i0, i1, i2, i3 := 1/l[0], 1/l[1*ldl+1], 1/l[2*ldl+2], 1/l[3*ldl+3]
	i4, i5, i6, i7 := 1/l[4*ldl+4], 1/l[5*ldl+5], 1/l[6*ldl+6], 1/l[7*ldl+7]
	for i := range m {
		row := (*[8]float64)(a[i*lda:])
		x0 := row[0] * i0
		x1 := (row[1] - l10*x0) * i1
		x2 := (row[2] - l20*x0 - l21*x1) * i2
		x3 := (row[3] - l30*x0 - l31*x1 - l32*x2) * i3
		x4 := (row[4] - l40*x0 - l41*x1 - l42*x2 - l43*x3) * i4
		x5 := (row[5] - l50*x0 - l51*x1 - l52*x2 - l53*x3 - l54*x4) * i5
		x6 := (row[6] - l60*x0 - l61*x1 - l62*x2 - l63*x3 - l64*x4 - l65*x5) * i6
		x7 := (row[7] - l70*x0 - l71*x1 - l72*x2 - l73*x3 - l74*x4 - l75*x5 - l76*x6) * i7
		row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7] = x0, x1, x2, x3, x4, x5, x6, x7
		p[0*ldp+i], p[1*ldp+i], p[2*ldp+i], p[3*ldp+i] = x0, x1, x2, x3
		p[4*ldp+i], p[5*ldp+i], p[6*ldp+i], p[7*ldp+i] = x4, x5, x6, x7
	}
}
