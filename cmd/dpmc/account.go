package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
)

// accountFlags are the flags of dpmc account.
type accountFlags struct {
	noise         noiseFlags
	sensitivity   float64
	compositions  int
	delta         float64
	targetEpsilon float64
	sampler       string
	coordinates   int
	json          bool
}

func newAccountCmd() *cobra.Command {
	var fl accountFlags
	cmd := &cobra.Command{
		Use:   "account",
		Short: "Total privacy (ε, δ) of many releases of a mechanism, under five accountants",
		Long: `account bounds the privacy of --compositions releases of one mechanism (fresh
noise in every release, as in the iterations of a solver) on a statistic of
sensitivity --sensitivity, and prints the total (ε, δ) at the target --delta
under every accountant, then names the tightest:

  basic         ε and δ add up
  advanced_kov  optimal composition theorem (Kairouz, Oh & Viswanath)
  advanced_drv  advanced composition (Dwork, Rothblum & Vadhan)
  rdp           Rényi DP over orders 1.05…1024 (Mironov), converted to (ε, δ)
  pld           privacy-loss distribution composed by FFT (the tightest)

Every figure is a valid upper bound; "n/a" marks an accountant that does not
apply, with the reason. --sensitivity is the ℓ1 sensitivity Δ₁ for laplace
and huber and the ℓ2 sensitivity Δ₂ for gaussian, in units of the noised
value. Pure mechanisms (laplace, huber) have δ = 0 under basic composition;
the Gaussian's advanced accountants spend δ/(2K) per release.

By default (--sampler discrete) the mechanism is the exact discrete one that
unseeded dpmc releases use unless given --sampler float: noise on a power-of-two grid γ chosen from
the scale, added to the statistic rounded to the grid. Rounding can move
each of the --coordinates n coordinates a neighbouring change moves by one
more γ, so the accountants use Δ₁′ = Δ₁ + n·γ or Δ₂′ = Δ₂ + γ·√n; the grid,
Δ′ and what the rounding costs in the tightest ε are printed. The PLD
accountant uses the exact lattice of the discrete noise, made pessimistic
(never below the true δ); for the discrete gaussian it applies only with
--coordinates 1. --sampler float accounts for the ideal continuous
mechanism, which dpmc's floating-point samplers do NOT achieve (their
outputs lie on lattices that reveal the input).

With --target-epsilon E instead of a noise parameter, account finds the
smallest σ (gaussian), b (laplace) or s (huber, at the given --alpha) with
which the K releases are (E, δ)-DP under the tightest accountant, and prints
it with the totals there.`,
		Example: `  dpmc account --mechanism gaussian --sigma 10 --sensitivity 1 --compositions 1000 --delta 1e-6
  dpmc account --mechanism huber --alpha 1 --scale 1 --compositions 100 --output-format json
  dpmc account --mechanism laplace --target-epsilon 1 --compositions 50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAccount(cmd, &fl)
		},
	}
	fl.noise.register(cmd, "")
	f := cmd.Flags()
	f.Float64Var(&fl.sensitivity, "sensitivity", 1, "sensitivity of one release, in units of the noised value: ℓ1 (Δ₁) for laplace and huber, ℓ2 (Δ₂) for gaussian")
	f.IntVar(&fl.compositions, "compositions", 0, "number K of releases composed, in [1, 10⁸] (required)")
	f.Float64Var(&fl.delta, "delta", 1e-6, "target δ of the total (ε, δ) guarantee, a probability in (0, 1)")
	f.Float64Var(&fl.targetEpsilon, "target-epsilon", 0, "instead of a noise parameter: find the smallest σ (gaussian), b (laplace) or s (huber, at --alpha) giving this total ε")
	f.StringVar(&fl.sampler, "sampler", "discrete", "noise sampler accounted for: discrete (exact, on a power-of-two grid; what unseeded dpmc releases use) or float (the ideal continuous mechanism) (default: discrete)")
	f.IntVar(&fl.coordinates, "coordinates", 1, "discrete sampler: the number n ≥ 1 of coordinates one neighbouring change can move (each may move one more grid step when rounded)")
	registerOutputFormat(cmd, &fl.json, "text (a table) or json")
	return cmd
}

// accountJSON is the --output-format json output. Calibrated is set only with
// --target-epsilon.
type accountJSON struct {
	Mechanism         string               `json:"mechanism"`
	Sampler           string               `json:"sampler"`
	Grid              *accounting.GridCost `json:"grid,omitempty"`
	Compositions      int                  `json:"compositions"`
	Delta             float64              `json:"delta"`
	PerReleaseEpsilon float64              `json:"per_release_epsilon"`
	Totals            accounting.Totals    `json:"totals"`
	Tightest          accounting.Total     `json:"tightest"`
	Calibrated        *calibratedJSON      `json:"calibrated,omitempty"`
}

// calibratedJSON reports the noise parameter found for --target-epsilon.
type calibratedJSON struct {
	Parameter     string  `json:"parameter"`
	Value         float64 `json:"value"`
	TargetEpsilon float64 `json:"target_epsilon"`
}

// maxCompositions bounds --compositions: the accountants take about 2.5 s
// at 10⁸ on one core and grow with K (the optimal-composition sum over
// about √K terms, the PLD grid), and no training run composes more.
const maxCompositions = 100_000_000

func runAccount(cmd *cobra.Command, fl *accountFlags) error {
	flags := cmd.Flags()
	if !flags.Changed("compositions") {
		return fmt.Errorf("--compositions is required: the number K ≥ 1 of releases")
	}
	if fl.compositions < 1 || fl.compositions > maxCompositions {
		return fmt.Errorf("--compositions = %d: want K in [1, %d]", fl.compositions, maxCompositions)
	}
	if err := check.Probability("--delta", fl.delta); err != nil {
		return err
	}
	if err := check.Positive("--sensitivity", fl.sensitivity); err != nil {
		return err
	}
	if fl.sampler != "discrete" && fl.sampler != "float" {
		return fmt.Errorf("--sampler %q: want discrete or float", fl.sampler)
	}
	if fl.coordinates < 1 {
		return fmt.Errorf("--coordinates = %d: want n ≥ 1", fl.coordinates)
	}
	if fl.sampler == "float" && flags.Changed("coordinates") {
		return fmt.Errorf("--coordinates applies to --sampler discrete only (the grid rounding)")
	}
	target := flags.Changed("target-epsilon")
	if target {
		if err := check.Positive("--target-epsilon", fl.targetEpsilon); err != nil {
			return err
		}
	}
	m, err := fl.noise.build(cmd)
	if err != nil {
		return err
	}
	s := noise.Sensitivity{L1: fl.sensitivity, L2: fl.sensitivity}
	k, delta := fl.compositions, fl.delta

	var (
		cal    *calibratedJSON
		totals accounting.Totals
		grid   *accounting.GridCost
	)
	if target {
		m, cal, err = calibrateAccount(cmd, m, s, fl, k, fl.targetEpsilon, delta)
		if err != nil {
			return fmt.Errorf("account: %w", err)
		}
	}
	sens := s
	if fl.sampler == "discrete" {
		d, err := discrete.For(m)
		if err != nil {
			return fmt.Errorf("account: --sampler discrete: %w", err)
		}
		var cost accounting.GridCost
		if totals, cost, err = accounting.ComposeDiscreteContext(cmd.Context(), d, s, fl.coordinates, k, delta); err != nil {
			return fmt.Errorf("account: %w", err)
		}
		if sens, err = discrete.RoundedSensitivity(s, fl.coordinates, d.Granularity()); err != nil {
			return fmt.Errorf("account: %w", err)
		}
		m, grid = d, &cost
	} else if totals, err = accounting.ComposeContext(cmd.Context(), m, s, k, delta); err != nil {
		return fmt.Errorf("account: %w", err)
	}
	best, err := totals.Tightest()
	if err != nil {
		return fmt.Errorf("account: %w", err)
	}
	perRelease, err := m.Guarantee(sens, delta)
	if err != nil {
		return fmt.Errorf("account: %w", err)
	}
	out := accountJSON{
		Mechanism:         m.Name(),
		Sampler:           fl.sampler,
		Grid:              grid,
		Compositions:      k,
		Delta:             delta,
		PerReleaseEpsilon: perRelease.Epsilon,
		Totals:            totals,
		Tightest:          best,
		Calibrated:        cal,
	}
	w := cmd.OutOrStdout()
	if fl.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return writeAccountTable(w, m, fl.sensitivity, perRelease, out)
}

// calibrateAccount solves for the noise parameter of m's family that meets
// (eps, delta) after k releases, for the sampler fl names (the discrete
// family at the rounded sensitivity), and returns the continuous mechanism
// with that parameter. The parameter being solved for must not also be
// given.
func calibrateAccount(cmd *cobra.Command, m noise.Mechanism, s noise.Sensitivity, fl *accountFlags, k int, eps, delta float64) (noise.Mechanism, *calibratedJSON, error) {
	var (
		param  string
		family func(p float64) (noise.Mechanism, error)
		lo, hi float64
	)
	kf := float64(k)
	switch mm := m.(type) {
	case *gaussian.Mechanism:
		param = "sigma"
		family = func(p float64) (noise.Mechanism, error) { return gaussian.New(p) }
		// Basic composition meets the target at hi; no valid accountant can
		// certify less than the exact k-fold Gaussian, which needs lo/0.999.
		basic, err := gaussian.Sigma(eps/kf, s.L2, delta/kf)
		if err != nil {
			return nil, nil, fmt.Errorf("--target-epsilon: %w", err)
		}
		exact, err := gaussian.Sigma(eps, s.L2*math.Sqrt(kf), delta)
		if err != nil {
			return nil, nil, fmt.Errorf("--target-epsilon: %w", err)
		}
		lo, hi = 0.999*exact, 1.001*basic
		if fl.sampler == "discrete" {
			// The discrete Gaussian's basic composition goes through zCDP,
			// looser than the analytic Gaussian's.
			hi *= 4
		}
	case *laplace.Mechanism:
		param = "scale"
		family = func(p float64) (noise.Mechanism, error) { return laplace.New(p) }
		hi = 1.001 * kf * s.L1 / eps
		lo = hi * 1e-6
	case *huber.Mechanism:
		param = "scale"
		alpha := mm.Alpha()
		family = func(p float64) (noise.Mechanism, error) { return huber.New(alpha, p) }
		hi = 1.001 * kf * alpha * s.L1 / eps
		lo = hi * 1e-6
	default:
		return nil, nil, fmt.Errorf("--target-epsilon: cannot calibrate %s", m.Name())
	}
	if cmd.Flags().Changed(param) {
		return nil, nil, fmt.Errorf("--target-epsilon solves for --%s: give one or the other", param)
	}
	lo = math.Max(lo, check.MinParam)
	var (
		p   float64
		err error
	)
	if fl.sampler == "discrete" {
		disc := func(p float64) (discrete.Mechanism, error) {
			c, err := family(p)
			if err != nil {
				return nil, err
			}
			return discrete.For(c)
		}
		p, _, err = accounting.CalibrateDiscreteContext(cmd.Context(), disc, s, fl.coordinates, k, eps, delta, lo, hi)
	} else {
		p, _, err = accounting.CalibrateContext(cmd.Context(), family, s, k, eps, delta, lo, hi)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--target-epsilon: %w", err)
	}
	if p == lo {
		return nil, nil, fmt.Errorf("--target-epsilon %g: met even at %s = %g, the bottom of the search; the result would not be the smallest", eps, param, p)
	}
	best, err := family(p)
	if err != nil {
		return nil, nil, err
	}
	return best, &calibratedJSON{Parameter: param, Value: p, TargetEpsilon: eps}, nil
}

// accountMethod describes an accountant in the table.
func accountMethod(name string) string {
	switch name {
	case accounting.NameBasic:
		return "ε and δ add up"
	case accounting.NameKOV:
		return "optimal composition (Kairouz–Oh–Viswanath)"
	case accounting.NameDRV:
		return "advanced composition (Dwork–Rothblum–Vadhan)"
	case accounting.NameRDP:
		return "Rényi DP, Canonne–Kamath–Steinke conversion"
	case accounting.NamePLD:
		return "privacy-loss distribution, FFT (lattice for discrete noise)"
	}
	return ""
}

func writeAccountTable(w io.Writer, m noise.Mechanism, sens float64, one noise.Guarantee, out accountJSON) error {
	norm, sym := "ℓ1 sensitivity Δ₁", "Δ₁"
	_, dg := m.(*discrete.Gaussian)
	if _, g := m.(*gaussian.Mechanism); g || dg {
		norm, sym = "ℓ2 sensitivity Δ₂", "Δ₂"
	}
	if c := out.Calibrated; c != nil {
		fmt.Fprintf(w, "%s = %.6g is the smallest that gives (ε, δ) = (%g, %g) after %d releases\n\n",
			c.Parameter, c.Value, c.TargetEpsilon, out.Delta, out.Compositions)
	}
	fmt.Fprintf(w, "%d releases of %s, %s = %g, target δ = %g\n", out.Compositions, m, norm, sens, out.Delta)
	if g := out.Grid; g != nil {
		grow := "n·γ"
		if dg {
			grow = "γ·√n"
		}
		fmt.Fprintf(w, "grid γ = 2^%d = %.6g; n = %d changed coordinate(s): %s rounds up to %s′ = %s + %s = %.17g\n",
			math.Ilogb(g.Grid), g.Grid, g.Coordinates, sym, sym, sym, grow, g.Rounded)
		fmt.Fprintf(w, "rounding costs %.3g relative in %s, and ε %.3g: tightest ε %.9g at %s′, %.9g at %s (differences below about 1e-4 relative are within the accountants' resolution)\n",
			g.Increase, sym, g.EpsilonCost, out.Tightest.Epsilon, sym, g.EpsilonUnrounded, sym)
	} else {
		fmt.Fprintln(w, "sampler float: the ideal continuous mechanism; dpmc's floating-point samplers do NOT achieve it (their outputs reveal the input)")
	}
	switch {
	case one.Delta == 0:
		fmt.Fprintf(w, "one release: pure ε-DP, ε₀ = %.6g\n\n", one.Epsilon)
	case dg:
		fmt.Fprintf(w, "one release: (ε, δ) = (%.6g, %g) (discrete Gaussian, from its zCDP)\n\n", one.Epsilon, one.Delta)
	default:
		fmt.Fprintf(w, "one release: (ε, δ) = (%.6g, %g) (analytic Gaussian)\n\n", one.Epsilon, one.Delta)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "accountant\tε\tδ\tmethod")
	var notes []string
	for _, name := range accounting.Accountants() {
		t := out.Totals.ByName(name)
		if t == nil {
			fmt.Fprintf(tw, "%s\tn/a\t\t%s\n", name, accountMethod(name))
			notes = append(notes, fmt.Sprintf("%s: n/a — %s", name, out.Totals.NotApplicable[name]))
			continue
		}
		fmt.Fprintf(tw, "%s\t%.6g\t%.3g\t%s\n", name, t.Epsilon, t.Delta, accountMethod(name))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	_, err := fmt.Fprintf(w, "\ntightest: %s — the %d releases are (%.6g, %.3g)-DP\n", out.Tightest.Accountant, out.Compositions, out.Tightest.Epsilon, out.Tightest.Delta)
	return err
}
