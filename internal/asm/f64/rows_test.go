package f64

import (
	"math/rand/v2"
	"testing"
)

// TestGemmTNLowerRows holds every implementation to the generic loops on
// rows [r0, n) of C, from every first row (aligned to 4 or not) and for
// sizes 0–67, with the rows before r0 and the strict upper triangle
// poisoned: neither may be written.
func TestGemmTNLowerRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 10))
		for n := range 68 {
			for _, k := range []int{0, 1, 3, 8, 33} {
				for _, r0 := range []int{0, 1, 4, 5, n / 2, max(n-5, 0), max(n-1, 0), n} {
					if r0 > n {
						continue
					}
					sub := (n+k+r0)%2 == 1
					ldb, lda, ldc := n+1, max(n, 1), n+3
					b, _ := guardedMatrix(g, k, n, ldb)
					a, _ := guardedMatrix(g, k, n, lda)
					c, ca := guardedMatrix(g, n, n, ldc)
					for i := range n {
						for j := range n {
							if i < r0 || j > i {
								c[i*ldc+j] = poison
							}
						}
					}
					want, scale := append([]float64(nil), c...), abs(c)
					gemmTNLowerRowsGeneric(r0, n, k, sub, b, ldb, a, lda, want, ldc)
					gemmTNLowerRowsGeneric(r0, n, k, false, abs(b), ldb, abs(a), lda, scale, ldc)
					if sub {
						GemmTNLowerRowsSub(r0, n, k, b, ldb, a, lda, c, ldc)
					} else {
						GemmTNLowerRows(r0, n, k, b, ldb, a, lda, c, ldc)
					}
					for i := range n {
						for j := range n {
							got := c[i*ldc+j]
							if i < r0 || j > i {
								if got != poison {
									t.Fatalf("n=%d k=%d r0=%d: c[%d][%d] outside the rows or above the diagonal was written", n, k, r0, i, j)
								}
								continue
							}
							if w := want[i*ldc+j]; !close(got, w, scale[i*ldc+j], k) {
								t.Errorf("n=%d k=%d r0=%d sub=%v: c[%d][%d] = %v, want %v", n, k, r0, sub, i, j, got, w)
							}
						}
					}
					checkGuards(t, "c", ca)
				}
			}
		}
	})
}

// TestGemmTNLowerRowsAll checks that rows [0, n) are GemmTNLower, exactly:
// the same kernels in the same order.
func TestGemmTNLowerRowsAll(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 11))
		for _, n := range []int{1, 4, 7, 32, 37} {
			k := n + 3
			b, a, c0 := randSlice(g, k*n), randSlice(g, k*n), randSlice(g, n*n)
			c1, c2 := append([]float64(nil), c0...), append([]float64(nil), c0...)
			GemmTNLower(n, k, b, n, a, n, c1, n)
			GemmTNLowerRows(0, n, k, b, n, a, n, c2, n)
			for i := range c1 {
				if c1[i] != c2[i] {
					t.Fatalf("n=%d: element %d: GemmTNLowerRows %v, GemmTNLower %v", n, i, c2[i], c1[i])
				}
			}
		}
	})
}

// TestGemmTNLowerRowsPanics checks the first row's range and the lengths.
func TestGemmTNLowerRowsPanics(t *testing.T) {
	s := make([]float64, 10)
	for name, f := range map[string]func(){
		"r0 negative": func() { GemmTNLowerRows(-1, 2, 1, s, 2, s, 2, s, 2) },
		"r0 past n":   func() { GemmTNLowerRows(3, 2, 1, s, 2, s, 2, s, 2) },
		"c short":     func() { GemmTNLowerRows(1, 3, 2, s, 3, s, 3, s[:8], 3) },
		"b short":     func() { GemmTNLowerRowsSub(0, 2, 3, s[:5], 2, s, 2, s, 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
