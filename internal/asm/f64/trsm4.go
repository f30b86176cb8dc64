package f64

import "fmt"

// TrsmLower4 solves L·X = B for the 4 × w matrix B (leading dimension
// ldb), with L the 4 × 4 lower triangular matrix in l (leading dimension
// ldl; only its lower triangle is read), and overwrites B with X: a
// forward substitution down each column,
//
//	for j := range w {
//		for r := range 4 {
//			s := b[r*ldb+j]
//			for k := range r {
//				s -= l[r*ldl+k] * b[k*ldb+j]
//			}
//			b[r*ldb+j] = s * (1 / l[r*ldl+r])
//		}
//	}
//
// It is the diagonal step of the inverse of a triangular matrix by blocks
// of 4 rows.
func TrsmLower4(w int, l []float64, ldl int, b []float64, ldb int) {
	if w < 0 {
		panic(fmt.Sprintf("f64: TrsmLower4: %d columns", w))
	}
	need("l", len(l), matLen("l", 4, 4, ldl))
	need("b", len(b), matLen("b", 4, w, ldb))
	if w == 0 {
		return
	}
	trsmLower4(w, l, ldl, b, ldb)
}

// trsmLower4Generic is the reference loop of TrsmLower4, unrolled: the
// same operations in the same order.
func trsmLower4Generic(w int, l []float64, ldl int, b []float64, ldb int) {
	_ = l[3*ldl+3]
	l10 := l[ldl]
	l20, l21 := l[2*ldl], l[2*ldl+1]
	l30, l31, l32 := l[3*ldl], l[3*ldl+1], l[3*ldl+2]
	i0, i1, i2, i3 := 1/l[0], 1/l[ldl+1], 1/l[2*ldl+2], 1/l[3*ldl+3]
	r0 := b[:w]
	r1 := b[ldb:][:len(r0)]
	r2 := b[2*ldb:][:len(r0)]
	r3 := b[3*ldb:][:len(r0)]
	for j := range r0 {
		x0 := r0[j] * i0
		x1 := (r1[j] - l10*x0) * i1
		x2 := (r2[j] - l20*x0 - l21*x1) * i2
		x3 := (r3[j] - l30*x0 - l31*x1 - l32*x2) * i3
		r0[j], r1[j], r2[j], r3[j] = x0, x1, x2, x3
	}
}
