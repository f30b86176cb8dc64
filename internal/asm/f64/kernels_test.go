package f64

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// guard is the number of guard elements on each side of every slice the
// tests pass to a kernel. They, the padding of every matrix and the strict
// upper triangle of GemmTNLower's c hold poison: a result that read one
// is off by far more than rounding (the data are in [−1, 1]), and a kernel
// that wrote one changes it (NaN would catch reads but not writes, since
// NaN plus anything is NaN; a huge value would absorb what is added).
const (
	guard  = 8
	poison = 4097.25
)

// guarded returns a slice of n random values with poison guard bands on both
// sides and its capacity cut at n, and the whole backing array.
func guarded(g *rand.Rand, n int) (s, all []float64) {
	all = make([]float64, n+2*guard)
	for i := range all {
		all[i] = poison
	}
	s = all[guard : guard+n : guard+n]
	for i := range s {
		s[i] = 2*g.Float64() - 1
	}
	return s, all
}

// guardedMatrix returns a rows × cols matrix with leading dimension ld,
// its padding columns poison, in a guarded slice.
func guardedMatrix(g *rand.Rand, rows, cols, ld int) (m, all []float64) {
	m, all = guarded(g, matLenOK(rows, cols, ld))
	for i := range rows {
		for j := cols; j < ld && i*ld+j < len(m); j++ {
			m[i*ld+j] = poison
		}
	}
	return m, all
}

func matLenOK(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

func checkGuards(t *testing.T, name string, all []float64) {
	t.Helper()
	for i := range guard {
		if all[i] != poison || all[len(all)-1-i] != poison {
			t.Fatalf("%s: a guard element was overwritten", name)
		}
	}
}

// close reports whether got and want agree to within rounding of a sum of
// terms terms whose absolute values add up to scale.
func close(got, want, scale float64, terms int) bool {
	return math.Abs(got-want) <= 4*float64(terms+1)*0x1p-52*scale
}

func abs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Abs(v)
	}
	return out
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

func TestAvailable(t *testing.T) {
	av := Available()
	if av[0] != Generic || av[len(av)-1] != Active() {
		t.Errorf("Available() = %v, Active() = %v: want Generic first and the active one last", av, Active())
	}
	t.Logf("implementations: %v", av)
}

func TestDot(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 2))
		for n := range 68 {
			x, xa := guarded(g, n)
			y, ya := guarded(g, n)
			got, want := Dot(x, y), dotGeneric(x, y)
			if !close(got, want, dotGeneric(abs(x), abs(y)), n) {
				t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
			}
			checkGuards(t, "x", xa)
			checkGuards(t, "y", ya)
		}
	})
}

func TestAxpy(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 3))
		for n := range 68 {
			x, _ := guarded(g, n)
			y, ya := guarded(g, n)
			want := append([]float64(nil), y...)
			axpyGeneric(-0.7, x, want)
			Axpy(-0.7, x, y)
			for i := range y {
				if !close(y[i], want[i], 0.7*math.Abs(x[i])+math.Abs(want[i]), 1) {
					t.Errorf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
				}
			}
			checkGuards(t, "y", ya)
		}
	})
}

func TestGemvN(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 4))
		for _, m := range []int{0, 1, 3, 4, 5, 9, 13, 17} {
			for n := range 68 {
				for _, pad := range []int{0, 3} {
					lda := max(n+pad, 1)
					a, aa := guardedMatrix(g, m, n, lda)
					x, xa := guarded(g, n)
					y, ya := guarded(g, m)
					want, scale := make([]float64, m), make([]float64, m)
					gemvNGeneric(m, n, a, lda, x, want)
					gemvNGeneric(m, n, abs(a), lda, abs(x), scale)
					GemvN(m, n, a, lda, x, y)
					for i := range y {
						if !close(y[i], want[i], scale[i], n) {
							t.Errorf("m=%d n=%d lda=%d: y[%d] = %v, want %v", m, n, lda, i, y[i], want[i])
						}
					}
					checkGuards(t, "a", aa)
					checkGuards(t, "x", xa)
					checkGuards(t, "y", ya)
				}
			}
		}
	})
}

