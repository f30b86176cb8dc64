package f64

import "fmt"

// GemmTNLowerRows is GemmTNLower on rows [r0, n) of C only: it adds the
// lower triangle of rows r0 to n−1 of Bᵀ·A to those of the n × n matrix C,
// for k × n matrices A and B, and neither reads nor writes the rows of C
// before r0 or its strict upper triangle:
//
//	for p := range k {
//		for i := r0; i < n; i++ {
//			for j := range i + 1 {
//				c[i*ldc+j] += b[p*ldb+i] * a[p*lda+j]
//			}
//		}
//	}
//
// It is one block row of a blocked triangular or symmetric product, such
// as the inverse of a triangular matrix by blocks of rows. It panics if r0
// is negative or past n.
func GemmTNLowerRows(r0, n, k int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	gemmTNLowerRowsChecked(r0, n, k, false, b, ldb, a, lda, c, ldc)
}

// GemmTNLowerRowsSub is GemmTNLowerRows subtracting: rows [r0, n) of the
// lower triangle of C −= Bᵀ·A.
func GemmTNLowerRowsSub(r0, n, k int, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	gemmTNLowerRowsChecked(r0, n, k, true, b, ldb, a, lda, c, ldc)
}

func gemmTNLowerRowsChecked(r0, n, k int, sub bool, b []float64, ldb int, a []float64, lda int, c []float64, ldc int) {
	if r0 < 0 || r0 > n {
		panic(fmt.Sprintf("f64: GemmTNLowerRows: first row %d outside [0, %d]", r0, n))
	}
	need("b", len(b), matLen("b", k, n, ldb))
	need("a", len(a), matLen("a", k, n, lda))
	need("c", len(c), matLen("c", n, n, ldc))
	if n == r0 || k == 0 {
		return
	}
	gemmTNLower(r0, n, k, sub, b, ldb, a, lda, c, ldc)
}
