package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/internal/atomicfile"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/paper/train"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

// userTrainFlags are the flags of dpmc train that only --privacy user
// reads.
type userTrainFlags struct {
	items     string
	saveUsers string
	synthetic string
	users     int
	headItems int
	// headNoiseRatio, startItems, popularityScale and biasColumnScale
	// are --head-noise-ratio, --start-items, --popularity-scale and
	// --bias-column-scale.
	headNoiseRatio  float64
	startItems      int
	popularityScale float64
	biasColumnScale float64
	tailBuckets     int
	weights         string
	sampler         string
	share           float64
	objective       string
	positive        float64
}

// register adds the user-mode flags to cmd.
func (u *userTrainFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&u.items, "items", "", "--privacy user: public item catalogue, one item ID per line (default: private item selection)")
	f.StringVar(&u.saveUsers, "save-users", "", "--privacy user: also write each user's own bias and factor (JSON lines; NOT private, each line is that user's data) to this file")
	f.StringVar(&u.synthetic, "synthetic", "", `built-in data: "" (the paper's uniform low-rank problem) or "realistic" (fitted to MovieLens 100k's statistics, MovieLens-1M-shaped at the default 6 040 users; --users sets its size; docs/generator.md)`)
	f.IntVar(&u.users, "users", 6040, "--synthetic realistic: number of users (items scale as users^0.425: 1 682 at 943, 3 706 at 6 040)")
	f.IntVar(&u.headItems, "head-items", 0, fmt.Sprintf("--privacy user: most items that get factors, the most popular by noisy count among those whose count reaches %g σ_G/C² (default %d)", userdp.Defaults(1, 1e-6, 1, 5).HeadNoiseRatio, userdp.Defaults(1, 1e-6, 1, 5).HeadItems))
	f.Float64Var(&u.headNoiseRatio, "head-noise-ratio", userdp.Defaults(1, 1e-6, 1, 5).HeadNoiseRatio, "--privacy user: an item gets factors only if its noisy count reaches this many σ_G/C² (σ_G/C² the noise of one Gram entry of the ALS step; 0: every released item, up to --head-items)")
	f.IntVar(&u.startItems, "start-items", userdp.Defaults(1, 1e-6, 1, 5).StartItems, "--privacy user: most head items the PCA start covers, the most popular (0: the whole head); the ALS step gives the rest of the head its factors")
	f.Float64Var(&u.popularityScale, "popularity-scale", userdp.Defaults(1, 1e-6, 1, 5).PopularityScale, "--privacy user: a user's own slope on item popularity: the scale s of the popularity column s·ln(n̂/n₀) of the released counts appended to the item factors, whose coefficient each user fits locally (post-processing, no budget; 0: none)")
	f.Float64Var(&u.biasColumnScale, "bias-column-scale", userdp.Defaults(1, 1e-6, 1, 5).BiasColumnScale, "--privacy user: a user's own scale on the item biases: the scale c of the item-bias column c·(b − b_tail) of the released biases appended to the item factors, whose coefficient each user fits locally (post-processing, no budget; 0: none)")
	f.IntVar(&u.tailBuckets, "tail-buckets", userdp.DefaultTailBuckets, "--privacy user under private item selection: number of tail buckets: every item outside the released list is predicted by the released bias and feature columns of its bucket (FNV-1a of its ID mod N), released with the item biases at no extra budget (0: the tail bias alone)")
	f.StringVar(&u.weights, "weights", "adaptive", "--privacy user: factor-step weights within each user: adaptive (∝ n̂^(−½)) or uniform")
	f.StringVar(&u.sampler, "sampler", "", "noise sampler: discrete (exact discrete noise on a grid; the only safe choice) or float (math/rand/v2 floating-point noise, whose values lie on lattices: NOT private; --privacy user allows it only with --seed). Default: discrete, except float for a seeded --privacy paper run (reproducing the paper's experiments)")
	f.Float64Var(&u.share, "factor-share", 0, "--privacy user with an explicit --rank: share of the budget (of μ²) for the factors (default 0.4)")
	f.StringVar(&u.objective, "objective", "rating", "--privacy user: what the model is for: rating (predict ratings) or ranking (a top-k ranking model: noisy popularity and the eigenvectors of a noisy co-occurrence Gram; recommend ranks with it, predict refuses it). Implicit data (a pairs file) trains ranking. --objective ranking implies --privacy user")
	f.Float64Var(&u.positive, "positive", 0, "--objective ranking: the public threshold, a rating ≥ it is a positive (default: min + 0.75·(max − min) of the rating range, 4 on 1–5); refused with implicit data, where every pair is a positive")
}

