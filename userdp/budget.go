package userdp

import (
	"fmt"
	"math"

	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
)

// Release is one Gaussian release of the pipeline: a vector statistic with
// ℓ2 sensitivity L2 (under adding or removing one user, in the statistic's
// units) and i.i.d. Gaussian noise of standard deviation Sigma on every
// coordinate. With float noise its privacy is μ-GDP with μ = L2/Sigma
// (Dong, Roth & Su 2019), and releases compose exactly: k Gaussian
// releases, chosen adaptively, are √(Σ μᵢ²)-GDP. With discrete noise on
// the grid Grid·ℤ, L2 includes the rounding (Δ₂ + Grid·√n) and the
// release is (μ²/2)-zCDP (Canonne, Kamath & Steinke 2020, Theorem 14);
// zCDP adds up over releases.
type Release struct {
	// Name says what was released, e.g. "item counts".
	Name string `json:"name"`
	// L2 is the ℓ2 sensitivity of the whole released vector.
	L2 float64 `json:"l2_sensitivity"`
	// Sigma is the noise standard deviation per coordinate.
	Sigma float64 `json:"sigma"`
	// Times is how many times a release of this shape is made (the ALS
	// steps for the factor statistics); 1 otherwise.
	Times int `json:"times"`
	// Grid is the discrete noise's grid step γ (a power of two; every
	// noisy coordinate of this release is an integer multiple of it,
	// though what is computed from them is not), or 0 for float
	// noise.
	Grid float64 `json:"grid,omitempty"`
}

// Mu returns the release's GDP parameter over all of its Times: √Times·L2/Sigma.
func (r Release) Mu() float64 { return math.Sqrt(float64(r.Times)) * r.L2 / r.Sigma }

// ComposeMu returns the GDP parameter of all releases together,
// √(Σ Timesᵢ·(L2ᵢ/Sigmaᵢ)²): exact for adaptively chosen Gaussian releases.
func ComposeMu(rs []Release) float64 {
	var s float64
	for _, r := range rs {
		m := r.Mu()
		s += m * m
	}
	return math.Sqrt(s)
}

// GDPDelta returns δ(ε) of a μ-GDP mechanism: the exact privacy curve of
// the Gaussian mechanism with Δ/σ = μ (Balle & Wang 2018), which is also
// the exact curve of any composition of Gaussian mechanisms whose GDP
// parameters compose to μ.
func GDPDelta(mu, epsilon float64) float64 {
	if mu <= 0 {
		return 0
	}
	d, err := gaussian.Delta(1, mu, epsilon)
	if err != nil {
		return 1
	}
	return d
}

// GDPEpsilon returns the least ε ≥ 0 with GDPDelta(mu, ε) ≤ delta.
func GDPEpsilon(mu, delta float64) (float64, error) {
	if mu <= 0 {
		return 0, nil
	}
	return gaussian.Epsilon(1, mu, delta)
}

