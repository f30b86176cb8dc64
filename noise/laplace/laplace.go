// Package laplace implements the Laplace mechanism: i.i.d. noise with density
// exp(−|t|/b)/(2b) added to every coordinate, which gives pure ε-differential
// privacy with ε = Δ₁/b for a statistic of ℓ1 sensitivity Δ₁ (Dwork & Roth,
// Theorem 3.6). Its variance is 2b².
//
// Sampling is one exponential draw and a sign, so it is written here rather
// than taken from a library; gonum's distuv.Laplace serves as the
// independent reference in the tests. Like every textbook floating-point
// Laplace sampler, it does not address the low-order-bit attack of Mironov
// (2012); see the audit command.
package laplace

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Mechanism is the Laplace mechanism with scale b. Build it with New; the
// zero value is not usable. It is immutable and safe for concurrent use.
type Mechanism struct {
	b float64
}

var _ noise.Mechanism = (*Mechanism)(nil)

// New returns the Laplace mechanism with scale b (in units of the
// statistic). It returns an error if b is not a finite number in
// [1e-100, 1e100].
func New(b float64) (*Mechanism, error) {
	if err := check.NoiseParam("laplace scale b", b); err != nil {
		return nil, err
	}
	return &Mechanism{b: b}, nil
}

// Scale returns b.
func (m *Mechanism) Scale() float64 { return m.b }

// Name returns "laplace".
func (m *Mechanism) Name() string { return "laplace" }

// String returns "laplace(b=…)".
func (m *Mechanism) String() string { return fmt.Sprintf("laplace(b=%.6g)", m.b) }

// Sample draws one noise value: a sign times b times a standard exponential.
func (m *Mechanism) Sample(r *rand.Rand) float64 {
	e := m.b * r.ExpFloat64()
	if r.Uint64()&1 == 0 {
		return -e
	}
	return e
}

// Variance returns 2b².
func (m *Mechanism) Variance() float64 { return 2 * m.b * m.b }

// Guarantee returns pure ε-DP with ε = sens.L1 / b; delta is ignored. It
// returns an error if sens.L1 is not positive and finite.
func (m *Mechanism) Guarantee(sens noise.Sensitivity, delta float64) (noise.Guarantee, error) {
	if err := check.Positive("sensitivity L1 (Laplace uses the ℓ1 sensitivity)", sens.L1); err != nil {
		return noise.Guarantee{}, err
	}
	return noise.Guarantee{Epsilon: sens.L1 / m.b}, nil
}

// PDF returns the density of the noise at x.
func (m *Mechanism) PDF(x float64) float64 { return math.Exp(m.LogPDF(x)) }

// LogPDF returns the natural log of the density at x: −|x|/b − log(2b).
func (m *Mechanism) LogPDF(x float64) float64 { return -math.Abs(x)/m.b - math.Log(2*m.b) }

// CDF returns P(noise ≤ x).
func (m *Mechanism) CDF(x float64) float64 {
	if x <= 0 {
		return 0.5 * math.Exp(x/m.b)
	}
	return 1 - 0.5*math.Exp(-x/m.b)
}

// ScaleForEpsilon returns the scale b = Δ₁/ε that gives pure ε-DP for a
// statistic of ℓ1 sensitivity l1. It returns an error if epsilon or l1 is
// not positive and finite.
func ScaleForEpsilon(epsilon, l1 float64) (float64, error) {
	if err := check.Positive("epsilon", epsilon); err != nil {
		return 0, err
	}
	if err := check.Positive("sensitivity L1", l1); err != nil {
		return 0, err
	}
	return l1 / epsilon, nil
}

// ScaleForVariance returns the scale b = √(v/2) whose noise has variance v.
// It returns an error if v is not positive and finite.
func ScaleForVariance(v float64) (float64, error) {
	if err := check.Positive("variance", v); err != nil {
		return 0, err
	}
	return math.Sqrt(v / 2), nil
}