// ratingOnly are the --privacy user flags that the ranking objective
// refuses: it sets its own head items and components.
var ratingOnly = []string{"rank", "iters", "factor-share", "head-items", "head-noise-ratio", "start-items", "popularity-scale", "bias-column-scale", "tail-buckets", "center", "clip-norm", "weights", "save-users"}

// checkObjective refuses the flags that do not apply to the objective o
// (why says how it was chosen).
func checkObjective(cmd *cobra.Command, o userdp.Objective, why string) error {
	changed := cmd.Flags().Changed
	if o == userdp.ObjectiveRanking {
		for _, name := range ratingOnly {
			if changed(name) {
				return fmt.Errorf("--%s applies to the rating objective, not to the ranking model (%s), which sets its own head items and components", name, why)
			}
		}
		return nil
	}
	if changed("positive") {
		return fmt.Errorf("--positive applies to --objective ranking")
	}
	return nil
}

// userModeOnly are flags that --privacy paper must refuse.
var userModeOnly = []string{"items", "head-items", "head-noise-ratio", "start-items", "popularity-scale", "bias-column-scale", "tail-buckets", "weights", "factor-share", "save-users", "objective", "positive"}

// paperModeOnly are the paper-mode flags that --privacy user refuses.
var paperModeOnly = []string{"algo", "variance", "alpha", "scale", "sigma", "lambda", "irls-iters", "irls-threshold", "init", "lambda-scale"}

// userPlan is what the flags of --privacy user ask for, checked before
// any data is read; options turns it into userdp options once the rating
// range is known.
type userPlan struct {
	eps       float64
	items     []string
	objective userdp.Objective
	// implicit says that the training data is implicit feedback (pairs):
	// the ranking objective, every pair a positive.
	implicit bool
}

// checkUserFlags checks every --privacy user flag that does not depend on
// the data, and reads the --items catalogue, before any long work.
func checkUserFlags(cmd *cobra.Command, fl *trainFlags) (*userPlan, error) {
	changed := cmd.Flags().Changed
	for _, name := range paperModeOnly {
		if changed(name) {
			return nil, fmt.Errorf("--%s applies to --privacy paper; --privacy user sets its own noise and solver (see dpmc help train)", name)
		}
	}
	p := &userPlan{eps: fl.epsilon}
	var err error
	if p.objective, err = userdp.ParseObjective(fl.user.objective); err != nil {
		return nil, fmt.Errorf("--objective: %w", err)
	}
	if changed("positive") && !changed("objective") {
		p.objective = userdp.ObjectiveRanking // a positive threshold asks for the ranking model
	}
	if err := checkObjective(cmd, p.objective, "--objective ranking"); err != nil {
		return nil, err
	}
	if changed("positive") && (math.IsNaN(fl.user.positive) || math.IsInf(fl.user.positive, 0)) {
		return nil, fmt.Errorf("--positive = %v, want a finite rating", fl.user.positive)
	}
	mech := fl.noise.name
	if !changed("mechanism") {
		mech = "gaussian" // the train command's default (huber) is paper mode's
	}
	switch mech {
	case "gaussian":
		if !changed("epsilon") {
			return nil, fmt.Errorf("--privacy user needs --epsilon (the total user-level ε), or --mechanism none for the non-private baseline")
		}
	case "none":
		if changed("epsilon") {
			return nil, fmt.Errorf("--epsilon does not apply to --mechanism none (the non-private baseline)")
		}
		p.eps = math.Inf(1)
	default:
		return nil, fmt.Errorf("--mechanism %s: --privacy user uses Gaussian noise (exact composition of its many releases) or none; Laplace and Huber are for --privacy paper", mech)
	}
	if changed("factor-share") && !changed("rank") {
		return nil, fmt.Errorf("--factor-share needs --rank")
	}
	if _, err := userdp.ParseWeights(fl.user.weights); err != nil {
		return nil, fmt.Errorf("--weights: %w", err)
	}
	if fl.user.sampler == "" {
		fl.user.sampler = userdp.SamplerDiscrete.String()
	}
	if _, err := userdp.ParseSampler(fl.user.sampler); err != nil {
		return nil, fmt.Errorf("--sampler: %w", err)
	}
	if changed("center") && (math.IsNaN(fl.center) || math.IsInf(fl.center, 0)) {
		return nil, fmt.Errorf("--center = %v, want a finite number in the rating range", fl.center)
	}
	if fl.force && fl.save == "" && fl.user.saveUsers == "" {
		return nil, fmt.Errorf("--force needs --save or --save-users")
	}
	if err := checkOutput(fl.save, fl.force); err != nil {
		return nil, fmt.Errorf("--save: %w", err)
	}
	if err := checkOutput(fl.user.saveUsers, fl.force); err != nil {
		return nil, fmt.Errorf("--save-users: %w", err)
	}
	if fl.save != "" && fl.save == fl.user.saveUsers {
		return nil, fmt.Errorf("--save and --save-users name the same file %s", fl.save)
	}
	if fl.user.items != "" {
		items, err := userdp.LoadCatalogue(fl.user.items)
		if err != nil {
			return nil, fmt.Errorf("--items: %w", err)
		}
		p.items = items
	}
	return p, nil
}

