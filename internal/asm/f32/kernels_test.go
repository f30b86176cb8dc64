package f32

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// guard is the number of guard elements on each side of every slice the
// tests pass to a kernel. They, the padding of every matrix and the strict
// upper triangle of SyrkLower's c hold poison: a result that read one is
// off by far more than rounding (the data are in [−1, 1]), and a kernel
// that wrote one changes it.
const (
	guard  = 16
	poison = 4097.25
)

// guarded returns a slice of n random values with poison guard bands on
// both sides and its capacity cut at n, and the whole backing array.
func guarded(g *rand.Rand, n int) (s, all []float32) {
	all = make([]float32, n+2*guard)
	for i := range all {
		all[i] = poison
	}
	s = all[guard : guard+n : guard+n]
	for i := range s {
		s[i] = float32(2*g.Float64() - 1)
	}
	return s, all
}

// guardedMatrix returns a rows × cols matrix with leading dimension ld,
// its padding columns poison, in a guarded slice.
func guardedMatrix(g *rand.Rand, rows, cols, ld int) (m, all []float32) {
	n := 0
	if rows > 0 && cols > 0 {
		n = (rows-1)*ld + cols
	}
	m, all = guarded(g, n)
	for i := range rows {
		for j := cols; j < ld && i*ld+j < len(m); j++ {
			m[i*ld+j] = poison
		}
	}
	return m, all
}

func checkGuards(t *testing.T, name string, all []float32) {
	t.Helper()
	for i := range guard {
		if all[i] != poison || all[len(all)-1-i] != poison {
			t.Fatalf("%s: a guard element was overwritten", name)
		}
	}
}

// close reports whether got agrees with the exact want (float64) to within
// float32 rounding of a sum of terms terms whose absolute values add up
// to scale.
func close(got float32, want, scale float64, terms int) bool {
	return math.Abs(float64(got)-want) <= 2*float64(terms+2)*0x1p-24*scale
}

// forEachImpl runs f once with each available implementation active.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	for _, impl := range Available() {
		t.Run(impl.String(), func(t *testing.T) {
			defer Use(Use(impl))
			f(t)
		})
	}
}

// sizes are the lengths the tests try: every one to 67, beyond the vector
// widths and chunks of every kernel.
func sizes() []int {
	var s []int
	for n := range 68 {
		s = append(s, n)
	}
	return append(s, 100, 131)
}

func TestSyrkLower(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 2))
		for _, n := range sizes() {
			for _, k := range []int{0, 1, 2, 3, 7, 33} {
				for _, pad := range []int{0, 3} {
					lda, ldc := max(n+pad, 1), max(n+2*pad, 1)
					a, allA := guardedMatrix(g, k, n, lda)
					c, allC := guardedMatrix(g, n, n, ldc)
					for i := range n {
						for j := i + 1; j < n; j++ {
							c[i*ldc+j] = poison
						}
					}
					c0 := append([]float32(nil), c...)
					SyrkLower(n, k, a, lda, c, ldc)
					name := fmt.Sprintf("n=%d k=%d pad=%d", n, k, pad)
					checkGuards(t, name+" a", allA)
					checkGuards(t, name+" c", allC)
					for i := range n {
						for j := range n {
							got := c[i*ldc+j]
							if j > i {
								if got != poison {
									t.Fatalf("%s: c[%d][%d] above the diagonal written", name, i, j)
								}
								continue
							}
							want, scale := float64(c0[i*ldc+j]), math.Abs(float64(c0[i*ldc+j]))
							for p := range k {
								x := float64(a[p*lda+i]) * float64(a[p*lda+j])
								want += x
								scale += math.Abs(x)
							}
							if !close(got, want, scale, k+1) {
								t.Fatalf("%s: c[%d][%d] = %v, want %v", name, i, j, got, want)
							}
						}
						for j := n; j < ldc && i*ldc+j < len(c); j++ {
							if c[i*ldc+j] != poison {
								t.Fatalf("%s: padding of c row %d written", name, i)
							}
						}
					}
				}
			}
		}
	})
}

