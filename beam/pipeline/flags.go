package pipeline

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"

	"github.com/dpmc/dpmc/internal/flagvocab"
	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// Flags are dpmc-beam's flags: those of `dpmc train --privacy user` that
// apply to a pipeline, with the same names, meanings and defaults.
// Each field holds the flag of the same name (Register documents them);
// Config reads them.
type Flags struct {
	// Data, Format, Columns, Header and RatingRange say what to read.
	Data, Format, Columns, Header, RatingRange string
	// Epsilon and Delta are the total user-level target.
	Epsilon, Delta float64
	// Seed seeds the noise (not private) when the flag is given.
	Seed uint64
	// Rank, Iters, HeadItems, StartItems and MaxUserRatings override the
	// defaults when given.
	Rank, Iters, HeadItems, StartItems, MaxUserRatings, TailBuckets int
	// FactorShare, HeadNoiseRatio, ClipNorm, Center, PopularityScale and
	// BiasColumnScale override the defaults when given.
	FactorShare, HeadNoiseRatio, ClipNorm, Center, PopularityScale, BiasColumnScale float64
	// Items is a catalogue file; Weights and Sampler name the choices.
	Items, Weights, Sampler string
	// Save is the model file, Force overwrites it.
	Save  string
	Force bool
	// Output is --output-format, the report's format: text or json.
	Output string
	// ShuffleCounters and LogIDs set Config's fields of the same name.
	ShuffleCounters, LogIDs bool
	// Objective is rating or ranking; Positive is the ranking objective's
	// threshold (default: userdp.DefaultPositive of the range).
	Objective string
	Positive  float64
	// LogLevel is the Beam SDK's and Prism's log level (SetLogLevel).
	LogLevel string
}

// ratingOnly are the flags that the ranking objective refuses, as
// dpmc train does: it sets its own head items and components.
var ratingOnly = []string{"rank", "iters", "factor-share", "head-items", "head-noise-ratio", "start-items", "popularity-scale", "bias-column-scale", "tail-buckets", "center", "clip-norm", "weights"}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Data, "data", "", "ratings files, comma-separated; local paths may be globs (shard large data into many files: one task reads one file)")
	fs.StringVar(&f.Format, "format", "auto", "format of --data: auto (detected from the first file's first lines), ml100k, mldat, mlcsv, sweetrs, csv, tsv")
	fs.StringVar(&f.Columns, "columns", "", `columns of a csv/tsv file, e.g. "user,item,rating" ("_" ignores a column)`)
	fs.StringVar(&f.Header, "header", "auto", "whether a csv/tsv file has a header line: auto, yes, no")
	fs.StringVar(&f.RatingRange, "rating-range", "", "MIN,MAX: the declared rating range (default: the format's own)")
	fs.Float64Var(&f.Epsilon, "epsilon", 0, "the total user-level ε (required)")
	fs.Float64Var(&f.Delta, "delta", 1e-6, "the total δ, in (0, 1)")
	fs.Uint64Var(&f.Seed, "seed", 0, "seed the noise: reproducible and NOT private (experiments only); default: a secret key from crypto/rand")
	fs.IntVar(&f.Rank, "rank", 0, fmt.Sprintf("rank of the item factors (default: rank %d with %d ALS step after the PCA start when the released users × ε ≥ %g, else biases only)", userdp.Defaults(1, 1e-6, 1, 5).Rank, userdp.Defaults(1, 1e-6, 1, 5).Iters, userdp.Defaults(1, 1e-6, 1, 5).AutoFactorThreshold))
	fs.IntVar(&f.Iters, "iters", 0, "ALS steps after the start (with --rank; default 1)")
	fs.Float64Var(&f.FactorShare, "factor-share", 0, "with --rank: share of the budget (of μ²) for the factors (default 0.4)")
	fs.IntVar(&f.HeadItems, "head-items", 0, fmt.Sprintf("most items that get factors, the most popular by noisy count among those whose count reaches %g σ_G/C² (default %d)", userdp.Defaults(1, 1e-6, 1, 5).HeadNoiseRatio, userdp.Defaults(1, 1e-6, 1, 5).HeadItems))
	fs.Float64Var(&f.HeadNoiseRatio, "head-noise-ratio", userdp.Defaults(1, 1e-6, 1, 5).HeadNoiseRatio, "an item gets factors only if its noisy count reaches this many σ_G/C² (σ_G/C² the noise of one Gram entry of the ALS step; 0: every released item, up to --head-items)")
	fs.IntVar(&f.StartItems, "start-items", userdp.Defaults(1, 1e-6, 1, 5).StartItems, "most head items the PCA start covers, the most popular (0: the whole head); the ALS step gives the rest of the head its factors")
	fs.Float64Var(&f.PopularityScale, "popularity-scale", userdp.Defaults(1, 1e-6, 1, 5).PopularityScale, "a user's own slope on item popularity: the scale s of the popularity column s·ln(n̂/n₀) of the released counts appended to the item factors, whose coefficient each user fits locally (post-processing, no budget; 0: none)")
	fs.Float64Var(&f.BiasColumnScale, "bias-column-scale", userdp.Defaults(1, 1e-6, 1, 5).BiasColumnScale, "a user's own scale on the item biases: the scale c of the item-bias column c·(b − b_tail) of the released biases appended to the item factors, whose coefficient each user fits locally (post-processing, no budget; 0: none)")
	fs.IntVar(&f.TailBuckets, "tail-buckets", userdp.DefaultTailBuckets, "under private item selection: number of tail buckets: every item outside the released list is predicted by the released bias and feature columns of its bucket (FNV-1a of its ID mod N), released with the item biases at no extra budget (0: the tail bias alone)")
	fs.IntVar(&f.MaxUserRatings, "max-user-ratings", 1000, "most ratings one user contributes (a uniform random subset beyond)")
	fs.Float64Var(&f.ClipNorm, "clip-norm", userdp.Defaults(1, 1e-6, 1, 5).ClipNorm, "ℓ2 norm every user factor is clipped to before it enters an item release")
	fs.Float64Var(&f.Center, "center", 0, "a public global mean rating, in the rating range (default: a noisy mean is released)")
	fs.StringVar(&f.Items, "items", "", "public item catalogue, one item ID per line (default: private item selection)")
	fs.StringVar(&f.Weights, "weights", "adaptive", "factor-step weights within each user: adaptive or uniform")
	fs.StringVar(&f.Sampler, "sampler", "discrete", "noise sampler: discrete, or float (NOT private; only with --seed) (default: discrete)")
	fs.StringVar(&f.Save, "save", "", "model file to write (required; local, or a gs:// path on Dataflow)")
	fs.BoolVar(&f.Force, "force", false, "overwrite --save")
	fs.StringVar(&f.Output, "output-format", "text", "format of the privacy report printed: text or json")
	fs.BoolVar(&f.ShuffleCounters, "shuffle-counters", false, "count the elements and bytes of every shuffle (exact figures of the data, NOT private: they reach the runner's metrics and stderr)")
	fs.StringVar(&f.Objective, "objective", "rating", "what the model is for: rating (predict ratings) or ranking (a top-k ranking model: noisy popularity and the eigenvectors of a noisy co-occurrence Gram). Implicit data (a pairs file) trains ranking")
	fs.Float64Var(&f.Positive, "positive", 0, "--objective ranking: the public threshold, a rating ≥ it is a positive (default: min + 0.75·(max − min) of the rating range, 4 on 1–5); refused with implicit data, where every pair is a positive")
	fs.StringVar(&f.LogLevel, "log-level", "warn", "log level of the Beam SDK and the Prism runner: debug, info, warn or error")
	fs.BoolVar(&f.LogIDs, "log-ids", false, "let errors name user and item IDs (a duplicate pair): they reach the runner's logs, which are NOT private")
	flagvocab.ApplyStd(fs)
}

