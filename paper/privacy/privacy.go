// Package privacy states what a paper-mode training run guarantees:
// nothing. Its Report, in the form dpmc train prints, gives the paper's
// figures — the per-release ε at the assumed sensitivity and their
// composition over the releases one user's ratings enter, under every
// accountant of package accounting — and says why they describe no
// trained model: the Gram matrix carries no noise and no contribution is
// bounded. User-level differential privacy, with a guarantee, is package
// userdp's (dpmc train --privacy user).
package privacy

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/solver"
)

// Report is the privacy statement of one paper-mode training run. Its
// Guarantee is "none", and the only ε and δ it holds are the paper's
// figures in Figures, under the JSON key "not_a_guarantee" with names
// that say on what they are conditioned, so that no key of a report reads
// as a guarantee.
type Report struct {
	// Guarantee is "none": nothing is proved of the trained model.
	Guarantee string `json:"guarantee"`
	// Unit is the unit the paper's figures assume: "rating".
	Unit string `json:"unit"`
	// Mechanism describes the noise, e.g. "huber(α=1, s=3.2)", and
	// Variance is its variance per coordinate, in squared rating units.
	Mechanism string  `json:"mechanism"`
	Variance  float64 `json:"noise_variance"`
	// Sampler is how the noise was drawn: "discrete" (exact discrete
	// noise on a grid, package discrete) or "float" (the paper's
	// floating-point sampler, which does not deliver the ideal mechanism
	// the figures are computed for).
	Sampler string `json:"sampler"`
	// CoversGram says whether the Gram matrices of the item updates are
	// noised: false, the paper's algorithms noise the right-hand sides
	// only.
	CoversGram bool `json:"covers_gram"`
	// ReleasesPerUser is the number of noisy releases the ratings of the
	// user with most ratings enter.
	ReleasesPerUser int `json:"releases_per_user"`
	// Figures are the paper's figures, which are NOT a guarantee.
	Figures Figures `json:"not_a_guarantee"`
	// Notes say in words why nothing is guaranteed.
	Notes []string `json:"notes"`
}

// Figures are the paper's privacy figures for a paper-mode run: what one
// noise addition, and ReleasesPerUser of them composed, would guarantee
// IF one rating moved each noised right-hand side by at most the assumed
// sensitivity and the Gram matrices were released with noise too. Neither
// holds, so they describe no trained model. The JSON names of the ε and δ
// end in "_if_sensitivity_held".
type Figures struct {
	// Why says in one sentence why these figures are no guarantee.
	Why string `json:"why"`
	// FiguresOf says which mechanism the ε and δ are of: the exact
	// discrete mechanism the run drew from, or, with the float sampler,
	// the ideal continuous mechanism, which that sampler does NOT deliver
	// (its outputs lie on lattices that can reveal the input).
	FiguresOf string `json:"figures_of"`
	// SamplerDeliversMechanism is false with the float sampler: even the
	// per-release ε then is not that of the noise the run drew.
	SamplerDeliversMechanism bool `json:"sampler_delivers_mechanism"`
	// AssumedSensitivity of one release, and where it comes from (the
	// largest rating, plus the grid rounding of discrete noise).
	AssumedSensitivity noise.Sensitivity `json:"assumed_sensitivity"`
	SensitivitySource  string            `json:"sensitivity_source"`
	// PerReleaseEpsilon and PerReleaseDelta are one release's (ε, δ) at
	// AssumedSensitivity: the paper's per-release figure (nil if the
	// mechanism has none at this δ).
	PerReleaseEpsilon *float64 `json:"per_release_epsilon_if_sensitivity_held"`
	PerReleaseDelta   float64  `json:"per_release_delta_if_sensitivity_held"`
	// ComposedEpsilon and ComposedDelta are the tightest composition of
	// ReleasesPerUser releases, by Accountant; ComposedByAccountant has
	// every accountant's.
	ComposedEpsilon      float64           `json:"composed_epsilon_if_sensitivity_held"`
	ComposedDelta        float64           `json:"composed_delta_if_sensitivity_held"`
	Accountant           string            `json:"accountant"`
	ComposedByAccountant accounting.Totals `json:"composed_by_accountant_if_sensitivity_held"`
}

