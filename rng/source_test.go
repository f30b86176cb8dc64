package rng

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	mrand "math/rand/v2"
	"testing"
	"testing/cryptotest"

	"github.com/dpmc/dpmc/internal/procstat"
)

// TestCryptoSourceReadsCryptoRand holds Crypto's words to crypto/rand's
// output, made reproducible by cryptotest.SetGlobalRandom: its first
// 64 + 2·512 words (the first refill and two later ones) are the same
// bytes as one Read of that length, each word 8 of them in the machine's
// byte order; so no byte is skipped or used twice across refills.
func TestCryptoSourceReadsCryptoRand(t *testing.T) {
	const words = cryptoFirst + 2*cryptoWords
	cryptotest.SetGlobalRandom(t, 3)
	want := make([]byte, 8*words)
	rand.Read(want)
	cryptotest.SetGlobalRandom(t, 3)
	r := Crypto()
	for i := range words {
		got := r.Uint64()
		w := binary.NativeEndian.Uint64(want[8*i:])
		if got != w {
			t.Fatalf("word %d: %#x, want %#x (bytes %x)", i, got, w, want[8*i:8*i+8])
		}
	}
}

// TestCryptoSourceWords checks that reading runs of words with Words and
// Discard, mixed with Uint64 calls, gives the words of Uint64 alone, in
// order, across refills; the run lengths (0 to 100) and the choice between
// the two ways come from a seeded stream.
func TestCryptoSourceWords(t *testing.T) {
	const words = 3 * cryptoWords
	cryptotest.SetGlobalRandom(t, 4)
	var want []uint64
	a := &CryptoSource{}
	for range words {
		want = append(want, a.Uint64())
	}
	cryptotest.SetGlobalRandom(t, 4)
	b := &CryptoSource{}
	pick := Seeded(5)
	var got []uint64
	for len(got) < words {
		if pick.IntN(3) == 0 {
			got = append(got, b.Uint64())
			continue
		}
		w := b.Words()
		if len(w) == 0 {
			t.Fatal("Words returned no word")
		}
		k := min(pick.IntN(101), len(w), words-len(got))
		got = append(got, w[:k]...)
		b.Discard(k)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("word %d: %#x by Words/Discard, %#x by Uint64", i, got[i], want[i])
		}
	}
}

// TestCryptoSourceDiscardBeyond checks that Discard panics rather than
// skip words it has not handed out.
func TestCryptoSourceDiscardBeyond(t *testing.T) {
	for _, n := range []int{-1, cryptoFirst + 1} {
		s := &CryptoSource{}
		_ = s.Words()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Discard(%d) after a fresh refill of %d words did not panic", n, cryptoFirst)
				}
			}()
			s.Discard(n)
		}()
	}
}

// BenchmarkCryptoUint64 draws words from rng.Crypto() through its
// *rand.Rand: the cost of a private word, crypto/rand included.
func BenchmarkCryptoUint64(b *testing.B) {
	r := Crypto()
	var sink uint64
	for b.Loop() {
		sink += r.Uint64()
	}
	_ = sink
}

// BenchmarkCryptoRandRead reads from crypto/rand in the sizes a
// CryptoSource could refill with; cpu-ns/word is the process's CPU time
// per 8 bytes, the floor of a private word's cost.
func BenchmarkCryptoRandRead(b *testing.B) {
	for _, n := range []int{512, 4 << 10, 16 << 10} {
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			buf := make([]byte, n)
			cpu0, ok := procstat.CPUTime()
			for b.Loop() {
				rand.Read(buf)
			}
			if cpu1, _ := procstat.CPUTime(); ok {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N*n/8), "cpu-ns/word")
			}
		})
	}
}

var _ mrand.Source = (*CryptoSource)(nil)
