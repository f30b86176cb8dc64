package discrete

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Laplace is the discrete Laplace mechanism on the grid γℤ: noise γ·K with
// P(K = k) ∝ exp(−|k|/t) for an integer t in [2⁴⁰, 2⁴¹], so the noise has
// scale b = t·γ. Build it with NewLaplace; it is immutable and safe for
// concurrent use.
type Laplace struct {
	gamma float64
	t     uint64

	zigOnce sync.Once
	zig     *zigTable // nil if the table could not be built
}

var _ Mechanism = (*Laplace)(nil)

// NewLaplace returns the discrete Laplace mechanism closest to the Laplace
// mechanism of scale b (in units of the statistic): γ is the largest power
// of two ≤ b·2⁻⁴⁰ and the scale is rounded up to the grid, t = ⌈b/γ⌉, so
// the scale used, Scale() = t·γ, exceeds b by less than 2⁻⁴⁰ relative. It
// returns an error wrapping ErrParam unless b is in [1e-100, 1e100].
func NewLaplace(b float64) (*Laplace, error) {
	if err := check.NoiseParam("Laplace scale b", b); err != nil {
		return nil, fmt.Errorf("discrete: %w", err)
	}
	g := gridFor(b, gridBitsLaplace)
	return &Laplace{gamma: g, t: uint64(math.Ceil(b / g))}, nil
}

// Name returns "discrete-laplace".
func (m *Laplace) Name() string { return "discrete-laplace" }

// String describes the mechanism, e.g. "discrete-laplace(b=2, γ=2^-39)".
func (m *Laplace) String() string {
	return fmt.Sprintf("discrete-laplace(b=%.6g, γ=2^%d)", m.Scale(), math.Ilogb(m.gamma))
}

// Granularity returns the grid step γ.
func (m *Laplace) Granularity() float64 { return m.gamma }

// Scale returns the scale actually used, t·γ, in units of the statistic.
func (m *Laplace) Scale() float64 { return float64(m.t) * m.gamma }

// GridScale returns t = Scale()/γ, the scale in grid units.
func (m *Laplace) GridScale() uint64 { return m.t }

// Int draws K with P(K = k) ∝ exp(−|k|/t), exactly, from a ziggurat on
// the grid (see the package comment); the table is built on the first
// call, in about 40 µs. Should it fail to build, Int falls back
// to the rejection sampler of CKS Algorithm 2, exact too.
func (m *Laplace) Int(r *rand.Rand) int64 {
	m.zigOnce.Do(func() {
		m.zig, _ = newLaplaceZig(m.t)
	})
	if m.zig != nil {
		return m.zig.draw(r)
	}
	return laplaceInt(r, from64(m.t), 1)
}

// Sample returns one noise value γ·K. Add it only to values already on the
// grid (AddTo and noise.AddNoise do the rounding).
func (m *Laplace) Sample(r *rand.Rand) float64 { return float64(m.Int(r)) * m.gamma }

// AddTo returns v rounded to the grid plus one noise draw (see
// noise.Granular).
func (m *Laplace) AddTo(v float64, r *rand.Rand) float64 { return addTo(v, m.gamma, m.Int(r)) }

// Variance returns the variance of one noise value,
// γ²·2q/(1 − q)² with q = e^{−1/t}.
func (m *Laplace) Variance() float64 {
	x := 1 / float64(m.t)
	q := math.Exp(-x)
	d := -math.Expm1(-x)
	return m.gamma * m.gamma * 2 * q / (d * d)
}

// Guarantee returns the pure ε-DP guarantee of one release of a
// grid-rounded statistic whose ℓ1 sensitivity (after rounding; see
// RoundedSensitivity) is sens.L1: the shift is at most D = ⌈Δ₁/γ⌉ grid
// units in total, the log-ratio of the pmfs is at most D/t, and
// ε = D/t, rounded up. Shifts by whole grid units keep the normalizer, so
// δ = 0 exactly; delta is ignored.
func (m *Laplace) Guarantee(sens noise.Sensitivity, _ float64) (noise.Guarantee, error) {
	d, err := gridShift("sensitivity L1", sens.L1, m.gamma)
	if err != nil {
		return noise.Guarantee{}, err
	}
	return noise.Guarantee{Epsilon: ratUp(intOf(d), new(big.Int).SetUint64(m.t))}, nil
}
