// Package privacy states what a trained model guarantees, and calibrates
// the noise of a user-level private training run to a total (ε, δ).
//
// It joins three parts: the solver's user-level mode (solver.UserLevel),
// which bounds each user's contribution to every release and noises both
// sufficient statistics of every item update; the solver's per-release
// sensitivity and number of releases (Options.Sensitivity, Releases); and
// the accountants of package accounting, which compose the releases. A
// Report is the result, in the form dpmc train prints: the privacy unit,
// the mechanism, the sensitivity and where it comes from, the releases
// that touch one user, the paper's per-release ε and the composed total
// under every accountant, with the tightest named.
//
// Two modes:
//
//   - User (solver.Options.UserLevel set): user-level (ε, δ)-DP of the
//     released item factors V, in the billboard model of Chien et al.
//     (2021): each user's factor and predictions are computed from V and
//     the user's own data, so the predictions are joint-DP. The guarantee
//     holds only for unseeded noise and for centre, bound, cap and clip
//     norm chosen without looking at the data.
//   - Paper (UserLevel nil): the paper's algorithms as published. The
//     report composes the noisy right-hand sides under the assumed
//     sensitivity, but says plainly that it is no guarantee: the Gram
//     matrix carries no noise and no contribution is bounded.
package privacy

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/solver"
)

// Report is the privacy statement of one training run.
type Report struct {
	// Unit is "user" (user-level mode) or "rating" (paper mode).
	Unit string `json:"unit"`
	// Mechanism describes the noise, e.g. "huber(α=1, s=3.2)", and
	// Variance is its variance per coordinate, in squared rating units.
	Mechanism string  `json:"mechanism"`
	Variance  float64 `json:"noise_variance"`
	// Guarantee is "user-level (ε, δ)-DP of the item factors V" when the
	// totals are proved, else "none".
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
	// noised (and so covered by the totals).
	CoversGram bool     `json:"covers_gram"`
	Notes      []string `json:"notes"`
}

// ErrSeeded is returned by User for seeded options: seeded noise can be
// replayed, so it protects nothing.
var ErrSeeded = errors.New("seeded noise is reproducible and not private")

// User reports the user-level guarantee of training with opts (whose
// UserLevel and Noise must be set) at total δ = delta. A seeded run gets a
// report whose Guarantee is "none", with the totals it would have.
func User(opts solver.Options, delta float64) (*Report, error) {
	if opts.UserLevel == nil {
		return nil, errors.New("privacy: user-level report of options without UserLevel")
	}
	if opts.Noise == nil {
		return nil, errors.New("privacy: user-level report of a run without noise")
	}
	sens, err := opts.Sensitivity()
	if err != nil {
		return nil, fmt.Errorf("privacy: %w", err)
	}
	ul := opts.UserLevel
	r := &Report{
		Unit: "user", Mechanism: opts.Noise.String(), Variance: opts.Noise.Variance(), Sensitivity: sens, ReleasesPerUser: opts.Releases(), CoversGram: true,
		SensitivitySource: fmt.Sprintf("derived (solver.UserLevelSensitivity): rank %d, at most k = %d ratings per user, user factors clipped to ‖u‖₂ ≤ C = %g, ratings clipped to c ± B = %g ± %g; L1 = k·((r+1)C²/2 + B√r·C), L2 = √k·√(C⁴ + B²C²)",
			opts.Rank, ul.MaxUserRatings, ul.ClipNorm, ul.Center, ul.Bound),
	}
	if err := r.compose(opts.Noise, delta); err != nil {
		return nil, err
	}
	r.Guarantee = "user-level (ε, δ)-DP of the item factors V (billboard model: predictions are joint-DP)"
	r.Notes = []string{
		"neighbouring data sets differ by adding or removing one user with all of their ratings",
		"only V is released; each user factor u_i is computed from V and the user's own ratings and must stay with the user",
		fmt.Sprintf("both sufficient statistics of every item update (Gram matrix Σ w u uᵀ and vector Σ w (x − c) u) are noised; %d releases, each covering all items at once", r.ReleasesPerUser),
		"the IRLS weights w ∈ [0, 1] depend only on V, the inner iterate and the user's own data, so they only scale each user's bounded contribution",
		"valid only if c, B, k and C were fixed without looking at the data",
	}
	if opts.Seeded {
		r.Guarantee = "none"
		r.Notes = append(r.Notes, "the noise was seeded, hence reproducible and NOT private: the totals say what an unseeded run would guarantee")
	}
	return r, nil
}

// Paper reports on training with the paper's algorithms (opts.UserLevel
// nil): the per-release ε at the assumed sensitivity (e.g. the largest
// rating) and the composition over the releases the ratings of the user
// with most ratings (maxUserRatings) enter, which is NOT a guarantee.
func Paper(opts solver.Options, assumed float64, maxUserRatings int, delta float64) (*Report, error) {
	if opts.UserLevel != nil || opts.Noise == nil {
		return nil, errors.New("privacy: paper report needs noise and no UserLevel")
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

// DefaultHuberAlpha is the Huber shape used when calibrating Huber noise
// to a total budget and no shape is given: at equal ε a small α (close to
// Laplace) gives less variance, and α = 1 keeps a Gaussian centre.
const DefaultHuberAlpha = 1.0

// Calibrate returns the mechanism named mech ("gaussian", "laplace" or
// "huber" at shape alpha) whose scale makes training with opts (UserLevel
// set; opts.Noise is ignored) meet the total (epsilon, delta) under the
// tightest accountant, found by bisection, with the totals it reaches.
func Calibrate(opts solver.Options, mech string, alpha, epsilon, delta float64) (noise.Mechanism, accounting.Totals, error) {
	if opts.UserLevel == nil {
		return nil, accounting.Totals{}, errors.New("privacy: calibration needs user-level options")
	}
	sens, err := opts.Sensitivity()
	if err != nil {
		return nil, accounting.Totals{}, fmt.Errorf("privacy: %w", err)
	}
	var family func(p float64) (noise.Mechanism, error)
	var ref float64
	switch mech {
	case "gaussian":
		family = func(p float64) (noise.Mechanism, error) { return gaussian.New(p) }
		ref = sens.L2
	case "laplace":
		family = func(p float64) (noise.Mechanism, error) { return laplace.New(p) }
		ref = sens.L1
	case "huber":
		family = func(p float64) (noise.Mechanism, error) { return huber.New(alpha, p) }
		ref = alpha * sens.L1
	default:
		return nil, accounting.Totals{}, fmt.Errorf("privacy: mechanism %q: want gaussian, laplace or huber", mech)
	}
	p, totals, err := accounting.Calibrate(family, sens, opts.Releases(), epsilon, delta, ref*1e-6, ref*1e6)
	if err != nil {
		return nil, accounting.Totals{}, fmt.Errorf("privacy: calibrating %s to ε = %g, δ = %g over %d releases: %w", mech, epsilon, delta, opts.Releases(), err)
	}
	m, err := family(p)
	return m, totals, err
}