// Paper reports on training with the paper's algorithms: the per-release
// ε at the assumed sensitivity (e.g. the largest rating) and the
// composition over the releases the ratings of the user with most ratings
// (maxUserRatings) enter, which is NOT a guarantee.
func Paper(opts solver.Options, assumed float64, maxUserRatings int, delta float64) (*Report, error) {
	if opts.Noise == nil {
		return nil, errors.New("privacy: paper report of a run without noise")
	}
	perItem := opts.Releases()
	r := &Report{
		Guarantee: "none", Unit: "rating", Mechanism: opts.Noise.String(), Variance: opts.Noise.Variance(),
		ReleasesPerUser: perItem * max(maxUserRatings, 1),
	}
	f := &r.Figures
	f.Why = "the sensitivity is assumed, not enforced (a rating also moves its user's factor, which enters every item the user rated), and the Gram matrix UᵀWU of every item solve is released without noise"
	f.AssumedSensitivity = noise.Sensitivity{L1: assumed, L2: assumed}
	f.SensitivitySource = fmt.Sprintf("assumed, not enforced: Δ₁ = Δ₂ = %g (the largest rating, as the paper)", assumed)
	d, isDiscrete := opts.Noise.(discrete.Mechanism)
	if isDiscrete {
		r.Sampler, f.SamplerDeliversMechanism = "discrete", true
		f.FiguresOf = "the exact discrete mechanism the run drew from"
		// Each release rounds an item's right-hand side (Rank coordinates)
		// to the grid, which can move each by one more γ.
		s, err := discrete.RoundedSensitivity(f.AssumedSensitivity, opts.Rank, d.Granularity())
		if err != nil {
			return nil, fmt.Errorf("privacy: %w", err)
		}
		f.AssumedSensitivity = s
		f.SensitivitySource += fmt.Sprintf(", plus the rounding of %d coordinates to the grid γ = 2^%d", opts.Rank, math.Ilogb(d.Granularity()))
	} else {
		r.Sampler, f.SamplerDeliversMechanism = "float", false
		f.FiguresOf = "the ideal continuous mechanism, which the run's floating-point sampler does NOT deliver: its outputs lie on lattices that can reveal the input (dpmc audit --sampler float)"
	}
	if err := f.compose(opts.Noise, r.ReleasesPerUser, delta); err != nil {
		return nil, err
	}
	r.Notes = []string{
		"not_a_guarantee.per_release_epsilon_if_sensitivity_held is the paper's figure for ONE noise addition at the assumed sensitivity; nothing in the solver enforces it (a rating also moves its user's factor, which enters every item the user rated)",
		fmt.Sprintf("the composed figures compose the %d noisy right-hand sides that the user with most ratings (%d) enters (%d per item); they are NOT a guarantee", r.ReleasesPerUser, maxUserRatings, perItem),
		"the Gram matrix UᵀWU of every item solve carries no noise and reveals which users rated the item and their factors",
		"so the trained model has no proved differential-privacy guarantee; use --privacy user for one",
	}
	if isDiscrete {
		r.Notes = append(r.Notes, "the noise is exact discrete noise on a grid (package discrete): every noisy value is a multiple of γ")
	} else {
		r.Notes = append(r.Notes, "the noise is the paper's floating-point sampler (math/rand/v2), whose outputs lie on lattices that can reveal the input (dpmc audit --sampler float): even the per-release figure is the ideal mechanism's, not this sampler's")
	}
	if opts.Seeded {
		r.Notes = append(r.Notes, "the noise was seeded, hence reproducible and not private")
	}
	return r, nil
}

// compose sets the per-release and composed figures of releases
// applications of m at the assumed sensitivity and total δ = delta.
func (f *Figures) compose(m noise.Mechanism, releases int, delta float64) error {
	if g, err := m.Guarantee(f.AssumedSensitivity, delta); err == nil {
		f.PerReleaseEpsilon, f.PerReleaseDelta = &g.Epsilon, g.Delta
	}
	totals, err := accounting.Compose(m, f.AssumedSensitivity, releases, delta)
	if err != nil {
		return fmt.Errorf("privacy: composing %d releases: %w", releases, err)
	}
	best, err := totals.Tightest()
	if err != nil {
		return fmt.Errorf("privacy: %w", err)
	}
	f.ComposedByAccountant = totals
	f.ComposedEpsilon, f.ComposedDelta, f.Accountant = best.Epsilon, best.Delta, best.Accountant
	return nil
}
