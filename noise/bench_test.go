package noise_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpmc/dpmc/internal/procstat"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/rng"
)

// BenchmarkSample measures one draw of each mechanism; for Huber at shapes
// from tiny to large, since its sampler changes strategy with α.
func BenchmarkSample(b *testing.B) {
	var ms []noise.Mechanism
	for _, a := range []float64{0.01, 0.1, 1, 3, 50} {
		m, _ := huber.New(a, 1)
		ms = append(ms, m)
	}
	l, _ := laplace.New(1)
	g, _ := gaussian.New(1)
	ms = append(ms, l, g)
	for _, m := range ms {
		b.Run(fmt.Sprint(m), func(b *testing.B) {
			r := rng.Seeded(1)
			var sink float64
			for b.Loop() {
				sink += m.Sample(r)
			}
			_ = sink
		})
	}
}

// BenchmarkAddNoise32 adds noise to a rank-32 vector, the size of one item
// update in the paper's real-data experiments.
func BenchmarkAddNoise32(b *testing.B) {
	m, _ := huber.New(3, 1)
	r := rng.Seeded(1)
	x := make([]float64, 32)
	b.ReportAllocs()
	for b.Loop() {
		noise.AddNoise(m, x, r)
	}
}

// BenchmarkAddNoise32Source adds the paper's Huber noise (α = 3, s = 1) to
// a rank-32 vector, as BenchmarkAddNoise32, from each kind of generator:
// a seeded ChaCha8 stream (experiments) and rng.Crypto() (private runs).
// ns/value is the cost of one draw, its word included, in wall time, and
// cpu-ns/value in the process's CPU time (steadier on a shared machine).
func BenchmarkAddNoise32Source(b *testing.B) {
	m, _ := huber.New(3, 1)
	for _, src := range []struct {
		name string
		new  func() *rand.Rand
	}{
		{"chacha8", func() *rand.Rand { return rng.Seeded(1) }},
		{"crypto", rng.Crypto},
	} {
		b.Run("src="+src.name, func(b *testing.B) {
			r := src.new()
			x := make([]float64, 32)
			b.ReportAllocs()
			cpu0, ok := procstat.CPUTime()
			for b.Loop() {
				noise.AddNoise(m, x, r)
			}
			values := float64(b.N * len(x))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/values, "ns/value")
			if cpu1, _ := procstat.CPUTime(); ok {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/values, "cpu-ns/value")
			}
		})
	}
}
