package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/progress"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
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
	sampler     string
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
	objective      string
}

// mechanismOnlyFlags and trainOnlyFlags name the flags of each mode of
// dpmc audit, to check that every flag given applies to the mode run.
func mechanismOnlyFlags() []string {
	return []string{"sensitivity", "samples", "dims", "bits", "at", "sampler"}
}

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

--sampler S audits the releases of sampler S and adds the lattice family:
the events "y₁ is in the set S emits on x" and "… on x′", fixed before
sampling. --sampler discrete (the default) is what dpmc releases: the
statistic rounded to the grid γℤ plus γ times exact discrete noise
(package discrete), whose outputs on x and x′ lie on the same grid; the
default claim is its guarantee at the sensitivity after rounding.
--sampler float is math/rand/v2's ziggurat samplers (the paper's
floating-point Laplace, Gaussian and Huber mechanisms): over 99.9 % of their
draws are j·w[i] for an integer j and one of 128 or 256 table constants
w[i], so y − x lies on a few lattices about 10⁻⁹ × scale apart, which the
float64 outputs of x + Δ almost never hit. Such a finding is printed as a
sampler finding and counts in the verdict. --sampler "" draws from the float
sampler and tests only the real-valued mechanism.

--train audits a whole training run instead (the mechanism flags --sensitivity,
--samples, --dims, --bits, --at and --sampler do not apply). It trains --runs
times on a tiny built-in data set D (12 users × 6 items on the scale [1, 5]:
11 users of moderate rank-2 ratings and user 11 rating 5 on every item) and
--runs times on D without user 11, each run on one thread with its own
seed, and audits one statistic of the release, a function of the Gram
matrix of its item rows (V Vᵀ for item factors V), which does not change
when V's columns are rotated: an entry, a cosine between two items' rows,
the trace, ‖Σⱼ vⱼ‖², the mean cosine, or a Fisher discriminant of all of
them. It is chosen on 20 % more runs per side that are not audited, so the
bound stays exact.

  --privacy user   (default) the userdp pipeline of dpmc train --privacy
                   user: noisy centre, item counts, item biases and (with
                   --rank) item factors, Gaussian noise calibrated to the
                   total --epsilon, --delta, with dpmc train's defaults
                   (--rank, --iters, --max-user-ratings and --clip-norm
                   override them as there). Each item's row of the release
                   is [v_j, b_j, noisy count], all 6 items being a public
                   catalogue. The verdict is against the accountant's total
                   (ε, δ) for these options (of an unseeded run).
                   --objective ranking audits the ranking model instead
                   (positives: ratings ≥ 4): each item's row is [noisy
                   positive count, row j of V·diag(w)·Vᵀ] (sign-free).
  --privacy paper  the paper's algorithms: --algo, --rank, --lambda, --iters
                   (and --irls-iters, --irls-threshold), noise by --variance
                   or --mechanism with --sigma/--scale/--alpha. The Gram
                   matrix is un-noised and there is no guarantee to test;
                   the audit prints what it finds beside the paper's
                   figures (not guarantees). By default (--start public)
                   every run starts from the same V₀, drawn once from the
                   audit's root seed: V₀ does not depend on the data, and
                   the runs differ only by the noise, which lets short
                   trainings be audited; --start random gives each run its
                   own start, as dpmc train does. --iters defaults to 30:
                   the noise per release is fixed and the un-noised Gram
                   matrices show after many sweeps from either start (with
                   --start random, not at all after a few).

