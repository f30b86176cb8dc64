package discrete

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/rng"
)

func BenchmarkSample(b *testing.B) {
	type mk struct {
		name string
		new  func() (Mechanism, error)
	}
	var ms []mk
	for _, s := range []float64{1, 3.7, 100} {
		ms = append(ms, mk{fmt.Sprintf("laplace/b=%g", s), func() (Mechanism, error) { return NewLaplace(s) }})
	}
	for _, s := range []float64{1, 49, 1000} {
		ms = append(ms, mk{fmt.Sprintf("gaussian/sigma=%g", s), func() (Mechanism, error) { return NewGaussian(s) }})
	}
	for _, a := range []float64{0.05, 1, 3, 40} {
		ms = append(ms, mk{fmt.Sprintf("huber/alpha=%g,s=25.3", a), func() (Mechanism, error) { return NewHuber(a, 25.3) }})
	}
	for _, src := range []struct {
		name string
		r    func() *rand.Rand
	}{{"chacha8", func() *rand.Rand { return rng.Seeded(1) }}, {"crypto", rng.Crypto}} {
		for _, m := range ms {
			mm, err := m.new()
			if err != nil {
				b.Fatal(err)
			}
			b.Run(m.name+"/"+src.name, func(b *testing.B) {
				r := src.r()
				s := mm.Int(r) // builds a lazily built table outside the timing
				for b.Loop() {
					s += mm.Int(r)
				}
				sink = s
			})
		}
	}
}

var sink int64

// BenchmarkAddNoise32 adds noise to a rank-32 vector (one item update of
// the paper's experiments) through noise.AddNoise: the float Huber
// sampler against the discrete one (rounding included), seeded.
func BenchmarkAddNoise32(b *testing.B) {
	fl, _ := huber.New(3, 1)
	di, _ := NewHuber(3, 1)
	for _, m := range []noise.Mechanism{fl, di} {
		b.Run(m.Name(), func(b *testing.B) {
			r := rng.Seeded(1)
			x := make([]float64, 32)
			noise.AddNoise(m, x, r) // builds a lazily built table outside the timing
			b.ReportAllocs()
			for b.Loop() {
				noise.AddNoise(m, x, r)
			}
		})
	}
}

// BenchmarkZigTable builds the ziggurat tables of production grids: the
// cost a mechanism pays on its first draw.
func BenchmarkZigTable(b *testing.B) {
	for _, c := range []struct {
		name  string
		build func() (*zigTable, error)
	}{
		{"huber/alpha=1", func() (*zigTable, error) { return newHuberZig(1<<40, 1<<40) }},
		{"huber/alpha=1_256", func() (*zigTable, error) { return newHuberZig(1<<40, 1<<32) }},
		{"laplace", func() (*zigTable, error) { return newLaplaceZig(1 << 40) }},
		{"gaussian", func() (*zigTable, error) { return newGaussianZig(1 << 56) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.build(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
