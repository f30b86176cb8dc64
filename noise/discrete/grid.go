package discrete

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// ErrParam is wrapped by every error about a bad argument, so callers can
// tell one from other failures with errors.Is. It is the same value as the
// other mechanism packages wrap.
var ErrParam = check.ErrParam

// Grid exponents: the grid step is the largest power of two at most the
// noise scale times 2^−gridBits. See the package comment.
const (
	gridBitsLaplace  = 40
	gridBitsHuber    = 40
	gridBitsGaussian = 28
)

// Mechanism is a discrete mechanism: integer noise K scaled by the grid
// step γ. It is a noise.Granular, so noise.AddNoise rounds every
// value to the grid before adding noise.
type Mechanism interface {
	noise.Granular
	// Int draws one integer noise value K; the noise is γ·K.
	Int(r *rand.Rand) int64
	// LogPMF returns log P(K = k), for auditors and likelihood tests.
	LogPMF(k int64) float64
}

// gridFor returns the largest power of two ≤ scale·2^−bits.
func gridFor(scale float64, bits int) float64 {
	_, e := math.Frexp(scale) // scale = f·2^e, f in [0.5, 1)
	return math.Ldexp(1, e-1-bits)
}

// addTo returns round(v/γ)·γ + γ·k as the float64 nearest to γ·(round(v/γ)
// + k), a function of the integer round(v/γ) + k alone: the sum of two
// exact multiples of γ is correctly rounded, and for |k| > 2⁵³ (where
// float64(k) would round) the sum is formed exactly in math/big. v/γ is
// exact (γ is a power of two) unless it overflows; a non-finite v or one
// too large for the grid gives a non-finite result.
func addTo(v, gamma float64, k int64) float64 {
	q := roundAway(v / gamma)
	if math.IsInf(q, 0) || math.IsNaN(q) {
		return q
	}
	if k > -(1<<53) && k < 1<<53 {
		return q*gamma + float64(k)*gamma
	}
	s := new(big.Float).SetPrec(1200).SetFloat64(q)
	s.Add(s, new(big.Float).SetInt64(k))
	f, _ := s.Float64()
	return f * gamma
}

// roundAway returns math.Round(q), the nearest integer with halves away
// from zero (±0, ±Inf and NaN unchanged), without math.Round's branches on
// the fraction, which random values mispredict: t = Trunc(q) is one
// instruction on amd64 and arm64, the fraction f = q − t is exact (|f| < 1,
// and t is 0 or within a factor 2 of q), and so is 2f, whose Trunc is −1, 0
// or 1 as |f| ≥ 1/2 or not, with f's sign; t ± 1 is exact wherever f ≠ 0
// (|q| < 2⁵²). Integers, zeros and infinities (t = q) return q itself.
// TestRoundAway holds it to math.Round bit for bit.
func roundAway(q float64) float64 {
	t := math.Trunc(q)
	if t == q {
		return q
	}
	return t + math.Trunc(2*(q-t))
}

// Release rounds every element of x to m's grid and adds one independent
// noise draw, in place: x[i] = γ·(round(x[i]/γ) + K_i), so every output is
// exactly γ times an integer (or the float64 nearest to it, beyond 2⁵³·γ).
// It returns an error, before changing x, if an element is not finite or
// too large for the grid (|x[i]|/γ overflows float64).
func Release(m Mechanism, x []float64, r *rand.Rand) error {
	g := m.Granularity()
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("discrete: release: x[%d] = %v is not finite", i, v)
		}
		if math.IsInf(v/g, 0) || math.IsInf(math.Round(v/g)*g, 0) {
			return fmt.Errorf("discrete: release: x[%d] = %v is too large for the grid γ = %g", i, v, g)
		}
	}
	for i := range x {
		x[i] = addTo(x[i], g, m.Int(r))
	}
	return nil
}

// RoundedSensitivity returns the sensitivity of a statistic after each of
// its coordinates is rounded to the grid γℤ, given its sensitivity s before
// rounding and n, the largest number of coordinates one neighbouring change
// can move. Rounding moves each coordinate by at most γ/2, so each changed
// coordinate of the difference moves by at most γ more:
// Δ₁′ = Δ₁ + n·γ and Δ₂′ = Δ₂ + γ·√n (triangle inequality). Both are
// rounded up in floating point. Pass the result to a discrete mechanism's
// Guarantee.
func RoundedSensitivity(s noise.Sensitivity, n int, gamma float64) (noise.Sensitivity, error) {
	if err := check.NonNegative("sensitivity L1", s.L1); err != nil {
		return noise.Sensitivity{}, fmt.Errorf("discrete: %w", err)
	}
	if err := check.NonNegative("sensitivity L2", s.L2); err != nil {
		return noise.Sensitivity{}, fmt.Errorf("discrete: %w", err)
	}
	if n < 1 {
		return noise.Sensitivity{}, fmt.Errorf("discrete: %w: changed coordinates n = %d, want ≥ 1", ErrParam, n)
	}
	if err := checkGrid(gamma); err != nil {
		return noise.Sensitivity{}, err
	}
	up := func(v float64) float64 { return math.Nextafter(v, math.Inf(1)) }
	return noise.Sensitivity{
		L1: up(s.L1 + up(float64(n)*gamma)),
		L2: up(s.L2 + up(math.Sqrt(float64(n))*gamma)),
	}, nil
}

// checkGrid returns an error unless gamma is a positive power of two.
func checkGrid(gamma float64) error {
	if err := check.Positive("grid step γ", gamma); err != nil {
		return fmt.Errorf("discrete: %w", err)
	}
	if f, _ := math.Frexp(gamma); f != 0.5 {
		return fmt.Errorf("discrete: %w: grid step γ = %v, want a power of two", ErrParam, gamma)
	}
	return nil
}

// gridShift returns the largest integer shift, in grid units, of a
// grid-rounded statistic whose (already rounded) sensitivity is l:
// ⌈l/γ⌉, exact because γ is a power of two.
func gridShift(name string, l, gamma float64) (float64, error) {
	if err := check.NonNegative(name, l); err != nil {
		return 0, fmt.Errorf("discrete: %w", err)
	}
	d := math.Ceil(l / gamma)
	if math.IsInf(d, 0) {
		return 0, fmt.Errorf("discrete: %w: %s = %v is too large for the grid γ = %g", ErrParam, name, l, gamma)
	}
	return d, nil
}

// ratUp returns a float64 ≥ num/den (den > 0), the nearest one above.
func ratUp(num, den *big.Int) float64 {
	r := new(big.Rat).SetFrac(num, den)
	f, exact := r.Float64()
	if !exact && new(big.Rat).SetFloat64(f).Cmp(r) < 0 {
		f = math.Nextafter(f, math.Inf(1))
	}
	return f
}

// intOf returns the integer value of a float64 that holds one, as a big.Int.
func intOf(v float64) *big.Int {
	i, _ := new(big.Float).SetFloat64(v).Int(nil)
	return i
}
