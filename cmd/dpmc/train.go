package main

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/calibrate"
	"github.com/dpmc/dpmc/huber"
	"github.com/dpmc/dpmc/internal/progress"
	"github.com/dpmc/dpmc/mechanism"
	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/privacy"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
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
		Long: `train factorizes a ratings matrix X ≈ U Vᵀ with the paper's noisy solvers and
prints the data shape, the algorithm, the noise, the errors and the time.

With no --data it trains on a built-in synthetic problem: 1000 × 1000, rank 5,
10 % of entries observed, with IRLS+Huber at noise variance 1 (the paper's
α = 3). Error there is measured on all entries against the truth (full RMSE,
the paper's metric).

Noise is added where the paper adds it: to the right-hand side of every item
update (ALS: once per item per sweep; IRLS: once per inner iteration). It is
set by --variance (the paper's knob: Gaussian σ² = v, Laplace 2b² = v, Huber
α from v at s = 1) or by explicit --alpha/--scale/--sigma.

Privacy (--privacy):
  paper  the paper's algorithms exactly (the default, for reproduction). The
         model carries NO proved guarantee: the per-release ε covers one
         noise addition under an assumed sensitivity, the Gram matrix UᵀWU
         is un-noised and no user's contribution is bounded. The report
         composes the noisy releases anyway and says what is not covered.
  user   user-level differential privacy of the released item factors V
         (billboard model, Chien et al. 2021): ratings clipped to
         --center ± --bound, at most --max-user-ratings per user enter item
         updates, user factors clipped to --clip-norm, and BOTH the Gram
         matrix and the right-hand side of every item update are noised.
         With --epsilon (and --delta) the noise scale is calibrated so the
         composed total over all releases meets (ε, δ) under the tightest
         accountant; otherwise the noise flags set it and the report gives
         the total it reaches. Seeded runs are never private.

--init: IRLS starts each item solve from the item's current factor ("warm",
the default: the first weights then reflect the model, not a random guess,
which matters most for small K such as IRLS-2) or from θ ~ N(0, I) as the
paper's Algorithm 3 says ("paper").`,
		Example: `  dpmc train
  dpmc train --data u1.base --test u1.test --algo als --mechanism gaussian --rank 32 --iters 20
  dpmc train --data ratings-final.csv --test-fraction 0.2 --algo irls --irls-iters 2 --json
  dpmc train --data u1.base --test u1.test --privacy user --epsilon 5 --delta 1e-6 --mechanism gaussian --algo als --rank 8 --lambda 10 --iters 10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTrain(cmd, &fl) },
	}
	f := cmd.Flags()
	f.StringVar(&fl.data, "data", "", "ratings file to train on (default: the built-in synthetic problem)")
	f.StringVar(&fl.format, "format", "auto", "format of --data and --test: auto, ml100k, mldat, mlcsv, sweetrs, csv, tsv")
	f.StringVar(&fl.columns, "columns", "", `columns of a csv/tsv file, e.g. "user,item,rating" ("_" ignores a column)`)
	f.StringVar(&fl.header, "header", "auto", "whether a csv/tsv file has a header line: auto, yes, no")
	f.StringVar(&fl.ratingRange, "rating-range", "", "MIN,MAX: the declared rating range of --data and --test, used for clipping, centring and sensitivity (default: the format's own: 1,5; mlcsv 0.5,5; MovieLens 10M ratings.dat needs 0.5,5)")
	f.StringVar(&fl.test, "test", "", "held-out ratings file (same format) for test RMSE and MAE")
	f.Float64Var(&fl.testFrac, "test-fraction", 0, "hold out this fraction of --data's ratings, chosen at random, as the test set")
	f.IntVar(&fl.rows, "rows", 1000, "synthetic problem: number of users (rows)")
	f.IntVar(&fl.cols, "cols", 1000, "synthetic problem: number of items (columns)")
	f.Float64Var(&fl.observed, "observed", 0.1, "synthetic problem: fraction of entries observed, in (0, 1]")
	f.StringVar(&fl.algo, "algo", "irls", "solver: als or irls (IRLS-2 is --algo irls --irls-iters 2)")
	fl.noise.register(cmd, "huber", calibrate.None)
	f.Float64Var(&fl.variance, "variance", 1, "noise variance per coordinate, in squared rating units (ignored with --mechanism none)")
	f.IntVar(&fl.rank, "rank", 5, "rank r of the factorization (and of the synthetic truth)")
	f.Float64Var(&fl.lambda, "lambda", 0.5, "--privacy paper: ridge penalty λ > 0 of every row solve, not scaled by the row's count")
	f.StringVar(&fl.lambdaScale, "lambda-scale", "none", "--privacy paper: none (λ as given, the paper's convention) or count (λ × the row's number of ratings, ALS-WR; try --lambda 0.1)")
	f.IntVar(&fl.iters, "iters", 50, "outer sweeps T (users, then items)")
	f.IntVar(&fl.irlsIters, "irls-iters", 20, "inner iterations K of each IRLS item solve")
	f.Float64Var(&fl.threshold, "irls-threshold", 0, "Huber threshold c of the IRLS weights, in rating units (default: the Huber noise's α, else 3)")
	f.StringVar(&fl.init, "init", "warm", "start of each IRLS item solve: warm (current factor) or paper (θ ~ N(0, I))")
	f.IntVar(&fl.workers, "workers", 0, "goroutines solving rows (default: all cores); results do not depend on it")
	f.BoolVar(&fl.clip, "clip", false, "clip predictions to the rating range before measuring error")
	fl.seed.register(cmd)
	f.BoolVar(&fl.json, "json", false, "print one JSON object instead of the summary")
	f.StringVar(&fl.save, "save", "", "save the model to this file, atomically (format dpmc-model version 2, docs/model-format.md; user mode: the release only, nothing per user)")
	f.BoolVar(&fl.force, "force", false, "overwrite the --save file if it exists")
	f.StringVar(&fl.privacy, "privacy", "paper", "privacy mode: paper (the paper's algorithms; no guarantee) or user (user-level DP of the item factors)")
	f.Float64Var(&fl.epsilon, "epsilon", 0, "--privacy user: total user-level ε of everything released (required unless --mechanism none)")
	f.Float64Var(&fl.delta, "delta", 1e-6, "total δ of the privacy report, and of the --epsilon target; a probability in (0, 1)")
	f.IntVar(&fl.maxUserRatings, "max-user-ratings", 1000, "--privacy user: most ratings one user contributes to the releases (a uniform random subset beyond)")
	f.Float64Var(&fl.clipNorm, "clip-norm", 1, "--privacy user: ℓ2 norm C every user factor is clipped to before it enters an item release")
	f.Float64Var(&fl.center, "center", 0, "--privacy user: a public global mean rating, in the rating range (default: a noisy mean is released)")
	fl.user.register(cmd)
	return cmd
}

// trainData is what train runs on.
type trainData struct {
	describe      string
	train, test   *ratings.Matrix
	users, items  *ratings.IDs // nil for synthetic data
	min, max      float64
	problem       *synthetic.Problem // nil for real data
	syntheticSeed uint64
}

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
		p, err := synthetic.Generate(synthetic.Options{Rows: fl.rows, Cols: fl.cols, Rank: fl.rank, Observed: fl.observed, Seed: seed})
		if err != nil {
			return nil, err
		}
		return &trainData{
			describe: fmt.Sprintf("synthetic %d × %d, rank %d, %.3g %% observed (%d ratings), data seed %d",
				fl.rows, fl.cols, fl.rank, 100*fl.observed, p.Observed.Len(), seed),
			train: p.Observed, min: synthetic.Min, max: synthetic.Max, problem: p, syntheticSeed: seed,
		}, nil
	}
	for _, name := range []string{"rows", "cols", "observed"} {
		if changed(name) {
			return nil, fmt.Errorf("--%s applies only to the built-in synthetic problem, not to --data", name)
		}
	}
	if fl.test != "" && changed("test-fraction") {
		return nil, fmt.Errorf("give --test or --test-fraction, not both")
	}
	var opts ratings.Options
	var err error
	if opts.Format, err = ratings.ParseFormat(fl.format); err != nil {
		return nil, fmt.Errorf("--format: %w", err)
	}
	if opts.Header, err = ratings.ParseHeader(fl.header); err != nil {
		return nil, fmt.Errorf("--header: %w", err)
	}
	opts.Columns = fl.columns
	if fl.ratingRange != "" {
		if opts.Min, opts.Max, err = ratings.ParseRange(fl.ratingRange); err != nil {
			return nil, fmt.Errorf("--rating-range: %w", err)
		}
	}
	var train, test *ratings.Dataset
	var loaded ratings.Stats // of the file, before any split
	switch {
	case fl.test != "":
		if train, test, err = ratings.LoadPair(fl.data, fl.test, opts); err != nil {
			return nil, rangeHint(err, fl)
		}
		loaded = train.Stats
	default:
		if train, err = ratings.Load(fl.data, opts); err != nil {
			return nil, rangeHint(err, fl)
		}
		loaded = train.Stats
		if fl.testFrac != 0 {
			if !(fl.testFrac > 0 && fl.testFrac < 1) {
				return nil, fmt.Errorf("--test-fraction = %v, want in (0, 1)", fl.testFrac)
			}
			r, _ := fl.seed.rand(cmd)
			if train, test, err = ratings.Split(train, fl.testFrac, r); err != nil {
				return nil, err
			}
		}
	}
	if train.Ratings.Len() == 0 {
		return nil, fmt.Errorf("%s: no training ratings", fl.data)
	}
	d := &trainData{
		describe: fmt.Sprintf("%s (format %s: %s, ratings in [%g, %g]), %d users × %d items, %d training ratings",
			train.Source, train.Format, train.FormatReason, train.Min, train.Max, train.Ratings.Rows(), train.Ratings.Cols(), train.Ratings.Len()),
		train: train.Ratings, users: train.Users, items: train.Items, min: train.Min, max: train.Max,
	}
	if loaded.Zeros > 0 || loaded.Averaged > 0 {
		d.describe += fmt.Sprintf(" (file: %d 'not rated' zeros dropped, %d duplicate pairs averaged)", loaded.Zeros, loaded.Averaged)
	}
	if test != nil {
		d.test = test.Ratings
		d.describe += fmt.Sprintf(", %d test ratings", test.Ratings.Len())
		if test.Stats.Cold > 0 {
			d.describe += fmt.Sprintf(" (%d dropped: user or item unseen in training)", test.Stats.Cold)
		}
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
func trainNoise(cmd *cobra.Command, fl *trainFlags) (mechanism.Mechanism, error) {
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
	if fl.workers < 0 {
		return fmt.Errorf("--workers = %d, want ≥ 0", fl.workers)
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
	if changed("lambda") && !(fl.lambda > 0) {
		return fmt.Errorf("--lambda = %v, want > 0 (every row solve needs a positive ridge)", fl.lambda)
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
		threshold = huber.PaperAlpha
		if h, ok := noise.(*huber.Mechanism); ok {
			threshold = h.Alpha()
		}
	}
	if err := checkOutput(fl.save, fl.force); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	data, err := loadTrainData(cmd, fl)
	if err != nil {
		return err
	}
	if err := checkRank(fl.rank, data.train.Rows(), data.train.Cols(), fl.workers); err != nil {
		return err
	}
	_, seeded := fl.seed.rand(cmd)
	workers := fl.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	opts := solver.Options{
		Algorithm: algo, Rank: fl.rank, Lambda: fl.lambda, LambdaScale: lambdaScale, Iters: fl.iters,
		IRLSIters: fl.irlsIters, Threshold: threshold, Init: init, Noise: noise,
		Seed: fl.seed.seed, Seeded: seeded, Workers: workers,
	}
	if seeded && noise != nil {
		fmt.Fprintln(stderr, seededWarning)
	}
	prog := progress.New(stderr, "sweep")
	opts.Progress = prog.Update
	start := time.Now()
	sm, err := solver.Train(cmd.Context(), data.train, opts)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	// The report comes after training, which has validated the options.
	var report *privacy.Report
	if noise != nil {
		if report, err = privacy.Paper(opts, math.Max(math.Abs(data.min), math.Abs(data.max)), maxRowLen(data.train), fl.delta); err != nil {
			return err
		}
	}

	res := newTrainResult(fl, &opts, data, sm, noise, secs)
	res.Privacy = report
	// Print first, so that a failing save never costs the summary.
	out := cmd.OutOrStdout()
	if fl.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		err = enc.Encode(res)
	} else {
		err = writeTrainSummary(out, res, data, &opts)
	}
	if err != nil {
		return err
	}
	if fl.save != "" {
		m, err := model.FromSolver(sm, idList(data.users, sm.Users), idList(data.items, sm.Items), data.min, data.max, res, report)
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		if err := m.Save(fl.save, fl.force); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		fmt.Fprintf(stderr, "dpmc: wrote the model (format %s version %d, paper mode: every user's factor, no privacy guarantee) to %s\n", model.Format, model.Version, fl.save)
	}
	return nil
}

// idList returns the n IDs of ids, or "1" … "n" for synthetic data.
func idList(ids *ratings.IDs, n int) []string {
	if ids == nil {
		ids = ratings.NumberedIDs(n, 1)
	}
	s := make([]string, n)
	for i := range s {
		s[i] = ids.ID(i)
	}
	return s
}

// trainResult is the JSON output of train.
type trainResult struct {
	Algo          string          `json:"algo"`
	Mechanism     string          `json:"mechanism"`
	Noise         string          `json:"noise"`
	Variance      *float64        `json:"variance"`
	Rank          int             `json:"rank"`
	Lambda        float64         `json:"lambda"`
	Iters         int             `json:"iters"`
	IRLSIters     *int            `json:"irls_iters"`
	IRLSThreshold *float64        `json:"irls_threshold"`
	Init          *string         `json:"init"`
	Users         int             `json:"users"`
	Items         int             `json:"items"`
	TrainRatings  int             `json:"train_ratings"`
	TestRatings   int             `json:"test_ratings"`
	TrainRMSE     float64         `json:"train_rmse"`
	TestRMSE      *float64        `json:"test_rmse"`
	TestMAE       *float64        `json:"test_mae"`
	FullRMSE      *float64        `json:"full_rmse"`
	Clipped       bool            `json:"clipped"`
	Seconds       float64         `json:"seconds"`
	Workers       int             `json:"workers"`
	Seed          *uint64         `json:"seed"`
	DataSeed      *uint64         `json:"data_seed,omitempty"`
	Data          string          `json:"data"`
	Privacy       *privacy.Report `json:"privacy"`
	PrivacyMode   string          `json:"privacy_mode"`
	TestMetrics   *metrics.Result `json:"test_metrics,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func newTrainResult(fl *trainFlags, o *solver.Options, d *trainData, m *solver.Model, noise mechanism.Mechanism, secs float64) *trainResult {
	clip := solver.Clip{Min: d.min, Max: d.max, On: fl.clip}
	res := &trainResult{
		Algo: o.Algorithm.String(), Mechanism: calibrate.None, Noise: calibrate.None, Rank: o.Rank, Lambda: o.Lambda, Iters: o.Iters,
		Users: d.train.Rows(), Items: d.train.Cols(), TrainRatings: d.train.Len(), Clipped: fl.clip,
		Seconds: math.Round(secs*1000) / 1000, Workers: o.Workers, Data: d.describe,
	}
	if o.Algorithm == solver.IRLS {
		res.IRLSIters, res.IRLSThreshold, res.Init = ptr(o.IRLSIters), ptr(o.Threshold), ptr(o.Init.String())
	}
	if o.Seeded {
		res.Seed = ptr(o.Seed)
	}
	if d.problem != nil {
		res.DataSeed = ptr(d.syntheticSeed)
		res.FullRMSE = ptr(d.problem.FullRMSE(clippedModel{m, clip}))
	}
	res.TrainRMSE, _ = m.Errors(d.train, clip)
	if d.test != nil {
		res.TestRatings = d.test.Len()
		if d.test.Len() > 0 {
			mr := metrics.Evaluate(d.train, d.test, m, metrics.Options{Ranking: true, Clip: fl.clip, ClipMin: d.min, ClipMax: d.max})
			res.TestRMSE, res.TestMAE, res.TestMetrics = &mr.RMSE, &mr.MAE, &mr
		}
	}
	if noise != nil {
		res.Mechanism, res.Noise, res.Variance = noise.Name(), noise.String(), ptr(noise.Variance())
	}
	res.PrivacyMode = fl.privacy
	return res
}

