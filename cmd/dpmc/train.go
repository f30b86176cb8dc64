package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/internal/progress"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/paper/calibrate"
	"github.com/dpmc/dpmc/paper/train"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
	"github.com/dpmc/dpmc/userdp"
)

// trainFlags are the flags of dpmc train.
type trainFlags struct {
	data, format, columns, header string
	ratingRange                   string
	lambdaScale                   string
	test                          string
	testFrac                      float64
	rows, cols                    int
	observed                      float64
	algo                          string
	noise                         noiseFlags
	variance                      float64
	rank                          int
	lambda                        float64
	iters, irlsIters              int
	threshold                     float64
	init                          string
	workers                       int
	clip                          bool
	seed                          seedFlag
	json                          bool
	save                          string
	force                         bool
	privacy                       string
	epsilon, delta                float64
	maxUserRatings                int
	clipNorm, center              float64
	user                          userTrainFlags
}

func newTrainCmd() *cobra.Command {
	var fl trainFlags
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Complete a ratings matrix with noisy ALS or IRLS+Huber and report its error",
		Long: `train fits a ratings model and prints the data shape, the model, the noise and
its privacy report, the errors and the time. --privacy selects one of two
pipelines with different flags.

Privacy (--privacy):
  paper  the paper's algorithms exactly (the default, for reproduction):
         X ≈ U Vᵀ by noisy ALS or IRLS+Huber (--algo). The model carries NO
         proved guarantee: the per-release ε covers one noise addition under
         an assumed sensitivity, the Gram matrix UᵀWU is un-noised and no
         user's contribution is bounded. The report composes the noisy
         releases anyway and says what is not covered.
  user   user-level (ε, δ)-differential privacy of everything released
         (package userdp; billboard model, Chien et al. 2021): a noisy global
         mean (or the public --center) and number of users, noisy weighted
         item counts that select the released items (or the public
         catalogue --items), noisy item biases, a tail bias and, under
         private selection, the biases and weights of --tail-buckets public
         hash buckets that predict the unreleased items, and — when
         factors are on — item factors from a noisy PCA start and --iters
         noisy ALS steps (Gram matrix and right-hand side). Each user
         contributes at most --max-user-ratings ratings; each user's
         deviations are clipped to half (biases) and a quarter (factor
         residuals) of the rating range and user factors to --clip-norm.
         The noise is exact discrete Gaussian (--sampler float, the
         floating-point one, only with --seed), calibrated so that all
         releases together meet --epsilon and --delta (zCDP). Each user's
         own bias and factor are computed from the release and the user's
         own ratings, never released. Seeded runs are never private.
         --mechanism none (no --epsilon) is the non-private baseline: no
         noise, no clipping, every rated item kept; nothing is private.

Paper mode (--privacy paper): with no --data it trains on a built-in
synthetic problem: 1000 × 1000, rank 5, 10 % of entries observed, with
IRLS+Huber at noise variance 1 (the paper's α = 3); error there is measured
on all entries against the truth (full RMSE, the paper's metric). Noise is
added where the paper adds it: to the right-hand side of every item update
(ALS: once per item per sweep; IRLS: once per inner iteration). It is set by
--variance (the paper's knob: Gaussian σ² = v, Laplace 2b² = v, Huber α from
v at s = 1) or by explicit --alpha/--scale/--sigma. --iters is the number of
sweeps T (default 50, ≥ 1) and --rank the rank (default 5). --init: IRLS
starts each item solve from the item's current factor ("warm", the default:
the first weights then reflect the model, not a random guess, which matters
most for small K such as IRLS-2) or from θ ~ N(0, I) as the paper's
Algorithm 3 says ("paper"). --irls-iters, --irls-threshold and --init apply
to --algo irls only.

User mode (--privacy user): the paper-mode flags --algo, --variance,
--alpha, --scale, --sigma, --lambda, --lambda-scale, --irls-iters,
--irls-threshold and --init are refused (the pipeline sets its own noise and
ridges), and --mechanism is gaussian (the default there) or none.
Item factors:
  - by default a rule decides, on released values only: rank 4 item
    factors, when the released number of users × ε ≥ 20000, for the items
    whose released count reaches 15 σ_G/C² (--head-noise-ratio; σ_G/C² the
    noise of one Gram entry of the ALS step; at most --head-items, default
    4000): a PCA start over the 300 most popular of them (--start-items)
    and 1 ALS step. Otherwise no learned factors, and the factor share of the
    budget goes to the item counts and biases (docs/private-models.md).
  - an explicit --rank R or --iters N switches the rule off: factors of rank
    R (default 4) with N ALS steps after the PCA start (default 1; --iters 0:
    the PCA start alone) are released whatever users × ε, with
    --factor-share of the budget (default 0.4); the report says so.
    --rank 0 releases no learned factors (the feature columns below
    stay unless both their scales are 0). --rank must not exceed
    --head-items.
  - --mechanism none: rank 32 and 15 ALS steps unless --rank/--iters say
    otherwise; --iters must be ≥ 1 there (no PCA start without noise).
  - with or without factors, V gains two feature columns, a popularity
    column 0.5·ln(n̂/n₀) of the released counts (--popularity-scale) and an
    item-bias column 1·(b − b_tail) of the released biases
    (--bias-column-scale; 0: none), on which each user fits their own slope
    and scale: post-processing, no budget.
With few users (MovieLens 100k: 943) and a small ε, private selection may
release few or no items; --items FILE (a public catalogue) keeps every
item, a larger --epsilon releases more. --synthetic realistic (with
--users) trains on a MovieLens-1M-shaped generator instead of --data.

Ranking (--objective ranking, user mode; implied by --objective ranking or
--positive, and the objective of implicit data): a top-k ranking model
instead of a rating model. A rating ≥ --positive (default: min +
0.75·(max − min), 4 on 1–5) is a positive; in implicit data (a pairs file of
user,item lines without ratings, --format pairs or detected) every pair is,
and --positive and --objective rating are refused. It releases the number of
users, noisy positive counts (private selection or --items) and the leading
eigenvectors of a noisy co-occurrence Gram over the M most popular items, all
under --epsilon/--delta; the summary gives M, k and whether it fell back to
noisy popularity, and the evaluation (NOT private) NDCG@10 and recall@20 on
the test set beside the release's own noisy popularity. --save writes the
ranking model: dpmc recommend --history ranks with it, predict refuses it.
--rank, --iters, --factor-share, --head-items, --head-noise-ratio,
--start-items, --popularity-scale, --bias-column-scale, --tail-buckets,
--center, --clip-norm, --weights and --save-users apply to the rating
objective only.`,
		Example: `  dpmc train
  dpmc train --data u1.base --test u1.test --algo als --mechanism gaussian --rank 32 --iters 20
  dpmc train --data ratings-final.csv --test-fraction 0.2 --algo irls --irls-iters 2 --output-format json
  dpmc train --data u1.base --test u1.test --privacy user --epsilon 5 --delta 1e-6
  dpmc train --data u1.base --test u1.test --privacy user --epsilon 20 --rank 4 --iters 2 --save model.dpmc
  dpmc train --data u1.base --test u1.test --privacy user --mechanism none
  dpmc train --privacy user --epsilon 10 --synthetic realistic --users 2000
  dpmc train --data u1.base --test u1.test --objective ranking --epsilon 5 --save ranking.dpmc
  dpmc train --data clicks.tsv --test-fraction 0.2 --privacy user --epsilon 5 --save clicks.dpmc`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTrain(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.data, "data", "", "ratings file to train on (default: the built-in synthetic problem)")
	f.StringVar(&fl.format, "format", "auto", "format of --data and --test: auto, ml100k, mldat, mlcsv, sweetrs, csv, tsv, pairs (implicit feedback: user,item lines without ratings, detected from two fields a line)")
	f.StringVar(&fl.columns, "columns", "", `columns of a csv/tsv file, e.g. "user,item,rating" ("_" ignores a column)`)
	f.StringVar(&fl.header, "header", "auto", "whether a csv/tsv file has a header line: auto, yes, no")
	f.StringVar(&fl.ratingRange, "rating-range", "", "MIN,MAX: the declared rating range of --data and --test, used for clipping, centring and sensitivity (default: the format's own: 1,5; mlcsv 0.5,5; MovieLens 10M ratings.dat needs 0.5,5)")
	f.StringVar(&fl.test, "test", "", "held-out ratings file (same format) for test RMSE and MAE")
	f.Float64Var(&fl.testFrac, "test-fraction", 0, "hold out this fraction of --data's ratings, chosen at random, as the test set")
	f.IntVar(&fl.rows, "rows", 1000, "synthetic problem: number of users (rows)")
	f.IntVar(&fl.cols, "cols", 1000, "synthetic problem: number of items (columns)")
	f.Float64Var(&fl.observed, "observed", 0.1, "synthetic problem: fraction of entries observed, in (0, 1]")
	f.StringVar(&fl.algo, "algo", "irls", "--privacy paper: solver, als or irls (default: irls; IRLS-2 is --algo irls --irls-iters 2)")
	fl.noise.register(cmd, "huber", calibrate.None)
	f.Lookup("mechanism").Usage += "; with --privacy user: gaussian"
	f.Float64Var(&fl.variance, "variance", 1, "noise variance per coordinate, in squared rating units (ignored with --mechanism none)")
	f.IntVar(&fl.rank, "rank", 5, "--privacy paper: rank r of the factorization and of the synthetic truth (default 5); --privacy user: default by the users × ε rule (see above), an explicit --rank releases factors of that rank whatever the rule says (0: no learned factors)")
	f.Float64Var(&fl.lambda, "lambda", 0.5, "--privacy paper: ridge penalty λ ≥ 1e-6 (train.MinLambda) of every row solve, not scaled by the row's count")
	f.StringVar(&fl.lambdaScale, "lambda-scale", "none", "--privacy paper: none (λ as given, the paper's convention) or count (λ × the row's number of ratings, ALS-WR; try --lambda 0.1)")
	f.IntVar(&fl.iters, "iters", 50, "--privacy paper: outer sweeps T (users, then items), ≥ 1 (default 50); --privacy user: noisy ALS steps after the PCA start (default 1 if the rule turns factors on; 0: PCA start only), and an explicit --iters releases factors whatever the rule says")
	f.IntVar(&fl.irlsIters, "irls-iters", 20, "--privacy paper: inner iterations K of each IRLS item solve (default: 20)")
	f.Float64Var(&fl.threshold, "irls-threshold", 0, "Huber threshold c of the IRLS weights, in rating units (default: the Huber noise's α, else 3)")
	f.StringVar(&fl.init, "init", "warm", "start of each IRLS item solve: warm (current factor) or paper (θ ~ N(0, I))")
	f.IntVar(&fl.workers, "workers", 0, "goroutines solving rows (default: all cores); results do not depend on it")
	f.BoolVar(&fl.clip, "clip", false, "clip predictions to the rating range before measuring error")
	fl.seed.register(cmd)
	registerOutputFormat(cmd, &fl.json, "text (the summary), or json (one object)")
	f.StringVar(&fl.save, "save", "", "save the model to this file, atomically (format dpmc-model version "+strconv.Itoa(model.Version)+", docs/model-format.md; user mode: the release only, nothing per user)")
	f.BoolVar(&fl.force, "force", false, "overwrite the --save file if it exists")
	f.StringVar(&fl.privacy, "privacy", "paper", "privacy mode: paper (the paper's algorithms; no guarantee) or user (user-level DP of everything the model releases) (default: paper)")
	f.Float64Var(&fl.epsilon, "epsilon", 0, "--privacy user: total user-level ε of everything released (required unless --mechanism none)")
	f.Float64Var(&fl.delta, "delta", 1e-6, "total δ of the privacy report, and of the --epsilon target; a probability in (0, 1)")
	f.IntVar(&fl.maxUserRatings, "max-user-ratings", 1000, "--privacy user: most ratings one user contributes to the releases (a uniform random subset beyond)")
	f.Float64Var(&fl.clipNorm, "clip-norm", userdp.Defaults(1, 1e-6, 1, 5).ClipNorm, "--privacy user: ℓ2 norm C every user factor is clipped to before it enters an item release")
	f.Float64Var(&fl.center, "center", 0, "--privacy user: a public global mean rating, in the rating range (default: a noisy mean is released)")
	fl.user.register(cmd)
	// The defaults of --rank, --iters and other flags depend on --privacy:
	// their usage states both, and help shows no single "(default …)"
	// (applyVocabulary).
	return cmd
}

