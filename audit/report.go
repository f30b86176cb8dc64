package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// DefaultGaussianClaimDelta is the δ a mechanism audit claims by default
// for a mechanism that has no pure-ε guarantee, such as the Gaussian.
const DefaultGaussianClaimDelta = 1e-5

// DefaultClaimDelta returns the δ of the default claim of a mechanism
// audit: 0 for a mechanism with a pure-ε guarantee (Laplace, Huber), whose
// Guarantee accepts δ = 0, and DefaultGaussianClaimDelta for the others.
func DefaultClaimDelta(m noise.Mechanism) float64 {
	if _, err := m.Guarantee(noise.Sensitivity{L1: 1, L2: 1}, 0); err != nil {
		return DefaultGaussianClaimDelta
	}
	return 0
}

// GuaranteeClaim returns m's own guarantee for one release at sensitivity
// sens (read as both the ℓ1 and the ℓ2 norm, so each mechanism uses its
// own) and delta: the claim a mechanism audit tests by default. It returns
// an error, wrapping check.ErrParam, naming the mechanism if the guarantee
// does not exist at these arguments.
func GuaranteeClaim(m noise.Mechanism, sens, delta float64) (noise.Guarantee, error) {
	if m == nil {
		return noise.Guarantee{}, fmt.Errorf("%w: nil mechanism", check.ErrParam)
	}
	g, err := m.Guarantee(noise.Sensitivity{L1: sens, L2: sens}, delta)
	if err != nil {
		return noise.Guarantee{}, fmt.Errorf("the %s mechanism's guarantee: %w", m.Name(), err)
	}
	return g, nil
}

// MechanismReport is the report of one Mechanism audit, as dpmc audit
// prints it: WriteText for people, WriteJSON for programs.
type MechanismReport struct {
	// Mechanism is the audited mechanism (its Name and String appear).
	Mechanism noise.Mechanism
	// Sampler names the sampler whose releases were audited, such as
	// "float"; "" when the audit tests the real-valued mechanism only.
	Sampler string
	// Options are the options of the audit (Sensitivity, Samples, Dims,
	// At, Seeded, Seed and Support are reported).
	Options MechanismOptions
	// Result is what Mechanism returned.
	Result Result
	// ClaimFromGuarantee says the claim is the mechanism's own guarantee
	// (see GuaranteeClaim) rather than one given by the caller.
	ClaimFromGuarantee bool
	// Elapsed is the audit's wall time (reported, never compared).
	Elapsed time.Duration
}

// side names the neighbour of an event's numerator or denominator.
func side(s string) string {
	if s == "A" {
		return "M(x)"
	}
	return "M(x′)"
}

func other(s string) string {
	if s == "A" {
		return "B"
	}
	return "A"
}

// part returns the part of family f, if any.
func (r *MechanismReport) part(f Family) (Part, bool) {
	for _, p := range r.Result.Parts {
		if p.Family == f {
			return p, true
		}
	}
	return Part{}, false
}

// Ideal returns the best bounds over the likelihood-ratio and histogram
// events: those that test the real-valued mechanism, not its
// floating-point implementation or its sampler.
func (r *MechanismReport) Ideal() (eps, delta float64) {
	for _, p := range r.Result.Parts {
		if p.Family&(Bits|Lattice) == 0 {
			eps, delta = max(eps, p.EpsilonLower), max(delta, p.DeltaLower)
		}
	}
	return eps, delta
}

// contradicts reports whether bounds eps and delta contradict the claim.
func (r *MechanismReport) contradicts(eps, delta float64) bool {
	return eps > r.Result.Claim.Epsilon || delta > r.Result.Claim.Delta
}

// Finding reports whether the events of family f (Bits or Lattice)
// contradict the claim on their own.
func (r *MechanismReport) Finding(f Family) bool {
	p, ok := r.part(f)
	return ok && r.contradicts(p.EpsilonLower, p.DeltaLower)
}

func eventLine(e Event) string {
	return fmt.Sprintf("%s   [%s]\n              P[%s ∈ E] ≥ %.4g (%d/%d), P[%s ∈ E] ≤ %.4g (%d/%d)",
		e.Description, e.Statistic,
		side(e.Numerator), e.P1Lower, e.Count1, e.N1, side(other(e.Numerator)), e.P2Upper, e.Count2, e.N2)
}