// maxRowLen is the largest number of ratings of one user.
func maxRowLen(m *ratings.Matrix) int {
	n := 0
	for i := range m.Rows() {
		items, _ := m.Row(i)
		n = max(n, len(items))
	}
	return n
}

// clippedModel predicts with clipping applied.
type clippedModel struct {
	m    *solver.Model
	clip solver.Clip
}

func (c clippedModel) Predict(i, j int) float64 { return c.clip.Apply(c.m.Predict(i, j)) }

func fmtOpt(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 4, 64)
}

func writeTrainSummary(w io.Writer, r *trainResult, d *trainData, o *solver.Options) error {
	fmt.Fprintf(w, "data:       %s\n", d.describe)
	algo := fmt.Sprintf("%s, rank %d, λ = %g, T = %d sweeps", r.Algo, r.Rank, r.Lambda, r.Iters)
	if o.Algorithm == solver.IRLS {
		algo += fmt.Sprintf(", K = %d inner iterations, threshold c = %g, init %s", o.IRLSIters, o.Threshold, o.Init)
	}
	fmt.Fprintf(w, "algorithm:  %s, %d workers\n", algo, r.Workers)
	if r.Privacy == nil {
		fmt.Fprintf(w, "noise:      none (non-private baseline)\n")
	} else {
		writePrivacy(w, r, o)
	}
	clip := ""
	if r.Clipped {
		clip = " (predictions clipped to the rating range)"
	}
	fmt.Fprintf(w, "error:      train RMSE %.4f, test RMSE %s, test MAE %s, full RMSE %s%s\n",
		r.TrainRMSE, fmtOpt(r.TestRMSE), fmtOpt(r.TestMAE), fmtOpt(r.FullRMSE), clip)
	if t := r.TestMetrics; t != nil && t.Users > 0 {
		fmt.Fprintf(w, "ranking:    precision@%d %.4f, recall@%d %.4f, NDCG@%d %.4f, MAP@%d %.4f over %d test users with a rating ≥ %g\n",
			t.K, t.Precision, t.K, t.Recall, t.K, t.NDCG, t.K, t.MAP, t.Users, t.Threshold)
	}
	_, err := fmt.Fprintf(w, "time:       %.2f s\n", r.Seconds)
	return err
}

