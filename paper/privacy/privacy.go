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

// Report is the privacy statement of one training run.
type Report struct {
	// Unit is the unit the paper's figures assume: "rating".
	Unit string `json:"unit"`
	// Mechanism describes the noise, e.g. "huber(α=1, s=3.2)", and
	// Variance is its variance per coordinate, in squared rating units.
	Mechanism string  `json:"mechanism"`
	Variance  float64 `json:"noise_variance"`
	// Guarantee is "none": nothing is proved of the trained model.
	Guarantee string `json:"guarantee"`
	// Sensitivity of one release, and where it comes from.
	Sensitivity       noise.Sensitivity `json:"sensitivity"`
	SensitivitySource string            `json:"sensitivity_source"`
	// PerReleaseEpsilon and PerReleaseDelta are one release's guarantee
	// at Sensitivity (the paper's figure in paper mode).
	PerReleaseEpsilon *float64 `json:"per_release_epsilon"`
	PerReleaseDelta   float64  `json:"per_release_delta"`
	// ReleasesPerUser is the number of noisy releases one user's data
	// enters.
	ReleasesPerUser int `json:"releases_per_user"`
	// TotalEpsilon and TotalDelta are the tightest composed total, from
	// Accountant; Totals has every accountant's.
	TotalEpsilon *float64           `json:"total_epsilon"`
	TotalDelta   *float64           `json:"total_delta"`
	Accountant   string             `json:"accountant"`
	Totals       *accounting.Totals `json:"totals"`
	// CoversGram says whether the Gram matrices of the item updates are
	// noised: false, the paper's algorithms noise the right-hand sides
	// only.
	CoversGram bool     `json:"covers_gram"`
	Notes      []string `json:"notes"`
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
		Unit: "rating", Mechanism: opts.Noise.String(), Variance: opts.Noise.Variance(), Guarantee: "none",
		Sensitivity:       noise.Sensitivity{L1: assumed, L2: assumed},
		SensitivitySource: fmt.Sprintf("assumed, not enforced: Δ₁ = Δ₂ = %g (the largest rating, as the paper)", assumed),
		ReleasesPerUser:   perItem * max(maxUserRatings, 1),
	}
	if d, ok := opts.Noise.(discrete.Mechanism); ok {
		// Each release rounds an item's right-hand side (Rank coordinates)
		// to the grid, which can move each by one more γ.
		s, err := discrete.RoundedSensitivity(r.Sensitivity, opts.Rank, d.Granularity())
		if err != nil {
			return nil, fmt.Errorf("privacy: %w", err)
		}
		r.Sensitivity = s
		r.SensitivitySource += fmt.Sprintf(", plus the rounding of %d coordinates to the grid γ = 2^%d", opts.Rank, math.Ilogb(d.Granularity()))
	}
	if err := r.compose(opts.Noise, delta); err != nil {
		return nil, err
	}
	r.Notes = []string{
		"per_release_epsilon is the paper's figure for ONE noise addition at the assumed sensitivity; nothing in the solver enforces it (a rating also moves its user's factor, which enters every item the user rated)",
		fmt.Sprintf("the totals compose the %d noisy right-hand sides that the user with most ratings (%d) enters (%d per item); they are NOT a guarantee", r.ReleasesPerUser, maxUserRatings, perItem),
		"the Gram matrix UᵀWU of every item solve carries no noise and reveals which users rated the item and their factors",
		"so the trained model has no proved differential-privacy guarantee; use --privacy user for one",
	}
	if _, ok := opts.Noise.(discrete.Mechanism); ok {
		r.Notes = append(r.Notes, "the noise is exact discrete noise on a grid (package discrete): every noisy value is a multiple of γ")
	} else {
		r.Notes = append(r.Notes, "the noise is the paper's floating-point sampler (math/rand/v2), whose outputs lie on lattices that can reveal the input (dpmc audit --sampler float)")
	}
	if opts.Seeded {
		r.Notes = append(r.Notes, "the noise was seeded, hence reproducible and not private")
	}
	return r, nil
}

func (r *Report) compose(m noise.Mechanism, delta float64) error {
	if g, err := m.Guarantee(r.Sensitivity, delta); err == nil {
		r.PerReleaseEpsilon, r.PerReleaseDelta = &g.Epsilon, g.Delta
	}
	totals, err := accounting.Compose(m, r.Sensitivity, r.ReleasesPerUser, delta)
	if err != nil {
		return fmt.Errorf("privacy: composing %d releases: %w", r.ReleasesPerUser, err)
	}
	r.Totals = &totals
	best, err := totals.Tightest()
	if err != nil {
		return fmt.Errorf("privacy: %w", err)
	}
	r.TotalEpsilon, r.TotalDelta, r.Accountant = &best.Epsilon, &best.Delta, best.Accountant
	return nil
}