--claim-epsilon and --claim-delta audit another claim instead. With --runs n,
ε cannot be shown above about log(n/10); the report prints this ceiling.`,
		Example: `  dpmc audit --mechanism laplace --scale 1 --sensitivity 1 --seed 1
  dpmc audit --mechanism huber --alpha 1 --scale 1 --sensitivity 1 --claim-epsilon 0.5
  dpmc audit --mechanism gaussian --sigma 1 --claim-epsilon 1 --claim-delta 0.0127 --output-format json
  dpmc audit --mechanism laplace --dims 4 --bits
  dpmc audit --sampler float --mechanism gaussian --sigma 49 --at 1000
  dpmc audit --train --privacy user --epsilon 1 --delta 1e-6
  dpmc audit --train --objective ranking --epsilon 1 --runs 300
  dpmc audit --train --epsilon 2 --rank 2 --seed 1 --output-format json
  dpmc audit --train --privacy paper --algo irls --mechanism laplace --scale 1
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
	cmd.Flags().Lookup("mechanism").Usage = "noise mechanism: " + strings.Join(noise.Names(), ", ") + " (required; with --train the default is gaussian)"
	f := cmd.Flags()
	f.Float64Var(&fl.sensitivity, "sensitivity", 1, "sensitivity Δ: the norm of the shift between the neighbours, in units of the noised value")
	f.Float64Var(&fl.claimEps, "claim-epsilon", 0, "claimed ε (default: the mechanism's own guarantee at --sensitivity and --claim-delta; with --train, the accountant's total)")
	f.Float64Var(&fl.claimDelta, "claim-delta", 0, "claimed δ, a probability in [0, 1) (default 0, and 1e-5 for gaussian; with --train, --delta)")
	f.IntVar(&fl.samples, "samples", audit.DefaultMechanismSamples, "outputs drawn per neighbour per test, in [100, 1e8]; memory is about 20 bytes per output per test")
	f.IntVar(&fl.dims, "dims", 1, "coordinates d of one output; d > 1 adds a test spreading Δ over all d")
	f.BoolVar(&fl.bits, "bits", false, "also test the low-order bits of the raw float64 outputs (Mironov 2012); a finding counts in the verdict")
	f.Float64Var(&fl.at, "at", 0, "the first neighbour's input x; the second is x + Δ")
	f.StringVar(&fl.sampler, "sampler", "discrete", "audit the releases of this sampler ("+strings.Join(auditSamplerNames(), ", ")+"), adding the lattice family: whether y lies in the set the sampler emits on x, and on x′ (default: discrete)")
	f.Float64Var(&fl.confidence, "confidence", audit.DefaultConfidence, "joint confidence of all the bounds, in (0, 1)")
	fl.seed.register(cmd)
	registerOutputFormat(cmd, &fl.json, "text, or json (the report as one JSON object)")
	t := &fl.train
	f.BoolVar(&t.on, "train", false, "audit a training run on the built-in tiny data instead of a mechanism")
	f.StringVar(&t.privacy, "privacy", "user", "--train: user (the userdp pipeline, with a guarantee) or paper (the paper's algorithms, no guarantee) (default: user)")
	f.StringVar(&t.algo, "algo", "als", "--train paper: solver, als or irls (default: als, fast on the tiny data)")
	f.IntVar(&t.rank, "rank", 2, "--train: rank r of the factors (the built-in data has 6 items); paper: in [1, 12] (default: 2); user: in [0, 12] (default: as dpmc train, biases only on data this small)")
	f.IntVar(&t.iters, "iters", 0, fmt.Sprintf("--train: paper: outer sweeps T, in [1, 10000] (default %d); user: ALS steps after the start, as dpmc train's --iters", audit.DefaultPaperIters))
	f.IntVar(&t.irlsIters, "irls-iters", 2, "--train paper: inner iterations K of each IRLS item solve, in [1, 1000] (default: 2)")
	f.Float64Var(&t.threshold, "irls-threshold", 0, "--train paper: Huber threshold c of the IRLS weights, in rating units (default: the Huber noise's α, else 3)")
	f.Float64Var(&t.lambda, "lambda", 0.5, "--train paper: ridge penalty λ > 0 of every row solve")
	f.IntVar(&t.maxUserRatings, "max-user-ratings", 1000, "--train user: ratings k a user contributes to any release, ≥ 1")
	f.Float64Var(&t.clipNorm, "clip-norm", userdp.Defaults(1, 1e-6, 1, 5).ClipNorm, "--train user: ℓ2 norm C user factors are clipped to in item steps, > 0")
	f.Float64Var(&t.epsilon, "epsilon", 1, "--train user: total ε the pipeline's noise is calibrated to (default: 1)")
	f.StringVar(&t.objective, "objective", "rating", "--train user: the objective audited: rating (the rating model) or ranking (the ranking model of dpmc train --objective ranking: noisy positive counts and the noisy Gram's eigenvectors; each item's row is [noisy count, row of V·diag(w)·Vᵀ])")
	f.Float64Var(&t.delta, "delta", 1e-6, "--train: total δ of the calibration and the accountant (paper: of the paper's figures), in (0, 1)")
	f.Float64Var(&t.variance, "variance", 1, "--train paper: noise variance per coordinate, in squared rating units, as in dpmc train")
	f.IntVar(&t.runs, "runs", audit.DefaultTrainRuns, "--train: audited training runs per neighbour, in [100, 1e7] (20 % more choose the statistic)")
	f.IntVar(&t.workers, "workers", 0, "--train: runs trained at once (default: all cores); results do not depend on it")
	f.StringVar(&t.start, "start", "public", "--train paper: public (every run starts from one data-independent V₀, so runs differ only by the noise) or random (each run draws its own start, as dpmc train does)")
	return cmd
}

