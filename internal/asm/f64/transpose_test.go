package f64

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTransposeLower holds every implementation to the reference loop,
// exactly (it is a copy), for sizes 0–67, into a separate matrix (whose
// diagonal and lower triangle hold poison and must keep it) and in place,
// with padded leading dimensions and guard bands.
func TestTransposeLower(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 13))
		for n := range 68 {
			for _, inPlace := range []bool{false, true} {
				lds, ldd := n+2, n+5
				src, srcAll := guardedMatrix(g, n, n, lds)
				dst, dstAll := guardedMatrix(g, n, n, ldd)
				if inPlace {
					dst, dstAll, ldd = src, srcAll, lds
				} else {
					for i := range n {
						for j := range i + 1 {
							dst[i*ldd+j] = poison
						}
					}
				}
				want := append([]float64(nil), dst...)
				transposeLowerGeneric(n, append([]float64(nil), src...), lds, want, ldd)
				TransposeLower(n, src, lds, dst, ldd)
				for i := range dst {
					if dst[i] != want[i] {
						t.Fatalf("n=%d in place %v: dst[%d][%d] = %v, want %v", n, inPlace, i/ldd, i%ldd, dst[i], want[i])
					}
				}
				checkGuards(t, "src", srcAll)
				checkGuards(t, "dst", dstAll)
			}
		}
	})
}

// TestTransposeLowerPanics checks the size and the lengths.
func TestTransposeLowerPanics(t *testing.T) {
	s := make([]float64, 20)
	for name, f := range map[string]func(){
		"n negative": func() { TransposeLower(-1, s, 1, s, 1) },
		"src short":  func() { TransposeLower(3, s[:8], 3, s, 3) },
		"dst short":  func() { TransposeLower(4, s, 4, s[:15], 4) },
		"ld":         func() { TransposeLower(4, s, 3, s, 4) },
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

func ExampleTransposeLower() {
	// A symmetric 3 × 3 matrix held by its lower triangle (the upper one
	// unset), mirrored in place.
	a := []float64{
		1, 0, 0,
		2, 4, 0,
		3, 5, 6,
	}
	TransposeLower(3, a, 3, a, 3)
	fmt.Println(a[0:3], a[3:6], a[6:9])
	// Output: [1 2 3] [2 4 5] [3 5 6]
}
