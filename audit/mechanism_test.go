package audit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// Every audit here is seeded (deterministic) and runs 2×10⁵ outputs per
// neighbour; its false-alarm rate for a correct claim is at most 5 % by
// construction (see audit_test.go).
const testSamples = 200_000

func mustLaplace(t *testing.T, b float64) *laplace.Mechanism {
	m, err := laplace.New(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustHuber(t *testing.T, alpha, s float64) *huber.Mechanism {
	m, err := huber.New(alpha, s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustGaussian(t *testing.T, sigma float64) *gaussian.Mechanism {
	m, err := gaussian.New(sigma)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMechanismClaims: correct claims pass; a Laplace or Huber claim of
// half the true ε and a Gaussian claim with δ ten times too small are
// flagged; the bound reaches at least half the true ε.
func TestMechanismClaims(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	deltaG, err := gaussian.Delta(1, 1, 1) // ≈ 0.127, exact
	if err != nil {
		t.Fatal(err)
	}
	lap, hub, gau := mustLaplace(t, 1), mustHuber(t, 1, 1), mustGaussian(t, 1)
	tests := []struct {
		name    string
		m       Noise
		claim   noise.Guarantee
		want    Verdict
		atLeast float64
	}{
		{"laplace b=1 correct", lap, noise.Guarantee{Epsilon: 1}, Pass, 0.5},
		{"laplace b=1 half", lap, noise.Guarantee{Epsilon: 0.5}, Violation, 0.5},
		{"huber α=1 s=1 correct", hub, noise.Guarantee{Epsilon: 1}, Pass, 0.5},
		{"huber α=1 s=1 half", hub, noise.Guarantee{Epsilon: 0.5}, Violation, 0.5},
		{"laplace b=2 Δ=1 correct", mustLaplace(t, 2), noise.Guarantee{Epsilon: 0.5}, Pass, 0.25},
		{"huber α=3 s=3 correct", mustHuber(t, 3, 3), noise.Guarantee{Epsilon: 1}, Pass, 0.5},
		{"gaussian σ=1 exact δ(1)", gau, noise.Guarantee{Epsilon: 1, Delta: deltaG}, Pass, 0.5},
		{"gaussian σ=1 δ(1)/10", gau, noise.Guarantee{Epsilon: 1, Delta: deltaG / 10}, Violation, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Mechanism(context.Background(), tt.m, MechanismOptions{
				Options: Options{Claim: tt.claim}, Sensitivity: 1, Samples: testSamples, Seeded: true, Seed: uint64(100 + i)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tt.want || res.EpsilonLower < tt.atLeast {
				t.Errorf("%s: verdict %s, ε ≥ %.4f (δ(ε) ≥ %.4g) by %q; want %s with ε ≥ %v",
					tt.m, res.Verdict, res.EpsilonLower, res.DeltaLower, res.Best.Description, tt.want, tt.atLeast)
			}
		})
	}
}

// TestMechanismGuaranteeClaims: each mechanism's own guarantee passes,
// for the Gaussian at δ = 1e-5.
func TestMechanismGuaranteeClaims(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	for i, m := range []Noise{mustLaplace(t, 0.7), mustHuber(t, 3, 1), mustGaussian(t, 3.7306), mustGaussian(t, 1)} {
		delta := 0.0
		if m.Name() == "gaussian" {
			delta = 1e-5
		}
		g, err := m.Guarantee(noise.Sensitivity{L1: 1, L2: 1}, delta)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Mechanism(context.Background(), m, MechanismOptions{
			Options: Options{Claim: g}, Sensitivity: 1, Samples: testSamples, Seeded: true, Seed: uint64(200 + i)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Pass || res.EpsilonLower <= 0 {
			t.Errorf("%v claiming %v: %s with ε ≥ %.4f", m, g, res.Verdict, res.EpsilonLower)
		}
	}
}

// TestMechanismVector: with d = 4 there are two tests; the spread one
// shifts every coordinate by Δ/d (ℓ1) or Δ/√d (ℓ2), and both keep their
// power.
func TestMechanismVector(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	tests := []struct {
		m      Noise
		claim  noise.Guarantee
		spread string
		want   Verdict
	}{
		{mustLaplace(t, 1), noise.Guarantee{Epsilon: 1}, "Δ/d = 0.25 on each of 4", Pass},
		{mustLaplace(t, 1), noise.Guarantee{Epsilon: 0.5}, "Δ/d = 0.25 on each of 4", Violation},
		{mustHuber(t, 1, 1), noise.Guarantee{Epsilon: 1}, "Δ/d = 0.25 on each of 4", Pass},
		{mustGaussian(t, 1), noise.Guarantee{Epsilon: 1, Delta: 0.127}, "Δ/√d = 0.5 on each of 4", Pass},
		{mustGaussian(t, 1), noise.Guarantee{Epsilon: 1, Delta: 0.0127}, "Δ/√d = 0.5 on each of 4", Violation},
	}
	for i, tt := range tests {
		res, err := Mechanism(context.Background(), tt.m, MechanismOptions{
			Options: Options{Claim: tt.claim}, Sensitivity: 1, Dims: 4, Samples: testSamples / 2, Seeded: true, Seed: uint64(300 + i)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tt.want {
			t.Errorf("%v claiming %v: %s with ε ≥ %.4f", tt.m, tt.claim, res.Verdict, res.EpsilonLower)
		}
		tests := map[string]float64{}
		for _, p := range res.Parts {
			tests[p.Statistic] = max(tests[p.Statistic], p.EpsilonLower)
		}
		if len(tests) != 2 {
			t.Fatalf("%v: tests %v, want two", tt.m, tests)
		}
		for name, eps := range tests {
			if !strings.Contains(name, "1 of 4") && !strings.Contains(name, tt.spread) {
				t.Errorf("%v: test %q, want one on 1 of 4 coordinates and one with %q", tt.m, name, tt.spread)
			}
			// Each test alone finds most of the true ε (1 for all the
			// mechanisms here at these claims' ε).
			if tt.want == Pass && eps < 0.6 {
				t.Errorf("%v: test %q reaches only ε ≥ %.4f", tt.m, name, eps)
			}
		}
	}
}

// TestMechanismReproducible: a seed fixes the result whatever the number
// of workers; different seeds differ.
func TestMechanismReproducible(t *testing.T) {
	m := mustHuber(t, 2, 1)
	run := func(workers int, seed uint64) Result {
		res, err := Mechanism(context.Background(), m, MechanismOptions{
			Options: Options{Claim: noise.Guarantee{Epsilon: 2}, Bits: true}, Sensitivity: 1, Samples: 30000, Dims: 2,
			Seeded: true, Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(1, 9), run(3, 9), run(2, 10)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("1 and 3 workers differ: ε ≥ %v and %v", a.EpsilonLower, b.EpsilonLower)
	}
	if a.EpsilonLower == c.EpsilonLower {
		t.Error("seeds 9 and 10 gave the same bound")
	}
}

func TestMechanismUnseededAndProgress(t *testing.T) {
	var last, total int
	res, err := Mechanism(context.Background(), mustLaplace(t, 1), MechanismOptions{
		Options: Options{Claim: noise.Guarantee{Epsilon: 1}}, Sensitivity: 1, Samples: 20000,
		Progress: func(done, tot int) { last, total = done, tot }})
	if err != nil {
		t.Fatal(err)
	}
	if last != 40000 || total != 40000 {
		t.Errorf("progress ended at %d/%d, want 40000/40000", last, total)
	}
	if res.EpsilonLower <= 0.5 {
		t.Errorf("ε ≥ %v from 2×10⁴ crypto/rand samples, want > 0.5", res.EpsilonLower)
	}
}

func TestMechanismCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Mechanism(ctx, mustLaplace(t, 1), MechanismOptions{Options: Options{Claim: noise.Guarantee{Epsilon: 1}}, Sensitivity: 1, Seeded: true})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestMechanismBadOptions(t *testing.T) {
	good := MechanismOptions{Options: Options{Claim: noise.Guarantee{Epsilon: 1}}, Sensitivity: 1, Samples: 1000}
	tests := []struct {
		edit func(*MechanismOptions)
		want string
	}{
		{func(o *MechanismOptions) { o.Sensitivity = 0 }, "sensitivity"},
		{func(o *MechanismOptions) { o.Sensitivity = math.Inf(1) }, "sensitivity"},
		{func(o *MechanismOptions) { o.Samples = 50 }, "samples"},
		{func(o *MechanismOptions) { o.Dims = -1 }, "dims"},
		{func(o *MechanismOptions) { o.Norm = 3 }, "norm"},
		{func(o *MechanismOptions) { o.At = math.NaN() }, "at"},
		{func(o *MechanismOptions) { o.Workers = -2 }, "workers"},
		{func(o *MechanismOptions) { o.Claim.Delta = -0.1 }, "claimed delta"},
		{func(o *MechanismOptions) { o.Confidence = 1.5 }, "confidence"},
	}
	if _, err := Mechanism(context.Background(), nil, good); !errors.Is(err, check.ErrParam) {
		t.Errorf("nil mechanism: error %v, want a check.ErrParam", err)
	}
	for _, tt := range tests {
		o := good
		tt.edit(&o)
		_, err := Mechanism(context.Background(), mustLaplace(t, 1), o)
		if !errors.Is(err, check.ErrParam) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want a check.ErrParam naming %q", err, tt.want)
		}
	}
}

// textbook is the floating-point Laplace sampler Mironov (2012) attacked:
// x + b·ln(U) with a random sign, U uniform on a grid of 2⁻³² (a 32-bit
// uniform, as C's rand-based samplers have).
type textbook struct{ *laplace.Mechanism }

func (m textbook) Sample(r *rand.Rand) float64 {
	u := (float64(r.Uint32()) + 1) / (1 << 32)
	s := m.Scale() * math.Log(u)
	if r.Uint64()&1 == 0 {
		return s
	}
	return -s
}

// TestBitsFamily measures the power of the bit-pattern family. At x = 0
// against x' = 1 (Mironov's setting) the outputs 1 + noise are exact sums
// of coarser floats in some binades, so low mantissa bits that the noise
// alone produces are impossible there: the family flags the textbook
// sampler, and dpmc's own samplers too. This documents a finding, not a
// wish: if the samplers are ever hardened (snapping, discrete noise),
// update this test and the README. Far from 0 (x = 1000) both neighbours'
// outputs share one grid and the family sees nothing; it has no power
// against sparse supports there, which only a support-membership test
// built on a sampler's internals would detect.
func TestBitsFamily(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	lap := mustLaplace(t, 1)
	tests := []struct {
		name    string
		m       Noise
		at      float64
		finding bool
	}{
		{"textbook at 0 (Mironov)", textbook{lap}, 0, true},
		{"dpmc laplace at 0", lap, 0, true},
		{"dpmc huber at 0", mustHuber(t, 1, 1), 0, true},
		{"dpmc gaussian at 0", mustGaussian(t, 1), 0, true},
		{"dpmc laplace at 1000", lap, 1000, false},
		{"textbook at 1000", textbook{lap}, 1000, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := tt.m.Guarantee(noise.Sensitivity{L1: 1, L2: 1}, 1e-5)
			res, err := Mechanism(context.Background(), tt.m, MechanismOptions{
				Options: Options{Claim: g, Bits: true}, Sensitivity: 1, At: tt.at, Samples: testSamples, Seeded: true, Seed: uint64(400 + i)})
			if err != nil {
				t.Fatal(err)
			}
			var bits Part
			for _, p := range res.Parts {
				if p.Family == Bits {
					bits = p
				}
			}
			found := bits.EpsilonLower > g.Epsilon
			if found != tt.finding || (found && bits.EpsilonLower < 5) {
				t.Errorf("bit events: ε ≥ %.4f by %q (%d/%d vs %d/%d), claim %v; want finding = %v",
					bits.EpsilonLower, bits.Best.Description, bits.Best.Count1, bits.Best.N1, bits.Best.Count2, bits.Best.N2, g, tt.finding)
			}
			if wantVerdict := map[bool]Verdict{true: Violation, false: Pass}[tt.finding]; res.Verdict != wantVerdict {
				t.Errorf("verdict %s, want %s", res.Verdict, wantVerdict)
			}
		})
	}
}

// BenchmarkMechanism times one audit of 10⁶ outputs per neighbour (2×10⁶
// draws plus the analysis), the CLI's default.
func BenchmarkMechanism(b *testing.B) {
	m, _ := laplace.New(1)
	for range b.N {
		_, err := Mechanism(context.Background(), m, MechanismOptions{
			Options: Options{Claim: noise.Guarantee{Epsilon: 1}}, Sensitivity: 1, Seeded: true, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// Neighbours that float64 cannot tell apart, or that share no output, are
// refused rather than audited into −Inf and NaN.
func TestMechanismRefusesDegenerateNeighbours(t *testing.T) {
	m, err := laplace.New(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []MechanismOptions{
		{Sensitivity: 1, At: 1e308},
		{Sensitivity: 1, At: 1e17},
		{Sensitivity: 1e300},
	} {
		o.Samples, o.Seeded = 1000, true
		if _, err := Mechanism(context.Background(), m, o); !errors.Is(err, check.ErrParam) {
			t.Errorf("at %g, sensitivity %g: %v, want a parameter error", o.At, o.Sensitivity, err)
		}
	}
}
