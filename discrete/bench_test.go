package discrete

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
				var s int64
				for b.Loop() {
					s += mm.Int(r)
				}
				sink = s
			})
		}
	}
}

var sink int64
