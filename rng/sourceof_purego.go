//go:build purego

package rng

import mrand "math/rand/v2"

// SourceOf returns nil in purego builds: reading a *rand.Rand's Source
// relies on math/rand/v2's unexported layout (see the default build's
// SourceOf), so callers take their general path, which draws the same
// words.
func SourceOf(r *mrand.Rand) mrand.Source { return nil }
