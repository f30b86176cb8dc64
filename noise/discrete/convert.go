package discrete

import (
	"fmt"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// For returns the discrete counterpart of a continuous mechanism of
// package laplace, gaussian or huber, with the same parameters up to the
// grid rounding described in the package comment. A Mechanism of this
// package is returned unchanged; any other mechanism is an error wrapping
// ErrParam.
func For(m noise.Mechanism) (Mechanism, error) {
	switch mm := m.(type) {
	case Mechanism:
		return mm, nil
	case *laplace.Mechanism:
		return NewLaplace(mm.Scale())
	case *gaussian.Mechanism:
		return NewGaussian(mm.Sigma())
	case *huber.Mechanism:
		return NewHuber(mm.Alpha(), mm.Scale())
	}
	return nil, fmt.Errorf("discrete: %w: no discrete version of %s", ErrParam, m)
}

// PerUnit describes, for reports, the guarantee of one release of a scalar
// (n = 1 changed coordinate) with m's noise at unit sensitivity Δ = 1 before
// rounding: Δ′ = 1 + γ.
func PerUnit(m Mechanism) (string, error) {
	s, err := RoundedSensitivity(noise.Sensitivity{L1: 1, L2: 1}, 1, m.Granularity())
	if err != nil {
		return "", err
	}
	switch m.(type) {
	case *Gaussian:
		g, err := m.Guarantee(s, 1e-5)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("one release of a scalar rounded to the grid γ = %g is ρ-zCDP with ρ = (Δ₂+γ)²/(2σ²); at Δ₂ = 1, δ = 1e-5: ε = %.6g", m.Granularity(), g.Epsilon), nil
	}
	g, err := m.Guarantee(s, 0)
	if err != nil {
		return "", err
	}
	form := "⌈(Δ₁+γ)/γ⌉·γ/b"
	if _, ok := m.(*Huber); ok {
		form = "α·⌈(Δ₁+γ)/γ⌉·γ/s"
	}
	return fmt.Sprintf("one release of a scalar rounded to the grid γ = %g is pure ε-DP with ε = %s; at Δ₁ = 1: ε = %.6g", m.Granularity(), form, g.Epsilon), nil
}
