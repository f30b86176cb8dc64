package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/huber"
	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/progress"
	"github.com/dpmc/dpmc/mechanism"
	"github.com/dpmc/dpmc/privacy"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
)

// errViolation is returned (wrapped) when an audit's verdict is VIOLATION,
// so that the process exits with status 1 after printing the report.
var errViolation = errors.New("VIOLATION")

// auditFlags are the flags of dpmc audit.
type auditFlags struct {
	noise       noiseFlags
	sensitivity float64
	claimEps    float64
	claimDelta  float64
	samples     int
	dims        int
	bits        bool
	at          float64
	confidence  float64
	seed        seedFlag
	json        bool
	train       trainAuditFlags
}

// trainAuditFlags are the flags of dpmc audit --train.
type trainAuditFlags struct {
	on             bool
	privacy        string
	algo           string
	rank           int
	iters          int
	irlsIters      int
	threshold      float64
	lambda         float64
	maxUserRatings int
	clipNorm       float64
	epsilon        float64
	delta          float64
	variance       float64
	runs           int
	workers        int
	start          string
}

// mechanismOnlyFlags and trainOnlyFlags name the flags of each mode of
// dpmc audit, to check that every flag given applies to the mode run.
func mechanismOnlyFlags() []string { return []string{"sensitivity", "samples", "dims", "bits", "at"} }

func trainOnlyFlags() []string {
	return []string{"privacy", "algo", "rank", "iters", "irls-iters", "irls-threshold", "lambda",
		"max-user-ratings", "clip-norm", "epsilon", "delta", "variance", "runs", "workers", "start"}
}

