// Package check holds dpmc's argument checks, in one place, so that every
// mechanism and calibration rejects bad input with the same clear error
// naming the parameter instead of panicking or returning NaN.
package check

import (
	"errors"
	"fmt"
	"math"
)

// ErrParam is wrapped by every error this package returns, so callers can
// tell a bad argument from other failures with errors.Is.
var ErrParam = errors.New("invalid parameter")

// Finite returns an error naming name if v is NaN or ±Inf.
func Finite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s = %v, want a finite number", ErrParam, name, v)
	}
	return nil
}

// Positive returns an error naming name unless v is finite and > 0.
func Positive(name string, v float64) error {
	if err := Finite(name, v); err != nil {
		return err
	}
	if v <= 0 {
		return fmt.Errorf("%w: %s = %v, want > 0", ErrParam, name, v)
	}
	return nil
}

// NonNegative returns an error naming name unless v is finite and ≥ 0.
func NonNegative(name string, v float64) error {
	if err := Finite(name, v); err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("%w: %s = %v, want ≥ 0", ErrParam, name, v)
	}
	return nil
}

// InRange returns an error naming name unless lo ≤ v ≤ hi (and v finite).
func InRange(name string, v, lo, hi float64) error {
	if err := Finite(name, v); err != nil {
		return err
	}
	if v < lo || v > hi {
		return fmt.Errorf("%w: %s = %v, want in [%g, %g]", ErrParam, name, v, lo, hi)
	}
	return nil
}

// Probability returns an error naming name unless 0 < v < 1, the range a
// δ of (ε, δ)-differential privacy must lie in.
func Probability(name string, v float64) error {
	if err := Finite(name, v); err != nil {
		return err
	}
	if v <= 0 || v >= 1 {
		return fmt.Errorf("%w: %s = %v, want in (0, 1)", ErrParam, name, v)
	}
	return nil
}

// MinParam and MaxParam bound every noise parameter (a scale, σ or α).
// Outside [1e-100, 1e100] variances and samples would overflow float64 or
// privacy budgets would lose all meaning, so such values are rejected rather
// than allowed to produce ±Inf or NaN later.
const (
	MinParam = 1e-100
	MaxParam = 1e100
)

// NoiseParam returns an error naming name unless v is finite and within
// [MinParam, MaxParam].
func NoiseParam(name string, v float64) error {
	if err := Positive(name, v); err != nil {
		return err
	}
	if v < MinParam || v > MaxParam {
		return fmt.Errorf("%w: %s = %v, want in [%g, %g]", ErrParam, name, v, MinParam, MaxParam)
	}
	return nil
}
