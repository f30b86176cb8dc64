// Package calibrate builds a mechanism by name from the knob the paper
// turns: a target noise variance per coordinate. It is the one place that
// knows the paper's conventions — Gaussian σ = √v, Laplace b = √(v/2),
// Huber at scale 1 with α from v (huber.PaperSetting) — so that the command
// line, the solvers' callers and the experiments agree.
//
// Equal variance is not equal privacy: see package budget for what each
// setting guarantees for one release.
package calibrate

import (
	"fmt"
	"strings"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// None is the mechanism name for training without noise.
const None = "none"

// ForVariance returns the mechanism called name ("gaussian", "laplace" or
// "huber") set to noise variance v, in squared units of the noised value.
// For name "none" it returns nil and no error, whatever v. It returns an
// error for an unknown name or a variance that is not positive and finite.
func ForVariance(name string, v float64) (noise.Mechanism, error) {
	var (
		m   noise.Mechanism
		err error
	)
	switch name {
	case None:
		return nil, nil
	case "gaussian":
		var s float64
		if s, err = gaussian.SigmaForVariance(v); err == nil {
			m, err = gaussian.New(s)
		}
	case "laplace":
		var b float64
		if b, err = laplace.ScaleForVariance(v); err == nil {
			m, err = laplace.New(b)
		}
	case "huber":
		var a, s float64
		if a, s, err = huber.PaperSetting(v); err == nil {
			m, err = huber.New(a, s)
		}
	default:
		return nil, fmt.Errorf("mechanism %q: want %s or %s", name, None, strings.Join(noise.Names(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("%s at variance %g: %w", name, v, err)
	}
	return m, nil
}