func newAuditCmd() *cobra.Command {
	var fl auditFlags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Test the privacy claim of a mechanism or a training run statistically: a confidence lower bound on ε",
		Long: `audit draws --samples outputs of a mechanism on two neighbouring inputs,
x = --at and x + Δ, and searches for an event whose probabilities under the
two contradict the claimed (ε, δ). It prints the best lower bound on ε that
holds with --confidence, the event that gave it, and a verdict:

  PASS       no event contradicts the claim (this is NOT a proof of privacy)
  VIOLATION  the claim is false, unless a 1 − confidence chance struck;
             the exit status is then 1

Each output is reduced to its privacy loss L(y) = log p(y − x) − log p(y − x − Δ),
and the events are the likelihood-ratio sets {L ≥ t} and {L ≤ t} and
fixed-width histogram bins (Google's stochastic tester). The first 10 % of
the samples choose the events, the rest estimate their probabilities with
exact Clopper–Pearson intervals, Bonferroni-corrected over every event
tried, so the confidence is exact.

The claim defaults to the mechanism's own guarantee at sensitivity Δ (ℓ1
for Laplace and Huber, ℓ2 for Gaussian) and --claim-delta (default 0, and
1e-5 for the Gaussian mechanism).

--dims d > 1 audits d-coordinate outputs twice: Δ on one coordinate, and Δ
spread over all d (Δ/d each under ℓ1, Δ/√d under ℓ2).

--bits (off by default) also audits the raw float64 outputs with events on
the low bits of their mantissas, within each binade (Mironov 2012). It is
off by default because it tests the floating-point implementation, not the
mechanism: at x = 0, Δ = 1 the float64 sums x + noise of one neighbour lie
on a coarser grid than the other's in some binades, which dpmc's Laplace
and Huber samplers do not hide. A significant bit event is printed as a
floating-point finding and counts in the verdict.

--train audits a whole training run instead (the mechanism flags --sensitivity,
--samples, --dims, --bits and --at do not apply). It trains --runs times on a
tiny built-in data set D (12 users × 6 items on the scale [1, 5]: 11 users
of moderate rank-2 ratings and user 11 rating 5 on every item) and --runs
times on D without user 11, each run on one thread with its own seed, and
audits one statistic of the released item factors V. By default (--start
public) every run starts from the same V₀, drawn once from the audit's root
seed: V₀ does not depend on the data, so the guarantee under test is
unchanged, and the runs differ only by the privacy noise (and the sampled
contributions), which lets short trainings be audited (see --iters).
--start random gives each run its own start, as dpmc train does. The
statistic is a function of V Vᵀ, which does not change when V's columns are
rotated: an entry, a cosine between two items' factors, the trace,
‖Σⱼ vⱼ‖², the mean cosine, or a Fisher discriminant of all of them. It is
chosen on 20 % more runs per side that are not audited, so the bound stays
exact. Training is --algo, --rank, --lambda, --iters (and --irls-iters,
--irls-threshold), with --mechanism (default gaussian):

  --privacy user   (default) user-level DP of V: ratings centred on 3 and
                   clipped to 3 ± 2, at most --max-user-ratings per user,
                   user factors clipped to --clip-norm, both sufficient
                   statistics noised. The noise is calibrated to the total
                   --epsilon, --delta (--alpha is then the Huber shape,
                   default 1), or given by --sigma/--scale (and --alpha), and
                   the verdict is against the accountant's total (ε, δ) for
                   the same configuration (of an unseeded run).
  --privacy paper  the paper's algorithms (noise by --variance, or
                   --sigma/--scale/--alpha): the Gram matrix is un-noised and
                   there is no guarantee to test; the audit prints what it
                   finds beside the paper's figures (not guarantees).

--iters defaults to 3 in user mode, where at a fixed total ε the noise grows
with the releases, and to 30 in paper mode, where the noise per release is
fixed and the un-noised Gram matrices show after many sweeps from either
start (with --start random, not at all after a few).

--claim-epsilon and --claim-delta audit another claim instead. With --runs n,
ε cannot be shown above about log(n/10); the report prints this ceiling.`,
		Example: `  dpmc audit --mechanism laplace --scale 1 --sensitivity 1 --seed 1
  dpmc audit --mechanism huber --alpha 1 --scale 1 --sensitivity 1 --claim-epsilon 0.5
  dpmc audit --mechanism gaussian --sigma 1 --claim-epsilon 1 --claim-delta 0.0127 --json
  dpmc audit --mechanism laplace --dims 4 --bits
  dpmc audit --train --privacy user --epsilon 1 --delta 1e-6
  dpmc audit --train --algo irls --mechanism laplace --epsilon 1 --seed 1 --json
  dpmc audit --train --privacy paper --variance 0.01`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			changed := cmd.Flags().Changed
			if fl.train.on {
				for _, name := range mechanismOnlyFlags() {
					if changed(name) {
						return fmt.Errorf("--%s does not apply to --train (it audits a mechanism; --runs sets the training runs)", name)
					}
				}
				return runTrainAudit(cmd, &fl)
			}
			for _, name := range trainOnlyFlags() {
				if changed(name) {
					return fmt.Errorf("--%s applies only with --train", name)
				}
			}
			return runMechanismAudit(cmd, &fl)
		},
	}
	fl.noise.register(cmd, "")
	cmd.Flags().Lookup("mechanism").Usage = "noise mechanism: " + strings.Join(mechanism.Names(), ", ") + " (required; with --train the default is gaussian)"
	f := cmd.Flags()
	f.Float64Var(&fl.sensitivity, "sensitivity", 1, "sensitivity Δ: the norm of the shift between the neighbours, in units of the noised value")
	f.Float64Var(&fl.claimEps, "claim-epsilon", 0, "claimed ε (default: the mechanism's own guarantee at --sensitivity and --claim-delta; with --train, the accountant's total)")
	f.Float64Var(&fl.claimDelta, "claim-delta", 0, "claimed δ, a probability in [0, 1) (default 0, and 1e-5 for gaussian; with --train, --delta)")
	f.IntVar(&fl.samples, "samples", audit.DefaultMechanismSamples, "outputs drawn per neighbour per test, in [100, 1e8]; memory is about 20 bytes per output per test")
	f.IntVar(&fl.dims, "dims", 1, "coordinates d of one output; d > 1 adds a test spreading Δ over all d")
	f.BoolVar(&fl.bits, "bits", false, "also test the low-order bits of the raw float64 outputs (Mironov 2012); a finding counts in the verdict")
	f.Float64Var(&fl.at, "at", 0, "the first neighbour's input x; the second is x + Δ")
	f.Float64Var(&fl.confidence, "confidence", audit.DefaultConfidence, "joint confidence of all the bounds, in (0, 1)")
	fl.seed.register(cmd)
	f.BoolVar(&fl.json, "json", false, "print the report as one JSON object")
	t := &fl.train
	f.BoolVar(&t.on, "train", false, "audit a training run on the built-in tiny data instead of a mechanism")
	f.StringVar(&t.privacy, "privacy", "user", "--train: user (user-level DP of V, with a guarantee) or paper (the paper's algorithms, no guarantee)")
	f.StringVar(&t.algo, "algo", "als", "--train: solver, als or irls")
	f.IntVar(&t.rank, "rank", 2, "--train: rank r of the factorization, in [1, 12] (the built-in data has 6 items)")
	f.IntVar(&t.iters, "iters", 0, fmt.Sprintf("--train: outer sweeps T, in [1, 10000] (default %d with --privacy user, %d with --privacy paper)", auditUserIters, auditPaperIters))
	f.IntVar(&t.irlsIters, "irls-iters", 2, "--train: inner iterations K of each IRLS item solve, in [1, 1000]")
	f.Float64Var(&t.threshold, "irls-threshold", 0, "--train: Huber threshold c of the IRLS weights, in rating units (default: the Huber noise's α, else 3)")
	f.Float64Var(&t.lambda, "lambda", 0.5, "--train: ridge penalty λ > 0 of every row solve")
	f.IntVar(&t.maxUserRatings, "max-user-ratings", audit.TinyItems, "--train user: ratings k a user contributes to item updates, ≥ 1")
	f.Float64Var(&t.clipNorm, "clip-norm", 1, "--train user: ℓ2 norm C user factors are clipped to in item updates, > 0")
	f.Float64Var(&t.epsilon, "epsilon", 1, "--train user: total ε the noise is calibrated to (not with --sigma/--scale)")
	f.Float64Var(&t.delta, "delta", 1e-6, "--train: total δ of the calibration and the accountant, in (0, 1)")
	f.Float64Var(&t.variance, "variance", 1, "--train paper: noise variance per coordinate, in squared rating units, as in dpmc train")
	f.IntVar(&t.runs, "runs", audit.DefaultTrainRuns, "--train: audited training runs per neighbour, in [100, 1e7] (20 % more choose the statistic)")
	f.IntVar(&t.workers, "workers", 0, "--train: runs trained at once (default: all cores); results do not depend on it")
	f.StringVar(&t.start, "start", "public", "--train: public (every run starts from one data-independent V₀, so runs differ only by the privacy noise) or random (each run draws its own start, as dpmc train does)")
	return cmd
}