// writePrivacy prints the privacy report in a few lines.
func writePrivacy(w io.Writer, r *trainResult, o *solver.Options) {
	p := r.Privacy
	where := "the right-hand side of every item update"
	if p.CoversGram {
		where = "the Gram matrix and the right-hand side of every item update"
	}
	fmt.Fprintf(w, "noise:      %s, variance %.4g, on %s\n", r.Noise, *r.Variance, where)
	per := "n/a"
	if p.PerReleaseEpsilon != nil {
		per = fmt.Sprintf("ε = %.4g", *p.PerReleaseEpsilon)
		if p.PerReleaseDelta > 0 {
			per += fmt.Sprintf(", δ = %.3g", p.PerReleaseDelta)
		}
	}
	total := "n/a"
	if p.TotalEpsilon != nil {
		total = fmt.Sprintf("ε = %.4g, δ = %.3g (%s accountant)", *p.TotalEpsilon, *p.TotalDelta, p.Accountant)
	}
	if p.Guarantee == "none" {
		fmt.Fprintf(w, "privacy:    NONE proved for the model (unit: %s)\n", p.Unit)
	} else {
		fmt.Fprintf(w, "privacy:    %s\n", p.Guarantee)
	}
	fmt.Fprintf(w, "            sensitivity per release Δ₁ = %.4g, Δ₂ = %.4g: %s\n", p.Sensitivity.L1, p.Sensitivity.L2, p.SensitivitySource)
	fmt.Fprintf(w, "            per release %s; %d releases touch one user\n", per, p.ReleasesPerUser)
	if p.Guarantee == "none" {
		fmt.Fprintf(w, "            composed (NOT a guarantee): %s\n", total)
	} else {
		fmt.Fprintf(w, "            total: %s\n", total)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "            - %s\n", n)
	}
}
