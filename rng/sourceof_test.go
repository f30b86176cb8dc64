//go:build !purego

package rng

import (
	mrand "math/rand/v2"
	"testing"
)

// TestSourceOf checks that SourceOf finds the Source of each kind of
// generator: this package's (a ChaCha8 for the seeded ones, a Buffered
// for the keyed ones, a *CryptoSource for Crypto), another Source, and
// none for a nil *Rand.
// It fails if math/rand/v2's layout changes under SourceOf (which then
// returns nil and the samplers lose their fast path).
func TestSourceOf(t *testing.T) {
	if !randLayoutOK {
		t.Fatal("math/rand/v2.Rand's layout is not struct{ src Source }: SourceOf is disabled")
	}
	pcg := mrand.NewPCG(1, 2)
	re := NewReseeder()
	k := NewKeyed()
	kr := k.Reseeder()
	for _, c := range []struct {
		name string
		r    *mrand.Rand
		want func(mrand.Source) bool
	}{
		{"Seeded", Seeded(1), func(s mrand.Source) bool { _, ok := s.(*mrand.ChaCha8); return ok }},
		{"Stream", Stream(1, 2), func(s mrand.Source) bool { _, ok := s.(*mrand.ChaCha8); return ok }},
		{"Reseeder", re.Stream(1, 2), func(s mrand.Source) bool { return s == mrand.Source(re.c) }},
		{"Crypto", Crypto(), func(s mrand.Source) bool { _, ok := s.(*CryptoSource); return ok }},
		{"Keyed", k.Stream(1, 2), func(s mrand.Source) bool { _, ok := s.(Buffered); return ok }},
		{"KeyedReseeder", kr.Stream(1, 2), func(s mrand.Source) bool { return s == mrand.Source(kr.c) }},
		{"PCG", mrand.New(pcg), func(s mrand.Source) bool { return s == mrand.Source(pcg) }},
		{"nil", nil, func(s mrand.Source) bool { return s == nil }},
	} {
		if s := SourceOf(c.r); !c.want(s) {
			t.Errorf("%s: SourceOf gave %T", c.name, s)
		}
	}
}
