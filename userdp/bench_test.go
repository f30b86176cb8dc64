package userdp

import (
	"context"
	"testing"

	"github.com/dpmc/dpmc/synthetic"
)

// BenchmarkTrainSampler times one default run (ε = 5, factors on) on the
// MovieLens-1M-shaped generator with each noise sampler, seeded (ChaCha8)
// and, for the discrete sampler, from crypto/rand as a real release:
//
//	go test ./userdp -run '^$' -bench TrainSampler -count 6 | benchstat -
func BenchmarkTrainSampler(b *testing.B) {
	d, err := synthetic.DefaultRealistic(6040, 1).Generate()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		sampler Sampler
		seeded  bool
	}{
		{"float/seeded", SamplerFloat, true},
		{"discrete/seeded", SamplerDiscrete, true},
		{"discrete/crypto", SamplerDiscrete, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			o := Defaults(5, 1e-6, 1, 5)
			o.Sampler, o.Seeded, o.Seed = bc.sampler, bc.seeded, 1
			for b.Loop() {
				if _, err := Train(context.Background(), d, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
