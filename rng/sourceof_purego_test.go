//go:build purego

package rng

import "testing"

// TestSourceOf checks that SourceOf gives nil in purego builds, so that
// samplers take their general path.
func TestSourceOf(t *testing.T) {
	if s := SourceOf(Crypto()); s != nil {
		t.Errorf("SourceOf(Crypto()) = %T in a purego build, want nil", s)
	}
}