// Config checks the flags (changed says which were given) and returns the
// run's configuration, with the files resolved (Resolve) and the options
// built as `dpmc train --privacy user` builds them. Errors name the flag.
func (f *Flags) Config(changed func(string) bool) (*Config, error) {
	if f.Data == "" {
		return nil, fmt.Errorf("--data: give the ratings files")
	}
	if f.Save == "" {
		return nil, fmt.Errorf("--save: give the model file to write")
	}
	if !changed("epsilon") || !(f.Epsilon > 0) || math.IsInf(f.Epsilon, 0) {
		return nil, fmt.Errorf("--epsilon = %v: want the total user-level ε, a finite number > 0", f.Epsilon)
	}
	if !(f.Delta > 0 && f.Delta < 1) {
		return nil, fmt.Errorf("--delta = %v, want in (0, 1)", f.Delta)
	}
	if f.Output != "text" && f.Output != "json" {
		return nil, fmt.Errorf("--output-format %q: want text or json", f.Output)
	}
	obj, err := userdp.ParseObjective(f.Objective)
	if err != nil {
		return nil, fmt.Errorf("--objective: %w", err)
	}
	if changed("positive") && !changed("objective") {
		obj = userdp.ObjectiveRanking // a positive threshold asks for the ranking model
	}
	if err := checkObjective(changed, obj, "--objective ranking"); err != nil {
		return nil, err
	}
	if changed("positive") && (math.IsNaN(f.Positive) || math.IsInf(f.Positive, 0)) {
		return nil, fmt.Errorf("--positive = %v, want a finite rating", f.Positive)
	}
	if err := checkLogLevel(f.LogLevel); err != nil {
		return nil, err
	}
	c := &Config{Files: strings.Split(f.Data, ","), Save: f.Save, Force: f.Force, ShuffleCounters: f.ShuffleCounters, LogIDs: f.LogIDs}
	if c.Read.Format, err = ratings.ParseFormat(f.Format); err != nil {
		return nil, fmt.Errorf("--format: %w", err)
	}
	if c.Read.Header, err = ratings.ParseHeader(f.Header); err != nil {
		return nil, fmt.Errorf("--header: %w", err)
	}
	c.Read.Columns = f.Columns
	if f.RatingRange != "" {
		if c.Read.Min, c.Read.Max, err = ratings.ParseRange(f.RatingRange); err != nil {
			return nil, fmt.Errorf("--rating-range: %w", err)
		}
	}
	lo, hi, err := Resolve(c)
	if err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	o := userdp.Defaults(f.Epsilon, f.Delta, lo, hi)
	switch {
	case c.Read.Format.Implicit():
		// (user, item) pairs without ratings: a ranking model, every
		// pair a positive (as dpmc train).
		switch {
		case changed("objective") && obj == userdp.ObjectiveRating:
			return nil, fmt.Errorf("--data holds (user, item) pairs without ratings (implicit feedback): the rating objective needs ratings; train a ranking model (--objective ranking, the default for such data)")
		case changed("positive"):
			return nil, fmt.Errorf("--positive does not apply to implicit data (--data holds pairs without ratings: every pair is a positive)")
		}
		if err := checkObjective(changed, userdp.ObjectiveRanking, "implicit data"); err != nil {
			return nil, err
		}
		o.Objective, o.Positive = userdp.ObjectiveRanking, math.Inf(-1)
	case obj == userdp.ObjectiveRanking:
		o.Objective = userdp.ObjectiveRanking
		if changed("positive") {
			if f.Positive < lo || f.Positive > hi {
				return nil, fmt.Errorf("--positive = %v, want a rating in the rating range [%g, %g]", f.Positive, lo, hi)
			}
			o.Positive = f.Positive
		}
	}
	if f.Items != "" {
		items, err := userdp.LoadCatalogue(f.Items)
		if err != nil {
			return nil, fmt.Errorf("--items: %w", err)
		}
		o = o.WithCatalogue(items)
	}
	if changed("center") {
		if !(f.Center >= lo && f.Center <= hi) {
			return nil, fmt.Errorf("--center = %v, want a number in the rating range [%g, %g]", f.Center, lo, hi)
		}
		o = o.WithCenter(f.Center)
	}
	var v userdp.Overrides
	for _, s := range []struct {
		name string
		set  func()
	}{
		{"rank", func() { v.Rank = &f.Rank }},
		{"iters", func() { v.Iters = &f.Iters }},
		{"factor-share", func() { v.FactorShare = &f.FactorShare }},
		{"head-items", func() { v.HeadItems = &f.HeadItems }},
		{"head-noise-ratio", func() { v.HeadNoiseRatio = &f.HeadNoiseRatio }},
		{"start-items", func() { v.StartItems = &f.StartItems }},
		{"popularity-scale", func() { v.PopularityScale = &f.PopularityScale }},
		{"bias-column-scale", func() { v.BiasColumnScale = &f.BiasColumnScale }},
		{"max-user-ratings", func() { v.MaxItemsPerUser = &f.MaxUserRatings }},
		{"clip-norm", func() { v.ClipNorm = &f.ClipNorm }},
		{"tail-buckets", func() { v.TailBuckets = &f.TailBuckets }},
	} {
		if changed(s.name) {
			s.set()
		}
	}
	if o, err = o.With(v); err != nil {
		return nil, fmt.Errorf("--rank, --iters, --factor-share: %w", err)
	}
	if o.Weights, err = userdp.ParseWeights(f.Weights); err != nil {
		return nil, fmt.Errorf("--weights: %w", err)
	}
	if o.Sampler, err = userdp.ParseSampler(f.Sampler); err != nil {
		return nil, fmt.Errorf("--sampler: %w", err)
	}
	o.Seeded, o.Seed = changed("seed"), f.Seed
	if _, err := userdp.NewPlan(o); err != nil {
		return nil, err
	}
	c.Options = o
	return c, nil
}

