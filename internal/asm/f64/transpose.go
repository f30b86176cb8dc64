package f64

import "fmt"

// TransposeLower copies the strict lower triangle of the n × n matrix src
// (leading dimension lds) into the strict upper triangle of dst (leading
// dimension ldd), transposed; the diagonal and the lower triangle of dst
// are neither read nor written:
//
//	for i := range n {
//		for j := range i {
//			dst[j*ldd+i] = src[i*lds+j]
//		}
//	}
//
// dst may be src with ldd = lds: that mirrors a symmetric matrix held by
// its lower triangle into its upper one. Otherwise they must not overlap.
func TransposeLower(n int, src []float64, lds int, dst []float64, ldd int) {
	if n < 0 {
		panic(fmt.Sprintf("f64: TransposeLower: size %d", n))
	}
	need("src", len(src), matLen("src", n, n, lds))
	need("dst", len(dst), matLen("dst", n, n, ldd))
	transposeLower(n, src, lds, dst, ldd)
}

func transposeLowerGeneric(n int, src []float64, lds int, dst []float64, ldd int) {
	for i := range n {
		for j, v := range src[i*lds : i*lds+i] {
			dst[j*ldd+i] = v
		}
	}
}

// transposeLowerDiag copies the strict lower triangles of the 4 × 4
// diagonal tiles of the first n4 rows, and then the rows from n4 on
// whole: what transposeLowerAVX2 leaves.
func transposeLowerDiag(n4, n int, src []float64, lds int, dst []float64, ldd int) {
	for i0 := 0; i0 < n4; i0 += 4 {
		s, d := src[i0*lds+i0:], dst[i0*ldd+i0:]
		_, _ = s[3*lds+2], d[2*ldd+3]
		d[1], d[2], d[3] = s[lds], s[2*lds], s[3*lds]
		d[ldd+2], d[ldd+3] = s[2*lds+1], s[3*lds+1]
		d[2*ldd+3] = s[3*lds+2]
	}
	for i := n4; i < n; i++ {
		for j, v := range src[i*lds : i*lds+i] {
			dst[j*ldd+i] = v
		}
	}
}
