package huber

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/cryptotest"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dpmc/dpmc/internal/ziggurat"
	"github.com/dpmc/dpmc/rng"
)

// TestSamplerChiSquare is a χ² goodness-of-fit test of the sampler
// (through Sample, and AddNoise on vectors of 32 and of 7) at shapes that take
// every way through them: α = 10⁻⁴ and 0.05 (almost all tail, a uniform
// proposal for the body), 0.999 and 1 (either side of the switch to the
// ziggurat), 3.3 (truncation inside the ziggurat's layers), 4 and 40
// (beyond the start of its normal tail at r ≈ 3.44). The bins are 60 of equal
// probability under the exact CDF plus edges at ±α and ±r when these
// carry mass above 10⁻⁷, so that each piece of the density is tested on
// its own. With 2·10⁵ draws per case, each case fails falsely with
// probability 10⁻³ (its χ² critical value); at the fixed seeds a case
// either always passes or always fails.
func TestSamplerChiSquare(t *testing.T) {
	const n, level = 200000, 1e-3
	draws := map[string]func(m *Mechanism, seed uint64) []float64{
		"Sample": func(m *Mechanism, seed uint64) []float64 {
			r, x := rng.Stream(77, seed), make([]float64, n)
			for i := range x {
				x[i] = m.Sample(r)
			}
			return x
		},
		"AddNoise/32": func(m *Mechanism, seed uint64) []float64 { return vectorDraws(m, rng.Stream(78, seed), n, 32) },
		"AddNoise/7":  func(m *Mechanism, seed uint64) []float64 { return vectorDraws(m, rng.Stream(79, seed), n, 7) },
	}
	for i, alpha := range []float64{1e-4, 0.05, 0.999, 1, 3.3, 4, 40} {
		m, err := New(alpha, 1.5)
		if err != nil {
			t.Fatal(err)
		}
		edges := binEdges(m, 60)
		crit := distuv.ChiSquared{K: float64(len(edges))}.Quantile(1 - level)
		for _, name := range []string{"Sample", "AddNoise/32", "AddNoise/7"} {
			t.Run(fmt.Sprintf("alpha=%g/%s", alpha, name), func(t *testing.T) {
				x := draws[name](m, uint64(i))
				chi2 := chiSquare(m, x, edges)
				if chi2 > crit {
					t.Errorf("χ² = %.1f over %d degrees of freedom > %.1f (false alarm %g)", chi2, len(edges), crit, level)
				}
			})
		}
	}
}

// vectorDraws returns n draws of m made by AddNoise on vectors of length
// k, zeroed before each call.
func vectorDraws(m *Mechanism, r *rand.Rand, n, k int) []float64 {
	x := make([]float64, 0, n+k)
	v := make([]float64, k)
	for len(x) < n {
		clear(v)
		m.AddNoise(v, r)
		x = append(x, v...)
	}
	return x[:n]
}

// binEdges returns the inner edges of the χ² bins for m: the quantiles of
// probability k/bins, and ±α and ±r (in units of s·T), keeping only
// edges that leave at least minMass of probability in every bin.
func binEdges(m *Mechanism, bins int) []float64 {
	const minMass = 1e-4 // 20 expected draws in 2·10⁵
	s := m.Scale()
	cand := []float64{-m.Alpha() * s, m.Alpha() * s, -ziggurat.TailStart() * s, ziggurat.TailStart() * s}
	for k := 1; k < bins; k++ {
		cand = append(cand, quantile(m, float64(k)/float64(bins)))
	}
	slices.Sort(cand)
	var edges []float64
	last := 0.0 // CDF at the last edge kept
	for _, e := range cand {
		if c := m.CDF(e); c-last >= minMass && 1-c >= minMass {
			edges = append(edges, e)
			last = c
		}
	}
	return edges
}

// quantile returns x with CDF(x) = p, by bisection.
func quantile(m *Mechanism, p float64) float64 {
	lo, hi := -1.0, 1.0
	for m.CDF(lo) > p {
		lo *= 2
	}
	for m.CDF(hi) < p {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if m.CDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// chiSquare returns Pearson's χ² statistic of the draws x over the bins
// cut at edges, against m's CDF.
func chiSquare(m *Mechanism, x, edges []float64) float64 {
	count := make([]int, len(edges)+1)
	for _, v := range x {
		k, _ := slices.BinarySearch(edges, v)
		count[k]++
	}
	var chi2, prev float64
	for k, c := range count {
		next := 1.0
		if k < len(edges) {
			next = m.CDF(edges[k])
		}
		exp := float64(len(x)) * (next - prev)
		chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
		prev = next
	}
	return chi2
}

// TestAddNoiseDrawsAsSample holds AddNoise, whose loop inlines the common
// case of a draw, to what Sample draws from the same stream, bit for bit,
// at shapes where the common case is rare (α = 0.05, 0.5), usual (3) and
// nearly certain (40), and on each of AddNoise's paths: a seeded ChaCha8
// (a direct call per word), rng.Crypto (runs of buffered words; crypto/rand
// made reproducible by cryptotest.SetGlobalRandom), a keyed stream (runs
// of the 124 buffered words of each ChaCha8 key) and any other source
// (PCG: r.Uint64()). The vectors (1000 values, then 3000 of 32 and some
// of 0, 1 and 7) take AddNoise across the crypto buffer's refills at 64 and
// 64 + 512·k words, about 190 times, with rare cases inside a run of
// buffered words (about 3 100 at α = 3) and on its last word (5 at α = 3,
// counted once with a scratch copy of the loop); after them both streams
// must be at the same word, so AddNoise neither reads ahead nor skips.
func TestAddNoiseDrawsAsSample(t *testing.T) {
	keyed := rng.NewKeyed()
	sources := []struct {
		name string
		new  func() *rand.Rand // the same stream on every call
	}{
		{"chacha8", func() *rand.Rand { return rng.Seeded(8) }},
		{"crypto", func() *rand.Rand { cryptotest.SetGlobalRandom(t, 8); return rng.Crypto() }},
		{"keyed", func() *rand.Rand { return keyed.Stream(8, 9) }},
		{"pcg", func() *rand.Rand { return rand.New(rand.NewPCG(8, 9)) }},
	}
	lengths := []int{1000, 0, 1, 7}
	for range 3000 {
		lengths = append(lengths, 32)
	}
	lengths = append(lengths, 1, 7, 0, 5)
	for _, src := range sources {
		for _, alpha := range []float64{0.05, 0.5, 3, 40} {
			m, _ := New(alpha, 0.7)
			var got [][]float64
			r := src.new()
			for _, n := range lengths {
				x := make([]float64, n)
				for i := range x {
					x[i] = float64(i)
				}
				m.AddNoise(x, r)
				got = append(got, x)
			}
			after := r.Uint64()
			r = src.new()
			for c, x := range got {
				for i, v := range x {
					if want := float64(i) + m.Sample(r); math.Float64bits(v) != math.Float64bits(want) {
						t.Fatalf("%s, α = %g: vector %d (of %d), x[%d] = %v, want %v", src.name, alpha, c, len(x), i, v, want)
					}
				}
			}
			if want := r.Uint64(); after != want {
				t.Errorf("%s, α = %g: the word after the vectors is %#x, want %#x: AddNoise drew a different number of words", src.name, alpha, after, want)
			}
		}
	}
}
