package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// TestZigguratTables: the derived strip widths reproduce math/rand/v2's
// draws. Each draw is replayed from a fresh PCG with the same seed: its
// first 64-bit word gives the strip i and the integer j, and in the
// ziggurat's main branch the draw is exactly j·w[i]. Every strip must be
// hit at least once (a wrong w[i] makes every draw of strip i differ),
// and at least 98 % of all draws (the main branch takes more than 99 %).
func TestZigguratTables(t *testing.T) {
	zt := ziggurat()
	const n = 200_000
	hitN, hitE := make([]int, len(zt.wn)), make([]int, len(zt.we))
	var okN, okE int
	for k := range uint64(n) {
		z := rand.New(rand.NewPCG(1, k)).NormFloat64()
		u := rand.NewPCG(1, k).Uint64()
		if i := u >> 32 & 0x7f; float64(int32(u))*zt.wn[i] == z {
			hitN[i]++
			okN++
		}
		e := rand.New(rand.NewPCG(2, k)).ExpFloat64()
		u = rand.NewPCG(2, k).Uint64()
		if i := uint8(u >> 32); float64(uint32(u))*zt.we[i] == e {
			hitE[i]++
			okE++
		}
	}
	for i, h := range hitN {
		if h == 0 {
			t.Errorf("normal strip %d: no draw equals j·w[%d] (w = %g)", i, i, zt.wn[i])
		}
	}
	for i, h := range hitE {
		if h == 0 {
			t.Errorf("exponential strip %d: no draw equals j·w[%d] (w = %g)", i, i, zt.we[i])
		}
	}
	if okN < n*98/100 || okE < n*98/100 {
		t.Errorf("replayed %d normal and %d exponential draws of %d", okN, okE, n)
	}
}