func TestGemvT(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 5))
		for _, m := range []int{0, 1, 2, 3, 8} {
			for n := range 68 {
				for _, inc := range []int{1, 3} {
					alpha := []float64{1, -1, 0.3}[(m+n+inc)%3]
					lda := n + 2
					a, _ := guardedMatrix(g, m, n, lda)
					x, _ := guardedMatrix(g, m, 1, inc)
					y, ya := guarded(g, n)
					want := append([]float64(nil), y...)
					gemvTGeneric(m, n, alpha, a, lda, x, inc, want)
					scale := abs(y)
					if m > 0 {
						gemvTGeneric(m, n, 1, abs(a), lda, abs(x), inc, scale)
					}
					GemvT(m, n, alpha, a, lda, x, inc, y)
					for j := range y {
						if !close(y[j], want[j], scale[j], m) {
							t.Errorf("m=%d n=%d inc=%d alpha=%v: y[%d] = %v, want %v", m, n, inc, alpha, j, y[j], want[j])
						}
					}
					checkGuards(t, "y", ya)
				}
			}
		}
	})
}

func TestGemmTNLower(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 6))
		for n := range 68 {
			for _, k := range []int{0, 1, 2, 3, 7, 34} {
				sub := (n+k)%2 == 1
				ldb, lda, ldc := n+1, max(n, 1), n+3
				b, _ := guardedMatrix(g, k, n, ldb)
				a, _ := guardedMatrix(g, k, n, lda)
				c, ca := guardedMatrix(g, n, n, ldc)
				for i := range n {
					for j := i + 1; j < n; j++ {
						c[i*ldc+j] = poison // the strict upper triangle
					}
				}
				want, scale := append([]float64(nil), c...), abs(c)
				gemmTNLowerGeneric(n, k, sub, b, ldb, a, lda, want, ldc)
				gemmTNLowerGeneric(n, k, false, abs(b), ldb, abs(a), lda, scale, ldc)
				if sub {
					GemmTNLowerSub(n, k, b, ldb, a, lda, c, ldc)
				} else {
					GemmTNLower(n, k, b, ldb, a, lda, c, ldc)
				}
				for i := range n {
					for j := range n {
						got := c[i*ldc+j]
						if j > i {
							if got != poison {
								t.Fatalf("n=%d k=%d: c[%d][%d] above the diagonal was written", n, k, i, j)
							}
							continue
						}
						if w := want[i*ldc+j]; !close(got, w, scale[i*ldc+j], k) {
							t.Errorf("n=%d k=%d sub=%v: c[%d][%d] = %v, want %v", n, k, sub, i, j, got, w)
						}
					}
				}
				checkGuards(t, "c", ca)
			}
		}
	})
}

// gatherCase returns a src of m rows of n values, with guard bands and
// shifted by shift elements from its allocation (so that rows start at
// every alignment), k random rows of it (repeats allowed), and a guarded
// dst for them.
func gatherCase(g *rand.Rand, m, n, k, shift int) (dst, dstAll, src []float64, rows []int32) {
	all, _ := guarded(g, m*n+shift)
	src = all[shift:]
	rows = make([]int32, k)
	for p := range rows {
		rows[p] = int32(g.IntN(m))
	}
	dst, dstAll = guarded(g, k*n)
	return dst, dstAll, src, rows
}

// checkGather holds dst to the reference loop, exactly: a gather is a copy.
func checkGather(t *testing.T, name string, dst, dstAll, src []float64, n int, rows []int32) {
	t.Helper()
	want := make([]float64, len(dst))
	gatherGeneric(want, src, n, rows)
	for i := range dst {
		if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: dst[%d] (row %d, column %d) = %v, want %v", name, i, i/n, i%n, dst[i], want[i])
		}
	}
	checkGuards(t, name+": dst", dstAll)
}

