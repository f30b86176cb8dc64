package f64

import (
	"math"
	"math/rand/v2"
	"testing"
)

// trsmRows8Loop is TrsmRows8's doc-comment loop, as written there; sign
// −1 runs it on absolute values with additions instead (sign +1 keeps
// it), which bounds the magnitude of every partial sum.
func trsmRows8Loop(m int, l []float64, ldl int, a []float64, lda int, p []float64, ldp int, abs bool) {
	for i := range m {
		for c := range 8 {
			s := a[i*lda+c]
			if abs {
				s = math.Abs(s)
			}
			for k := range c {
				if abs {
					s += math.Abs(l[c*ldl+k]) * a[i*lda+k]
				} else {
					s -= l[c*ldl+k] * a[i*lda+k]
				}
			}
			x := s * (1 / l[c*ldl+c])
			a[i*lda+c] = x
			p[c*ldp+i] = x
		}
	}
}

// TestTrsmRows8 holds every implementation to the reference loop on 0 to
// 40 rows (whole groups of 4 and the rest), with padded leading
// dimensions: the generic one exactly (the same operations in the same
// order), the assembly within rounding of the sums (it fuses the
// multiply-adds). The padding of a and p and the guard bands hold poison,
// which must be neither read into a result nor written. L has a diagonal
// in [1, 2] and off-diagonal entries in [−½, ½], so every partial sum
// is bounded by the same loop on absolute values.
func TestTrsmRows8(t *testing.T) {
	const u = 0x1p-53
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 12))
		for m := range 41 {
			for _, pad := range []int{0, 3} {
				ldl, lda, ldp := 8+pad, 8+2*pad, m+pad
				l, _ := guardedMatrix(g, 8, 8, ldl)
				for c := range 8 {
					l[c*ldl+c] = 1 + g.Float64()
					for k := range c {
						l[c*ldl+k] /= 2
					}
					for k := c + 1; k < 8; k++ {
						l[c*ldl+k] = poison // never read
					}
				}
				a, aa := guardedMatrix(g, m, 8, lda)
				p, pa := guardedMatrix(g, 8, m, max(ldp, 1))
				a0 := append([]float64(nil), a...)
				wantA, wantP := append([]float64(nil), a...), append([]float64(nil), p...)
				scaleA, scaleP := append([]float64(nil), a...), append([]float64(nil), p...)
				trsmRows8Loop(m, l, ldl, wantA, lda, wantP, max(ldp, 1), false)
				trsmRows8Loop(m, l, ldl, scaleA, lda, scaleP, max(ldp, 1), true)
				TrsmRows8(m, l, ldl, a, lda, p, max(ldp, 1))
				exact := Active() == Generic
				for i := range a {
					if i%lda >= 8 {
						if a[i] != poison {
							t.Fatalf("m=%d: a[%d] in the padding written", m, i)
						}
						continue
					}
					if exact && a[i] != wantA[i] || !exact && math.Abs(a[i]-wantA[i]) > 64*u*scaleA[i] {
						t.Errorf("m=%d pad=%d: a[%d][%d] = %v, want %v (from %v)", m, pad, i/lda, i%lda, a[i], wantA[i], a0[i])
					}
				}
				for i := range p {
					if i%max(ldp, 1) >= m {
						if p[i] != poison {
							t.Fatalf("m=%d: p[%d] in the padding written", m, i)
						}
						continue
					}
					if exact && p[i] != wantP[i] || !exact && math.Abs(p[i]-wantP[i]) > 64*u*scaleP[i] {
						t.Errorf("m=%d pad=%d: p[%d][%d] = %v, want %v", m, pad, i/max(ldp, 1), i%max(ldp, 1), p[i], wantP[i])
					}
				}
				checkGuards(t, "a", aa)
				checkGuards(t, "p", pa)
			}
		}
	})
}

// TestTrsmRows8Panics checks the row count and the lengths.
func TestTrsmRows8Panics(t *testing.T) {
	s := make([]float64, 100)
	for name, f := range map[string]func(){
		"m negative": func() { TrsmRows8(-1, s, 8, s, 8, s, 8) },
		"l short":    func() { TrsmRows8(1, s[:62], 8, s, 8, s, 8) },
		"l ld":       func() { TrsmRows8(1, s, 7, s, 8, s, 8) },
		"a short":    func() { TrsmRows8(2, s, 8, s[:15], 8, s, 8) },
		"p short":    func() { TrsmRows8(4, s, 8, s, 8, s[:31], 4) },
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