// runMechanismAudit is dpmc audit --mechanism.
func runMechanismAudit(cmd *cobra.Command, fl *auditFlags) error {
	m, err := fl.noise.build(cmd)
	if err != nil {
		return err
	}
	noise, ok := m.(audit.Noise)
	if !ok {
		return fmt.Errorf("--mechanism %s: its density is not known, so it cannot be audited", m.Name())
	}
	changed := cmd.Flags().Changed
	for _, c := range []error{
		check.Positive("--sensitivity", fl.sensitivity),
		check.InRange("--samples", float64(fl.samples), 100, 1e8),
		check.InRange("--dims", float64(fl.dims), 1, 1000),
		check.Finite("--at", fl.at),
		check.Probability("--confidence", fl.confidence),
		check.NonNegative("--claim-epsilon", fl.claimEps),
		check.InRange("--claim-delta", fl.claimDelta, 0, 1),
	} {
		if c != nil {
			return c
		}
	}
	if fl.claimDelta == 1 {
		return fmt.Errorf("%w: --claim-delta = 1, want < 1 (δ = 1 claims nothing)", check.ErrParam)
	}
	claim := mechanism.Guarantee{Epsilon: fl.claimEps, Delta: fl.claimDelta}
	if !changed("claim-delta") && m.Name() == "gaussian" {
		claim.Delta = 1e-5
	}
	fromGuarantee := !changed("claim-epsilon")
	if fromGuarantee {
		g, err := m.Guarantee(mechanism.Sensitivity{L1: fl.sensitivity, L2: fl.sensitivity}, claim.Delta)
		if err != nil {
			return fmt.Errorf("--claim-delta: the %s mechanism's guarantee: %w", m.Name(), err)
		}
		claim.Epsilon = g.Epsilon
	}

	opts := audit.MechanismOptions{
		Options:     audit.Options{Claim: claim, Confidence: fl.confidence, Bits: fl.bits},
		Sensitivity: fl.sensitivity,
		Samples:     fl.samples,
		Dims:        fl.dims,
		At:          fl.at,
		Seeded:      changed("seed"),
		Seed:        fl.seed.seed,
	}
	rep := progress.New(cmd.ErrOrStderr(), "audit: sampling")
	opts.Progress = rep.Update
	start := time.Now()
	res, err := audit.Mechanism(cmd.Context(), noise, opts)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	rpt := auditReport{m: m, fl: fl, opts: opts, res: res, fromGuarantee: fromGuarantee, elapsed: time.Since(start)}
	w := cmd.OutOrStdout()
	if fl.json {
		err = rpt.writeJSON(w)
	} else {
		err = rpt.writeText(w)
	}
	if err != nil {
		return fmt.Errorf("audit: writing the report: %w", err)
	}
	if res.Verdict == audit.Violation {
		return fmt.Errorf("audit: %w: the lower bound ε ≥ %.4g (δ(ε) ≥ %.3g) contradicts the claimed %v at %g %% confidence",
			errViolation, res.EpsilonLower, res.DeltaLower, claim, 100*res.Confidence)
	}
	return nil
}

