// Package rng builds the random number generators that dpmc's samplers take.
//
// There are three kinds, and the difference matters for privacy:
//
//   - Keyed (NewKeyed) is the generator of a private run: one secret
//     256-bit key per run, read from crypto/rand, from which Stream(release,
//     row) derives a ChaCha8 stream per (release, row) (the stream's key is
//     HMAC-SHA-256 of the pair under the run key). Go documents
//     math/rand/v2's ChaCha8 as a cryptographically strong generator, and
//     HMAC-SHA-256 is a pseudorandom function: without the run key the
//     streams cannot be told from crypto/rand output, so noise drawn from
//     them cannot be predicted or replayed, and it costs what seeded noise
//     costs. The key's lifetime: NewKeyed draws it; it lives only in the
//     memory of that *Keyed and of the HMAC states of its KeyedReseeders
//     (the solver holds them for one training run, Train's call, and drops
//     them when it returns), until the garbage collector frees them. It is
//     never written anywhere: not to a file, a model, a report, a log or an
//     error, and no function returns it or accepts one, so a Go caller
//     cannot fix the key of a private run. (Go does not wipe freed memory;
//     a core dump or swap taken during the run could hold it, as it could
//     hold the noise itself.)
//   - Crypto draws every bit from crypto/rand directly. Also private, and
//     dearer per word (a system call's share per 512 words, and no inline
//     path); for releases outside a run's streams.
//   - Seeded and Stream are deterministic ChaCha8 generators from
//     math/rand/v2. They make experiments bit-for-bit reproducible, and for
//     exactly that reason the noise they produce is NOT private: anyone who
//     learns the seed can subtract the noise. Use them only for experiments
//     and tests.
//
// Stream (and Keyed.Stream) derives an independent generator from (seed,
// stream index), so that work split over rows can give each row its own
// generator and produce the same result whatever the number of workers.
//
// A sampler that draws many words can fetch a generator's Source with
// SourceOf and take its words directly: a direct call of ChaCha8.Uint64
// for the seeded generators, runs of buffered words (a Buffered: Words,
// Discard) for the keyed ones and Crypto's *CryptoSource, instead of the
// interface call that every *rand.Rand method makes. The words, and their
// order, are the same either way.
//
// The keyed generators are math/rand/v2's ChaCha8, word for word, computed
// by this package: on a CPU with AVX-512 all 16 blocks of a key at once
// (BenchmarkChaCha8: 1.8 ns a word read in runs, against 5.6 from
// math/rand/v2's ChaCha8 through the Source interface), and from
// math/rand/v2's own ChaCha8 elsewhere.
package rng

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	mrand "math/rand/v2"
	"unsafe"
)

// Seeded returns a deterministic generator for seed. The same seed always
// gives the same sequence, on every platform. Not private: see the package
// comment.
func Seeded(seed uint64) *mrand.Rand {
	return Stream(seed, 0)
}

// Stream returns a deterministic generator for the pair (seed, stream). The
// ChaCha8 key is SHA-256 of both numbers under a fixed domain tag, so
// different streams of one seed are independent for all practical purposes.
// Not private: see the package comment.
func Stream(seed, stream uint64) *mrand.Rand {
	return mrand.New(mrand.NewChaCha8(key(seed, stream)))
}

// key is the ChaCha8 key of (seed, stream).
func key(seed, stream uint64) [32]byte {
	var in [len(domain) + 16]byte
	copy(in[:], domain)
	binary.LittleEndian.PutUint64(in[len(domain):], seed)
	binary.LittleEndian.PutUint64(in[len(domain)+8:], stream)
	return sha256.Sum256(in[:])
}

// Reseeder hands out the generators of Stream without allocating: it keeps
// one generator and re-keys it on each call. A worker that processes many
// rows keeps one Reseeder. Not private, and not safe for concurrent use.
type Reseeder struct {
	c *mrand.ChaCha8
	r *mrand.Rand
}

// NewReseeder returns a Reseeder.
func NewReseeder() *Reseeder {
	c := mrand.NewChaCha8([32]byte{})
	return &Reseeder{c: c, r: mrand.New(c)}
}

// Stream re-keys the Reseeder's generator to (seed, stream) and returns it.
// Its draws equal those of Stream(seed, stream); the previous generator it
// returned is reset too.
func (s *Reseeder) Stream(seed, stream uint64) *mrand.Rand {
	s.c.Seed(key(seed, stream))
	return s.r
}