// options returns the userdp options for data on the rating range [lo, hi].
// Without rangeKnown, [lo, hi] is a stand-in and --center is not checked
// against it.
func (p *userPlan) options(cmd *cobra.Command, fl *trainFlags, lo, hi float64, rangeKnown bool) (userdp.Options, error) {
	changed := cmd.Flags().Changed
	o := userdp.Defaults(p.eps, fl.delta, lo, hi)
	if p.items != nil {
		o = o.WithCatalogue(p.items)
	}
	if changed("center") && rangeKnown {
		if fl.center < lo || fl.center > hi {
			return o, fmt.Errorf("--center = %v, want a number in the rating range [%g, %g]", fl.center, lo, hi)
		}
		o = o.WithCenter(fl.center)
	}
	var v userdp.Overrides
	for _, f := range []struct {
		name string
		set  func()
	}{
		{"rank", func() { v.Rank = &fl.rank }},
		{"iters", func() { v.Iters = &fl.iters }},
		{"factor-share", func() { v.FactorShare = &fl.user.share }},
		{"head-items", func() { v.HeadItems = &fl.user.headItems }},
		{"head-noise-ratio", func() { v.HeadNoiseRatio = &fl.user.headNoiseRatio }},
		{"start-items", func() { v.StartItems = &fl.user.startItems }},
		{"popularity-scale", func() { v.PopularityScale = &fl.user.popularityScale }},
		{"bias-column-scale", func() { v.BiasColumnScale = &fl.user.biasColumnScale }},
		{"max-user-ratings", func() { v.MaxItemsPerUser = &fl.maxUserRatings }},
		{"clip-norm", func() { v.ClipNorm = &fl.clipNorm }},
		{"tail-buckets", func() { v.TailBuckets = &fl.user.tailBuckets }},
	} {
		if changed(f.name) {
			f.set()
		}
	}
	o, err := o.With(v)
	if err != nil {
		return o, fmt.Errorf("--factor-share: %w", err)
	}
	o.Weights, _ = userdp.ParseWeights(fl.user.weights)
	o.Sampler, _ = userdp.ParseSampler(fl.user.sampler)
	_, seeded := fl.seed.rand(cmd)
	o.Seeded, o.Seed = seeded, fl.seed.seed
	o.Workers = fl.workers
	switch {
	case p.implicit:
		o.Objective, o.Positive = userdp.ObjectiveRanking, math.Inf(-1)
	case p.objective == userdp.ObjectiveRanking:
		o.Objective = userdp.ObjectiveRanking
		if changed("positive") {
			if rangeKnown && (fl.user.positive < lo || fl.user.positive > hi) {
				return o, fmt.Errorf("--positive = %v, want a rating in the rating range [%g, %g]", fl.user.positive, lo, hi)
			}
			o.Positive = fl.user.positive
		}
	}
	// The library's checks (userdp.Options.Validate), in the flags' words.
	if err := o.Validate(); err != nil {
		var pe *userdp.ParamError
		if errors.As(err, &pe) {
			return o, errors.New(pe.FlagMessage())
		}
		return o, err
	}
	return o, nil
}

// realisticData generates the --synthetic realistic data set and its
// 80/20 (or --test-fraction) split.
func realisticData(cmd *cobra.Command, fl *trainFlags) (tr, te *ratings.Dataset, describe string, err error) {
	if fl.data != "" {
		return nil, nil, "", fmt.Errorf("--synthetic applies only without --data")
	}
	if err := checkUsers(fl.user.users); err != nil {
		return nil, nil, "", err
	}
	frac := 0.2
	if cmd.Flags().Changed("test-fraction") {
		frac = fl.testFrac
	}
	r, seeded := fl.seed.rand(cmd)
	tr, te, describe, err = train.Realistic(fl.user.users, frac, r)
	if err == nil && !seeded {
		describe += " (data seed drawn at random)"
	}
	return tr, te, describe, err
}