func TestGather(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		g := rand.New(rand.NewPCG(1, 8))
		for n := range 68 {
			for _, k := range []int{0, 1, 2, 7, 8, 9, 33} {
				for _, shift := range []int{0, 1, 3} {
					dst, dstAll, src, rows := gatherCase(g, 40, n, k, shift)
					Gather(dst, src, n, rows)
					checkGather(t, fmt.Sprintf("n=%d k=%d shift=%d", n, k, shift), dst, dstAll, src, n, rows)
				}
			}
		}
	})
}

// TestShortSlicesPanic checks that every kernel refuses slices too short
// for its arguments instead of reading or writing past them.
func TestShortSlicesPanic(t *testing.T) {
	s := make([]float64, 10)
	for name, f := range map[string]func(){
		"Dot":             func() { Dot(s[:5], s[:4]) },
		"Axpy":            func() { Axpy(1, s[:5], s[:4]) },
		"GemvN a":         func() { GemvN(3, 3, s[:8], 3, s, s) },
		"GemvN lda":       func() { GemvN(2, 3, s, 2, s, s) },
		"GemvT x":         func() { GemvT(3, 2, 1, s, 2, s[:6], 3, s) },
		"GemvT inc":       func() { GemvT(1, 2, 1, s, 2, s, 0, s) },
		"GemmTNLower":     func() { GemmTNLower(3, 2, s, 3, s, 3, s[:8], 3) },
		"GemmTNLowerSub":  func() { GemmTNLowerSub(2, 3, s[:5], 2, s, 2, s, 2) },
		"Gather dst":      func() { Gather(s[:5], s, 3, []int32{0, 1}) },
		"Gather row":      func() { Gather(s, s, 3, []int32{0, 3}) },
		"Gather negative": func() { Gather(s, s, 3, []int32{-1}) },
		"Gather n":        func() { Gather(s, s, -1, nil) },
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

func ExampleGemmTNLower() {
	// The Gram matrix of two rows (1, 2) and (3, 4): lower triangle only.
	a := []float64{1, 2, 3, 4}
	c := make([]float64, 4)
	GemmTNLower(2, 2, a, 2, a, 2, c, 2)
	fmt.Println(c[0], c[2], c[3])
	// Output: 10 14 20
}

// FuzzGemmTNLower holds every implementation to the generic loops on
// random sizes, leading dimensions and data.
func FuzzGemmTNLower(f *testing.F) {
	f.Add(uint8(5), uint8(3), uint8(1), uint64(1))
	f.Add(uint8(32), uint8(50), uint8(0), uint64(2))
	f.Add(uint8(67), uint8(1), uint8(7), uint64(3))
	f.Fuzz(func(t *testing.T, n8, k8, pad8 uint8, seed uint64) {
		n, k, pad := int(n8%80), int(k8%80), int(pad8%8)
		g := rand.New(rand.NewPCG(seed, 7))
		ld := max(n+pad, 1)
		b, a := randSlice(g, matLenOK(k, n, ld)), randSlice(g, matLenOK(k, n, ld))
		c0 := randSlice(g, n*n)
		want, scale := append([]float64(nil), c0...), abs(c0)
		gemmTNLowerGeneric(n, k, false, b, ld, a, ld, want, n)
		gemmTNLowerGeneric(n, k, false, abs(b), ld, abs(a), ld, scale, n)
		for _, impl := range Available() {
			prev := Use(impl)
			c := append([]float64(nil), c0...)
			GemmTNLower(n, k, b, ld, a, ld, c, n)
			Use(prev)
			for i := range n {
				for j := range n {
					got := c[i*n+j]
					if j > i {
						if got != c0[i*n+j] {
							t.Fatalf("%v n=%d k=%d: upper (%d, %d) written", impl, n, k, i, j)
						}
					} else if !close(got, want[i*n+j], scale[i*n+j], k) {
						t.Fatalf("%v n=%d k=%d: (%d, %d) = %v, want %v", impl, n, k, i, j, got, want[i*n+j])
					}
				}
			}
		}
	})
}
