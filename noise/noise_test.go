package noise_test

import (
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/rng"
)

func TestAddNoiseIsPerCoordinateAndReproducible(t *testing.T) {
	h, _ := huber.New(1, 1)
	l, _ := laplace.New(1)
	g, _ := gaussian.New(1)
	for _, m := range []noise.Mechanism{h, l, g} {
		x := []float64{1, 2, 3, 4}
		y := []float64{1, 2, 3, 4}
		noise.AddNoise(m, x, rng.Seeded(5))
		r := rng.Seeded(5)
		for i := range y {
			y[i] += m.Sample(r)
		}
		for i := range x {
			if x[i] != y[i] {
				t.Errorf("%s: coordinate %d = %v, want %v", m.Name(), i, x[i], y[i])
			}
		}
		if x[0] == x[1]-1 && x[1] == x[2]-1 {
			t.Errorf("%s: noise looks identical across coordinates", m.Name())
		}
	}
}

func TestGuaranteeString(t *testing.T) {
	tests := []struct {
		g    noise.Guarantee
		want string
	}{
		{noise.Guarantee{Epsilon: 1.5}, "ε = 1.5 (pure ε-DP)"},
		{noise.Guarantee{Epsilon: 2, Delta: 1e-5}, "(ε, δ) = (2, 1e-05)"},
	}
	for _, tt := range tests {
		if got := tt.g.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