// runTrainUser is dpmc train --privacy user.
func runTrainUser(cmd *cobra.Command, fl *trainFlags) error {
	stderr := cmd.ErrOrStderr()
	plan, err := checkUserFlags(cmd, fl)
	if err != nil {
		return err
	}
	if fl.user.synthetic != "realistic" && cmd.Flags().Changed("users") {
		return fmt.Errorf("--users applies only to --synthetic realistic")
	}
	// Refuse what the flags alone get wrong before loading: with the range
	// of --rating-range if given (then --center too), else a stand-in, which
	// the other checks do not depend on.
	lo, hi, known := 1.0, 5.0, false
	if fl.ratingRange != "" {
		if l, h, err := ratings.ParseRange(fl.ratingRange); err == nil {
			lo, hi, known = l, h, true
		}
	}
	if _, err := plan.options(cmd, fl, lo, hi, known); err != nil {
		return err
	}
	var train, test *ratings.Dataset
	var describe string
	switch fl.user.synthetic {
	case "realistic":
		if train, test, describe, err = realisticData(cmd, fl); err != nil {
			return err
		}
	case "":
		d, err := loadTrainData(cmd, fl)
		if err != nil {
			return err
		}
		train, test = d.Datasets()
		describe = d.Describe
	default:
		return fmt.Errorf("--synthetic %q: want realistic (or leave it out)", fl.user.synthetic)
	}
	if train.Implicit {
		// (user, item) pairs without ratings: a ranking model, every pair
		// a positive.
		switch {
		case cmd.Flags().Changed("objective") && plan.objective == userdp.ObjectiveRating:
			return fmt.Errorf("--data %s holds (user, item) pairs without ratings (implicit feedback): the rating objective needs ratings; train a ranking model (--objective ranking, the default for such data)", fl.data)
		case cmd.Flags().Changed("positive"):
			return fmt.Errorf("--positive does not apply to implicit data (--data %s holds pairs without ratings: every pair is a positive)", fl.data)
		}
		if err := checkObjective(cmd, userdp.ObjectiveRanking, "implicit data"); err != nil {
			return err
		}
		plan.implicit = true
	}
	opts, err := plan.options(cmd, fl, train.Min, train.Max, true)
	if err != nil {
		return err
	}
	if opts.Seeded && !opts.NoNoise {
		fmt.Fprintln(stderr, "dpmc: warning: --seed makes the noise reproducible: this run is NOT private (experiments only)")
	}
	opts.Progress = func(s string) { fmt.Fprintln(stderr, "dpmc: train:", s) }
	start := time.Now()
	res, err := userdp.Train(cmd.Context(), train, opts)
	if err != nil {
		return err
	}
	opts.Progress = nil
	s := userdp.Summarize(res, opts, train, test, describe, time.Since(start).Seconds())
	// A signal during the evaluation ends the run with nothing printed
	// or saved.
	if err := cmd.Context().Err(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	// Save first: a privacy report of a release that failed to save
	// would claim a release that did not happen.
	if fl.save != "" {
		if err := cmd.Context().Err(); err != nil {
			return fmt.Errorf("--save: %w (nothing written)", err)
		}
		m, err := model.FromUserLevel(res, opts)
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		if err := m.SaveContext(cmd.Context(), fl.save, fl.force); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	if fl.json {
		err = s.WriteJSON(cmd.OutOrStdout())
	} else {
		err = s.WriteText(cmd.OutOrStdout())
	}
	if err != nil {
		return err
	}
	for _, w := range s.Warnings() {
		fmt.Fprintln(stderr, "dpmc: warning:", w)
	}
	if fl.save != "" {
		fmt.Fprintf(stderr, "dpmc: wrote the release (what the privacy report covers, nothing per user) to %s\n", fl.save)
	}
	if fl.user.saveUsers != "" {
		if err := cmd.Context().Err(); err != nil {
			return fmt.Errorf("--save-users: %w (nothing written)", err)
		}
		users := res.FoldInAll(train)
		if err := atomicfile.WriteContext(cmd.Context(), fl.user.saveUsers, fl.force, func(w io.Writer) error { return users.WriteUsers(w, train) }); err != nil {
			return fmt.Errorf("--save-users: %w", err)
		}
		fmt.Fprintf(stderr, "dpmc: wrote every user's own bias and factor (NOT private: each line belongs to its user) to %s\n", fl.user.saveUsers)
	}
	return nil
}

// checkOutput is atomicfile.Check, for output flags.
func checkOutput(path string, force bool) error { return atomicfile.Check(path, force) }

// checkRank checks the rank against the data before training.
func checkRank(rank, users, items, workers int) error {
	if err := solver.CheckSize(users, items, rank, workers); err != nil {
		return fmt.Errorf("--rank: %w", err)
	}
	return nil
}
