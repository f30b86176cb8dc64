package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dpmc/dpmc/paper/privacy"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

// NoGuarantee is the verdict of a paper-mode training audit without a
// claim: the paper's algorithms guarantee nothing.
const NoGuarantee = "NO GUARANTEE"

// TrainReport is the report of one Train audit of a TrainSetup, as dpmc
// audit --train prints it: WriteText for people, WriteJSON for programs.
type TrainReport struct {
	Setup  *TrainSetup
	Result TrainResult
	// Workers is the number of runs trained at once (reported only).
	Workers int
	// Elapsed is the audit's wall time (reported, never compared).
	Elapsed time.Duration
}

// Verdict returns the result's verdict, or NoGuarantee when the setup has
// no claim.
func (r *TrainReport) Verdict() string {
	if !r.Setup.HasClaim {
		return NoGuarantee
	}
	return string(r.Result.Verdict)
}

// trainSide names the neighbour of an event's numerator or denominator.
func trainSide(s string) string {
	if s == "A" {
		return "D"
	}
	return "D′"
}

// paperTraining describes a paper-mode run.
func paperTraining(o *solver.Options) string {
	s := fmt.Sprintf("%s, rank %d, λ = %g, T = %d sweeps", o.Algorithm, o.Rank, o.Lambda, o.Iters)
	if o.Algorithm == solver.IRLS {
		s += fmt.Sprintf(", K = %d inner iterations, threshold c = %g", o.IRLSIters, o.Threshold)
	}
	if o.StartV != nil {
		s += "; every run starts from one public V₀"
	} else {
		s += "; every run draws its own start"
	}
	return s + "; the paper's algorithm (Gram matrix un-noised, no contribution bounded)"
}

// userTraining describes a user-mode run.
func userTraining(o *userdp.Options, items int) string {
	if o.Objective == userdp.ObjectiveRanking {
		return fmt.Sprintf("userdp ranking objective (dpmc train --objective ranking): positives = ratings ≥ %g, noisy positive counts and the top eigenvectors of the noisy head Gram; ≤ %d positives per user; public catalogue of all %d items; each item's row is [noisy count, row of V·diag(w)·Vᵀ]",
			o.Positive, o.MaxItemsPerUser, items)
	}
	f := "biases only (rank 0)"
	switch {
	case o.Rank > 0 && o.AutoFactors:
		f = fmt.Sprintf("rank %d and %d ALS step(s) if the released number of users × ε reaches %g, else biases only", o.Rank, o.Iters, o.AutoFactorThreshold)
	case o.Rank > 0:
		f = fmt.Sprintf("rank %d, a PCA start share %g and %d ALS step(s)", o.Rank, o.Shares.PCA, o.Iters)
	}
	return fmt.Sprintf("userdp pipeline: %s; ≤ %d ratings per user, user factors clipped to ‖u‖₂ ≤ %g, %s weights; public catalogue of all %d items",
		f, o.MaxItemsPerUser, o.ClipNorm, o.Weights, items)
}