// auditReport is what dpmc audit prints.
type auditReport struct {
	m             mechanism.Mechanism
	fl            *auditFlags
	opts          audit.MechanismOptions
	res           audit.Result
	fromGuarantee bool
	elapsed       time.Duration
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

// bitsPart returns the bit-pattern part, if --bits was given.
func (r *auditReport) bitsPart() (audit.Part, bool) {
	for _, p := range r.res.Parts {
		if p.Family == audit.Bits {
			return p, true
		}
	}
	return audit.Part{}, false
}

// ideal returns the best bounds over the events that are not bit patterns:
// those that test the real-valued mechanism.
func (r *auditReport) ideal() (eps, delta float64) {
	for _, p := range r.res.Parts {
		if p.Family != audit.Bits {
			eps, delta = max(eps, p.EpsilonLower), max(delta, p.DeltaLower)
		}
	}
	return eps, delta
}

// contradicts reports whether bounds eps and delta contradict the claim.
func (r *auditReport) contradicts(eps, delta float64) bool {
	return eps > r.res.Claim.Epsilon || delta > r.res.Claim.Delta
}

func eventLine(e audit.Event) string {
	return fmt.Sprintf("%s   [%s]\n              P[%s ∈ E] ≥ %.4g (%d/%d), P[%s ∈ E] ≤ %.4g (%d/%d)",
		e.Description, e.Statistic,
		side(e.Numerator), e.P1Lower, e.Count1, e.N1, side(other(e.Numerator)), e.P2Upper, e.Count2, e.N2)
}

func (r *auditReport) writeText(w io.Writer) error {
	res, o := r.res, r.opts
	var b strings.Builder
	fmt.Fprintf(&b, "dpmc audit: %v, sensitivity Δ = %g, neighbours x = %g and x′ = x + shift\n", r.m, o.Sensitivity, o.At)
	src := "as given"
	if r.fromGuarantee {
		src = "the mechanism's own guarantee"
	}
	fmt.Fprintf(&b, "claim:        %v, %s\n", res.Claim, src)
	seed := "crypto/rand"
	if o.Seeded {
		seed = fmt.Sprintf("seed %d (reproducible)", o.Seed)
	}
	fmt.Fprintf(&b, "samples:      %d per neighbour per test, the first %d choose the events; %s\n", o.Samples, res.Selection, seed)
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
	bits, withBits := r.bitsPart()
	bitsFinding := withBits && r.contradicts(bits.EpsilonLower, bits.DeltaLower)
	if withBits {
		idealEps, _ := r.ideal()
		fmt.Fprintf(&b, "real-valued:  ε ≥ %.4f from the likelihood-ratio and histogram events alone\n", idealEps)
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
	fmt.Fprintf(&b, "time:         %.1f s\n", r.elapsed.Seconds())
	if res.Verdict == audit.Pass {
		fmt.Fprintf(&b, "verdict:      PASS (no event contradicts the claim at %g %% confidence; not a proof of privacy)\n", 100*res.Confidence)
	} else {
		why := ""
		if bitsFinding && !r.contradicts(r.ideal()) {
			why = "; only the float64 implementation, the real-valued mechanism passes"
		}
		fmt.Fprintf(&b, "verdict:      VIOLATION (the claim is false unless a %.3g %% chance struck%s)\n", 100*(1-res.Confidence), why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonEvent is an event in the JSON report.
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

func toJSONEvent(e audit.Event) *jsonEvent {
	if e.Description == "" {
		return nil
	}
	return &jsonEvent{
		Statistic: e.Statistic, Family: e.Family.String(), Description: e.Description, Numerator: side(e.Numerator),
		Count1: e.Count1, N1: e.N1, Count2: e.Count2, N2: e.N2, P1Lower: e.P1Lower, P2Upper: e.P2Upper,
		EpsilonLower: max(0, e.EpsilonLower),
	}
}

type jsonBits struct {
	Finding      bool       `json:"finding"`
	EpsilonLower float64    `json:"epsilon_lower_bound"`
	Events       int        `json:"events"`
	Best         *jsonEvent `json:"best_event"`
}

func (r *auditReport) writeJSON(w io.Writer) error {
	res, o := r.res, r.opts
	var seed *uint64
	if o.Seeded {
		seed = &o.Seed
	}
	idealEps, _ := r.ideal()
	var bits *jsonBits
	if p, ok := r.bitsPart(); ok {
		bits = &jsonBits{Finding: r.contradicts(p.EpsilonLower, p.DeltaLower), EpsilonLower: p.EpsilonLower, Events: p.Events, Best: toJSONEvent(p.Best)}
	}
	out := struct {
		Mechanism          string     `json:"mechanism"`
		Parameters         string     `json:"parameters"`
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
		BitsFinding        *jsonBits  `json:"bits_finding"`
		Seconds            float64    `json:"seconds"`
		Verdict            string     `json:"verdict"`
	}{
		Mechanism: r.m.Name(), Parameters: r.m.String(), Sensitivity: o.Sensitivity, At: o.At, Dims: o.Dims,
		ClaimedEpsilon: res.Claim.Epsilon, ClaimedDelta: res.Claim.Delta, ClaimFromGuarantee: r.fromGuarantee,
		EpsilonLower: res.EpsilonLower, IdealEpsilonLower: idealEps, DeltaLower: res.DeltaLower, DeltaEstimate: res.DeltaEstimate,
		Confidence: res.Confidence, IntervalConfidence: res.IntervalConfidence,
		Samples: o.Samples, Selection: res.Selection, Events: res.Events, Seed: seed,
		BestEvent: toJSONEvent(res.Best), BitsFinding: bits, Seconds: r.elapsed.Seconds(), Verdict: string(res.Verdict),
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Default sweeps of dpmc audit --train. In user mode the noise of every
// release grows with the releases at a fixed total ε, so few sweeps are the
// most telling. In paper mode the noise per release is fixed and the bound
// found at 1000 runs, seeds 1–4, is 2.7–3.2 at T = 30 from either start;
// at T = 3 it is 0.9–4.6 from a public start (it depends on V₀) and about 0
// from random starts.
const (
	auditUserIters  = 3
	auditPaperIters = 30
)

// auditStartStream is the rng stream, under --seed, of the public start V₀
// of dpmc audit --train. audit.Train derives the runs' seeds from streams
// phase<<62 | side<<61 | run with phase 0 or 1, so phase 3 is free.
const auditStartStream = 3 << 62

// trainAudit is one configured dpmc audit --train: what to train and what
// the privacy accounting says about it.
type trainAudit struct {
	mode       string // "user" or "paper"
	data       *audit.TrainData
	opts       solver.Options // the options of every run, less the seed
	noise      mechanism.Mechanism
	calibrated bool                // noise calibrated to target
	target     mechanism.Guarantee // --epsilon, --delta
	report     *privacy.Report
	// claim is what the verdict is against; hasClaim is false in paper
	// mode without --claim-epsilon (there is no guarantee to test).
	claim     mechanism.Guarantee
	hasClaim  bool
	claimFrom string
	// root is the root seed of the runs and of V₀; seeded says it came
	// from --seed rather than crypto/rand.
	root   uint64
	seeded bool
}

// setupTrainAudit checks the --train flags and builds the configuration.
func setupTrainAudit(cmd *cobra.Command, fl *auditFlags) (*trainAudit, error) {
	t, changed := &fl.train, cmd.Flags().Changed
	if t.privacy != "user" && t.privacy != "paper" {
		return nil, fmt.Errorf("--privacy %q: want user or paper", t.privacy)
	}
	user := t.privacy == "user"
	algo, err := solver.ParseAlgorithm(t.algo)
	if err != nil {
		return nil, fmt.Errorf("--algo: %w", err)
	}
	if !changed("iters") {
		t.iters = auditPaperIters
		if user {
			t.iters = auditUserIters
		}
	}
	for _, c := range []error{
		check.InRange("--rank", float64(t.rank), 1, 2*audit.TinyItems),
		check.InRange("--iters", float64(t.iters), 1, 10000),
		check.InRange("--irls-iters", float64(t.irlsIters), 1, 1000),
		check.NonNegative("--irls-threshold", t.threshold),
		check.Positive("--lambda", t.lambda), // D′ has a user without ratings
		check.InRange("--runs", float64(t.runs), 100, 1e7),
		check.InRange("--workers", float64(t.workers), 0, 4096),
		check.Probability("--delta", t.delta),
		check.Probability("--confidence", fl.confidence),
		check.NonNegative("--claim-epsilon", fl.claimEps),
		check.InRange("--claim-delta", fl.claimDelta, 0, 1),
	} {
		if c != nil {
			return nil, c
		}
	}
	if fl.claimDelta == 1 {
		return nil, fmt.Errorf("%w: --claim-delta = 1, want < 1 (δ = 1 claims nothing)", check.ErrParam)
	}
	if changed("claim-delta") && !changed("claim-epsilon") {
		return nil, fmt.Errorf("--claim-delta needs --claim-epsilon with --train (the default claim is the accountant's total)")
	}
	if algo != solver.IRLS {
		for _, name := range []string{"irls-iters", "irls-threshold"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s applies only to --algo irls", name)
			}
		}
	}
	if !changed("mechanism") {
		fl.noise.name = "gaussian"
	}
	if !slices.Contains(mechanism.Names(), fl.noise.name) {
		return nil, fmt.Errorf("--mechanism %q: want one of %s", fl.noise.name, strings.Join(mechanism.Names(), ", "))
	}
	data, err := audit.TinyTrainData()
	if err != nil {
		return nil, err
	}
	a := &trainAudit{mode: t.privacy, data: data, opts: solver.Options{
		Algorithm: algo, Rank: t.rank, Lambda: t.lambda, Iters: t.iters, IRLSIters: t.irlsIters,
		Threshold: t.threshold, Init: solver.InitWarm,
	}}
	// The root of every seed of the audit: --seed, or drawn here so that
	// the report's "--seed N replays this audit" covers V₀ too.
	a.seeded, a.root = changed("seed"), fl.seed.seed
	if !a.seeded {
		a.root = rng.Crypto().Uint64()
	}
	switch t.start {
	case "public":
		// One start for every run, selection and audited alike. It is
		// drawn before any run and independently of the data.
		src := rng.Stream(a.root, auditStartStream)
		a.opts.StartV = make([]float64, data.Data.Cols()*t.rank)
		for k := range a.opts.StartV {
			a.opts.StartV[k] = src.NormFloat64()
		}
	case "random":
	default:
		return nil, fmt.Errorf("--start %q: want public or random", t.start)
	}
	if t.threshold == 0 {
		// Provisional, until the noise is known: the accounting does not
		// depend on it.
		a.opts.Threshold = huber.PaperAlpha
	}
	if user {
		err = a.setupUser(cmd, fl)
	} else {
		err = a.setupPaper(cmd, fl)
	}
	if err != nil {
		return nil, err
	}
	a.opts.Noise = a.noise
	if h, ok := a.noise.(*huber.Mechanism); ok && t.threshold == 0 {
		a.opts.Threshold = h.Alpha()
	}
	if changed("claim-epsilon") {
		a.claim = mechanism.Guarantee{Epsilon: fl.claimEps, Delta: fl.claimDelta}
		if !changed("claim-delta") {
			a.claim.Delta = t.delta
		}
		a.hasClaim, a.claimFrom = true, "the claim given by --claim-epsilon"
	}
	return a, nil
}

// setupUser configures user-level training: the public scale of the
// built-in data gives the centre and bound; the noise is calibrated to
// --epsilon, --delta unless given explicitly.
func (a *trainAudit) setupUser(cmd *cobra.Command, fl *auditFlags) error {
	t, changed := &fl.train, cmd.Flags().Changed
	if changed("variance") {
		return fmt.Errorf("--variance applies to --privacy paper; with --privacy user give --epsilon or --sigma/--scale")
	}
	for _, c := range []error{
		check.InRange("--max-user-ratings", float64(t.maxUserRatings), 1, 1e6),
		check.Positive("--clip-norm", t.clipNorm),
		check.Positive("--epsilon", t.epsilon),
	} {
		if c != nil {
			return c
		}
	}
	a.opts.UserLevel = &solver.UserLevel{
		Center: (a.data.Min + a.data.Max) / 2, Bound: (a.data.Max - a.data.Min) / 2,
		MaxUserRatings: t.maxUserRatings, ClipNorm: t.clipNorm,
	}
	if changed("scale") || changed("sigma") {
		if changed("epsilon") {
			return fmt.Errorf("give --epsilon or explicit --sigma/--scale, not both")
		}
		m, err := fl.noise.build(cmd)
		if err != nil {
			return err
		}
		a.noise = m
	} else {
		alpha := privacy.DefaultHuberAlpha
		if changed("alpha") {
			if fl.noise.name != "huber" {
				return fmt.Errorf("--alpha does not apply to the %s mechanism", fl.noise.name)
			}
			if err := check.Positive("--alpha", fl.noise.alpha); err != nil {
				return err
			}
			alpha = fl.noise.alpha
		}
		m, _, err := privacy.Calibrate(a.opts, fl.noise.name, alpha, t.epsilon, t.delta)
		if err != nil {
			return fmt.Errorf("--epsilon %g, --delta %g: %w", t.epsilon, t.delta, err)
		}
		a.noise, a.calibrated, a.target = m, true, mechanism.Guarantee{Epsilon: t.epsilon, Delta: t.delta}
	}
	o := a.opts
	o.Noise, o.Seeded = a.noise, false // the guarantee of an unseeded run
	rep, err := privacy.User(o, t.delta)
	if err != nil {
		return fmt.Errorf("privacy accounting at --delta %g: %w", t.delta, err)
	}
	a.report = rep
	a.claim = mechanism.Guarantee{Epsilon: *rep.TotalEpsilon, Delta: *rep.TotalDelta}
	a.hasClaim, a.claimFrom = true, "the accountant's total"
	return nil
}

// setupPaper configures the paper's algorithms: noise by --variance or
// explicitly, as dpmc train does, and the paper's (not guaranteed) figures.
func (a *trainAudit) setupPaper(cmd *cobra.Command, fl *auditFlags) error {
	t, changed := &fl.train, cmd.Flags().Changed
	for _, name := range []string{"epsilon", "max-user-ratings", "clip-norm"} {
		if changed(name) {
			return fmt.Errorf("--%s applies only to --privacy user", name)
		}
	}
	var err error
	if a.noise, err = fl.noise.orVariance(cmd, t.variance); err != nil {
		return err
	}
	o := a.opts
	o.Noise = a.noise
	rep, err := privacy.Paper(o, math.Max(math.Abs(a.data.Min), math.Abs(a.data.Max)), maxRowLen(a.data.Data), t.delta)
	if err != nil {
		return fmt.Errorf("the paper's figures at --delta %g: %w", t.delta, err)
	}
	a.report = rep
	a.claim = mechanism.Guarantee{Delta: t.delta} // only its δ is used: the bound on ε at δ
	return nil
}

// fit is the audit's training function: one single-threaded run, seeded.
func (a *trainAudit) fit(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
	o := a.opts
	o.Seed, o.Seeded, o.Workers = seed, true, 1
	m, err := solver.Train(ctx, x, o)
	if err != nil {
		return nil, err
	}
	return m.V, nil
}

// runTrainAudit is dpmc audit --train.
func runTrainAudit(cmd *cobra.Command, fl *auditFlags) error {
	a, err := setupTrainAudit(cmd, fl)
	if err != nil {
		return err
	}
	opts := audit.TrainOptions{
		Options: audit.Options{Claim: a.claim, Confidence: fl.confidence},
		Data:    a.data.Data, Neighbour: a.data.Neighbour, Fit: a.fit,
		Runs: fl.train.runs, Seeded: true, Seed: a.root, Workers: fl.train.workers,
	}
	rep := progress.New(cmd.ErrOrStderr(), "audit: training")
	opts.Progress = rep.Update
	start := time.Now()
	res, err := audit.Train(cmd.Context(), opts)
	if err != nil {
		return fmt.Errorf("training audit: %w", err)
	}
	r := &trainAuditReport{a: a, res: res, elapsed: time.Since(start), workers: fl.train.workers}
	if r.workers == 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	w := cmd.OutOrStdout()
	if fl.json {
		err = r.writeJSON(w)
	} else {
		err = r.writeText(w)
	}
	if err != nil {
		return fmt.Errorf("audit: writing the report: %w", err)
	}
	if r.verdict() == string(audit.Violation) {
		return fmt.Errorf("audit: %w: the lower bound ε ≥ %.4g (δ(ε) ≥ %.3g) contradicts %s %v at %g %% confidence",
			errViolation, res.EpsilonLower, res.DeltaLower, a.claimFrom, a.claim, 100*res.Confidence)
	}
	return nil
}

// trainAuditReport is what dpmc audit --train prints.
type trainAuditReport struct {
	a       *trainAudit
	res     audit.TrainResult
	elapsed time.Duration
	workers int
}

// auditNoGuarantee is the verdict of a paper-mode audit with no claim.
const auditNoGuarantee = "NO GUARANTEE"

func (r *trainAuditReport) verdict() string {
	if !r.a.hasClaim {
		return auditNoGuarantee
	}
	return string(r.res.Verdict)
}

// auditTrainSide names the neighbour of an event's numerator or denominator.
func auditTrainSide(s string) string {
	if s == "A" {
		return "D"
	}
	return "D′"
}

func (r *trainAuditReport) training() string {
	o := r.a.opts
	s := fmt.Sprintf("%s, rank %d, λ = %g, T = %d sweeps", o.Algorithm, o.Rank, o.Lambda, o.Iters)
	if o.Algorithm == solver.IRLS {
		s += fmt.Sprintf(", K = %d inner iterations, threshold c = %g", o.IRLSIters, o.Threshold)
	}
	if o.StartV != nil {
		s += "; every run starts from one public V₀"
	} else {
		s += "; every run draws its own start"
	}
	if u := o.UserLevel; u != nil {
		s += fmt.Sprintf("; user level: ratings centred on %g, clipped to ± %g, ≤ %d per user, user factors clipped to ‖u‖₂ ≤ %g",
			u.Center, u.Bound, u.MaxUserRatings, u.ClipNorm)
	} else {
		s += "; the paper's algorithm (Gram matrix un-noised, no contribution bounded)"
	}
	return s
}

func (r *trainAuditReport) writeText(w io.Writer) error {
	a, res := r.a, r.res
	p := a.report
	var b strings.Builder
	fmt.Fprintf(&b, "dpmc audit --train: %s mode, %s\n", a.mode, a.opts.Algorithm)
	fmt.Fprintf(&b, "data:         %s\n", a.data.Description)
	fmt.Fprintf(&b, "training:     %s\n", r.training())
	how := "as given, on both sufficient statistics"
	switch {
	case a.mode == "paper":
		how = "on every item right-hand side only"
	case a.calibrated:
		how = fmt.Sprintf("calibrated to the total (ε, δ) = (%g, %g), on both sufficient statistics", a.target.Epsilon, a.target.Delta)
	}
	fmt.Fprintf(&b, "noise:        %s, variance %.4g, %s; %d releases per run\n", a.noise, a.noise.Variance(), how, a.opts.Releases())
	if a.mode == "user" {
		fmt.Fprintf(&b, "accountant:   total (ε, δ) = (%.6g, %.3g) by %s over %d releases at sensitivity L1 = %.4g, L2 = %.4g\n",
			*p.TotalEpsilon, *p.TotalDelta, p.Accountant, p.ReleasesPerUser, p.Sensitivity.L1, p.Sensitivity.L2)
		fmt.Fprintf(&b, "              (%s, for an unseeded run)\n", p.Guarantee)
	} else {
		per := "n/a"
		if p.PerReleaseEpsilon != nil {
			per = fmt.Sprintf("%.4g", *p.PerReleaseEpsilon)
		}
		fmt.Fprintf(&b, "privacy:      NONE to test: the Gram matrix UᵀWU is un-noised and no user's contribution is bounded\n")
		if p.PerReleaseEpsilon != nil && p.PerReleaseDelta > 0 {
			per += fmt.Sprintf(" (δ = %.3g)", p.PerReleaseDelta)
		}
		fmt.Fprintf(&b, "paper:        per-release ε = %s at the assumed Δ = %g; composed over the %d releases user %d enters: ε = %.4g (δ = %.3g, %s); neither is a guarantee\n",
			per, p.Sensitivity.L1, p.ReleasesPerUser, a.data.Target, *p.TotalEpsilon, *p.TotalDelta, p.Accountant)
	}
	seed := fmt.Sprintf("seeds derived from the root %d drawn from crypto/rand (--seed %d replays this audit)", res.RootSeed, res.RootSeed)
	if a.seeded {
		seed = fmt.Sprintf("seed %d (reproducible)", res.RootSeed)
	}
	fmt.Fprintf(&b, "runs:         %d audited + %d selection runs on D and on D′ = D without user %d, one thread each, %d at once; %s\n",
		res.Runs, res.SelectRuns, a.data.Target, r.workers, seed)
	fmt.Fprintf(&b, "statistic:    s(V) = %s\n", res.Statistic)
	fmt.Fprintf(&b, "              chosen among %d rotation-invariant candidates on the selection runs (|AUC − ½| = %.3f there)\n", res.Candidates, res.Separation)
	fmt.Fprintf(&b, "events:       %d tried; the first %d audited runs per side choose them; each Clopper–Pearson interval at %.6g %% (Bonferroni)\n",
		res.Events, res.Selection, 100*res.IntervalConfidence)
	target := "no claim"
	if a.hasClaim {
		target = fmt.Sprintf("%s: ε = %.6g", a.claimFrom, a.claim.Epsilon)
	}
	fmt.Fprintf(&b, "lower bound:  ε ≥ %.4f at %g %% confidence, δ = %.3g (%s); these runs cannot show more than ε ≥ %.2f\n",
		res.EpsilonLower, 100*res.Confidence, a.claim.Delta, target, res.Ceiling)
	if e := res.Best; e.Description != "" {
		fmt.Fprintf(&b, "best event:   %s\n              P[%s ∈ E] ≥ %.4g (%d/%d), P[%s ∈ E] ≤ %.4g (%d/%d)\n", e.Description,
			auditTrainSide(e.Numerator), e.P1Lower, e.Count1, e.N1, auditTrainSide(other(e.Numerator)), e.P2Upper, e.Count2, e.N2)
	}
	if a.hasClaim {
		fmt.Fprintf(&b, "δ(ε):         ≥ %.4g at ε = %.6g (claimed δ = %.3g)\n", res.DeltaLower, a.claim.Epsilon, a.claim.Delta)
	}
	fmt.Fprintf(&b, "time:         %.2f s\n", r.elapsed.Seconds())
	switch r.verdict() {
	case string(audit.Pass):
		fmt.Fprintf(&b, "verdict:      PASS (no event contradicts %s at %g %% confidence; not a proof of privacy)\n", a.claimFrom, 100*res.Confidence)
	case string(audit.Violation):
		fmt.Fprintf(&b, "verdict:      VIOLATION (%s is false unless a %.3g %% chance struck)\n", a.claimFrom, 100*(1-res.Confidence))
	default:
		fmt.Fprintf(&b, "verdict:      %s (the paper's algorithms guarantee nothing; the audit shows ε ≥ %.4f)\n", auditNoGuarantee, res.EpsilonLower)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *trainAuditReport) writeJSON(w io.Writer) error {
	a, res, p := r.a, r.res, r.a.report
	var seed *uint64
	if a.seeded {
		seed = &res.RootSeed
	}
	var claimEps, claimDelta *float64
	if a.hasClaim {
		claimEps, claimDelta = &a.claim.Epsilon, &a.claim.Delta
	}
	var irlsIters *int
	var threshold *float64
	if a.opts.Algorithm == solver.IRLS {
		irlsIters, threshold = &a.opts.IRLSIters, &a.opts.Threshold
	}
	weights := map[string]float64{}
	for f, wt := range res.Weights {
		if wt != 0 {
			weights[res.Features[f]] = wt
		}
	}
	type jsonUserLevel struct {
		Center         float64 `json:"center"`
		Bound          float64 `json:"bound"`
		MaxUserRatings int     `json:"max_user_ratings"`
		ClipNorm       float64 `json:"clip_norm"`
	}
	var ul *jsonUserLevel
	if u := a.opts.UserLevel; u != nil {
		ul = &jsonUserLevel{u.Center, u.Bound, u.MaxUserRatings, u.ClipNorm}
	}
	out := struct {
		Mode               string             `json:"mode"`
		Algo               string             `json:"algo"`
		Rank               int                `json:"rank"`
		Lambda             float64            `json:"lambda"`
		Iters              int                `json:"iters"`
		Start              string             `json:"start"`
		IRLSIters          *int               `json:"irls_iters"`
		IRLSThreshold      *float64           `json:"irls_threshold"`
		UserLevel          *jsonUserLevel     `json:"user_level"`
		Mechanism          string             `json:"mechanism"`
		Noise              string             `json:"noise"`
		Calibrated         bool               `json:"calibrated"`
		Releases           int                `json:"releases"`
		Data               string             `json:"data"`
		Runs               int                `json:"runs"`
		SelectRuns         int                `json:"select_runs"`
		EpsilonLower       float64            `json:"epsilon_lower_bound"`
		DeltaLower         float64            `json:"delta_lower_bound"`
		Ceiling            float64            `json:"epsilon_ceiling"`
		AccountantEpsilon  *float64           `json:"accountant_epsilon"`
		AccountantDelta    *float64           `json:"accountant_delta"`
		Accountant         string             `json:"accountant"`
		Guarantee          string             `json:"guarantee"`
		PerReleaseEpsilon  *float64           `json:"per_release_epsilon"`
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
	}{
		Mode: a.mode, Algo: a.opts.Algorithm.String(), Rank: a.opts.Rank, Lambda: a.opts.Lambda, Iters: a.opts.Iters,
		Start: startName(a.opts), IRLSIters: irlsIters, IRLSThreshold: threshold, UserLevel: ul,
		Mechanism: a.noise.Name(), Noise: a.noise.String(), Calibrated: a.calibrated, Releases: a.opts.Releases(),
		Data: a.data.Description, Runs: res.Runs, SelectRuns: res.SelectRuns,
		EpsilonLower: res.EpsilonLower, DeltaLower: res.DeltaLower, Ceiling: res.Ceiling,
		AccountantEpsilon: p.TotalEpsilon, AccountantDelta: p.TotalDelta, Accountant: p.Accountant, Guarantee: p.Guarantee,
		PerReleaseEpsilon: p.PerReleaseEpsilon, ClaimedEpsilon: claimEps, ClaimedDelta: claimDelta,
		Confidence: res.Confidence, IntervalConfidence: res.IntervalConfidence, Events: res.Events,
		Statistic: res.Statistic, StatisticWeights: weights, Separation: res.Separation, Candidates: res.Candidates,
		BestEvent: toJSONEvent(res.Best), Seed: seed, RootSeed: res.RootSeed, Workers: r.workers, Seconds: r.elapsed.Seconds(), Verdict: r.verdict(),
	}
	if out.BestEvent != nil {
		out.BestEvent.Numerator = auditTrainSide(res.Best.Numerator)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// startName is the --start of a configured training audit.
func startName(o solver.Options) string {
	if o.StartV != nil {
		return "public"
	}
	return "random"
}
