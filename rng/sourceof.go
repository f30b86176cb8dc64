//go:build !purego

package rng

import (
	mrand "math/rand/v2"
	"unsafe"
)

// SourceOf returns the Source that r draws its words from: a
// *mrand.ChaCha8 for the generators of Seeded, Stream and a Reseeder, a
// Buffered for those of a Keyed and a KeyedReseeder (this package's
// ChaCha8) and for Crypto's (a *CryptoSource), whatever r was built with
// otherwise; nil when it cannot tell (and for a nil r).
// r.Uint64() is the Source's Uint64, so a sampler that takes words from the Source in its common case
// and passes r to its rare cases draws the same words, in the same order,
// as one that always calls r.
//
// A *rand.Rand does not expose its Source, so SourceOf reads it through
// package unsafe, relying on math/rand/v2's layout (type Rand struct{ src
// Source }). That layout is checked once, when the package is loaded, on a
// Rand built around a known Source; if it ever differs, and in builds with
// the purego tag, SourceOf returns nil and callers take their general path
// (TestSourceOf then fails, so the change is seen).
func SourceOf(r *mrand.Rand) mrand.Source {
	if r == nil || !randLayoutOK {
		return nil
	}
	return randSource(r)
}

// randSource reads the Source of r, assuming math/rand/v2's layout.
func randSource(r *mrand.Rand) mrand.Source {
	return (*struct{ src mrand.Source })(unsafe.Pointer(r)).src
}

// randLayoutOK reports whether randSource finds the Source of a Rand built
// around a known one; it is computed once and never written afterwards.
var randLayoutOK = func() bool {
	if unsafe.Sizeof(mrand.Rand{}) != unsafe.Sizeof(struct{ src mrand.Source }{}) {
		return false
	}
	var s CryptoSource
	return randSource(mrand.New(&s)) == mrand.Source(&s)
}()