// WriteText writes the report as aligned lines of text.
func (r *MechanismReport) WriteText(w io.Writer) error {
	res, o := r.Result, r.Options
	var b strings.Builder
	fmt.Fprintf(&b, "dpmc audit: %v, sensitivity Δ = %g, neighbours x = %g and x′ = x + shift\n", r.Mechanism, o.Sensitivity, o.At)
	src := "as given"
	if r.ClaimFromGuarantee {
		src = "the mechanism's own guarantee"
	}
	fmt.Fprintf(&b, "claim:        %v, %s\n", res.Claim, src)
	if r.Sampler != "" {
		set := "not tested"
		if o.Support != nil {
			set = "emitted set S(x): " + o.Support.String()
		}
		fmt.Fprintf(&b, "sampler:      %s; %s\n", r.Sampler, set)
	}
	seed := "crypto/rand"
	if o.Seeded {
		seed = fmt.Sprintf("seed %d (reproducible)", o.Seed)
	}
	fmt.Fprintf(&b, "samples:      %d per neighbour per test, the first %d choose the events; %s\n", res.Samples, res.Selection, seed)
	tests := map[string]bool{}
	for _, p := range res.Parts {
		if !tests[p.Statistic] {
			tests[p.Statistic] = true
			fmt.Fprintf(&b, "test:         %s\n", p.Statistic)
		}
	}
	fmt.Fprintf(&b, "events:       %d tried; each Clopper–Pearson interval at %.6g %% (Bonferroni)\n", res.Events, 100*res.IntervalConfidence)
	fmt.Fprintf(&b, "lower bound:  ε ≥ %.4f at %g %% confidence (claimed %.6g)\n", res.EpsilonLower, 100*res.Confidence, res.Claim.Epsilon)
	if res.Best.Description != "" {
		fmt.Fprintf(&b, "best event:   %s\n", eventLine(res.Best))
	}
	fmt.Fprintf(&b, "δ(ε):         ≥ %.4g at the claimed ε (claimed δ = %g); plug-in over histogram bins %.4g\n",
		res.DeltaLower, res.Claim.Delta, res.DeltaEstimate)
	bits, withBits := r.part(Bits)
	lattice, withLattice := r.part(Lattice)
	bitsFinding, latticeFinding := r.Finding(Bits), r.Finding(Lattice)
	if withBits || withLattice {
		idealEps, _ := r.Ideal()
		fmt.Fprintf(&b, "real-valued:  ε ≥ %.4f from the likelihood-ratio and histogram events alone\n", idealEps)
	}
	if withBits {
		switch {
		case !bitsFinding:
			fmt.Fprintf(&b, "floating point: no finding; the best bit-pattern event gives ε ≥ %.4f\n", bits.EpsilonLower)
		case bits.Best == res.Best:
			fmt.Fprintf(&b, "FLOATING-POINT FINDING: the low-order bits of the float64 outputs reveal the input (the best event above)\n")
		default:
			fmt.Fprintf(&b, "FLOATING-POINT FINDING: the low-order bits of the float64 outputs reveal the input: ε ≥ %.4f\n", bits.EpsilonLower)
			fmt.Fprintf(&b, "              %s\n", eventLine(bits.Best))
		}
	}
	if withLattice {
		switch {
		case !latticeFinding:
			fmt.Fprintf(&b, "emitted set:  no finding; the best lattice event gives ε ≥ %.4f, δ(ε) ≥ %.4g\n", lattice.EpsilonLower, lattice.DeltaLower)
		case lattice.Best == res.Best:
			fmt.Fprintf(&b, "SAMPLER FINDING: whether y lies in the set the sampler emits on x reveals the input (the best event above); δ(ε) ≥ %.4g\n", lattice.DeltaLower)
		default:
			fmt.Fprintf(&b, "SAMPLER FINDING: whether y lies in the set the sampler emits on x reveals the input: ε ≥ %.4f, δ(ε) ≥ %.4g\n", lattice.EpsilonLower, lattice.DeltaLower)
			fmt.Fprintf(&b, "              %s\n", eventLine(lattice.Best))
		}
	}
	fmt.Fprintf(&b, "time:         %.1f s\n", r.Elapsed.Seconds())
	if res.Verdict == Pass {
		fmt.Fprintf(&b, "verdict:      PASS (no event contradicts the claim at %g %% confidence; not a proof of privacy)\n", 100*res.Confidence)
	} else {
		why := ""
		if !r.contradicts(r.Ideal()) {
			switch {
			case latticeFinding:
				why = "; only the sampler's releases, the real-valued mechanism passes"
			case bitsFinding:
				why = "; only the float64 implementation, the real-valued mechanism passes"
			}
		}
		fmt.Fprintf(&b, "verdict:      VIOLATION (the claim is false unless a %.3g %% chance struck%s)\n", 100*(1-res.Confidence), why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonEvent is an event in the JSON reports.
type jsonEvent struct {
	Statistic    string  `json:"statistic"`
	Family       string  `json:"family"`
	Description  string  `json:"description"`
	Numerator    string  `json:"numerator"`
	Count1       int     `json:"count1"`
	N1           int     `json:"n1"`
	Count2       int     `json:"count2"`
	N2           int     `json:"n2"`
	P1Lower      float64 `json:"p1_lower"`
	P2Upper      float64 `json:"p2_upper"`
	EpsilonLower float64 `json:"epsilon_lower_bound"`
}

func toJSONEvent(e Event) *jsonEvent {
	if e.Description == "" {
		return nil
	}
	return &jsonEvent{
		Statistic: e.Statistic, Family: e.Family.String(), Description: e.Description, Numerator: side(e.Numerator),
		Count1: e.Count1, N1: e.N1, Count2: e.Count2, N2: e.N2, P1Lower: e.P1Lower, P2Upper: e.P2Upper,
		EpsilonLower: max(0, e.EpsilonLower),
	}
}

// jsonPart is a family's finding in the JSON report.
type jsonPart struct {
	Finding      bool       `json:"finding"`
	EpsilonLower float64    `json:"epsilon_lower_bound"`
	DeltaLower   *float64   `json:"delta_lower_bound,omitempty"`
	Support      string     `json:"support,omitempty"`
	Events       int        `json:"events"`
	Best         *jsonEvent `json:"best_event"`
}

// WriteJSON writes the report as one indented JSON object.
func (r *MechanismReport) WriteJSON(w io.Writer) error {
	res, o := r.Result, r.Options
	var seed *uint64
	if o.Seeded {
		seed = &o.Seed
	}
	idealEps, _ := r.Ideal()
	var bits, lattice *jsonPart
	if p, ok := r.part(Bits); ok {
		bits = &jsonPart{Finding: r.Finding(Bits), EpsilonLower: p.EpsilonLower, Events: p.Events, Best: toJSONEvent(p.Best)}
	}
	if p, ok := r.part(Lattice); ok {
		lattice = &jsonPart{Finding: r.Finding(Lattice), EpsilonLower: p.EpsilonLower, DeltaLower: &p.DeltaLower,
			Support: o.Support.String(), Events: p.Events, Best: toJSONEvent(p.Best)}
	}
	out := struct {
		Mechanism          string     `json:"mechanism"`
		Parameters         string     `json:"parameters"`
		Sampler            string     `json:"sampler,omitempty"`
		Sensitivity        float64    `json:"sensitivity"`
		At                 float64    `json:"at"`
		Dims               int        `json:"dims"`
		ClaimedEpsilon     float64    `json:"claimed_epsilon"`
		ClaimedDelta       float64    `json:"claimed_delta"`
		ClaimFromGuarantee bool       `json:"claim_from_guarantee"`
		EpsilonLower       float64    `json:"epsilon_lower_bound"`
		IdealEpsilonLower  float64    `json:"ideal_epsilon_lower_bound"`
		DeltaLower         float64    `json:"delta_lower_bound"`
		DeltaEstimate      float64    `json:"delta_estimate"`
		Confidence         float64    `json:"confidence"`
		IntervalConfidence float64    `json:"interval_confidence"`
		Samples            int        `json:"samples"`
		Selection          int        `json:"selection_samples"`
		Events             int        `json:"events"`
		Seed               *uint64    `json:"seed"`
		BestEvent          *jsonEvent `json:"best_event"`
		BitsFinding        *jsonPart  `json:"bits_finding"`
		LatticeFinding     *jsonPart  `json:"lattice_finding,omitempty"`
		Seconds            float64    `json:"seconds"`
		Verdict            string     `json:"verdict"`
	}{
		Mechanism: r.Mechanism.Name(), Parameters: r.Mechanism.String(), Sampler: r.Sampler, Sensitivity: o.Sensitivity, At: o.At, Dims: max(o.Dims, 1),
		ClaimedEpsilon: res.Claim.Epsilon, ClaimedDelta: res.Claim.Delta, ClaimFromGuarantee: r.ClaimFromGuarantee,
		EpsilonLower: res.EpsilonLower, IdealEpsilonLower: idealEps, DeltaLower: res.DeltaLower, DeltaEstimate: res.DeltaEstimate,
		Confidence: res.Confidence, IntervalConfidence: res.IntervalConfidence,
		Samples: res.Samples, Selection: res.Selection, Events: res.Events, Seed: seed,
		BestEvent: toJSONEvent(res.Best), BitsFinding: bits, LatticeFinding: lattice, Seconds: r.Elapsed.Seconds(), Verdict: string(res.Verdict),
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