// checkObjective refuses the flags that do not apply to the objective o
// (why says how it was chosen), as dpmc train does.
func checkObjective(changed func(string) bool, o userdp.Objective, why string) error {
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

// SetLogLevel sets the log level of the Beam SDK and of the Prism runner
// (they log through Beam's log package and slog): debug, info, warn or
// error. dpmc-beam sets warn by default (--log-level): at info Prism
// logs every stage and job event on stderr. It takes effect at
// beam.Init, or at once when called after it.
func SetLogLevel(level string) error {
	if err := checkLogLevel(level); err != nil {
		return err
	}
	beamlog.LogLevel = level
	beamlog.SetupLoggingWithDefault()
	return nil
}

func checkLogLevel(level string) error {
	switch level {
	case "debug", "info", "warn", "error":
		return nil
	}
	return fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
}

// PrintReport prints the privacy report of the model file at path, as
// text (the report's own rendering) or JSON.
func PrintReport(w io.Writer, path string, asJSON bool) error {
	m, err := model.Load(path)
	if err != nil {
		return err
	}
	if asJSON {
		_, err := fmt.Fprintf(w, "%s\n", m.Privacy)
		return err
	}
	var r userdp.Report
	if err := json.Unmarshal(m.Privacy, &r); err != nil {
		return fmt.Errorf("pipeline: the model's privacy report: %w", err)
	}
	if r.EpsilonJSON != nil {
		r.Epsilon = *r.EpsilonJSON
	}
	return r.WriteText(w)
}
