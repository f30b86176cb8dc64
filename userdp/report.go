package userdp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dpmc/dpmc/noise/discrete"
)

// Report is the privacy statement of one Train run: what was released,
// with which noise, and the total guarantee. It holds no figure computed
// from the raw data (those are in Result.Evaluation and Summary), so it
// can be published with the release.
type Report struct {
	// Unit is the privacy unit: "user" (adding or removing one user with
	// all of the user's ratings).
	Unit string `json:"unit"`
	// Mode is "user".
	Mode string `json:"mode"`
	// Guarantee says in words what is proved, or "none …".
	Guarantee string `json:"guarantee"`
	// NoNoise is set for the non-private baseline.
	NoNoise bool `json:"no_noise"`
	// Seeded is set when the run's noise came from a seed: it then
	// guarantees nothing, and the JSON holds the accountant's total only
	// under "not_a_guarantee" (what an unseeded run of the same options
	// would guarantee), with "total_epsilon" and "total_delta" null.
	Seeded bool `json:"seeded"`
	// Epsilon and Delta are the target total (+Inf and 0 without noise).
	Epsilon float64 `json:"-"`
	Delta   float64 `json:"target_delta"`
	// EpsilonJSON is Epsilon for JSON: null without noise.
	EpsilonJSON *float64 `json:"target_epsilon"`
	// Items says how the released item list was chosen.
	Items string `json:"items"`
	// Center says where the released global centre comes from.
	Center string `json:"center"`
	// Biases says how the released item biases follow from the noisy
	// sums and counts (post-processing).
	Biases string `json:"biases"`
	// Factors says whether factors were released and why.
	Factors string `json:"factors"`
	// Ranking says what the ranking objective released and why (empty
	// for the rating objective).
	Ranking string `json:"ranking,omitempty"`
	// Sampler is the noise sampler: "discrete" (exact discrete Gaussian
	// on a grid, zCDP accounting) or "float" (seeded experiments only,
	// μ-GDP accounting); empty without noise.
	Sampler string `json:"sampler,omitempty"`
	// Releases lists every noisy release with its sensitivity and noise.
	Releases []Release `json:"releases"`
	// Mu is the GDP parameter of all releases together (exact
	// composition of Gaussian mechanisms), with float noise; Rho the zCDP
	// parameter Σ μᵢ²/2 with discrete noise. The other one is 0.
	Mu  float64 `json:"gdp_mu,omitempty"`
	Rho float64 `json:"zcdp_rho,omitempty"`
	// SelectionDelta is δ_sel, the probability bound of private item
	// selection (0 with a catalogue; it costs δ_sel/(1 − δ_sel) of the
	// total δ), and Threshold the weighted-count threshold it sets.
	SelectionDelta float64 `json:"selection_delta"`
	Threshold      float64 `json:"selection_threshold"`
	// TotalEpsilon and TotalDelta are the proved total: δ(ε) of the
	// composed GDP curve plus SelectionDelta.
	TotalEpsilon float64 `json:"total_epsilon"`
	TotalDelta   float64 `json:"total_delta"`
	// Accountant names how the total was computed.
	Accountant string `json:"accountant"`
}

// notAGuarantee is the JSON of a seeded run's accountant total: what an
// unseeded run of the same options would guarantee, not this run.
type notAGuarantee struct {
	Why          string  `json:"why"`
	TotalEpsilon float64 `json:"total_epsilon_if_unseeded"`
	TotalDelta   float64 `json:"total_delta_if_unseeded"`
}

// seededWhy says why a seeded run's total is not a guarantee.
const seededWhy = "this run's noise is seeded (reproducible), so it guarantees nothing; an unseeded run of the same options guarantees this total"

// reportJSON is Report's JSON form (see MarshalJSON).
type reportJSON struct {
	plainReport
	TotalEpsilon  *float64       `json:"total_epsilon"`
	TotalDelta    *float64       `json:"total_delta"`
	NotAGuarantee *notAGuarantee `json:"not_a_guarantee,omitempty"`
}

type plainReport Report

