// Package rng builds the random number generators that dpmc's samplers take.
//
// There are two kinds, and the difference matters for privacy:
//
//   - Crypto draws every bit from crypto/rand. Use it for any release that is
//     meant to be private: its output cannot be predicted or replayed.
//   - Seeded and Stream are deterministic ChaCha8 generators from
//     math/rand/v2. They make experiments bit-for-bit reproducible, and for
//     exactly that reason the noise they produce is NOT private: anyone who
//     learns the seed can subtract the noise. Use them only for experiments
//     and tests.
//
// Stream derives an independent generator from (seed, stream index), so that
// work split over rows can give each row its own generator and produce the
// same result whatever the number of workers.
package rng

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	mrand "math/rand/v2"
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
// releases. It buffers 512 bytes of crypto/rand output at a time. The
// returned *Rand is not safe for concurrent use; give each goroutine its own.
func Crypto() *mrand.Rand {
	return mrand.New(&cryptoSource{off: len(cryptoSource{}.buf)})
}

// cryptoSource is a math/rand/v2 Source reading from crypto/rand.
type cryptoSource struct {
	buf [512]byte
	off int // next unread byte in buf; len(buf) when buf is used up
}

// Uint64 returns 64 bits from crypto/rand. crypto/rand.Read never fails on
// supported platforms (since Go 1.24 it crashes the program rather than
// return an error), so neither does this.
func (s *cryptoSource) Uint64() uint64 {
	if s.off+8 > len(s.buf) {
		rand.Read(s.buf[:])
		s.off = 0
	}
	v := binary.LittleEndian.Uint64(s.buf[s.off:])
	s.off += 8
	return v
}
