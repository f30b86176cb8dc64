package rng

import (
	mrand "math/rand/v2"
	"testing"
)

// chachaWays returns the generators of seed that the tests compare with
// math/rand/v2's: the default one (blocks16 where the CPU has AVX-512),
// and the one that takes its words from an *mrand.ChaCha8.
func chachaWays(seed [32]byte) map[string]*chacha8 {
	std := &chacha8{std: mrand.NewChaCha8(seed)}
	std.Seed(seed)
	return map[string]*chacha8{"default": newChaCha8(seed), "std": std}
}

// TestChaCha8MatchesMathRand checks that chacha8 draws math/rand/v2's
// ChaCha8 words, in order, over several keys' worth (so across the
// re-keying every 124 words), through Uint64 and through Words and
// Discard in runs of every length, and after Seed.
func TestChaCha8MatchesMathRand(t *testing.T) {
	if !haveBlocks16 {
		t.Log("no AVX-512: only the math/rand/v2 way runs")
	}
	const n = 2000
	for s := range 40 {
		var seed [32]byte
		for k := range seed {
			seed[k] = byte(31*s + 7*k + s*k*k)
		}
		ref := mrand.NewChaCha8(seed)
		want := make([]uint64, n)
		for k := range want {
			want[k] = ref.Uint64()
		}
		for name, c := range chachaWays(seed) {
			for k, w := range want {
				if got := c.Uint64(); got != w {
					t.Fatalf("seed %d, %s: word %d = %#x, want %#x", s, name, k, got, w)
				}
			}
			// Reseeded, read in runs of 1, 2, 3, … words.
			c.Seed(seed)
			k, run := 0, 1
			for k < n {
				ws := c.Words()
				if len(ws) == 0 {
					t.Fatalf("seed %d, %s: Words is empty", s, name)
				}
				m := min(run, len(ws), n-k)
				for a, w := range ws[:m] {
					if w != want[k+a] {
						t.Fatalf("seed %d, %s: Words: word %d = %#x, want %#x", s, name, k+a, w, want[k+a])
					}
				}
				c.Discard(m)
				k += m
				run = run%37 + 1
			}
			// Half read, then re-keyed to another seed.
			other := seed
			other[0] ^= 1
			c.Seed(other)
			ref.Seed(other)
			for k := range 300 {
				if got, w := c.Uint64(), ref.Uint64(); got != w {
					t.Fatalf("seed %d, %s: after Seed: word %d = %#x, want %#x", s, name, k, got, w)
				}
			}
			ref.Seed(seed)
		}
	}
}

// TestChaCha8AsSource checks that a *rand.Rand around chacha8 draws what
// one around math/rand/v2's ChaCha8 does, through its methods.
func TestChaCha8AsSource(t *testing.T) {
	seed := [32]byte{1, 2, 3}
	a, b := mrand.New(newChaCha8(seed)), mrand.New(mrand.NewChaCha8(seed))
	for k := range 1000 {
		if x, y := a.NormFloat64(), b.NormFloat64(); x != y {
			t.Fatalf("NormFloat64 %d: %v, want %v", k, x, y)
		}
		if x, y := a.Uint64N(1e12+7), b.Uint64N(1e12+7); x != y {
			t.Fatalf("Uint64N %d: %v, want %v", k, x, y)
		}
	}
}

// TestChaCha8Discard checks that Discard refuses what it cannot do.
func TestChaCha8Discard(t *testing.T) {
	c := newChaCha8([32]byte{})
	n := len(c.Words())
	for _, bad := range []int{-1, n + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Discard(%d) of %d buffered words did not panic", bad, n)
				}
			}()
			c.Discard(bad)
		}()
	}
}

// BenchmarkChaCha8 is the cost of a word: math/rand/v2's ChaCha8 and
// chacha8 through the Source interface (a call per word), and chacha8's
// words read in runs (Words, Discard), as the samplers read them.
func BenchmarkChaCha8(b *testing.B) {
	for _, c := range []struct {
		name string
		src  mrand.Source
	}{
		{"math-rand", mrand.NewChaCha8([32]byte{})},
		{"rng", newChaCha8([32]byte{})},
	} {
		b.Run("src="+c.name, func(b *testing.B) {
			var x uint64
			for b.Loop() {
				x += c.src.Uint64()
			}
			b.SetBytes(8)
			_ = x
		})
	}
	b.Run("src=rng-words", func(b *testing.B) {
		c := newChaCha8([32]byte{})
		var x uint64
		n := 0
		for b.Loop() {
			if n == 0 {
				n = len(c.Words())
				c.Discard(n)
			}
			n--
			x++
		}
		b.SetBytes(8)
		_ = x
	})
}