// MarshalJSON encodes r with "total_epsilon" and "total_delta" null when
// nothing is proved — the non-private baseline (NoNoise), a seeded run
// (Seeded: the total then sits under "not_a_guarantee", as what an
// unseeded run would guarantee), or a total that is not finite — so that
// no reader takes a number for a guarantee that this run does not give.
func (r Report) MarshalJSON() ([]byte, error) {
	proved := func(x float64) *float64 {
		if r.NoNoise || r.Seeded || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	out := reportJSON{plainReport: plainReport(r), TotalEpsilon: proved(r.TotalEpsilon), TotalDelta: proved(r.TotalDelta)}
	if r.Seeded && !r.NoNoise {
		out.NotAGuarantee = &notAGuarantee{Why: seededWhy, TotalEpsilon: r.TotalEpsilon, TotalDelta: r.TotalDelta}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes: a seeded run's total comes
// back from "not_a_guarantee" into TotalEpsilon and TotalDelta (with
// Seeded set, which says they are not this run's guarantee).
func (r *Report) UnmarshalJSON(b []byte) error {
	var in reportJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*r = Report(in.plainReport)
	switch {
	case in.TotalEpsilon != nil && in.TotalDelta != nil:
		r.TotalEpsilon, r.TotalDelta = *in.TotalEpsilon, *in.TotalDelta
	case in.NotAGuarantee != nil:
		r.TotalEpsilon, r.TotalDelta = in.NotAGuarantee.TotalEpsilon, in.NotAGuarantee.TotalDelta
	}
	return nil
}

// Evaluation holds exact, non-private figures about a run, for the
// operator only: NOT released and NOT covered by the guarantee.
type Evaluation struct {
	// DroppedOutsideCatalogue counts training ratings of items not in the
	// catalogue.
	DroppedOutsideCatalogue int `json:"dropped_outside_catalogue"`
}

// finish composes the releases into the total.
func (r *Report) finish() {
	e := r.Epsilon
	r.EpsilonJSON = &e
	mu := ComposeMu(r.Releases)
	sel := 0.0
	if r.SelectionDelta > 0 {
		sel = selectionCost(r.SelectionDelta)
	}
	deltaGDP := r.Delta - sel
	if r.Sampler == SamplerDiscrete.String() {
		r.Rho = mu * mu / 2
		eps, err := discrete.ZCDPEpsilon(r.Rho, deltaGDP)
		if err != nil {
			eps = math.Inf(1)
		}
		r.TotalEpsilon, r.TotalDelta = eps, r.Delta
		r.Accountant = "zCDP: the discrete Gaussian releases compose as ρ-zCDP, ρ = Σ Δ₂′²/(2σ²) (Canonne, Kamath & Steinke 2020, Theorem 14), converted to (ε, δ) by their Proposition 12; plus the selection δ"
		return
	}
	r.Mu = mu
	eps, err := GDPEpsilon(mu, deltaGDP)
	if err != nil {
		eps = math.Inf(1)
	}
	r.TotalEpsilon = eps
	r.TotalDelta = GDPDelta(mu, eps) + sel
	r.Accountant = "Gaussian DP (μ-GDP): exact composition of the Gaussian releases, δ(ε) from the Gaussian privacy curve; plus the selection δ"
}

// WriteText writes the report as indented lines, in the style of dpmc
// train's summary.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	if r.NoNoise {
		p("privacy:    NONE — %s", r.Guarantee)
		p("            items: %s; centre: %s; factors: %s", r.Items, r.Center, r.Factors)
		if r.Biases != "" {
			p("            biases: %s", r.Biases)
		}
		if r.Ranking != "" {
			p("            ranking: %s", r.Ranking)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	p("privacy:    %s", r.Guarantee)
	if r.Seeded {
		p("            total if unseeded (NOT this run's: its noise is seeded): ε = %.4g, δ = %.3g (target ε = %g, δ = %g; %s)", r.TotalEpsilon, r.TotalDelta, r.Epsilon, r.Delta, r.Accountant)
	} else {
		p("            total: ε = %.4g, δ = %.3g (target ε = %g, δ = %g; %s)", r.TotalEpsilon, r.TotalDelta, r.Epsilon, r.Delta, r.Accountant)
	}
	p("            items: %s", r.Items)
	if r.SelectionDelta > 0 {
		p("            selection: threshold %.4g on the noisy weighted count, δ_sel = %.3g", r.Threshold, r.SelectionDelta)
	}
	p("            centre: %s", r.Center)
	if r.Biases != "" {
		p("            biases: %s", r.Biases)
	}
	p("            factors: %s", r.Factors)
	if r.Ranking != "" {
		p("            ranking: %s", r.Ranking)
	}
	if r.Sampler == SamplerDiscrete.String() {
		p("            noise: exact discrete Gaussian on a grid γℤ per release (every noisy statistic is a multiple of its γ; μ, biases and V are post-processing of them); Δ₂ includes the rounding")
	} else {
		p("            noise: floating-point Gaussian (--sampler float): NOT safe to release, for seeded experiments only")
	}
	p("            releases (Gaussian noise, ℓ2 sensitivity per user):")
	for _, rel := range r.Releases {
		times := ""
		if rel.Times > 1 {
			times = fmt.Sprintf(" × %d", rel.Times)
		}
		if rel.Grid > 0 {
			m := rel.Mu()
			p("              - %s%s: Δ₂ = %.4g, σ = %.4g, γ = 2^%d (ρ = %.4g)", rel.Name, times, rel.L2, rel.Sigma, math.Ilogb(rel.Grid), m*m/2)
		} else {
			p("              - %s%s: Δ₂ = %.4g, σ = %.4g (μ = %.4g)", rel.Name, times, rel.L2, rel.Sigma, rel.Mu())
		}
	}
	if r.Rho > 0 {
		p("            composed: ρ = %.4g zCDP", r.Rho)
	} else {
		p("            composed: μ = %.4g GDP", r.Mu)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
