package discrete

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"testing/cryptotest"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// TestDrawFromMatchesDraw holds the vector paths' draws to draw's, bit for
// bit and word for word, on every table of the ziggurat tests, with the
// float64 and with the math/big edge tests: after each draw both streams
// must also be at the same word (the next words agree). The paths:
// drawFrom and addNoiseFrom on a seeded ChaCha8, addNoiseWords on a keyed
// stream's buffered words.
func TestDrawFromMatchesDraw(t *testing.T) {
	keyed := rng.NewKeyed()
	for ci, c := range zigCases() {
		for _, exact := range []bool{false, true} {
			z, err := c.build()
			if err != nil {
				t.Fatal(err)
			}
			z.exactOnly = exact
			n := 20000
			if exact {
				n = 2000
			}
			seed := uint64(5000 + 2*ci)
			if exact {
				seed++
			}
			a, b := rng.Seeded(seed), rng.Seeded(seed)
			c8, ok := rng.SourceOf(b).(*rand.ChaCha8)
			if !ok {
				t.Skip("rng.SourceOf does not see the ChaCha8 (purego build): the vector path is not taken")
			}
			for i := range n {
				if x, y := z.draw(a), z.drawFrom(c8, b); x != y {
					t.Fatalf("%s exact=%v: draw %d: draw %d, drawFrom %d", c.name, exact, i, x, y)
				}
				if i%97 == 0 {
					if x, y := a.Uint64(), b.Uint64(); x != y {
						t.Fatalf("%s exact=%v: after draw %d the streams are at different words", c.name, exact, i)
					}
				}
			}
			// addNoiseFrom's inline common case and drawRest, on γ = 1 and
			// x = 0: x[i] is the draw itself (exact below 2⁵³).
			x := make([]float64, 1000)
			for range n / len(x) {
				clear(x)
				z.addNoiseFrom(c8, b, 1, x)
				for i := range x {
					if want := z.draw(a); want > -(1<<53) && want < 1<<53 && x[i] != float64(want) {
						t.Fatalf("%s exact=%v: addNoiseFrom drew %v, draw %d", c.name, exact, x[i], want)
					}
				}
				if x, y := a.Uint64(), b.Uint64(); x != y {
					t.Fatalf("%s exact=%v: after addNoiseFrom the streams are at different words", c.name, exact)
				}
			}
			// addNoiseWords, the same way, from a keyed stream (runs of
			// buffered words, the rest through draw), in vectors of 1000
			// and 7 values.
			ka, kb := keyed.Stream(uint64(ci), seed), keyed.Stream(uint64(ci), seed)
			buf, ok := rng.SourceOf(kb).(rng.Buffered)
			if !ok {
				t.Fatalf("rng.SourceOf of a keyed stream is %T, not an rng.Buffered", rng.SourceOf(kb))
			}
			for v := range n / len(x) {
				x := x
				if v%2 == 1 {
					x = x[:7]
				}
				clear(x)
				z.addNoiseWords(buf, kb, 1, x)
				for i := range x {
					if want := z.draw(ka); want > -(1<<53) && want < 1<<53 && x[i] != float64(want) {
						t.Fatalf("%s exact=%v: addNoiseWords drew %v, draw %d", c.name, exact, x[i], want)
					}
				}
				if x, y := ka.Uint64(), kb.Uint64(); x != y {
					t.Fatalf("%s exact=%v: after addNoiseWords the streams are at different words", c.name, exact)
				}
			}
		}
	}
}

// TestAddNoiseMatchesAddTo checks each mechanism's AddNoise against
// AddTo one element at a time, from the same seeded stream and from the
// same keyed one, on values on and off the grid, huge, and not finite.
func TestAddNoiseMatchesAddTo(t *testing.T) {
	lap, _ := NewLaplace(3.7)
	gau, _ := NewGaussian(49)
	hub, _ := NewHuber(3, 1)
	hub2, _ := NewHuber(0.05, 25.3)
	small := newHuberGrid(1, 1, 1) // tails and edge tests often
	xs := []float64{0, math.Copysign(0, -1), 0.1, -0.35, 0.5, -0.5, 2.5, 1000, 1001.123456789, -7.77e6, 3e-12, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 0x1p21, -0x1p21 - 0.5, 0x1p12 + 0x1p-41, 0x1p13 - 0x1p-40, 0x1p22 + 0.25}
	keyed := rng.NewKeyed()
	for _, m := range []Mechanism{lap, gau, hub, hub2, small} {
		v := m.(noise.VectorNoiser)
		for _, src := range []struct {
			name string
			r    func() *rand.Rand
		}{
			{"seeded", func() *rand.Rand { return rng.Seeded(9) }},
			{"keyed", func() *rand.Rand { return keyed.Stream(4, 2) }},
		} {
			for _, n := range []int{1, 32, 1000} {
				x := make([]float64, n)
				for i := range x {
					x[i] = xs[i%len(xs)] * float64(1+i/len(xs))
				}
				want := append([]float64(nil), x...)
				r, twin := src.r(), src.r()
				for range 3 { // the stream continues across calls
					v.AddNoise(x, r)
					for i := range want {
						want[i] = m.AddTo(want[i], twin)
					}
				}
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(want[i]) && !(math.IsNaN(x[i]) && math.IsNaN(want[i])) {
						t.Fatalf("%s %s n=%d: x[%d] = %v by AddNoise, %v by AddTo", m, src.name, n, i, x[i], want[i])
					}
				}
				if a, b := r.Uint64(), twin.Uint64(); a != b {
					t.Errorf("%s %s n=%d: AddNoise and AddTo left the stream at different words", m, src.name, n)
				}
			}
		}
	}
}

