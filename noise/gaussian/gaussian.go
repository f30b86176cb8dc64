// Package gaussian implements the Gaussian mechanism: i.i.d. N(0, σ²) noise
// added to every coordinate, which gives (ε, δ)-differential privacy for a
// statistic of ℓ2 sensitivity Δ₂.
//
// Two calibrations relate σ, ε and δ:
//
//   - The analytic Gaussian mechanism of Balle & Wang (ICML 2018, Theorem 8),
//     the default: the exact privacy profile
//     δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),
//     inverted by bisection. It is tight for every ε > 0.
//   - The classic bound σ = √(2 ln(1.25/δ)) · Δ/ε (Dwork & Roth, Theorem
//     A.1), which is only proved for ε < 1. ClassicEpsilon and ClassicSigma
//     refuse to present a value outside that range as a guarantee.
//
// The profile and its inversion are written here because no well-kept Go
// library exports them (Google's differential-privacy/go keeps its Gaussian
// calibration internal). Sampling uses math/rand/v2's NormFloat64.
package gaussian

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Mechanism is the Gaussian mechanism with standard deviation σ. Build it
// with New; the zero value is not usable. It is immutable and safe for
// concurrent use.
type Mechanism struct {
	sigma float64
}

var _ noise.Mechanism = (*Mechanism)(nil)

// New returns the Gaussian mechanism with standard deviation sigma (in units
// of the statistic). It returns an error if sigma is not a finite number in
// [1e-100, 1e100].
func New(sigma float64) (*Mechanism, error) {
	if err := check.NoiseParam("gaussian sigma", sigma); err != nil {
		return nil, err
	}
	return &Mechanism{sigma: sigma}, nil
}

// Sigma returns σ.
func (m *Mechanism) Sigma() float64 { return m.sigma }

// Name returns "gaussian".
func (m *Mechanism) Name() string { return "gaussian" }

// String returns "gaussian(σ=…)".
func (m *Mechanism) String() string { return fmt.Sprintf("gaussian(σ=%.6g)", m.sigma) }

// Sample draws one N(0, σ²) value.
func (m *Mechanism) Sample(r *rand.Rand) float64 { return m.sigma * r.NormFloat64() }

// Variance returns σ².
func (m *Mechanism) Variance() float64 { return m.sigma * m.sigma }

// Guarantee returns the analytic-Gaussian (ε, δ) guarantee: the smallest ε
// with δ(ε) ≤ delta for ℓ2 sensitivity sens.L2. It returns an error if
// sens.L2 is not positive or delta is not in (0, 1).
func (m *Mechanism) Guarantee(sens noise.Sensitivity, delta float64) (noise.Guarantee, error) {
	eps, err := Epsilon(m.sigma, sens.L2, delta)
	if err != nil {
		return noise.Guarantee{}, err
	}
	return noise.Guarantee{Epsilon: eps, Delta: delta}, nil
}

// PDF returns the density of the noise at x.
func (m *Mechanism) PDF(x float64) float64 { return math.Exp(m.LogPDF(x)) }

// LogPDF returns the natural log of the density at x.
func (m *Mechanism) LogPDF(x float64) float64 {
	z := x / m.sigma
	return -z*z/2 - math.Log(m.sigma) - 0.5*math.Log(2*math.Pi)
}

// CDF returns P(noise ≤ x).
func (m *Mechanism) CDF(x float64) float64 { return Phi(x / m.sigma) }

// Phi is the standard normal distribution function Φ.
func Phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// LogPhi returns log Φ(x), accurate also far in the lower tail where Φ(x)
// underflows (it uses the asymptotic series of the Mills ratio below −35).
func LogPhi(x float64) float64 {
	if x > -35 {
		return math.Log(Phi(x))
	}
	x2 := x * x
	inv := 1 / x2
	// 1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸; the next term is below 1e-12 here.
	series := 1 + inv*(-1+inv*(3+inv*(-15+inv*105)))
	return -x2/2 - math.Log(-x) - 0.5*math.Log(2*math.Pi) + math.Log(series)
}

// checkL2Delta validates the ℓ2 sensitivity and δ arguments.
func checkL2Delta(l2, delta float64) error {
	if err := check.Positive("sensitivity L2 (Gaussian uses the ℓ2 sensitivity)", l2); err != nil {
		return err
	}
	return check.Probability("delta", delta)
}

// Delta returns the exact δ(ε) of the Gaussian mechanism with standard
// deviation sigma on a statistic of ℓ2 sensitivity l2 (Balle & Wang 2018,
// Theorem 8). It returns an error if sigma or l2 is not positive and finite
// or epsilon is negative.
func Delta(sigma, l2, epsilon float64) (float64, error) {
	if err := check.Positive("sigma", sigma); err != nil {
		return 0, err
	}
	if err := check.Positive("sensitivity L2", l2); err != nil {
		return 0, err
	}
	if err := check.NonNegative("epsilon", epsilon); err != nil {
		return 0, err
	}
	return profile(l2/sigma, epsilon), nil
}

