package noise_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
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

// granularOnly hides a mechanism's AddNoise, so that noise.AddNoise takes
// its element-by-element AddTo path.
type granularOnly struct{ noise.Granular }

// TestAddNoiseGranularVectorPath: for the discrete mechanisms noise.AddNoise
// takes their vector path (discrete's AddNoise), which must give the same
// values, bit for bit, from the same random words as the AddTo loop, and
// leave the stream at the same word, for seeded and keyed streams, values
// on and off the grid, and calls that continue one stream.
func TestAddNoiseGranularVectorPath(t *testing.T) {
	lap, err1 := discrete.NewLaplace(1.7)
	gau, err2 := discrete.NewGaussian(3)
	hub, err3 := discrete.NewHuber(3, 1)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	keyed := rng.NewKeyed()
	for _, m := range []noise.Granular{lap, gau, hub} {
		if _, ok := m.(noise.VectorNoiser); !ok {
			t.Fatalf("%s: not a VectorNoiser", m)
		}
		for _, src := range []struct {
			name string
			r    func() *rand.Rand
		}{
			{"seeded", func() *rand.Rand { return rng.Seeded(11) }},
			{"keyed", func() *rand.Rand { return keyed.Stream(3, 5) }},
		} {
			for _, n := range []int{0, 1, 7, 32, 1000} {
				x := make([]float64, n)
				for i := range x {
					x[i] = float64(i%13)*0.37 - 2 + float64(i)*1e-13
				}
				want := append([]float64(nil), x...)
				r, twin := src.r(), src.r()
				for range 3 {
					noise.AddNoise(m, x, r)
					noise.AddNoise(granularOnly{m}, want, twin)
				}
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s %s n=%d: x[%d] = %v by the vector path, %v by AddTo", m, src.name, n, i, x[i], want[i])
					}
				}
				if a, b := r.Uint64(), twin.Uint64(); a != b {
					t.Errorf("%s %s n=%d: the two paths left the stream at different words", m, src.name, n)
				}
			}
		}
	}
}
