package noise

import (
	"fmt"
	"math/rand/v2"
)

// Mechanism is a noise distribution together with its privacy accounting for
// one release. Implementations are immutable after construction and safe for
// concurrent use; the *rand.Rand passed to Sample is not, so give each
// goroutine its own.
type Mechanism interface {
	// Name is the mechanism's lower-case name: "laplace", "gaussian" or
	// "huber".
	Name() string

	// Sample draws one noise value, in the units of the statistic being
	// protected.
	Sample(r *rand.Rand) float64

	// Variance is the variance of one noise coordinate, in squared units of
	// the statistic.
	Variance() float64

	// Guarantee returns the differential-privacy guarantee of one release
	// f(D) + t, where t has one independent noise draw per coordinate and f
	// has the given sensitivity. Pure mechanisms (Laplace, Huber) use
	// sens.L1, ignore delta and report Delta = 0; the Gaussian mechanism
	// uses sens.L2 and needs delta in (0, 1). It returns an error naming the
	// offending parameter when the sensitivity or delta is invalid.
	Guarantee(sens Sensitivity, delta float64) (Guarantee, error)

	// String describes the mechanism and its parameters, for reports.
	String() string
}

// Sensitivity bounds how much one neighbouring change can move the released
// vector f(D), in the units of f: L1 is max ‖f(D) − f(D')‖₁ and L2 is
// max ‖f(D) − f(D')‖₂. A mechanism reads only the norm it needs; the other
// may be left zero.
type Sensitivity struct {
	L1, L2 float64
}

// Guarantee is an (ε, δ)-differential-privacy guarantee for one release.
// Delta is zero for pure ε-DP.
type Guarantee struct {
	Epsilon float64
	Delta   float64
}

// String formats g as "ε = 1.5 (pure)" or "(ε, δ) = (1.5, 1e-05)".
func (g Guarantee) String() string {
	if g.Delta == 0 {
		return fmt.Sprintf("ε = %.6g (pure ε-DP)", g.Epsilon)
	}
	return fmt.Sprintf("(ε, δ) = (%.6g, %.3g)", g.Epsilon, g.Delta)
}

// Granular is implemented by mechanisms whose noise lives on a grid γℤ
// (package discrete). Adding such noise to an arbitrary value would reveal
// the value modulo γ, so the value must first be rounded to the grid:
// AddTo(v, r) returns round(v/γ)·γ + γ·K for one noise draw K, computed so
// that the result is a function of round(v/γ) + K alone. Guarantees of a
// Granular mechanism refer to the rounded statistic; see
// discrete.RoundedSensitivity.
type Granular interface {
	Mechanism
	// Granularity is γ, a power of two, in the units of the statistic.
	Granularity() float64
	// AddTo returns v rounded to the grid plus one noise draw.
	AddTo(v float64, r *rand.Rand) float64
}

// VectorNoiser is implemented by mechanisms that add noise to a whole
// vector faster than one Sample call per element (huber, and the discrete
// mechanisms). AddNoise(x, r) must add the draws that len(x) calls of
// Sample(r) would return, in order — for a Granular mechanism, set x[i] to
// AddTo(x[i], r) in order — so that results do not depend on which way
// noise is added.
type VectorNoiser interface {
	AddNoise(x []float64, r *rand.Rand)
}

// AddNoise adds one independent draw of m's noise to every element of x, in
// place. If m is Granular, each element is first rounded to m's grid (see
// Granular), so every output is a multiple of the grid step. A VectorNoiser
// adds its noise itself (for a Granular one, the same values from the same
// random words as AddTo element by element). It never allocates.
func AddNoise(m Mechanism, x []float64, r *rand.Rand) {
	if g, ok := m.(Granular); ok {
		if v, ok := m.(VectorNoiser); ok {
			v.AddNoise(x, r)
			return
		}
		for i := range x {
			x[i] = g.AddTo(x[i], r)
		}
		return
	}
	if v, ok := m.(VectorNoiser); ok {
		v.AddNoise(x, r)
		return
	}
	for i := range x {
		x[i] += m.Sample(r)
	}
}

// Names returns the known mechanism names, in a fixed order: "laplace",
// "gaussian", "huber".
func Names() []string { return []string{"laplace", "gaussian", "huber"} }