// runMechanismAudit is dpmc audit --mechanism.
func runMechanismAudit(cmd *cobra.Command, fl *auditFlags) error {
	m, err := fl.noise.build(cmd)
	if err != nil {
		return err
	}
	changed := cmd.Flags().Changed
	var sup audit.Support
	nz, ok := m.(audit.Noise)
	if fl.sampler != "" {
		if nz, sup, err = auditSampler(fl.sampler, m); err != nil {
			return err
		}
	} else if !ok {
		return fmt.Errorf("--mechanism %s: its density is not known, so it cannot be audited", m.Name())
	}
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
	claim := noise.Guarantee{Epsilon: fl.claimEps, Delta: fl.claimDelta}
	if !changed("claim-delta") {
		claim.Delta = audit.DefaultClaimDelta(nz)
	}
	if !changed("claim-epsilon") {
		g, err := auditClaim(nz, fl.sensitivity, fl.dims, claim.Delta)
		if err != nil {
			return fmt.Errorf("--claim-delta: %w", err)
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
		Support:     sup,
	}
	rep := progress.New(cmd.ErrOrStderr(), "audit: sampling")
	opts.Progress = rep.Update
	start := time.Now()
	res, err := audit.Mechanism(cmd.Context(), nz, opts)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	r := &audit.MechanismReport{Mechanism: nz, Options: opts, Result: res,
		ClaimFromGuarantee: !changed("claim-epsilon"), Elapsed: time.Since(start)}
	r.Sampler = fl.sampler
	if err := writeReport(cmd.OutOrStdout(), r, fl.json); err != nil {
		return err
	}
	if res.Verdict == audit.Violation {
		return fmt.Errorf("audit: %w: the lower bound ε ≥ %.4g (δ(ε) ≥ %.3g) contradicts the claimed %v at %g %% confidence",
			errViolation, res.EpsilonLower, res.DeltaLower, claim, 100*res.Confidence)
	}
	return nil
}

// auditSamplerNames are the values of dpmc audit --sampler.
func auditSamplerNames() []string { return []string{"discrete", "float"} }

// auditClaim is the default claim of a mechanism audit: the mechanism's
// own guarantee at the sensitivity; for a discrete sampler at the
// sensitivity after rounding to its grid (each of the dims coordinates can
// move by one more γ), which is what its guarantee covers.
func auditClaim(nz audit.Noise, sens float64, dims int, delta float64) (noise.Guarantee, error) {
	g, ok := nz.(audit.GridNoise)
	if !ok {
		return audit.GuaranteeClaim(nz, sens, delta)
	}
	rs, err := discrete.RoundedSensitivity(noise.Sensitivity{L1: sens, L2: sens}, dims, g.Gamma)
	if err != nil {
		return noise.Guarantee{}, err
	}
	return g.Guarantee(rs, delta)
}

// auditSampler returns the noise whose releases dpmc audit --sampler name
// draws, for the mechanism m given by the noise flags, and the set of
// values that sampler can emit on each input (the lattice family's sets).
func auditSampler(name string, m noise.Mechanism) (audit.Noise, audit.Support, error) {
	switch name {
	case "discrete":
		d, err := discrete.For(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--sampler discrete: %w", err)
		}
		g := audit.GridNoise{Mechanism: d, Gamma: d.Granularity(), LogPMF: d.LogPMF}
		return g, g.Support(), nil
	case "float":
		sup, err := audit.FloatSupport(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--sampler float: %w", err)
		}
		nz, ok := m.(audit.Noise)
		if !ok {
			return nil, nil, fmt.Errorf("--sampler float: the %s mechanism's density is not known", m.Name())
		}
		return nz, sup, nil
	}
	return nil, nil, fmt.Errorf("--sampler %q: want one of %s", name, strings.Join(auditSamplerNames(), ", "))
}

// writeReport writes an audit report as text or, with asJSON, JSON.
func writeReport(w io.Writer, r interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
}, asJSON bool) error {
	var err error
	if asJSON {
		err = r.WriteJSON(w)
	} else {
		err = r.WriteText(w)
	}
	if err != nil {
		return fmt.Errorf("audit: writing the report: %w", err)
	}
	return nil
}

