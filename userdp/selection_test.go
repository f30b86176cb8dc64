package userdp

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file checks the selection δ from first principles: the exact
// probability that private selection releases one of the items that only
// the added user rated, computed from the noise's distribution (not from
// SelectionDelta's formula), and measured on the pipeline's own count
// release.

// gaussQ is P[N(0, 1) ≥ x].
func gaussQ(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// loneReleaseProb returns bounds lo ≤ P ≤ hi on the probability that the
// released count of an item whose only contribution is c (one user's
// weight 1/√n) reaches tau, for the plan's count noise z, computed from
// the noise's own law:
//
//   - float noise: c + N(0, σ²) ≥ τ, P = Q((τ − c)/σ) (lo = hi);
//   - discrete noise: the release is γ·(round(c/γ) + K) with
//     P[K = k] = f(k)/Z, f(k) = exp(−k²/(2S)) and S = σ²/γ² the grid
//     variance, so it reaches τ iff K ≥ m = ⌈τ/γ − round(c/γ)⌉. As f
//     decreases on [m − 1, ∞) for m ≥ 1, ∫_m^∞ f ≤ Σ_{k≥m} f(k) ≤
//     ∫_{m−1}^∞ f, and as f is unimodal with maximum 1,
//     |Z − √(2πS)| ≤ 1: brute-force bounds on the exact tail sum, a
//     relative width of about 1/√S ≈ 2⁻²⁸.
func loneReleaseProb(z noiser, c, tau float64) (lo, hi float64) {
	if z.d == nil {
		p := gaussQ((tau - c) / z.sigma)
		return p, p
	}
	g := z.d.Granularity()
	s := math.Sqrt(float64(z.d.GridSigma2()))
	m := math.Ceil(tau/g - math.Round(c/g))
	if m < 1 {
		return 0, 1 // not a tail: no bound needed by the tests
	}
	root := s * math.Sqrt(2*math.Pi)
	return root * gaussQ(m/s) / (root + 1), root * gaussQ((m-1)/s) / (root - 1)
}

// anyOf is the probability that at least one of n independent events of
// probability p happens.
func anyOf(p float64, n int) float64 { return -math.Expm1(float64(n) * math.Log1p(-p)) }

// selectionPlan returns a decided plan under private selection.
func selectionPlan(t *testing.T, eps, delta float64, k int, sampler Sampler) *Plan {
	t.Helper()
	o := Defaults(eps, delta, 1, 5).WithFactors(0, 0, 0)
	o.MaxItemsPerUser, o.Sampler, o.Seeded, o.Seed = k, sampler, true, 9
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	// Decide without its δ-against-users refusal: the Monte Carlo test
	// needs δ = 0.3 to make the release probability measurable, which
	// Decide rightly refuses for a real release.
	p.decided = true
	p.decideFactors(1000)
	if err := p.planRest(); err != nil {
		t.Fatal(err)
	}
	return p
}

// The selection δ the report states bounds, for every number n of
// contributed items, the exact probability that one of n items rated by
// the added user alone (count 1/√n each, independent noise) is released:
// 1 − (1 − P[count ≥ τ])ⁿ from the noise's law (loneReleaseProb). The
// worst n comes within a factor 2 of it (the bound is not vacuous).
func TestSelectionDeltaFromFirstPrinciples(t *testing.T) {
	for _, tc := range []struct {
		eps, delta float64
		k          int
		sampler    Sampler
	}{
		{1, 1e-6, 1000, SamplerDiscrete},
		{5, 1e-6, 1, SamplerDiscrete},
		{20, 1e-8, 50, SamplerDiscrete},
		{0.5, 1e-6, 1000, SamplerFloat},
		{8, 1e-6, 6, SamplerFloat},
		{1, 0.3, 3, SamplerDiscrete},
	} {
		t.Run(fmt.Sprintf("ε %g δ %g k %d %v", tc.eps, tc.delta, tc.k, tc.sampler), func(t *testing.T) {
			p := selectionPlan(t, tc.eps, tc.delta, tc.k, tc.sampler)
			r := p.Report()
			claim := r.SelectionDelta
			if !(claim > 0) || !(r.Threshold > 0) {
				t.Fatalf("selection δ %g, threshold %g", claim, r.Threshold)
			}
			var worstHi, worstLo float64
			worstN := 0
			for n := 1; n <= tc.k; n++ {
				lo, hi := loneReleaseProb(p.noise.counts, 1/math.Sqrt(float64(n)), r.Threshold)
				if a := anyOf(hi, n); a > worstHi {
					worstHi, worstN = a, n
				}
				worstLo = math.Max(worstLo, anyOf(lo, n))
			}
			t.Logf("τ = %.6g, σ = %.4g: worst n = %d, P[a lone user's item is released] ∈ [%.6g, %.6g], stated δ_sel = %.6g", r.Threshold, p.noise.counts.sigma, worstN, worstLo, worstHi, claim)
			if worstHi > claim*(1+1e-9) {
				t.Errorf("n = %d: a lone user's item is released with probability up to %.6g, above the stated selection δ %.6g", worstN, worstHi, claim)
			}
			if worstLo < claim/2 {
				t.Errorf("the stated selection δ %.6g is more than twice the exact worst case %.6g", claim, worstLo)
			}
		})
	}
}

// The pipeline's own count release and selection (ReleaseCount,
// Selected) release a lone user's item as often as loneReleaseProb says:
// at δ = 0.3 (so that the probability is measurable), 20 000 lone users
// per n, each with n items of their own; the count of users with an item
// released is checked against the binomial law with the exact
// probability at a false-alarm rate of 10⁻⁴ over all cases (Bonferroni).
func TestSelectionMonteCarlo(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	const users, k = 20000, 3
	samplers := []Sampler{SamplerDiscrete, SamplerFloat}
	alpha := 1e-4 / float64(len(samplers)*k)
	for _, sampler := range samplers {
		p := selectionPlan(t, 1, 0.3, k, sampler)
		r := p.Report()
		for n := 1; n <= k; n++ {
			hits := 0
			for u := range users {
				for j := range n {
					id := fmt.Sprintf("lone-%d-%d-%d", n, u, j)
					if p.Selected(releaseCountOf(t, p, id, p.CountWeight(n)), true) {
						hits++
						break
					}
				}
			}
			lo, hi := loneReleaseProb(p.noise.counts, 1/math.Sqrt(float64(n)), r.Threshold)
			b := distuv.Binomial{N: users, P: anyOf((lo+hi)/2, n)}
			pv := 2 * math.Min(b.CDF(float64(hits)), 1-b.CDF(float64(hits)-1))
			t.Logf("%v n = %d: %d of %d lone users had an item released, exact probability %.5f (p = %.3g)", sampler, n, hits, users, b.P, pv)
			if pv < alpha {
				t.Errorf("%v n = %d: %d of %d lone users had an item released, want about %.0f (exact probability %.5f; p = %.3g < %.3g)", sampler, n, hits, users, b.P*users, b.P, pv, alpha)
			}
			if float64(hits)/users > r.SelectionDelta*1.1 {
				t.Errorf("%v n = %d: measured release probability %.5f above the stated selection δ %.5f", sampler, n, float64(hits)/users, r.SelectionDelta)
			}
		}
	}
}
