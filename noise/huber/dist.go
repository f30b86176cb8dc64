package huber

import (
	"math"

	"github.com/dpmc/dpmc/internal/check"
)

const sqrt2Pi = 2.5066282746310002 // √(2π)

// Loss returns the Huber loss ρ_α(t): t²/2 for |t| ≤ α, α(|t| − α/2)
// beyond. alpha must be positive; it is not checked, so that solvers can
// call Loss in their inner loops.
func Loss(alpha, t float64) float64 {
	a := math.Abs(t)
	if a <= alpha {
		return t * t / 2
	}
	return alpha * (a - alpha/2)
}

// Influence returns the Huber influence function ψ_α(t) = sign(t)·min(|t|, α),
// the derivative of Loss. alpha must be positive; it is not checked.
func Influence(alpha, t float64) float64 {
	switch {
	case t > alpha:
		return alpha
	case t < -alpha:
		return -alpha
	}
	return t
}

// Weight returns the IRLS weight ψ_α(r)/r, which is 1 for |r| ≤ α (and at
// r = 0) and α/|r| beyond. alpha must be positive; it is not checked.
func Weight(alpha, r float64) float64 {
	a := math.Abs(r)
	if a <= alpha {
		return 1
	}
	return alpha / a
}

// masses returns the two unnormalized masses of the unit-scale density:
// centre = √(2π)(2Φ(α) − 1) = √(2π) erf(α/√2), and tails = (2/α)e^{−α²/2}.
func masses(alpha float64) (centre, tails float64) {
	return sqrt2Pi * math.Erf(alpha/math.Sqrt2), 2 / alpha * math.Exp(-alpha*alpha/2)
}

// Kappa returns the normalizing constant κ_α of the unit-scale density
// (paper, eq. 1): 1 / ((2/α)e^{−α²/2} + √(2π)(2Φ(α) − 1)). It returns an
// error if alpha is not a finite number in [1e-100, 1e100].
func Kappa(alpha float64) (float64, error) {
	if err := check.NoiseParam("huber alpha", alpha); err != nil {
		return 0, err
	}
	c, t := masses(alpha)
	return 1 / (c + t), nil
}

// UnitVariance returns the variance of T, the unit-scale (s = 1) Huber
// noise, in closed form:
//
//	Var T = [√(2π) erf(α/√2) + e^{−α²/2}(4/α + 4/α³)] / [√(2π) erf(α/√2) + (2/α)e^{−α²/2}],
//
// which decreases from +∞ (α → 0) to 1 (α → ∞). It returns an error if
// alpha is not a finite number in [1e-100, 1e100]. Near α → 0 the variance
// grows like 2/α² (2e200 at the smallest α allowed).
func UnitVariance(alpha float64) (float64, error) {
	if err := check.NoiseParam("huber alpha", alpha); err != nil {
		return 0, err
	}
	return unitVariance(alpha), nil
}

// unitVariance is UnitVariance without the check. Numerator and denominator
// are multiplied by α³ so that tiny α never forms Inf/Inf.
func unitVariance(alpha float64) float64 {
	c, _ := masses(alpha)
	e := math.Exp(-alpha * alpha / 2)
	a2 := alpha * alpha
	a3 := a2 * alpha
	return (a3*c + e*(4*a2+4)) / (a3*c + 2*a2*e)
}

// logKappa returns log κ_α without overflow for tiny α.
func logKappa(alpha float64) float64 {
	c, t := masses(alpha)
	return -math.Log(c + t)
}

// unitCDF returns P(T ≤ x) for the unit-scale noise, computed on the side
// where it is small so that both tails keep full relative precision.
func unitCDF(alpha, lk, x float64) float64 {
	if x > 0 {
		return 1 - unitCDF(alpha, lk, -x)
	}
	if x <= -alpha {
		// κ/α · exp(αx + α²/2)
		return math.Exp(lk - math.Log(alpha) + alpha*x + alpha*alpha/2)
	}
	// Left tail mass plus the Gaussian part from −α to x.
	left := math.Exp(lk - math.Log(alpha) - alpha*alpha/2)
	centre := math.Exp(lk) * sqrt2Pi * 0.5 * (math.Erfc(-x/math.Sqrt2) - math.Erfc(alpha/math.Sqrt2))
	return left + centre
}
