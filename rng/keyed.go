package rng

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	mrand "math/rand/v2"
)

// Keyed hands out the private generators of one run: a ChaCha8 stream
// (math/rand/v2) per pair (release, row), each keyed by
// HMAC-SHA-256(K, "dpmc/rng/keyed/v1" ‖ release ‖ row) under one secret
// 256-bit run key K. Build it with NewKeyed, which draws K from
// crypto/rand; there is no way to give it a key, so a Go caller cannot
// make a private run reproducible or predictable (see the package
// comment). The streams depend only on K and (release, row), never on
// which goroutine asks for them or in what order, so a run that derives
// one stream per row gives the same result for any number of workers
// (with the same K, which only that run knows).
//
// A Keyed is safe for concurrent use; the generators it returns are not
// (give each goroutine its own, or a KeyedReseeder each).
type Keyed struct {
	_    noCopy
	key  [32]byte // K; read only by newDeriver, never written out
	made bool     // set by NewKeyed: a zero Keyed has a known key
}

// NewKeyed returns a Keyed whose key is 32 fresh bytes of crypto/rand.
func NewKeyed() *Keyed {
	k := &Keyed{made: true}
	rand.Read(k.key[:]) // never fails (it crashes the program instead)
	return k
}

// Stream returns the generator of (release, row). Two calls with the same
// pair return generators that draw the same words; different pairs, or
// different Keyed values, give independent streams (as long as ChaCha8 and
// HMAC-SHA-256 are what they are believed to be).
func (k *Keyed) Stream(release, row uint64) *mrand.Rand {
	return mrand.New(newChaCha8(k.newDeriver().streamKey(release, row)))
}

// Reseeder returns a KeyedReseeder of k's streams.
func (k *Keyed) Reseeder() *KeyedReseeder {
	c := newChaCha8([32]byte{})
	return &KeyedReseeder{d: k.newDeriver(), c: c, r: mrand.New(c)}
}

// KeyedReseeder hands out the streams of a Keyed without allocating: it
// keeps one generator and re-keys it on each call. A worker that processes
// many rows keeps one. Not safe for concurrent use.
type KeyedReseeder struct {
	d *deriver
	c *chacha8
	r *mrand.Rand
}

// Stream re-keys the reseeder's generator to (release, row) and returns
// it. Its draws equal those of Keyed.Stream(release, row); the previous
// generator it returned is re-keyed too.
func (s *KeyedReseeder) Stream(release, row uint64) *mrand.Rand {
	s.c.Seed(s.d.streamKey(release, row))
	return s.r
}

const keyedDomain = "dpmc/rng/keyed/v1"

// deriver computes the streams' ChaCha8 keys; its buffers live with it so
// that a derivation does not allocate.
type deriver struct {
	mac hash.Hash // HMAC-SHA-256 under the run key
	in  [len(keyedDomain) + 16]byte
	out [sha256.Size]byte
}

// newDeriver panics unless k comes from NewKeyed: the zero Keyed (which
// a caller outside the package can make) has the all-zero key.
func (k *Keyed) newDeriver() *deriver {
	if !k.made {
		panic("rng: a Keyed not made by NewKeyed (its key would be known)")
	}
	d := &deriver{mac: hmac.New(sha256.New, k.key[:])}
	copy(d.in[:], keyedDomain)
	return d
}

// streamKey returns HMAC(K, keyedDomain ‖ release ‖ row), the integers as
// 8 little-endian bytes each.
func (d *deriver) streamKey(release, row uint64) [32]byte {
	binary.LittleEndian.PutUint64(d.in[len(keyedDomain):], release)
	binary.LittleEndian.PutUint64(d.in[len(keyedDomain)+8:], row)
	d.mac.Reset()
	d.mac.Write(d.in[:])
	d.mac.Sum(d.out[:0])
	return d.out
}
