package huber

import (
	"fmt"
	"math"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// AlphaForVariance returns the α at which the unit-scale (s = 1) Huber noise
// has variance v: the paper's way of matching the Huber mechanism to a
// Gaussian or Laplace one of the same variance. Since Var T > 1 for every
// finite α, v must exceed 1; for v ≤ 1 it returns an error that says so
// (the paper uses α = 3, variance 1.0036, for "variance 1"). The result is
// found by bisection on log α to full float64 precision.
func AlphaForVariance(v float64) (float64, error) {
	if err := check.Positive("variance", v); err != nil {
		return 0, err
	}
	if v <= 1 {
		return 0, fmt.Errorf("%w: variance = %v: at scale s = 1 the Huber variance exceeds 1 for every finite alpha; pick an alpha directly (the paper uses 3 for variance 1) or use a scale s < 1", check.ErrParam, v)
	}
	// unitVariance decreases in α. Bracket in log α.
	lo, hi := math.Log(check.MinParam), math.Log(64.0)
	if unitVariance(math.Exp(lo)) < v {
		return 0, fmt.Errorf("%w: variance = %v is too large for alpha ≥ %g", check.ErrParam, v, check.MinParam)
	}
	if unitVariance(math.Exp(hi)) > v {
		return 0, fmt.Errorf("%w: variance = %v is too close to 1 to resolve in float64", check.ErrParam, v)
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if unitVariance(math.Exp(mid)) > v {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2), nil
}

// ScaleForEpsilon returns the scale s = α·Δ₁/ε at which the Huber mechanism
// with shape alpha gives pure ε-DP for ℓ1 sensitivity l1. It returns an
// error if an argument is not positive and finite.
func ScaleForEpsilon(epsilon, alpha, l1 float64) (float64, error) {
	if err := check.Positive("epsilon", epsilon); err != nil {
		return 0, err
	}
	if err := check.NoiseParam("huber alpha", alpha); err != nil {
		return 0, err
	}
	if err := check.Positive("sensitivity L1", l1); err != nil {
		return 0, err
	}
	return alpha * l1 / epsilon, nil
}

// Epsilon returns ε = α·Δ₁/s, the pure-DP budget of one release of the Huber
// mechanism with shape alpha and scale s on a statistic of ℓ1 sensitivity
// l1. It returns an error if an argument is invalid.
func Epsilon(alpha, scale, l1 float64) (float64, error) {
	m, err := New(alpha, scale)
	if err != nil {
		return 0, err
	}
	g, err := m.Guarantee(noise.Sensitivity{L1: l1}, 0)
	return g.Epsilon, err
}

// PaperAlpha is the shape the paper uses for Huber noise of "variance 1".
const PaperAlpha = 3

// PaperSetting returns the shape α and scale s that the paper's convention
// gives for noise variance v: s = 1 and α = AlphaForVariance(v) when v > 1;
// α = 3, s = 1 at v = 1 (the paper's choice, exact variance 1.0036); and
// α = 3 with s shrunk to reach v when v < 1, which the paper never needs.
// It returns an error if v is not positive and finite.
func PaperSetting(v float64) (alpha, scale float64, err error) {
	if err := check.Positive("variance", v); err != nil {
		return 0, 0, err
	}
	switch {
	case v > 1:
		alpha, err = AlphaForVariance(v)
		return alpha, 1, err
	case v == 1:
		return PaperAlpha, 1, nil
	}
	return PaperAlpha, math.Sqrt(v / unitVariance(PaperAlpha)), nil
}