const domain = "dpmc/rng/v1"

// Crypto returns a generator whose bits come from crypto/rand, for private
// releases; its Source is a *CryptoSource, which reads 512 bytes of
// crypto/rand output at its first refill and 4 KiB at each later one. The
// returned *Rand is not safe for concurrent use; give each goroutine its
// own.
func Crypto() *mrand.Rand {
	return mrand.New(&CryptoSource{})
}

// Sizes of a CryptoSource's buffer, in 64-bit words.
const (
	cryptoFirst = 64  // the first refill: 512 bytes
	cryptoWords = 512 // later refills: 4 KiB
)

// CryptoSource is the math/rand/v2 Source of Crypto: 64-bit words read in
// order from a buffer filled from crypto/rand, each word 8 bytes of its
// output in the machine's byte order; no bit is used twice. The first
// refill reads 512 bytes, later ones 4 KiB, so that a short-lived
// generator reads little and a long-lived one calls crypto/rand once per
// 512 words (16 KiB reads cost about 4 % less CPU per word in
// BenchmarkCryptoRandRead, a difference AddNoise's benchmark did not
// resolve, for 4 times the memory and the over-read).
//
// A sampler that holds the *CryptoSource (see SourceOf) may read a run of
// buffered words at once with Words and Discard, and pass the *rand.Rand
// to its rare cases: both read the same buffer, so the words and their
// order are those of calling r.Uint64() throughout. The zero value is
// ready to use; a CryptoSource is not safe for concurrent use, and must
// not be copied after first use: a copy would share the buffer and hand
// out the same words again (go vet's copylocks check reports copies).
type CryptoSource struct {
	_     noCopy
	buf   []uint64 // the unread words are buf[off:]
	off   int      // 0 ≤ off ≤ len(buf)
	first [cryptoFirst]uint64
}

// Uint64 returns the next word. It never fails: crypto/rand.Read does not
// return an error on supported platforms (since Go 1.24 it crashes the
// program rather than return one).
func (s *CryptoSource) Uint64() uint64 {
	if s.off == len(s.buf) {
		s.refill()
	}
	s.off++
	return s.buf[s.off-1]
}

// Words returns the buffered words not yet read, in the order Uint64 would
// return them, refilling the buffer first when none are left, so it is
// never empty. Reading the first k and calling Discard(k) is the same as k
// calls of Uint64. The slice is valid until the next call of a method
// of s.
func (s *CryptoSource) Words() []uint64 {
	if s.off == len(s.buf) {
		s.refill()
	}
	return s.buf[s.off:]
}

// Discard marks the next n unread words as read: the first n of what
// Words returns. It panics if n is negative or more than are buffered.
func (s *CryptoSource) Discard(n int) {
	if n < 0 || n > len(s.buf)-s.off {
		panic("rng: Discard of more words than are buffered")
	}
	s.off += n
}

// refill fills the buffer from crypto/rand and rewinds it.
func (s *CryptoSource) refill() {
	switch {
	case len(s.buf) == 0:
		s.buf = s.first[:]
	case len(s.buf) < cryptoWords:
		s.buf = make([]uint64, cryptoWords)
	}
	rand.Read(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s.buf))), 8*len(s.buf)))
	s.off = 0
}

// Buffered is a Source that holds its next words in a buffer and lets a
// sampler read runs of them: the Source of the keyed generators (Keyed,
// KeyedReseeder) and of Crypto's (*CryptoSource), as SourceOf returns it.
// A sampler reads w := Words(), uses the first k words and calls
// Discard(k), which is the same as k calls of Uint64; it may pass the
// *rand.Rand around the Source to its rare cases in between (after the
// Discard of the words it used), as both read the same buffer.
type Buffered interface {
	mrand.Source
	// Words returns the buffered words not yet read, in the order Uint64
	// would return them, refilling the buffer first when none are left,
	// so it is never empty. The slice is valid until the next call of a
	// method of the Source.
	Words() []uint64
	// Discard marks the next n unread words as read: the first n of what
	// Words returns. It panics if n is negative or more than are
	// buffered.
	Discard(n int)
}

var (
	_ Buffered = (*CryptoSource)(nil)
	_ Buffered = (*chacha8)(nil)
)

// noCopy makes go vet's copylocks check report copies of the struct that
// holds it; it has no other effect.
type noCopy struct{}

// Lock and Unlock are never called; their presence is what copylocks
// looks for.
func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}
