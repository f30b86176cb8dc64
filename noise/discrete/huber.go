package discrete

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/huber"
)

// Huber is the discrete Huber mechanism on the grid γℤ: noise γ·J with
// P(J = j) ∝ exp(−ρ_α(j/τ)), ρ_α the Huber loss of package huber, τ = s/γ
// an integer in [2⁴⁰, 2⁴¹] and α = a/τ for an integer a. Build it with
// NewHuber; it is immutable and safe for concurrent use.
type Huber struct {
	gamma  float64
	tau, a uint64
	den    u128   // 2τ², the acceptance denominator
	lapNum u128   // the proposal is P(j) ∝ exp(−|j|·lapDen/lapNum)
	lapDen uint64 // τ/1 (α ≥ 1) or τ²/a (α < 1)

	zigOnce sync.Once
	zig     *zigTable // nil if the table could not be built
}

var _ Mechanism = (*Huber)(nil)

// Range of α accepted by NewHuber: it keeps a = α·τ in [2³², 2⁵⁷], which
// keeps every acceptance test in 128-bit integers, and the tail scale τ/α
// at most 2⁴⁹ grid units (see the package comment on truncation).
const (
	MinHuberAlpha = 1.0 / (1 << 8)
	MaxHuberAlpha = 1 << 16
)

// NewHuber returns the discrete Huber mechanism closest to the Huber
// mechanism with shape α and scale s (s in units of the statistic): γ is
// the largest power of two ≤ s·2⁻⁴⁰, the scale is rounded up to the grid,
// τ = ⌈s/γ⌉, and α down to a multiple of 1/τ, a = ⌊α·τ⌋; so Scale() = τ·γ
// exceeds s by less than 2⁻⁴⁰ relative and Alpha() = a/τ falls below α
// by less than 2⁻⁴⁰/α relative (2⁻³² at the smallest α), both towards more
// privacy. It returns an error
// wrapping ErrParam unless α is in [MinHuberAlpha, MaxHuberAlpha] and s in
// [1e-100, 1e100].
func NewHuber(alpha, s float64) (*Huber, error) {
	if err := check.InRange("Huber α", alpha, MinHuberAlpha, MaxHuberAlpha); err != nil {
		return nil, fmt.Errorf("discrete: %w", err)
	}
	if err := check.NoiseParam("Huber scale s", s); err != nil {
		return nil, fmt.Errorf("discrete: %w", err)
	}
	g := gridFor(s, gridBitsHuber)
	tau := uint64(math.Ceil(s / g))
	at := new(big.Float).SetPrec(256).SetFloat64(alpha)
	at.Mul(at, new(big.Float).SetUint64(tau)) // exact
	ab, _ := at.Int(nil)                      // ⌊α·τ⌋
	return newHuberGrid(g, tau, ab.Uint64()), nil
}

// newHuberGrid returns the discrete Huber mechanism with P(J = j) ∝
// exp(−ρ_{a/τ}(j/τ)) on the grid step g, for 1 ≤ a < 2⁵⁷ and τ < 2⁴².
func newHuberGrid(g float64, tau, a uint64) *Huber {
	m := &Huber{gamma: g, tau: tau, a: a, den: mul64(tau, tau)}
	m.den, _ = m.den.mulSmall(2)
	if m.a >= tau {
		m.lapNum, m.lapDen = from64(tau), 1
	} else {
		m.lapNum, m.lapDen = mul64(tau, tau), m.a
	}
	return m
}

// Name returns "discrete-huber".
func (m *Huber) Name() string { return "discrete-huber" }

// String describes the mechanism, e.g. "discrete-huber(α=1, s=25.3, γ=2^-36)".
func (m *Huber) String() string {
	return fmt.Sprintf("discrete-huber(α=%.6g, s=%.6g, γ=2^%d)", m.Alpha(), m.Scale(), math.Ilogb(m.gamma))
}

// Granularity returns the grid step γ.
func (m *Huber) Granularity() float64 { return m.gamma }

// Alpha returns the shape actually used, a/τ (nearest float64).
func (m *Huber) Alpha() float64 {
	f, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(m.a), new(big.Int).SetUint64(m.tau)).Float64()
	return f
}