// WriteText writes the report as aligned lines of text.
func (r *TrainReport) WriteText(w io.Writer) error {
	s, res := r.Setup, r.Result
	var b strings.Builder
	if s.Mode == UserMode {
		o, p := s.User, s.UserReport
		fmt.Fprintf(&b, "dpmc audit --train: user mode, the userdp pipeline\n")
		fmt.Fprintf(&b, "data:         %s\n", s.Data.Description)
		fmt.Fprintf(&b, "training:     %s\n", userTraining(o, s.Data.Data.Cols()))
		n := 0
		for _, rel := range p.Releases {
			n += rel.Times
		}
		noise, by := "Gaussian (float sampler)", fmt.Sprintf("μ-GDP, μ = %.4g", p.Mu)
		if p.Rho > 0 {
			noise, by = "discrete Gaussian", fmt.Sprintf("zCDP, ρ = %.4g", p.Rho)
		}
		fmt.Fprintf(&b, "noise:        %s, calibrated by userdp to the total (ε, δ) = (%g, %g); %d noisy releases per run (with this run's factor choice)\n", noise, o.Epsilon, o.Delta, n)
		fmt.Fprintf(&b, "accountant:   total (ε, δ) = (%.6g, %.3g) by %s\n", p.TotalEpsilon, p.TotalDelta, by)
		fmt.Fprintf(&b, "              (%s; the accounting of an unseeded run with these options, the audited runs being seeded)\n", p.Accountant)
	} else {
		o, f := s.Paper, &s.PaperReport.Figures
		fmt.Fprintf(&b, "dpmc audit --train: paper mode, %s\n", o.Algorithm)
		fmt.Fprintf(&b, "data:         %s\n", s.Data.Description)
		fmt.Fprintf(&b, "training:     %s\n", paperTraining(o))
		fmt.Fprintf(&b, "noise:        %s, variance %.4g, on every item right-hand side only; %d releases per run\n", o.Noise, o.Noise.Variance(), o.Releases())
		per := "n/a"
		if f.PerReleaseEpsilon != nil {
			per = fmt.Sprintf("%.4g", *f.PerReleaseEpsilon)
		}
		fmt.Fprintf(&b, "privacy:      NONE to test: the Gram matrix UᵀWU is un-noised and no user's contribution is bounded\n")
		if f.PerReleaseEpsilon != nil && f.PerReleaseDelta > 0 {
			per += fmt.Sprintf(" (δ = %.3g)", f.PerReleaseDelta)
		}
		ideal := ""
		if !f.SamplerDeliversMechanism {
			ideal = " (of the ideal mechanism, which the float sampler does not deliver)"
		}
		fmt.Fprintf(&b, "paper:        per-release ε = %s at the assumed Δ = %g; composed over the %d releases user %d enters: ε = %.4g (δ = %.3g, %s); neither is a guarantee%s\n",
			per, f.AssumedSensitivity.L1, s.PaperReport.ReleasesPerUser, s.Data.Target, f.ComposedEpsilon, f.ComposedDelta, f.Accountant, ideal)
	}
	seed := fmt.Sprintf("seeds derived from the root %d drawn from crypto/rand (--seed %d replays this audit)", res.RootSeed, res.RootSeed)
	if s.Seeded {
		seed = fmt.Sprintf("seed %d (reproducible)", res.RootSeed)
	}
	fmt.Fprintf(&b, "runs:         %d audited + %d selection runs on D and on D′ = D without user %d, one thread each, %d at once; %s\n",
		res.Runs, res.SelectRuns, s.Data.Target, r.Workers, seed)
	fmt.Fprintf(&b, "statistic:    s(V) = %s\n", res.Statistic)
	fmt.Fprintf(&b, "              chosen among %d rotation-invariant candidates on the selection runs (|AUC − ½| = %.3f there)\n", res.Candidates, res.Separation)
	fmt.Fprintf(&b, "events:       %d tried; the first %d audited runs per side choose them; each Clopper–Pearson interval at %.6g %% (Bonferroni)\n",
		res.Events, res.Selection, 100*res.IntervalConfidence)
	target := "no claim"
	if s.HasClaim {
		target = fmt.Sprintf("%s: ε = %.6g", s.ClaimFrom, s.Claim.Epsilon)
	}
	fmt.Fprintf(&b, "lower bound:  ε ≥ %.4f at %g %% confidence, δ = %.3g (%s); these runs cannot show more than ε ≥ %.2f\n",
		res.EpsilonLower, 100*res.Confidence, s.Claim.Delta, target, res.Ceiling)
	if e := res.Best; e.Description != "" {
		fmt.Fprintf(&b, "best event:   %s\n              P[%s ∈ E] ≥ %.4g (%d/%d), P[%s ∈ E] ≤ %.4g (%d/%d)\n", e.Description,
			trainSide(e.Numerator), e.P1Lower, e.Count1, e.N1, trainSide(other(e.Numerator)), e.P2Upper, e.Count2, e.N2)
	}
	if s.HasClaim {
		fmt.Fprintf(&b, "δ(ε):         ≥ %.4g at ε = %.6g (claimed δ = %.3g)\n", res.DeltaLower, s.Claim.Epsilon, s.Claim.Delta)
	}
	fmt.Fprintf(&b, "time:         %.2f s\n", r.Elapsed.Seconds())
	switch r.Verdict() {
	case string(Pass):
		fmt.Fprintf(&b, "verdict:      PASS (no event contradicts %s at %g %% confidence; not a proof of privacy)\n", s.ClaimFrom, 100*res.Confidence)
	case string(Violation):
		fmt.Fprintf(&b, "verdict:      VIOLATION (%s is false unless a %.3g %% chance struck)\n", s.ClaimFrom, 100*(1-res.Confidence))
	default:
		fmt.Fprintf(&b, "verdict:      %s (the paper's algorithms guarantee nothing; the audit shows ε ≥ %.4f)\n", NoGuarantee, res.EpsilonLower)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// trainJSONCommon are the fields of both modes' JSON reports.
type trainJSONCommon struct {
	Data               string             `json:"data"`
	Runs               int                `json:"runs"`
	SelectRuns         int                `json:"select_runs"`
	EpsilonLower       float64            `json:"epsilon_lower_bound"`
	DeltaLower         float64            `json:"delta_lower_bound"`
	Ceiling            float64            `json:"epsilon_ceiling"`
	AccountantEpsilon  *float64           `json:"accountant_epsilon,omitempty"` // user mode only
	AccountantDelta    *float64           `json:"accountant_delta,omitempty"`   // user mode only
	Accountant         string             `json:"accountant,omitempty"`         // user mode only
	Guarantee          string             `json:"guarantee"`
	ClaimedEpsilon     *float64           `json:"claimed_epsilon"`
	ClaimedDelta       *float64           `json:"claimed_delta"`
	Confidence         float64            `json:"confidence"`
	IntervalConfidence float64            `json:"interval_confidence"`
	Events             int                `json:"events"`
	Statistic          string             `json:"statistic"`
	StatisticWeights   map[string]float64 `json:"statistic_weights"`
	Separation         float64            `json:"selection_separation"`
	Candidates         int                `json:"candidates"`
	BestEvent          *jsonEvent         `json:"best_event"`
	Seed               *uint64            `json:"seed"`
	RootSeed           uint64             `json:"root_seed"`
	Workers            int                `json:"workers"`
	Seconds            float64            `json:"seconds"`
	Verdict            string             `json:"verdict"`
}

func (r *TrainReport) common() trainJSONCommon {
	s, res := r.Setup, r.Result
	var seed *uint64
	if s.Seeded {
		seed = &res.RootSeed
	}
	var claimEps, claimDelta *float64
	if s.HasClaim {
		claimEps, claimDelta = &s.Claim.Epsilon, &s.Claim.Delta
	}
	weights := map[string]float64{}
	for f, wt := range res.Weights {
		if wt != 0 {
			weights[res.Features[f]] = wt
		}
	}
	c := trainJSONCommon{
		Data: s.Data.Description, Runs: res.Runs, SelectRuns: res.SelectRuns,
		EpsilonLower: res.EpsilonLower, DeltaLower: res.DeltaLower, Ceiling: res.Ceiling,
		ClaimedEpsilon: claimEps, ClaimedDelta: claimDelta,
		Confidence: res.Confidence, IntervalConfidence: res.IntervalConfidence, Events: res.Events,
		Statistic: res.Statistic, StatisticWeights: weights, Separation: res.Separation, Candidates: res.Candidates,
		BestEvent: toJSONEvent(res.Best), Seed: seed, RootSeed: res.RootSeed, Workers: r.Workers, Seconds: r.Elapsed.Seconds(), Verdict: r.Verdict(),
	}
	if c.BestEvent != nil {
		c.BestEvent.Numerator = trainSide(res.Best.Numerator)
	}
	if s.Mode == UserMode {
		p := s.UserReport
		c.AccountantEpsilon, c.AccountantDelta, c.Accountant, c.Guarantee = &p.TotalEpsilon, &p.TotalDelta, p.Accountant, p.Guarantee
	} else {
		c.Guarantee = s.PaperReport.Guarantee
	}
	return c
}

// WriteJSON writes the report as one indented JSON object: the mode's
// settings (user mode: "options", userdp's options, and "privacy", its
// privacy report; paper mode: the solver settings, "noise" and, under
// "not_a_guarantee", the paper's figures of privacy.Figures) and the
// audit's figures. In paper mode, whose "guarantee" is "none", no key
// outside "not_a_guarantee" holds an accountant's ε or δ.
func (r *TrainReport) WriteJSON(w io.Writer) error {
	s := r.Setup
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if s.Mode == UserMode {
		return enc.Encode(struct {
			Mode     string          `json:"mode"`
			Pipeline string          `json:"pipeline"`
			Options  *userdp.Options `json:"options"`
			Privacy  *userdp.Report  `json:"privacy"`
			trainJSONCommon
		}{UserMode, "userdp", s.User, s.UserReport, r.common()})
	}
	o := s.Paper
	var irlsIters *int
	var threshold *float64
	if o.Algorithm == solver.IRLS {
		irlsIters, threshold = &o.IRLSIters, &o.Threshold
	}
	start := "random"
	if o.StartV != nil {
		start = "public"
	}
	// The paper-mode fields come first, then the common ones, as before
	// the user mode existed.
	return enc.Encode(struct {
		Mode          string   `json:"mode"`
		Algo          string   `json:"algo"`
		Rank          int      `json:"rank"`
		Lambda        float64  `json:"lambda"`
		Iters         int      `json:"iters"`
		Start         string   `json:"start"`
		IRLSIters     *int     `json:"irls_iters"`
		IRLSThreshold *float64 `json:"irls_threshold"`
		Mechanism     string   `json:"mechanism"`
		Noise         string   `json:"noise"`
		Releases      int      `json:"releases"`
		Sampler       string   `json:"sampler"`
		trainJSONCommon
		PaperFigures *privacy.Figures `json:"not_a_guarantee"`
	}{
		Mode: PaperMode, Algo: o.Algorithm.String(), Rank: o.Rank, Lambda: o.Lambda, Iters: o.Iters,
		Start: start, IRLSIters: irlsIters, IRLSThreshold: threshold,
		Mechanism: o.Noise.Name(), Noise: o.Noise.String(), Releases: o.Releases(), Sampler: s.PaperReport.Sampler,
		trainJSONCommon: r.common(), PaperFigures: &s.PaperReport.Figures,
	})
}