// TestFloatSupportSeparates: a float sampler's release y = x + noise is
// in S(x) (the ziggurat lattice of x) but for the rare tail draws, and
// almost never in S(x′). 2×10⁴ seeded draws per side; the bounds are
// about 4 standard errors from the rates measured at this seed.
func TestFloatSupportSeparates(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	tests := []struct {
		m        noise.Mechanism
		x, x1    float64
		maxOther float64 // bound on P[y ∈ S(x′) | x] and P[y ∈ S(x) | x′]
	}{
		{mustGaussian(t, 49), 1000, 1001, 0.002},
		{mustGaussian(t, 1), 0, 1, 0.002},
		{mustLaplace(t, 3.7), 0.1, 0.35, 0.002},
		{mustLaplace(t, 1), -5, -4, 0.002},
		{mustHuber(t, 1, 25.3), 1000, 1001, 0.005},
		{mustHuber(t, 3, 2), 7, 8, 0.005},
		// α < 1: the body α·(2U − 1) is denser than float64 near most
		// outputs, so S(x′) holds about 15 % of x's releases.
		{mustHuber(t, 0.5, 1), 0, 1, 0.2},
	}
	for k, tt := range tests {
		t.Run(fmt.Sprintf("%v at %g", tt.m, tt.x), func(t *testing.T) {
			sup, err := FloatSupport(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			r := rng.Stream(5, uint64(k))
			const n = 20_000
			var own, other [2]int
			for range n {
				for s, x := range [2]float64{tt.x, tt.x1} {
					y := x + tt.m.Sample(r)
					if sup.Emits(x, y) {
						own[s]++
					}
					if sup.Emits(tt.x+tt.x1-x, y) {
						other[s]++
					}
				}
			}
			for s := range 2 {
				if p := float64(own[s]) / n; p < 0.995 {
					t.Errorf("side %d: P[y ∈ S(own input)] = %.4f, want ≥ 0.995", s, p)
				}
				if p := float64(other[s]) / n; p > tt.maxOther {
					t.Errorf("side %d: P[y ∈ S(other input)] = %.4f, want ≤ %g", s, p, tt.maxOther)
				}
			}
		})
	}
	if _, err := FloatSupport(discreteLaplace(t, 1, 0.25)); !errors.Is(err, check.ErrParam) {
		t.Errorf("FloatSupport of a grid mechanism: %v, want a check.ErrParam", err)
	}
}

// discreteLaplaceMock is integer noise with P(J = j) ∝ exp(−λ|j|),
// λ = γ/b, released as γ·J: a stand-in for an exact discrete sampler (its
// draws use ExpFloat64, but every output is exactly γ times an integer,
// which is all the lattice family looks at). Its guarantee for shifts that
// are multiples of γ is pure ε = Δ/b.
type discreteLaplaceMock struct{ b, gamma float64 }

func discreteLaplace(t *testing.T, b, gamma float64) GridNoise {
	t.Helper()
	m := discreteLaplaceMock{b, gamma}
	lam := gamma / b
	logNorm := math.Log(-math.Expm1(-lam)) - math.Log1p(math.Exp(-lam))
	return GridNoise{Mechanism: m, Gamma: gamma, LogPMF: func(j int64) float64 {
		return logNorm - lam*math.Abs(float64(j))
	}}
}

func (m discreteLaplaceMock) Name() string { return "discrete-laplace-mock" }
func (m discreteLaplaceMock) String() string {
	return fmt.Sprintf("discrete-laplace-mock(b=%g, γ=%g)", m.b, m.gamma)
}
func (m discreteLaplaceMock) Sample(r *rand.Rand) float64 {
	lam := m.gamma / m.b
	g1, g2 := math.Floor(r.ExpFloat64()/lam), math.Floor(r.ExpFloat64()/lam)
	return m.gamma * (g1 - g2)
}
func (m discreteLaplaceMock) Variance() float64 {
	q := math.Exp(-m.gamma / m.b)
	return m.gamma * m.gamma * 2 * q / ((1 - q) * (1 - q))
}
func (m discreteLaplaceMock) Guarantee(sens noise.Sensitivity, _ float64) (noise.Guarantee, error) {
	return noise.Guarantee{Epsilon: sens.L1 / m.b}, nil
}

// TestGridEmitsShiftInvariant: the grid's check gives the same answer for
// x and x + Δ when Δ is a multiple of γ, on and off the grid.
func TestGridEmitsShiftInvariant(t *testing.T) {
	g := Grid{Gamma: 0.125}
	for _, tt := range []struct {
		x, y float64
		want bool
	}{
		{0, 0, true}, {1000, 1003.375, true}, {0.1, 0.125, true}, {0.3, -7.25, true},
		{0, 0.1, false}, {1000, 1000.0625, false}, {0.3, 0.3, false}, {0, math.Inf(1), false}, {0, math.NaN(), false},
	} {
		for _, d := range []float64{0, 0.125, 1, -3.5, 1024} {
			if got := g.Emits(tt.x+d, tt.y); got != tt.want {
				t.Errorf("Emits(%g + %g, %g) = %v, want %v", tt.x, d, tt.y, got, tt.want)
			}
		}
	}
}

// TestLatticeAudit: with the lattice family the auditor flags every float
// sampler at the configurations, from the lattice events alone
// (the likelihood-ratio and histogram events pass the true claims), and
// passes the grid sampler, whose releases are on the grid from either
// neighbour. Seeded; a correct claim is flagged with probability at most
// 5 % (the audit's confidence), and at these seeds the grid one is not.
func TestLatticeAudit(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	tests := []struct {
		name      string
		m         Noise
		sup       func() (Support, error)
		at, sens  float64
		delta     float64
		violation bool
	}{
		{"gaussian σ=49 at 1000", mustGaussian(t, 49), nil, 1000, 1, 1e-5, true},
		{"laplace b=3.7 at 0.1", mustLaplace(t, 3.7), nil, 0.1, 0.25, 0, true},
		{"huber α=1 s=25.3 at 1000", mustHuber(t, 1, 25.3), nil, 1000, 1, 0, true},
		{"grid laplace at 1000", discreteLaplace(t, 3.7, 0.125), func() (Support, error) { return Grid{Gamma: 0.125}, nil }, 1000, 1, 0, false},
		{"grid laplace at 0.1 (off the grid)", discreteLaplace(t, 3.7, 0.125), func() (Support, error) { return Grid{Gamma: 0.125}, nil }, 0.1, 0.25, 0, false},
	}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sup Support
			var err error
			if tt.sup != nil {
				sup, err = tt.sup()
			} else {
				sup, err = FloatSupport(tt.m)
			}
			if err != nil {
				t.Fatal(err)
			}
			g, err := tt.m.Guarantee(noise.Sensitivity{L1: tt.sens, L2: tt.sens}, tt.delta)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Mechanism(context.Background(), tt.m, MechanismOptions{
				Options: Options{Claim: g}, Sensitivity: tt.sens, Samples: 20_000, At: tt.at,
				Seeded: true, Seed: uint64(10 + k), Support: sup,
			})
			if err != nil {
				t.Fatal(err)
			}
			var lattice Part
			for _, p := range res.Parts {
				contradicts := p.EpsilonLower > g.Epsilon || p.DeltaLower > g.Delta
				if p.Family == Lattice {
					lattice = p
					if contradicts != tt.violation {
						t.Errorf("lattice part: ε ≥ %.3f, δ(ε) ≥ %.3g against %v; want contradiction %v", p.EpsilonLower, p.DeltaLower, g, tt.violation)
					}
				} else if contradicts {
					t.Errorf("%s part contradicts the true claim %v: ε ≥ %.3f", p.Family, g, p.EpsilonLower)
				}
			}
			if lattice.Events != 2 {
				t.Fatalf("lattice part has %d events, want 2", lattice.Events)
			}
			if want := map[bool]Verdict{true: Violation, false: Pass}[tt.violation]; res.Verdict != want {
				t.Errorf("verdict %s, want %s", res.Verdict, want)
			}
			if tt.violation {
				// The figures: P[y ∈ S(x) | x] ≈ 0.99 against
				// P[y ∈ S(x) | x′] ≤ 0.05 (measured here: ≥ 0.998, ≤ 0.003).
				b := lattice.Best
				if b.P1() < 0.99 || b.P2() > 0.01 || b.DeltaLower < 0.9 {
					t.Errorf("best lattice event %q: P1 = %.4f, P2 = %.4f, δ(ε) ≥ %.3f", b.Description, b.P1(), b.P2(), b.DeltaLower)
				}
			}
		})
	}
}

// BenchmarkFloatSupportEmits is the cost of one lattice check.
func BenchmarkFloatSupportEmits(b *testing.B) {
	for _, m := range []noise.Mechanism{mustGaussian(nil, 49), mustLaplace(nil, 3.7), mustHuber(nil, 1, 25.3)} {
		b.Run(m.Name(), func(b *testing.B) {
			sup, _ := FloatSupport(m)
			r := rng.Stream(1, 0)
			ys := make([]float64, 1024)
			for i := range ys {
				ys[i] = 1000 + m.Sample(r)
			}
			b.ResetTimer()
			for i := range b.N {
				sup.Emits(1001, ys[i%len(ys)])
			}
		})
	}
}