// trainData is what train runs on.
type trainData = train.Data

func loadTrainData(cmd *cobra.Command, fl *trainFlags) (*trainData, error) {
	changed := cmd.Flags().Changed
	if fl.data == "" {
		for _, name := range []string{"test", "test-fraction", "format", "columns", "header", "rating-range"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s needs --data", name)
			}
		}
		seed := fl.seed.seed
		if !changed("seed") {
			var b [8]byte
			rand.Read(b[:])
			seed = binary.LittleEndian.Uint64(b[:]) >> 1
		}
		return train.Synthetic(synthetic.Options{Rows: fl.rows, Cols: fl.cols, Rank: fl.rank, Observed: fl.observed, Seed: seed})
	}
	for _, name := range []string{"rows", "cols", "observed"} {
		if changed(name) {
			return nil, fmt.Errorf("--%s applies only to the built-in synthetic problem, not to --data", name)
		}
	}
	if fl.test != "" && changed("test-fraction") {
		return nil, fmt.Errorf("give --test or --test-fraction, not both")
	}
	if fl.testFrac != 0 && !(fl.testFrac > 0 && fl.testFrac < 1) {
		return nil, fmt.Errorf("--test-fraction = %v, want in (0, 1)", fl.testFrac)
	}
	if err := train.CheckReadable(fl.data); err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	if fl.test != "" {
		if err := train.CheckReadable(fl.test); err != nil {
			return nil, fmt.Errorf("--test: %w", err)
		}
	}
	f := train.Files{Train: fl.data, Test: fl.test, TestFraction: fl.testFrac}
	f.Rand, _ = fl.seed.rand(cmd)
	var err error
	if f.Ratings.Format, err = ratings.ParseFormat(fl.format); err != nil {
		return nil, fmt.Errorf("--format: %w", err)
	}
	if f.Ratings.Header, err = ratings.ParseHeader(fl.header); err != nil {
		return nil, fmt.Errorf("--header: %w", err)
	}
	f.Ratings.Columns = fl.columns
	if fl.ratingRange != "" {
		if f.Ratings.Min, f.Ratings.Max, err = ratings.ParseRange(fl.ratingRange); err != nil {
			return nil, fmt.Errorf("--rating-range: %w", err)
		}
	}
	d, err := train.Load(f)
	if err != nil {
		return nil, rangeHint(err, fl)
	}
	for _, w := range d.Warnings() {
		fmt.Fprintln(cmd.ErrOrStderr(), "dpmc: warning: --test:", w)
	}
	return d, nil
}