// MuFor returns the largest μ whose privacy curve meets (epsilon, delta):
// GDPDelta(μ, epsilon) ≤ delta. It returns an error unless epsilon > 0
// and delta ∈ (0, 1).
func MuFor(epsilon, delta float64) (float64, error) {
	if !(epsilon > 0) || math.IsInf(epsilon, 0) {
		return 0, fmt.Errorf("userdp: %w: epsilon = %v, want a finite number > 0", ErrParam, epsilon)
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("userdp: %w: delta = %v, want in (0, 1)", ErrParam, delta)
	}
	// δ(ε) grows with μ: bisect on log μ.
	lo, hi := -30.0, 0.0
	for GDPDelta(math.Exp(hi), epsilon) <= delta {
		lo, hi = hi, hi+2
		if hi > 20 {
			return math.Exp(lo), nil
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if GDPDelta(math.Exp(mid), epsilon) <= delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp(lo), nil
}

// SelectionDelta returns the probability bound that private item
// selection releases an item that only the added (or removed) user rated:
//
//	δ_sel(τ) = max over 1 ≤ n ≤ maxItems of n · P[1/√n + N(0, σ²) ≥ τ].
//
// A user with n contributed items adds weight 1/√n to each item's count
// (so the count vector's ℓ2 sensitivity is 1), and an item that exists
// only because of that user has count exactly 1/√n; at most n such items
// exist, and the union bound over them gives the term for n. See the
// package documentation for why δ_sel adds to the δ of the Gaussian
// releases.
//
// It takes the maximum over every n up to selectionExactItems, and beyond
// that an upper bound over blocks [a, b] with b ≈ a·(1 + 2⁻⁶): for n in
// the block, n·P[1/√n + N(0, σ²) ≥ τ] ≤ b·P[1/√a + N(0, σ²) ≥ τ] (the
// probability falls as n grows). An upper bound on δ_sel is safe (the
// threshold that meets it is only higher), and the work is
// O(selectionExactItems + log maxItems) whatever maxItems.
func SelectionDelta(tau, sigma float64, maxItems int) float64 {
	tailAt := func(n float64) float64 { // P[1/√n + N(0, σ²) ≥ τ]
		return 0.5 * math.Erfc((tau-1/math.Sqrt(n))/sigma/math.Sqrt2)
	}
	var worst float64
	for n := 1; n <= min(maxItems, selectionExactItems); n++ {
		worst = math.Max(worst, float64(n)*tailAt(float64(n)))
	}
	for a := selectionExactItems + 1; a <= maxItems; {
		b := min(maxItems, a+a>>6)
		worst = math.Max(worst, float64(b)*tailAt(float64(a)))
		a = b + 1
	}
	return worst
}

// selectionExactItems is how far SelectionDelta takes the maximum over
// every n (the default contribution cap, 1000, is below it).
const selectionExactItems = 4096

// selectionCost is what private selection with failure probability
// δ_sel adds to the δ of the other releases: δ_sel/(1 − δ_sel). With the
// extra user the output is, by the independence of the noise on that
// user's own items, a mixture (1 − p)·Q + p·R of the output without those
// items (distributed as on the neighbour) and outputs that list one of
// them, p ≤ δ_sel; then H_{e^ε}(P‖Q') ≤ δ(ε) + p/(1 − p) in the removal
// direction and δ(ε) + p in the addition direction.
func selectionCost(deltaSel float64) float64 { return deltaSel / (1 - deltaSel) }

// SelectionThreshold returns the least threshold τ (in weighted-count
// units) with SelectionDelta(τ, sigma, maxItems) ≤ delta.
func SelectionThreshold(sigma float64, maxItems int, delta float64) float64 {
	lo, hi := 1.0, 2.0
	for SelectionDelta(hi, sigma, maxItems) > delta {
		lo, hi = hi, 2*hi
	}
	for range 100 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if SelectionDelta(mid, sigma, maxItems) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// RhoFor returns the largest zCDP ρ that meets (epsilon, delta) under
// discrete.ZCDPEpsilon's conversion (Canonne, Kamath & Steinke 2020,
// Proposition 12; discrete.ZCDPRho): the budget of a run whose releases
// carry discrete Gaussian noise, which is ρ-zCDP with ρ = Δ₂²/(2σ²) but not
// exactly μ-GDP. At δ = 10⁻⁶ it costs 5–7 % more noise than MuFor's exact
// curve. It returns an error unless epsilon > 0 and delta ∈ (0, 1).
func RhoFor(epsilon, delta float64) (float64, error) {
	if !(epsilon > 0) || math.IsInf(epsilon, 0) {
		return 0, fmt.Errorf("userdp: %w: epsilon = %v, want a finite number > 0", ErrParam, epsilon)
	}
	if !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("userdp: %w: delta = %v, want in (0, 1)", ErrParam, delta)
	}
	rho, err := discrete.ZCDPRho(epsilon, delta)
	if err != nil {
		return 0, fmt.Errorf("userdp: %w", err)
	}
	return rho, nil
}