// BenchmarkAddNoiseVector compares, on a rank-32 vector and the paper's
// discrete Huber noise (α = 3, s = 1), the AddTo loop of noise.AddNoise
// with the vector path, from a seeded and a keyed stream.
func BenchmarkAddNoiseVector(b *testing.B) {
	m, _ := NewHuber(3, 1)
	keyed := rng.NewKeyed()
	for _, src := range []struct {
		name string
		r    *rand.Rand
	}{{"seeded", rng.Seeded(1)}, {"keyed", keyed.Stream(1, 1)}, {"crypto", rng.Crypto()}} {
		for _, way := range []string{"AddTo", "AddNoise"} {
			b.Run(fmt.Sprintf("%s/%s", src.name, way), func(b *testing.B) {
				x := make([]float64, 32)
				m.AddNoise(x, src.r)
				b.ReportAllocs()
				for b.Loop() {
					if way == "AddTo" {
						noise.AddNoise(m, x, src.r)
					} else {
						m.AddNoise(x, src.r)
					}
				}
			})
		}
	}
}

// TestRoundAway holds roundAway to math.Round, bit for bit: on the values
// where rounding is delicate (halves, the neighbours of halves, the ends
// of the exactly representable integers, zeros, infinities, NaN) and on
// a million random bit patterns.
func TestRoundAway(t *testing.T) {
	check := func(q float64) {
		got, want := roundAway(q), math.Round(q)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("roundAway(%v) = %v, math.Round %v", q, got, want)
		}
	}
	special := []float64{0, 0.5, 1.5, 2.5, 0.25, 0.75, 3, 0.49999999999999994, 1 << 52, 1<<52 - 0.5, 1 << 53, 1<<53 + 2, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0x1p-1022, math.Inf(1), math.NaN(), 3e-12, 1001.123456789 * 0x1p40}
	for _, q := range special {
		for _, v := range []float64{q, math.Nextafter(q, 0), math.Nextafter(q, math.Inf(1))} {
			check(v)
			check(-v)
		}
	}
	r := rng.Seeded(77)
	for range 1_000_000 {
		check(math.Float64frombits(r.Uint64()))
		check(r.NormFloat64() * math.Ldexp(1, r.IntN(120)-60))
	}
}

// TestAddNoiseMatchesAddToCrypto is TestAddNoiseMatchesAddTo on
// rng.Crypto's buffered words (crypto/rand made reproducible by
// cryptotest.SetGlobalRandom): AddNoise on every vector first, then the
// AddTo loop from the same crypto/rand output, so that the two generators
// do not share it; across the buffer's refills at 64 and 64 + 512·k words.
func TestAddNoiseMatchesAddToCrypto(t *testing.T) {
	hub, _ := NewHuber(3, 1)
	small := newHuberGrid(1, 1, 1)
	for _, m := range []Mechanism{hub, small} {
		v := m.(noise.VectorNoiser)
		lengths := []int{1000, 0, 1, 7}
		for range 300 {
			lengths = append(lengths, 32)
		}
		cryptotest.SetGlobalRandom(t, 4)
		r := rng.Crypto()
		var got [][]float64
		for _, n := range lengths {
			x := make([]float64, n)
			for i := range x {
				x[i] = 0.37 * float64(i)
			}
			v.AddNoise(x, r)
			got = append(got, x)
		}
		after := r.Uint64()
		cryptotest.SetGlobalRandom(t, 4)
		twin := rng.Crypto()
		for c, x := range got {
			for i := range x {
				if want := m.AddTo(0.37*float64(i), twin); math.Float64bits(x[i]) != math.Float64bits(want) {
					t.Fatalf("%s: vector %d, x[%d] = %v by AddNoise, %v by AddTo", m, c, i, x[i], want)
				}
			}
		}
		if want := twin.Uint64(); after != want {
			t.Errorf("%s: AddNoise and AddTo left the stream at different words", m)
		}
	}
}
