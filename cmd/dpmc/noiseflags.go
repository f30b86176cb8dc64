package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/paper/calibrate"
	"github.com/dpmc/dpmc/rng"
)

// noiseFlags are the flags that choose a mechanism by its explicit
// parameters.
type noiseFlags struct {
	name               string
	alpha, scale, sigm float64
}

// register adds the flags; def is the default mechanism ("" = required) and
// extra lists further accepted names (such as "none").
func (n *noiseFlags) register(cmd *cobra.Command, def string, extra ...string) {
	f := cmd.Flags()
	names := strings.Join(append(extra, noise.Names()...), ", ")
	if def == "" {
		f.StringVar(&n.name, "mechanism", "", "noise mechanism: "+names+" (required)")
	} else {
		f.StringVar(&n.name, "mechanism", def, "noise mechanism: "+names+" (default: "+def+")")
	}
	f.Float64Var(&n.alpha, "alpha", 3, "Huber shape α, dimensionless (huber only; the paper's α = 3 has variance 1.0036 at s = 1)")
	f.Float64Var(&n.scale, "scale", 1, "scale, in units of the noised value: Huber s, or Laplace b")
	f.Float64Var(&n.sigm, "sigma", 1, "Gaussian standard deviation σ, in units of the noised value (gaussian only)")
}

// explicit reports whether a noise parameter flag was given.
func (n *noiseFlags) explicit(cmd *cobra.Command) bool {
	for _, f := range []string{"alpha", "scale", "sigma"} {
		if cmd.Flags().Changed(f) {
			return true
		}
	}
	return false
}

// build returns the mechanism the flags describe. A parameter flag set on
// the command line that does not apply to the chosen mechanism is an error,
// so that a typo never silently falls back to a default.
func (n *noiseFlags) build(cmd *cobra.Command) (noise.Mechanism, error) {
	applies := map[string][]string{
		"huber":    {"alpha", "scale"},
		"laplace":  {"scale"},
		"gaussian": {"sigma"},
	}
	ok, known := applies[n.name]
	if !known {
		if n.name == "" {
			return nil, fmt.Errorf("--mechanism is required: one of %s", strings.Join(noise.Names(), ", "))
		}
		return nil, fmt.Errorf("--mechanism %q: want one of %s", n.name, strings.Join(noise.Names(), ", "))
	}
	for _, flag := range []string{"alpha", "scale", "sigma"} {
		if cmd.Flags().Changed(flag) && !slices.Contains(ok, flag) {
			return nil, fmt.Errorf("--%s does not apply to the %s mechanism (it takes %s)", flag, n.name, "--"+strings.Join(ok, ", --"))
		}
	}
	var (
		m   noise.Mechanism
		err error
	)
	switch n.name {
	case "huber":
		m, err = huber.New(n.alpha, n.scale)
	case "laplace":
		m, err = laplace.New(n.scale)
	case "gaussian":
		m, err = gaussian.New(n.sigm)
	}
	if err != nil {
		return nil, fmt.Errorf("--mechanism %s: %w", n.name, err)
	}
	return m, nil
}

// guaranteeLine states, for one release of m, what it guarantees per unit of
// sensitivity.
func guaranteeLine(m noise.Mechanism) string {
	switch mm := m.(type) {
	case *huber.Mechanism:
		return fmt.Sprintf("one release is pure ε-DP with ε = α·Δ₁/s = %.6g·Δ₁", mm.Alpha()/mm.Scale())
	case *laplace.Mechanism:
		return fmt.Sprintf("one release is pure ε-DP with ε = Δ₁/b = %.6g·Δ₁", 1/mm.Scale())
	case *gaussian.Mechanism:
		eps, err := gaussian.Epsilon(mm.Sigma(), 1, 1e-5)
		if err != nil {
			return "one release is (ε, δ)-DP (analytic Gaussian)"
		}
		return fmt.Sprintf("one release is (ε, δ)-DP; at Δ₂ = 1, δ = 1e-5: ε = %.6g (analytic Gaussian)", eps)
	}
	return ""
}

// seedFlag is --seed: unset means crypto/rand.
type seedFlag struct {
	seed uint64
}

func (s *seedFlag) register(cmd *cobra.Command) {
	cmd.Flags().Uint64Var(&s.seed, "seed", 0, "seed for reproducible experiments (default: none, draw from crypto/rand); seeded noise is NOT private")
}

// rand returns the generator the flag asks for and whether it is seeded.
func (s *seedFlag) rand(cmd *cobra.Command) (*rand.Rand, bool) {
	if cmd.Flags().Changed("seed") {
		return rng.Seeded(s.seed), true
	}
	return rng.Crypto(), false
}

// orVariance builds the mechanism from explicit --alpha/--scale/--sigma
// if any is given, else from the noise variance v by the paper's
// conventions (package calibrate).
func (n *noiseFlags) orVariance(cmd *cobra.Command, v float64) (noise.Mechanism, error) {
	if n.explicit(cmd) {
		if cmd.Flags().Changed("variance") {
			return nil, fmt.Errorf("give --variance or explicit --alpha/--scale/--sigma, not both")
		}
		return n.build(cmd)
	}
	m, err := calibrate.ForVariance(n.name, v)
	if err != nil {
		return nil, fmt.Errorf("--mechanism/--variance: %w", err)
	}
	return m, nil
}

// seededWarning is printed to stderr whenever a seeded run produces noise.
const seededWarning = "dpmc: warning: --seed makes the noise reproducible, so it is NOT private; use seeds only for experiments"