// Scale returns the scale actually used, τ·γ, in units of the statistic.
func (m *Huber) Scale() float64 { return float64(m.tau) * m.gamma }

// GridParams returns τ and a: P(J = j) ∝ exp(−ρ_{a/τ}(j/τ)).
func (m *Huber) GridParams() (tau, a uint64) { return m.tau, m.a }

// Int draws J with P(J = j) ∝ exp(−ρ_α(j/τ)), exactly, from a ziggurat
// on the grid (see the package comment); the table is built on the first
// call, in about half a millisecond. Should the table fail to build, it
// falls back to the rejection sampler intRejection, exact too.
func (m *Huber) Int(r *rand.Rand) int64 {
	m.zigOnce.Do(func() {
		m.zig, _ = newHuberZig(m.tau, m.a)
	})
	if m.zig != nil {
		return m.zig.draw(r)
	}
	return m.intRejection(r)
}

// intRejection draws J with P(J = j) ∝ exp(−ρ_α(j/τ)), exactly: a discrete
// Laplace proposal accepted with probability exp(−gap(|J|)) (see the
// package comment for the derivation).
func (m *Huber) intRejection(r *rand.Rand) int64 {
	for {
		j := laplaceInt(r, m.lapNum, m.lapDen)
		if m.accept(r, abs64(j)) {
			return j
		}
	}
}

// accept returns true with probability exp(−gap(y)), y = |j| < 2⁶², where
// in units of 1/(2τ²)
//
//	α ≥ 1: gap = (y − τ)²             for y ≤ a,
//	             (a − τ)(2y − a − τ)  for y > a;
//	α < 1: gap = (y − a)²             for y ≤ a, 0 beyond.
//
// Every numerator fits in 128 bits: a < 2⁵⁷ and y < 2⁶².
func (m *Huber) accept(r *rand.Rand, y uint64) bool {
	a, tau := m.a, m.tau
	var num u128
	switch {
	case a >= tau && y <= a:
		d := max(y, tau) - min(y, tau)
		num = mul64(d, d)
	case a >= tau:
		num = mul64(a-tau, 2*y-a-tau)
	case y >= a:
		return true
	default:
		num = mul64(a-y, a-y)
	}
	return bernExp(r, num, m.den)
}

// Sample returns one noise value γ·J. Add it only to values already on the
// grid (AddTo and noise.AddNoise do the rounding).
func (m *Huber) Sample(r *rand.Rand) float64 { return float64(m.Int(r)) * m.gamma }

// AddTo returns v rounded to the grid plus one noise draw (see
// noise.Granular).
func (m *Huber) AddTo(v float64, r *rand.Rand) float64 { return addTo(v, m.gamma, m.Int(r)) }

// Variance returns the variance of one noise value, taken as that of the
// continuous Huber noise with the same α and s, Scale()²·huber.UnitVariance
// (Alpha()); the grid is 2⁻⁴⁰ of the scale, so the two differ by a
// relative O(2⁻⁸⁰) (the sum over the grid is a midpoint rule of the
// integral).
func (m *Huber) Variance() float64 {
	v, err := huber.UnitVariance(m.Alpha())
	if err != nil {
		return math.NaN() // unreachable: α is checked in NewHuber
	}
	s := m.Scale()
	return s * s * v
}

// Guarantee returns the pure ε-DP guarantee of one release of a
// grid-rounded statistic whose ℓ1 sensitivity (after rounding; see
// RoundedSensitivity) is sens.L1: the shift is at most D = ⌈Δ₁/γ⌉ grid
// units in total, ρ_α is α-Lipschitz, so the log-ratio of the pmfs is at
// most α·D/τ = a·D/τ², and ε is that, rounded up. Shifts by whole grid
// units keep the normalizer, so δ = 0 exactly; delta is ignored.
func (m *Huber) Guarantee(sens noise.Sensitivity, _ float64) (noise.Guarantee, error) {
	d, err := gridShift("sensitivity L1", sens.L1, m.gamma)
	if err != nil {
		return noise.Guarantee{}, err
	}
	num := new(big.Int).Mul(intOf(d), new(big.Int).SetUint64(m.a))
	den := new(big.Int).SetUint64(m.tau)
	den.Mul(den, den)
	return noise.Guarantee{Epsilon: ratUp(num, den)}, nil
}
