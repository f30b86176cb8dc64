package accounting

import (
	"context"
	"fmt"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
)

// GridCost describes the grid a discrete mechanism rounds a statistic to
// and what the rounding costs in the composed guarantee.
type GridCost struct {
	// Grid is the grid step γ, in units of the statistic.
	Grid float64 `json:"grid"`
	// Coordinates is n, the largest number of coordinates one neighbouring
	// change can move.
	Coordinates int `json:"coordinates"`
	// Sensitivity is the sensitivity the mechanism uses (Δ₁ for Laplace and
	// Huber, Δ₂ for the Gaussian) before rounding, and Rounded after it:
	// Δ₁ + n·γ or Δ₂ + γ·√n (discrete.RoundedSensitivity).
	Sensitivity float64 `json:"sensitivity"`
	Rounded     float64 `json:"rounded_sensitivity"`
	// Increase is Rounded/Sensitivity − 1, the relative cost of rounding
	// in sensitivity (and so, for the pure mechanisms, about that in ε₀).
	Increase float64 `json:"sensitivity_increase"`
	// EpsilonUnrounded is the tightest total ε the same accountants give at
	// the unrounded sensitivity — what the releases would cost if rounding
	// were free — and EpsilonCost the tightest ε at the rounded one minus
	// it (never negative). The two are separate pessimistic computations
	// (the PLD grid depends on the shift), so a cost below about 1e-4 of ε
	// is within their numerical resolution rather than a true cost.
	EpsilonUnrounded float64 `json:"epsilon_unrounded"`
	EpsilonCost      float64 `json:"epsilon_cost"`
}

// ComposeDiscrete bounds, like Compose, the privacy of k releases of the
// discrete mechanism m on a statistic of sensitivity s before rounding, of
// which one neighbouring change moves at most n ≥ 1 coordinates: it rounds
// s to m's grid (discrete.RoundedSensitivity) and composes at the rounded
// sensitivity, returned with the totals. With n = 1 the PLD accountant
// also covers the discrete Gaussian (its one-coordinate shift is then the
// exact worst case); with n > 1 it reports PLD not applicable for it, as
// Compose does. The GridCost compares with the unrounded sensitivity. It
// returns an error naming the parameter for invalid input.
func ComposeDiscrete(m discrete.Mechanism, s noise.Sensitivity, n, k int, delta float64) (Totals, GridCost, error) {
	return ComposeDiscreteContext(context.Background(), m, s, n, k, delta)
}

// ComposeDiscreteContext is ComposeDiscrete, stopped when ctx is done: it
// then returns an error wrapping ctx.Err().
func ComposeDiscreteContext(ctx context.Context, m discrete.Mechanism, s noise.Sensitivity, n, k int, delta float64) (Totals, GridCost, error) {
	if m == nil {
		return Totals{}, GridCost{}, fmt.Errorf("%w: mechanism is nil", check.ErrParam)
	}
	if err := checkDelta(delta); err != nil {
		return Totals{}, GridCost{}, err
	}
	rs, err := discrete.RoundedSensitivity(s, n, m.Granularity())
	if err != nil {
		return Totals{}, GridCost{}, err
	}
	run := func(s noise.Sensitivity) (Totals, error) {
		md, err := prepare(m, s, k)
		if err != nil {
			return Totals{}, err
		}
		if n == 1 && md.scalar != nil {
			md.lattice = md.scalar
		}
		md.ctx = ctx
		return md.compose(k, delta)
	}
	t, err := run(rs)
	if err != nil {
		return Totals{}, GridCost{}, err
	}
	u, err := run(s)
	if err != nil {
		return Totals{}, GridCost{}, err
	}
	best, err := t.Tightest()
	if err != nil {
		return Totals{}, GridCost{}, err
	}
	free, err := u.Tightest()
	if err != nil {
		return Totals{}, GridCost{}, err
	}
	cost := GridCost{Grid: m.Granularity(), Coordinates: n, Sensitivity: s.L1, Rounded: rs.L1,
		EpsilonUnrounded: free.Epsilon, EpsilonCost: max(0, best.Epsilon-free.Epsilon)}
	if _, ok := m.(*discrete.Gaussian); ok {
		cost.Sensitivity, cost.Rounded = s.L2, rs.L2
	}
	cost.Increase = cost.Rounded/cost.Sensitivity - 1
	return t, cost, nil
}

// CalibrateDiscrete is Calibrate for a family of discrete mechanisms: at
// every candidate p the sensitivity s is rounded to family(p)'s grid for n
// changed coordinates, and the totals are those of ComposeDiscrete. It
// returns p and the totals at p.
func CalibrateDiscrete(family func(p float64) (discrete.Mechanism, error), s noise.Sensitivity, n, k int, epsilon, delta, lo, hi float64) (float64, Totals, error) {
	return CalibrateDiscreteContext(context.Background(), family, s, n, k, epsilon, delta, lo, hi)
}

// CalibrateDiscreteContext is CalibrateDiscrete, stopped when ctx is
// done: it then returns an error wrapping ctx.Err().
func CalibrateDiscreteContext(ctx context.Context, family func(p float64) (discrete.Mechanism, error), s noise.Sensitivity, n, k int, epsilon, delta, lo, hi float64) (float64, Totals, error) {
	if family == nil {
		return 0, Totals{}, fmt.Errorf("%w: family is nil", check.ErrParam)
	}
	return calibrate(ctx, func(p float64) (Totals, error) {
		m, err := family(p)
		if err != nil {
			return Totals{}, err
		}
		rs, err := discrete.RoundedSensitivity(s, n, m.Granularity())
		if err != nil {
			return Totals{}, err
		}
		md, err := prepare(m, rs, k)
		if err != nil {
			return Totals{}, err
		}
		if n == 1 && md.scalar != nil {
			md.lattice = md.scalar
		}
		md.ctx = ctx
		return md.compose(k, delta)
	}, k, epsilon, delta, lo, hi)
}