// rangeHint adds to an out-of-range error how to declare another scale.
func rangeHint(err error, fl *trainFlags) error {
	if errors.Is(err, ratings.ErrRange) && fl.ratingRange == "" {
		return fmt.Errorf("%w (declare the rating scale with --rating-range MIN,MAX)", err)
	}
	return err
}

// trainNoise returns the mechanism the flags ask for (nil for none).
func trainNoise(cmd *cobra.Command, fl *trainFlags) (noise.Mechanism, error) {
	changed := cmd.Flags().Changed
	if fl.noise.name == calibrate.None {
		for _, name := range []string{"variance", "alpha", "scale", "sigma"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s does not apply to --mechanism none", name)
			}
		}
		return nil, nil
	}
	return fl.noise.orVariance(cmd, fl.variance)
}

func runTrain(cmd *cobra.Command, fl *trainFlags) error {
	if fl.workers < 0 || fl.workers > maxWorkers {
		return fmt.Errorf("--workers = %d, want in [0, %d] (0: all cores)", fl.workers, maxWorkers)
	}
	if err := checkTrainFiles(fl); err != nil {
		return err
	}
	if changed := cmd.Flags().Changed; (changed("objective") && fl.user.objective == "ranking") || changed("positive") {
		switch {
		case !changed("privacy"):
			fl.privacy = "user" // the ranking model exists in user mode only
		case fl.privacy != "user":
			return fmt.Errorf("--objective ranking and --positive need --privacy user (the ranking model is user-level private)")
		}
	}
	if fl.privacy == "user" {
		return runTrainUser(cmd, fl)
	}
	for _, name := range append(userModeOnly, "synthetic", "users") {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s needs --privacy user", name)
		}
	}
	stderr := cmd.ErrOrStderr()
	algo, err := solver.ParseAlgorithm(fl.algo)
	if err != nil {
		return fmt.Errorf("--algo: %w", err)
	}
	init, err := solver.ParseInit(fl.init)
	if err != nil {
		return fmt.Errorf("--init: %w", err)
	}
	if fl.force && fl.save == "" {
		return fmt.Errorf("--force needs --save")
	}
	changed := cmd.Flags().Changed
	if fl.privacy != "paper" {
		return fmt.Errorf("--privacy %q: want paper or user", fl.privacy)
	}
	for _, name := range []string{"epsilon", "max-user-ratings", "clip-norm", "center"} {
		if changed(name) {
			return fmt.Errorf("--%s needs --privacy user", name)
		}
	}
	if !(fl.delta > 0 && fl.delta < 1) {
		return fmt.Errorf("--delta = %v, want in (0, 1)", fl.delta)
	}
	if changed("lambda") && (!(fl.lambda >= train.MinLambda) || math.IsInf(fl.lambda, 0)) {
		return fmt.Errorf("--lambda = %v, want a finite number ≥ %g (every row solve needs a positive ridge, and a smaller one is lost to float64 rounding)", fl.lambda, train.MinLambda)
	}
	if fl.iters < 1 {
		return fmt.Errorf("--iters = %d, want ≥ 1 (outer sweeps)", fl.iters)
	}
	if fl.rank < 1 {
		return fmt.Errorf("--rank = %d, want ≥ 1", fl.rank)
	}
	if algo == solver.IRLS && fl.irlsIters < 1 {
		return fmt.Errorf("--irls-iters = %d, want ≥ 1 (inner iterations of each IRLS item solve)", fl.irlsIters)
	}
	if algo != solver.IRLS {
		for _, name := range []string{"irls-iters", "irls-threshold", "init"} {
			if changed(name) {
				return fmt.Errorf("--%s applies to --algo irls only, not --algo %s", name, fl.algo)
			}
		}
	}
	if changed("irls-threshold") && (!(fl.threshold > 0) || math.IsInf(fl.threshold, 0)) {
		return fmt.Errorf("--irls-threshold = %v, want a finite number > 0 (leave it out for the default)", fl.threshold)
	}
	lambdaScale, err := solver.ParseLambdaScale(fl.lambdaScale)
	if err != nil {
		return fmt.Errorf("--lambda-scale: %w", err)
	}
	noise, err := trainNoise(cmd, fl)
	if err != nil {
		return err
	}
	if noise != nil && !(noise.Variance() < 1e12) {
		return fmt.Errorf("--mechanism %s: noise variance %g overflows the solver (want below 1e12 squared rating units)", noise.Name(), noise.Variance())
	}
	threshold := fl.threshold
	if threshold == 0 {
		threshold = train.DefaultThreshold(noise)
	}
	_, seeded := fl.seed.rand(cmd)
	if noise, err = paperSampler(cmd, fl.user.sampler, noise, seeded); err != nil {
		return err
	}
	if err := checkOutput(fl.save, fl.force); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	data, err := loadTrainData(cmd, fl)
	if err != nil {
		return err
	}
	if tr, _ := data.Datasets(); tr != nil && tr.Implicit {
		return fmt.Errorf("--data %s holds (user, item) pairs without ratings (implicit feedback): paper mode fits ratings; train a private ranking model with --privacy user --epsilon E (the ranking objective is the default for such data)", fl.data)
	}
	if err := checkRank(fl.rank, data.Train.Rows(), data.Train.Cols(), fl.workers); err != nil {
		return err
	}
	opts := solver.Options{
		Algorithm: algo, Rank: fl.rank, Lambda: fl.lambda, LambdaScale: lambdaScale, Iters: fl.iters,
		IRLSIters: fl.irlsIters, Threshold: threshold, Init: init, Noise: noise,
		Seed: fl.seed.seed, Seeded: seeded, Workers: fl.workers,
	}
	if seeded && noise != nil {
		fmt.Fprintln(stderr, seededWarning)
	}
	opts.Progress = progress.New(stderr, "sweep").Update
	run, err := train.Paper(cmd.Context(), data, opts, train.Settings{Clip: fl.clip, Delta: fl.delta})
	if err != nil {
		return err
	}
	if err := cmd.Context().Err(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	// Save first: a summary and privacy report of a model that failed to
	// save would describe a release that did not happen.
	if fl.save != "" {
		if err := cmd.Context().Err(); err != nil {
			return fmt.Errorf("--save: %w (nothing written)", err)
		}
		m, err := run.Model()
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		if err := m.SaveContext(cmd.Context(), fl.save, fl.force); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	if fl.json {
		err = run.WriteJSON(cmd.OutOrStdout())
	} else {
		err = run.WriteText(cmd.OutOrStdout())
	}
	if err != nil {
		return err
	}
	if fl.save != "" {
		fmt.Fprintf(stderr, "dpmc: wrote the model (format %s version %d, paper mode: every user's factor, no privacy guarantee) to %s\n", model.Format, model.Version, fl.save)
	}
	return nil
}

// maxWorkers bounds --workers, as dpmc audit bounds its own: more
// goroutines than that gain nothing, and a huge count would be blamed on
// the memory estimate of --rank.
const maxWorkers = 4096

// checkTrainFiles refuses, in both modes and before any work, an output
// (--save, --save-users) that is an input (--data, --test, --items) or
// the other output, even with --force.
func checkTrainFiles(fl *trainFlags) error {
	ins := []namedFile{{"--data", fl.data}, {"--test", fl.test}, {"--items", fl.user.items}}
	if err := refuseSameFile("--save", fl.save, ins...); err != nil {
		return err
	}
	return refuseSameFile("--save-users", fl.user.saveUsers, append(ins, namedFile{"--save", fl.save})...)
}

// paperSampler returns the noise a --privacy paper run draws: the discrete
// counterpart of noise (package discrete: exact, on a grid) unless the
// run is seeded or --sampler float asks for the paper's floating-point
// sampler, which then carries a warning.
func paperSampler(cmd *cobra.Command, name string, noise noise.Mechanism, seeded bool) (noise.Mechanism, error) {
	if name == "" {
		name = "discrete"
		if seeded {
			name = "float"
		}
	}
	switch name {
	case "float":
		if noise != nil && !seeded {
			fmt.Fprintln(cmd.ErrOrStderr(), floatWarning)
		}
		return noise, nil
	case "discrete":
		if noise == nil {
			return nil, nil
		}
		d, err := discrete.For(noise)
		if err != nil {
			return nil, fmt.Errorf("--sampler discrete: %w (--sampler float draws the paper's floating-point noise instead)", err)
		}
		return d, nil
	}
	return nil, fmt.Errorf("--sampler %q: want discrete or float", name)
}
