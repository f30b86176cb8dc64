package huber

import (
	"fmt"
	"testing"

	"github.com/dpmc/dpmc/rng"
)

// BenchmarkAddNoise adds Huber noise to a vector of 32 values (one item
// solve's right-hand side at rank 32) from a seeded ChaCha8 stream; ns/op
// divided by 32 is the cost of one draw.
func BenchmarkAddNoise(b *testing.B) {
	for _, alpha := range []float64{0.5, 3, 20} {
		b.Run(fmt.Sprintf("alpha=%g", alpha), func(b *testing.B) {
			m, _ := New(alpha, 1)
			r := rng.Seeded(1)
			x := make([]float64, 32)
			for b.Loop() {
				m.AddNoise(x, r)
			}
		})
	}
}