func TestGemvT(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(3, 4))
		for _, n := range sizes() {
			for _, m := range []int{0, 1, 3, 4, 5, 9, 40} {
				for _, inc := range []int{1, 3} {
					lda := n + 1
					a, allA := guardedMatrix(g, m, n, lda)
					x, allX := guarded(g, max(0, (m-1)*inc+1))
					y, allY := guarded(g, n)
					y0 := append([]float32(nil), y...)
					GemvT(m, n, a, lda, x, inc, y)
					name := fmt.Sprintf("m=%d n=%d inc=%d", m, n, inc)
					checkGuards(t, name+" a", allA)
					checkGuards(t, name+" x", allX)
					checkGuards(t, name+" y", allY)
					for j := range n {
						want, scale := float64(y0[j]), math.Abs(float64(y0[j]))
						for i := range m {
							v := float64(x[i*inc]) * float64(a[i*lda+j])
							want += v
							scale += math.Abs(v)
						}
						if !close(y[j], want, scale, m+1) {
							t.Fatalf("%s: y[%d] = %v, want %v", name, j, y[j], want)
						}
					}
				}
			}
		}
	})
}

func TestGather(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(5, 6))
		for _, n := range sizes() {
			const srcRows = 50
			src, allS := guarded(g, srcRows*n)
			for _, k := range []int{0, 1, 5, 17} {
				rows := make([]int32, k)
				for p := range rows {
					rows[p] = int32(g.IntN(srcRows))
				}
				dst, allD := guarded(g, k*n)
				Gather(dst, src, n, rows)
				name := fmt.Sprintf("n=%d k=%d", n, k)
				checkGuards(t, name+" src", allS)
				checkGuards(t, name+" dst", allD)
				for p, r := range rows {
					for j := range n {
						if dst[p*n+j] != src[int(r)*n+j] {
							t.Fatalf("%s: dst[%d][%d] = %v, want %v", name, p, j, dst[p*n+j], src[int(r)*n+j])
						}
					}
				}
			}
		}
	})
}

func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"syrk short a":   func() { SyrkLower(4, 2, make([]float32, 7), 4, make([]float32, 16), 4) },
		"syrk short c":   func() { SyrkLower(4, 2, make([]float32, 8), 4, make([]float32, 15), 4) },
		"syrk narrow ld": func() { SyrkLower(4, 2, make([]float32, 8), 3, make([]float32, 16), 4) },
		"gemv short x":   func() { GemvT(3, 2, make([]float32, 6), 2, make([]float32, 2), 1, make([]float32, 2)) },
		"gemv incX 0":    func() { GemvT(3, 2, make([]float32, 6), 2, make([]float32, 3), 0, make([]float32, 2)) },
		"gather row":     func() { Gather(make([]float32, 4), make([]float32, 8), 4, []int32{2}) },
		"gather neg":     func() { Gather(make([]float32, 4), make([]float32, 8), 4, []int32{-1}) },
		"widen row":      func() { GatherWiden(make([]float64, 4), make([]float32, 8), 4, []int32{2}) },
		"widen dst":      func() { GatherWiden(make([]float64, 3), make([]float32, 8), 4, []int32{1}) },
		"use bad":        func() { Use(Impl(99)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestGatherWiden(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(7, 8))
		for _, n := range sizes() {
			const srcRows = 50
			src, allS := guarded(g, srcRows*n)
			for _, k := range []int{0, 1, 5, 17} {
				rows := make([]int32, k)
				for p := range rows {
					rows[p] = int32(g.IntN(srcRows))
				}
				all := make([]float64, k*n+2*guard)
				for i := range all {
					all[i] = poison
				}
				dst := all[guard : guard+k*n : guard+k*n]
				GatherWiden(dst, src, n, rows)
				name := fmt.Sprintf("n=%d k=%d", n, k)
				checkGuards(t, name+" src", allS)
				for i := range guard {
					if all[i] != poison || all[len(all)-1-i] != poison {
						t.Fatalf("%s: a guard element of dst was overwritten", name)
					}
				}
				for p, r := range rows {
					for j := range n {
						if dst[p*n+j] != float64(src[int(r)*n+j]) {
							t.Fatalf("%s: dst[%d][%d] = %v, want %v", name, p, j, dst[p*n+j], src[int(r)*n+j])
						}
					}
				}
			}
		}
	})
}