// profile is δ(ε) for the Gaussian mechanism with μ = Δ/σ.
func profile(mu, eps float64) float64 {
	a := mu/2 - eps/mu
	b := -mu/2 - eps/mu
	d := Phi(a) - math.Exp(eps+LogPhi(b))
	return math.Max(d, 0)
}

// Epsilon returns the smallest ε ≥ 0 such that the Gaussian mechanism with
// standard deviation sigma is (ε, delta)-DP for ℓ2 sensitivity l2, from the
// exact analytic profile. It returns an error if an argument is out of
// range.
func Epsilon(sigma, l2, delta float64) (float64, error) {
	if err := check.Positive("sigma", sigma); err != nil {
		return 0, err
	}
	if err := checkL2Delta(l2, delta); err != nil {
		return 0, err
	}
	mu := l2 / sigma
	if profile(mu, 0) <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for profile(mu, hi) > delta {
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return 0, fmt.Errorf("gaussian: no ε below 1e12 reaches delta = %g at sigma = %g, L2 = %g", delta, sigma, l2)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if profile(mu, mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// Sigma returns the smallest σ for which the Gaussian mechanism is
// (epsilon, delta)-DP for ℓ2 sensitivity l2, from the exact analytic profile
// (the analytic Gaussian mechanism's calibration). It returns an error if an
// argument is out of range.
func Sigma(epsilon, l2, delta float64) (float64, error) {
	if err := check.Positive("epsilon", epsilon); err != nil {
		return 0, err
	}
	if err := checkL2Delta(l2, delta); err != nil {
		return 0, err
	}
	// δ(ε) decreases as σ grows; with μ = l2/σ, bisect on log σ/l2.
	f := func(logRatio float64) float64 { return profile(math.Exp(-logRatio), epsilon) }
	lo, hi := -1.0, 1.0
	for f(lo) <= delta {
		lo -= 2
		if lo < -200 {
			return 0, fmt.Errorf("gaussian: calibration failed for epsilon = %g, delta = %g", epsilon, delta)
		}
	}
	for f(hi) > delta {
		hi += 2
		if hi > 200 {
			return 0, fmt.Errorf("gaussian: calibration failed for epsilon = %g, delta = %g", epsilon, delta)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if f(mid) > delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return l2 * math.Exp(hi), nil
}

// ErrClassicRange reports that the classic calibration was used at ε ≥ 1,
// where Dwork & Roth's Theorem A.1 does not apply and the formula is not a
// proved guarantee.
var ErrClassicRange = errors.New("classic Gaussian bound is only proved for epsilon < 1")

// ClassicEpsilon returns ε = √(2 ln(1.25/δ)) · Δ₂/σ, the inverse of the
// classic calibration. When that ε is ≥ 1 the formula proves nothing: the
// value is still returned, for comparison with published tables, together
// with an error wrapping ErrClassicRange — callers must not present it as a
// guarantee. Other errors report invalid arguments.
func ClassicEpsilon(sigma, l2, delta float64) (float64, error) {
	if err := check.Positive("sigma", sigma); err != nil {
		return 0, err
	}
	if err := checkL2Delta(l2, delta); err != nil {
		return 0, err
	}
	eps := math.Sqrt(2*math.Log(1.25/delta)) * l2 / sigma
	if eps >= 1 {
		return eps, fmt.Errorf("%w: formula gives epsilon = %.6g (use the analytic calibration)", ErrClassicRange, eps)
	}
	return eps, nil
}

// ClassicSigma returns σ = √(2 ln(1.25/δ)) · Δ₂/ε, the classic calibration.
// It returns an error wrapping ErrClassicRange if epsilon ≥ 1, and an error
// naming the parameter if an argument is otherwise invalid.
func ClassicSigma(epsilon, l2, delta float64) (float64, error) {
	if err := check.Positive("epsilon", epsilon); err != nil {
		return 0, err
	}
	if err := checkL2Delta(l2, delta); err != nil {
		return 0, err
	}
	if epsilon >= 1 {
		return 0, fmt.Errorf("%w: got epsilon = %g (use the analytic calibration)", ErrClassicRange, epsilon)
	}
	return math.Sqrt(2*math.Log(1.25/delta)) * l2 / epsilon, nil
}

// SigmaForVariance returns σ = √v, the standard deviation whose noise has
// variance v. It returns an error if v is not positive and finite.
func SigmaForVariance(v float64) (float64, error) {
	if err := check.Positive("variance", v); err != nil {
		return 0, err
	}
	return math.Sqrt(v), nil
}