// runTrainAudit is dpmc audit --train.
func runTrainAudit(cmd *cobra.Command, fl *auditFlags) error {
	setup, err := setupTrainAudit(cmd, fl)
	if err != nil {
		return err
	}
	opts := setup.Options(fl.train.runs, fl.train.workers, fl.confidence)
	rep := progress.New(cmd.ErrOrStderr(), "audit: training")
	opts.Progress = rep.Update
	start := time.Now()
	res, err := audit.Train(cmd.Context(), opts)
	if err != nil {
		return fmt.Errorf("training audit: %w", err)
	}
	r := &audit.TrainReport{Setup: setup, Result: res, Elapsed: time.Since(start), Workers: fl.train.workers}
	if r.Workers == 0 {
		r.Workers = runtime.GOMAXPROCS(0)
	}
	if err := writeReport(cmd.OutOrStdout(), r, fl.json); err != nil {
		return err
	}
	if r.Verdict() == string(audit.Violation) {
		return fmt.Errorf("audit: %w: the lower bound ε ≥ %.4g (δ(ε) ≥ %.3g) contradicts %s %v at %g %% confidence",
			errViolation, res.EpsilonLower, res.DeltaLower, setup.ClaimFrom, setup.Claim, 100*res.Confidence)
	}
	return nil
}

// setupTrainAudit checks the --train flags and configures the audit.
func setupTrainAudit(cmd *cobra.Command, fl *auditFlags) (*audit.TrainSetup, error) {
	t, changed := &fl.train, cmd.Flags().Changed
	if t.privacy != audit.UserMode && t.privacy != audit.PaperMode {
		return nil, fmt.Errorf("--privacy %q: want user or paper", t.privacy)
	}
	for _, c := range []error{
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
	if !changed("mechanism") {
		fl.noise.name = "gaussian"
	}
	if !slices.Contains(noise.Names(), fl.noise.name) {
		return nil, fmt.Errorf("--mechanism %q: want one of %s", fl.noise.name, strings.Join(noise.Names(), ", "))
	}
	// The root of every seed of the audit: --seed, or drawn here so that
	// the report's "--seed N replays this audit" covers everything.
	seeded, root := changed("seed"), fl.seed.seed
	if !seeded {
		root = rng.Crypto().Uint64()
	}
	var setup *audit.TrainSetup
	var err error
	if t.privacy == audit.UserMode {
		setup, err = setupUserAudit(cmd, fl, root, seeded)
	} else {
		setup, err = setupPaperAudit(cmd, fl, root, seeded)
	}
	if err != nil {
		return nil, err
	}
	if changed("claim-epsilon") {
		g := noise.Guarantee{Epsilon: fl.claimEps, Delta: fl.claimDelta}
		if !changed("claim-delta") {
			g.Delta = t.delta
		}
		setup.SetClaim(g, "the claim given by --claim-epsilon")
	}
	return setup, nil
}

// paperAuditOnlyFlags are the --train flags that only --privacy paper
// reads; userAuditOnlyFlags those that only --privacy user reads.
func paperAuditOnlyFlags() []string {
	return []string{"algo", "variance", "alpha", "scale", "sigma", "lambda", "irls-iters", "irls-threshold", "start"}
}

func userAuditOnlyFlags() []string {
	return []string{"epsilon", "max-user-ratings", "clip-norm", "objective"}
}

// setupUserAudit configures an audit of the userdp pipeline, with the
// options dpmc train --privacy user would use on the built-in data's
// public scale for --epsilon, --delta and, where given, --rank, --iters,
// --max-user-ratings and --clip-norm.
func setupUserAudit(cmd *cobra.Command, fl *auditFlags, root uint64, seeded bool) (*audit.TrainSetup, error) {
	t, changed := &fl.train, cmd.Flags().Changed
	for _, name := range paperAuditOnlyFlags() {
		if changed(name) {
			return nil, fmt.Errorf("--%s applies to --privacy paper; --privacy user audits the userdp pipeline, which sets its own noise and solver", name)
		}
	}
	if fl.noise.name != "gaussian" {
		return nil, fmt.Errorf("--mechanism %s: --privacy user uses Gaussian noise (the userdp pipeline); Laplace and Huber are for --privacy paper", fl.noise.name)
	}
	objective, err := userdp.ParseObjective(t.objective)
	if err != nil {
		return nil, fmt.Errorf("--objective: %w", err)
	}
	if objective == userdp.ObjectiveRanking {
		for _, name := range []string{"rank", "iters", "clip-norm"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s applies to the rating objective, not to --objective ranking", name)
			}
		}
	}
	for _, c := range []error{
		check.Positive("--epsilon", t.epsilon),
		check.InRange("--rank", float64(t.rank), 0, 2*audit.TinyItems),
		check.InRange("--iters", float64(t.iters), 0, 10000),
		check.InRange("--max-user-ratings", float64(t.maxUserRatings), 1, 1e6),
		check.Positive("--clip-norm", t.clipNorm),
	} {
		if c != nil {
			return nil, c
		}
	}
	var v userdp.Overrides
	if changed("rank") {
		v.Rank = &t.rank
	}
	if changed("iters") {
		v.Iters = &t.iters
	}
	if changed("max-user-ratings") {
		v.MaxItemsPerUser = &t.maxUserRatings
	}
	if changed("clip-norm") {
		v.ClipNorm = &t.clipNorm
	}
	o, err := userdp.Defaults(t.epsilon, t.delta, audit.TinyMin, audit.TinyMax).With(v)
	if err != nil {
		return nil, err
	}
	o.Objective = objective
	setup, err := audit.NewUserTrainSetup(cmd.Context(), o, root, seeded)
	if err != nil {
		return nil, fmt.Errorf("--epsilon %g, --delta %g: %w", t.epsilon, t.delta, err)
	}
	return setup, nil
}

