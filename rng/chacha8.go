package rng

import (
	"encoding/binary"
	mrand "math/rand/v2"
)

// chacha8 is math/rand/v2's ChaCha8 generator (the chacha8rand
// construction, https://c2sp.org/chacha8rand), computed one key's worth at
// a time: the same words, in the same order, as mrand.NewChaCha8(seed)
// after the same calls of Seed (TestChaCha8MatchesMathRand).
//
// chacha8rand runs ChaCha8 under a 256-bit key for the 16 blocks of
// counters 0–15, interleaves each four blocks' 32-bit words, returns the
// first 124 of the resulting 128 words and keys the next 16 blocks with
// the last 4. math/rand/v2 computes four blocks per refill (SSE2 on amd64,
// with shifts for the rotations in the default GOAMD64=v1 build); on a CPU
// with AVX-512, blocks16 computes all 16 at once, one block per 32-bit
// lane, and its buffer holds the 124 words for Words and Discard, so that
// a sampler reads runs of them without a call per word (see Buffered).
// Elsewhere, and under the purego tag, the words come from an
// *mrand.ChaCha8 that the generator holds, 124 at a time.
//
// Not safe for concurrent use.
type chacha8 struct {
	buf   [chachaPeriod]uint64 // the key's output: 124 words, then the next key
	key   [4]uint64            // the key of buf's words (or of the next ones, while fresh)
	i, n  int                  // the unread words are buf[i:n]
	fresh bool                 // buf is not yet computed from key
	std   *mrand.ChaCha8       // non-nil without blocks16: the words come from it
}

// Sizes of chacha8rand's output under one key, in 64-bit words.
const (
	chachaPeriod = 128              // 16 ChaCha8 blocks of 64 bytes
	chachaWords  = chachaPeriod - 4 // handed out; the last 4 are the next key
)

// newChaCha8 returns the generator of seed, mrand.NewChaCha8(seed)'s words.
func newChaCha8(seed [32]byte) *chacha8 {
	c := &chacha8{}
	if !haveBlocks16 {
		c.std = mrand.NewChaCha8(seed)
	}
	c.Seed(seed)
	return c
}

// Seed resets the generator to behave as newChaCha8(seed) (as
// mrand.ChaCha8.Seed does).
func (c *chacha8) Seed(seed [32]byte) {
	c.i, c.n = 0, 0
	if c.std != nil {
		c.std.Seed(seed)
		return
	}
	for k := range c.key {
		c.key[k] = binary.LittleEndian.Uint64(seed[8*k:])
	}
	c.fresh = true
}

// Uint64 returns the next word.
func (c *chacha8) Uint64() uint64 {
	if c.i >= c.n {
		c.refill()
	}
	c.i++
	return c.buf[(c.i-1)&(chachaPeriod-1)]
}

// Words returns the words not yet read, in the order Uint64 would return
// them, computing the next ones first when none are left, so it is never
// empty. Reading the first k and calling Discard(k) is the same as k calls
// of Uint64. The slice is valid until the next call of a method of c.
func (c *chacha8) Words() []uint64 {
	if c.i >= c.n {
		c.refill()
	}
	return c.buf[c.i:c.n]
}

// Discard marks the next n unread words as read: the first n of what
// Words returns. It panics if n is negative or more than are buffered.
func (c *chacha8) Discard(n int) {
	if n < 0 || n > c.n-c.i {
		panic("rng: Discard of more words than are buffered")
	}
	c.i += n
}

// refill computes the next 124 words and rewinds the buffer.
func (c *chacha8) refill() {
	c.i, c.n = 0, chachaWords
	if c.std != nil {
		for k := range c.buf[:chachaWords] {
			c.buf[k] = c.std.Uint64()
		}
		return
	}
	if !c.fresh {
		copy(c.key[:], c.buf[chachaWords:])
	}
	c.fresh = false
	blocks16(&c.key, &c.buf)
}
