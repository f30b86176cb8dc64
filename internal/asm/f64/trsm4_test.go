package f64

import (
	"math"
	"math/rand/v2"
	"testing"
)

// trsmLower4Loop is TrsmLower4's doc-comment loop; with abs it runs on
// absolute values with additions, which bounds every partial sum.
func trsmLower4Loop(w int, l []float64, ldl int, b []float64, ldb int, abs bool) {
	for j := range w {
		for r := range 4 {
			s := b[r*ldb+j]
			if abs {
				s = math.Abs(s)
			}
			for k := range r {
				if abs {
					s += math.Abs(l[r*ldl+k]) * b[k*ldb+j]
				} else {
					s -= l[r*ldl+k] * b[k*ldb+j]
				}
			}
			b[r*ldb+j] = s * (1 / l[r*ldl+r])
		}
	}
}

// TestTrsmLower4 holds every implementation to the reference loop on 0 to
// 41 columns, with padded leading dimensions, poison in the padding, the
// guard bands and L's strict upper triangle: the generic one exactly (the
// same operations in the same order), the assembly within rounding of
// the sums (it fuses the multiply-adds). L's diagonal is in [1, 2].
func TestTrsmLower4(t *testing.T) {
	const u = 0x1p-53
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 14))
		for w := range 42 {
			for _, pad := range []int{0, 5} {
				ldl, ldb := 4+pad, w+pad
				l, _ := guardedMatrix(g, 4, 4, ldl)
				for r := range 4 {
					l[r*ldl+r] = 1 + g.Float64()
					for k := r + 1; k < 4; k++ {
						l[r*ldl+k] = poison
					}
				}
				b, ba := guardedMatrix(g, 4, w, max(ldb, 1))
				want, scale := append([]float64(nil), b...), append([]float64(nil), b...)
				trsmLower4Loop(w, l, ldl, want, max(ldb, 1), false)
				trsmLower4Loop(w, l, ldl, scale, max(ldb, 1), true)
				TrsmLower4(w, l, ldl, b, max(ldb, 1))
				exact := Active() == Generic
				for i := range b {
					if i%max(ldb, 1) >= w {
						if b[i] != poison {
							t.Fatalf("w=%d: b[%d] in the padding written", w, i)
						}
						continue
					}
					if exact && b[i] != want[i] || !exact && math.Abs(b[i]-want[i]) > 16*u*scale[i] {
						t.Errorf("w=%d pad=%d: b[%d][%d] = %v, want %v", w, pad, i/max(ldb, 1), i%max(ldb, 1), b[i], want[i])
					}
				}
				checkGuards(t, "b", ba)
			}
		}
	})
}

// TestTrsmLower4Panics checks the column count and the lengths.
func TestTrsmLower4Panics(t *testing.T) {
	s := make([]float64, 40)
	for name, f := range map[string]func(){
		"w negative": func() { TrsmLower4(-1, s, 4, s, 4) },
		"l short":    func() { TrsmLower4(1, s[:15], 4, s, 4) },
		"l ld":       func() { TrsmLower4(1, s, 3, s, 4) },
		"b short":    func() { TrsmLower4(5, s, 4, s[:19], 5) },
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