// setupPaperAudit configures an audit of the paper's algorithms: noise by
// --variance or explicitly, as dpmc train does.
func setupPaperAudit(cmd *cobra.Command, fl *auditFlags, root uint64, seeded bool) (*audit.TrainSetup, error) {
	t, changed := &fl.train, cmd.Flags().Changed
	for _, name := range userAuditOnlyFlags() {
		if changed(name) {
			return nil, fmt.Errorf("--%s applies only to --privacy user", name)
		}
	}
	algo, err := solver.ParseAlgorithm(t.algo)
	if err != nil {
		return nil, fmt.Errorf("--algo: %w", err)
	}
	if !changed("iters") {
		t.iters = audit.DefaultPaperIters
	}
	for _, c := range []error{
		check.InRange("--rank", float64(t.rank), 1, 2*audit.TinyItems),
		check.InRange("--iters", float64(t.iters), 1, 10000),
		check.InRange("--irls-iters", float64(t.irlsIters), 1, 1000),
		check.NonNegative("--irls-threshold", t.threshold),
		check.Positive("--lambda", t.lambda), // D′ has a user without ratings
	} {
		if c != nil {
			return nil, c
		}
	}
	if algo != solver.IRLS {
		for _, name := range []string{"irls-iters", "irls-threshold"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s applies only to --algo irls", name)
			}
		}
	}
	var public bool
	switch t.start {
	case "public":
		public = true
	case "random":
	default:
		return nil, fmt.Errorf("--start %q: want public or random", t.start)
	}
	noise, err := fl.noise.orVariance(cmd, t.variance)
	if err != nil {
		return nil, err
	}
	o := solver.Options{Algorithm: algo, Rank: t.rank, Lambda: t.lambda, Iters: t.iters, IRLSIters: t.irlsIters,
		Threshold: t.threshold, Noise: noise}
	setup, err := audit.NewPaperTrainSetup(o, public, t.delta, root, seeded)
	if err != nil {
		return nil, fmt.Errorf("--delta %g: %w", t.delta, err)
	}
	return setup, nil
}
