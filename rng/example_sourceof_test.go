//go:build !purego

package rng_test

import (
	"fmt"

	"github.com/dpmc/dpmc/rng"
)

// A sampler that draws many words takes them from the generator's Source:
// here a run of Crypto's buffered words (the keyed generators' are read
// the same way), marked read afterwards, so that
// r.Uint64() continues after them.
func ExampleSourceOf() {
	r := rng.Crypto()
	if s, ok := rng.SourceOf(r).(rng.Buffered); ok {
		w := s.Words() // never empty; in the order r.Uint64() would return them
		k := min(len(w), 4)
		words := w[:k] // the sampler's next k words
		s.Discard(k)   // as if r.Uint64() had been called k times
		fmt.Println("used", len(words), "buffered words")
	}
	fmt.Printf("%T\n", rng.SourceOf(rng.Seeded(1)))
	// Output:
	// used 4 buffered words
	// *rand.ChaCha8
}
