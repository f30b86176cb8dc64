// Package flagvocab is the one vocabulary of the command-line flags of dpmc
// and dpmc-beam: every flag name has one type, one default, one unit and
// one meaning, whichever command registers it (docs/cli.md is rendered
// from it). Each command registers its flags itself; the tests of
// cmd/dpmc and beam walk every registered flag and check it against
// Vocabulary with Check, so that a flag of a known name cannot drift from
// its entry and a new name cannot be added without one.
//
// A flag whose default depends on the command or on its mode (--rank under
// --privacy paper or user, --mechanism in train or account, …) is Auto:
// it is registered with the zero default of its type ("" or 0, which help
// does not print), and its usage text says what the command does without
// it ("(default: …)" or "(required)").
package flagvocab

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// Flag is one entry of the vocabulary.
type Flag struct {
	Name    string // without the dashes
	Short   string // one-letter shorthand, or ""
	Type    string // as pflag names it: string, int, int64, uint64, float64, bool, floats
	Default string // as help prints it; for an Auto flag the zero of Type
	Auto    bool   // the command (or its mode) decides the default; its usage says how
	Unit    string // what a value is measured in, or the kind of value
	Meaning string
}

// Units used by the vocabulary.
const (
	File        = "file path"
	Dir         = "folder path"
	Choice      = "one of the listed names"
	Switch      = "on/off"
	Count       = "count"
	Ratings     = "rating units"
	SqRatings   = "squared rating units"
	Noised      = "units of the noised value"
	Probability = "probability"
	Epsilon     = "ε (nats)"
	Fraction    = "fraction in [0, 1]"
	Seed        = "seed (any uint64)"
	ID          = "ID as in the data"
	None        = "dimensionless"
)

// Vocabulary lists every flag of dpmc and dpmc-beam, by name.
var Vocabulary = []Flag{
	{Name: "ablation", Type: "bool", Default: "false", Unit: Switch, Meaning: "utility: vary each choice of the default rule on its own instead"},
	{Name: "algo", Type: "string", Default: "", Auto: true, Unit: Choice, Meaning: "paper-mode solver: als or irls"},
	{Name: "alpha", Type: "float64", Default: "3", Unit: None, Meaning: "Huber shape α"},
	{Name: "at", Type: "float64", Default: "0", Unit: Noised, Meaning: "the first neighbour's input x of a mechanism audit"},
	{Name: "bias-column-scale", Type: "float64", Default: "1", Unit: None, Meaning: "scale of the item-bias column b − b_tail of the released biases, each user's own scale on them (0: none)"},
	{Name: "bits", Type: "bool", Default: "false", Unit: Switch, Meaning: "also audit the low-order bits of float64 outputs"},
	{Name: "center", Type: "float64", Default: "0", Unit: Ratings, Meaning: "a public global mean rating (default: a noisy mean is released)"},
	{Name: "claim-delta", Type: "float64", Default: "0", Unit: Probability, Meaning: "the δ of the claim an audit tests"},
	{Name: "claim-epsilon", Type: "float64", Default: "0", Unit: Epsilon, Meaning: "the ε of the claim an audit tests (default: the mechanism's or accountant's own)"},
	{Name: "clip", Type: "bool", Default: "false", Unit: Switch, Meaning: "clip predictions to the rating range"},
	{Name: "clip-norm", Type: "float64", Default: "0.5", Unit: None, Meaning: "ℓ2 norm C every user factor is clipped to before an item release"},
	{Name: "cols", Type: "int", Default: "1000", Unit: Count, Meaning: "built-in synthetic problem: items (columns)"},
	{Name: "columns", Type: "string", Default: "", Unit: "comma-separated column names", Meaning: "columns of a csv/tsv input file (--data, --pairs)"},
	{Name: "compositions", Type: "int", Default: "0", Unit: Count, Meaning: "number K of releases composed (required)"},
	{Name: "confidence", Type: "float64", Default: "0.95", Unit: Probability, Meaning: "joint confidence of an audit's bounds"},
	{Name: "coordinates", Type: "int", Default: "1", Unit: Count, Meaning: "coordinates one neighbouring change can move (discrete sampler)"},
	{Name: "data", Type: "string", Default: "", Unit: File, Meaning: "ratings file(s) to train on"},
	{Name: "data-dir", Type: "string", Default: "", Unit: Dir, Meaning: "folder holding the public data sets (movielens-100k/, sweetrs/)"},
	{Name: "data-seed", Type: "uint64", Default: "1", Unit: Seed, Meaning: "seed of generated data (the set is a fixed function of it)"},
	{Name: "decimals", Type: "int", Default: "0", Auto: true, Unit: Count, Meaning: "generate: write each rating rounded to this many decimals"},
	{Name: "delta", Type: "float64", Default: "1e-06", Unit: Probability, Meaning: "total δ of the (ε, δ) guarantee of everything released"},
	{Name: "dims", Type: "int", Default: "1", Unit: Count, Meaning: "coordinates of one audited output"},
	{Name: "epsilon", Type: "float64", Default: "0", Auto: true, Unit: Epsilon, Meaning: "total user-level ε of everything released"},
	{Name: "epsilons", Type: "floats", Default: "0.5,1,2,5,10,20", Unit: Epsilon, Meaning: "total ε values of a sweep, comma-separated"},
	{Name: "ease-lambda", Type: "float64", Default: "500", Unit: "ridge λ (0/1 interaction units)", Meaning: "ridge of the non-private EASE baseline"},
	{Name: "factor-share", Type: "float64", Default: "0", Unit: Fraction, Meaning: "share of the budget (of μ²) for the item factors (default 0.4)"},
	{Name: "force", Type: "bool", Default: "false", Unit: Switch, Meaning: "replace output files (or write into an output folder) that already exist"},
	{Name: "format", Type: "string", Default: "auto", Unit: Choice, Meaning: "format of an input ratings file: auto, ml100k, mldat, mlcsv, sweetrs, csv, tsv, pairs (implicit feedback: user,item without ratings)"},
	{Name: "head-items", Type: "int", Default: "0", Unit: Count, Meaning: "most items that get factors, the most popular by noisy count among those whose count reaches 15 σ_G/C² (default 4000)"},
	{Name: "head-noise-ratio", Type: "float64", Default: "15", Unit: None, Meaning: "an item gets factors only if its noisy count reaches this many σ_G/C² (the noise of one Gram entry of the ALS step)"},
	{Name: "heldout", Type: "float64", Default: "0.2", Unit: Fraction, Meaning: "fraction of users held out of training (held-out-users protocol)"},
	{Name: "header", Type: "string", Default: "auto", Unit: Choice, Meaning: "whether a csv/tsv input file has a header line: auto, yes, no"},
	{Name: "history", Type: "string", Default: "", Unit: File, Meaning: "users' own ratings, folded in locally"},
	{Name: "history-columns", Type: "string", Default: "", Unit: "comma-separated column names", Meaning: "columns of a csv/tsv --history"},
	{Name: "history-format", Type: "string", Default: "auto", Unit: Choice, Meaning: "format of --history, as --format"},
	{Name: "history-header", Type: "string", Default: "auto", Unit: Choice, Meaning: "whether a csv/tsv --history has a header line"},
	{Name: "include-rated", Type: "bool", Default: "false", Unit: Switch, Meaning: "keep the --history items among the recommendations"},
	{Name: "init", Type: "string", Default: "warm", Unit: Choice, Meaning: "start of each IRLS item solve: warm or paper"},
	{Name: "irls-iters", Type: "int", Default: "0", Auto: true, Unit: Count, Meaning: "inner iterations K of each IRLS item solve"},
	{Name: "irls-threshold", Type: "float64", Default: "0", Unit: Ratings, Meaning: "Huber threshold c of the IRLS weights (default: the Huber noise's α, else 3)"},
	{Name: "items", Type: "string", Default: "", Unit: File, Meaning: "public item catalogue, one item ID per line"},
	{Name: "iters", Type: "int", Default: "0", Auto: true, Unit: Count, Meaning: "ALS iterations: paper mode's outer sweeps T, user mode's noisy steps after the PCA start"},
	{Name: "k", Short: "k", Type: "int", Default: "10", Unit: Count, Meaning: "length of a ranked list (recommendations, ranking metrics)"},
	{Name: "lambda", Type: "float64", Default: "0.5", Unit: None, Meaning: "paper-mode ridge penalty λ of every row solve"},
	{Name: "lambda-scale", Type: "string", Default: "none", Unit: Choice, Meaning: "paper-mode λ scaling: none or count"},
	{Name: "log-ids", Type: "bool", Default: "false", Unit: Switch, Meaning: "let errors name user and item IDs: they reach logs, which are NOT private"},
	{Name: "log-level", Type: "string", Default: "warn", Unit: Choice, Meaning: "log level of the Beam SDK and the Prism runner: debug, info, warn or error"},
	{Name: "max-user-ratings", Type: "int", Default: "1000", Unit: Count, Meaning: "most ratings one user contributes to the releases"},
	{Name: "mechanism", Type: "string", Default: "", Auto: true, Unit: Choice, Meaning: "noise mechanism: laplace, gaussian, huber (train also none)"},
	{Name: "model", Type: "string", Default: "", Unit: File, Meaning: "model file written by --save (required)"},
	{Name: "n", Short: "n", Type: "int64", Default: "1000", Unit: Count, Meaning: "number of samples to write"},
	{Name: "objective", Type: "string", Default: "rating", Unit: Choice, Meaning: "what the user-level pipeline fits: rating (a rating model) or ranking (a top-k ranking model; implied by implicit data)"},
	{Name: "observed", Type: "float64", Default: "0.1", Unit: Fraction, Meaning: "built-in synthetic problem: fraction of entries observed"},
	{Name: "output", Short: "o", Type: "string", Default: "", Unit: File, Meaning: "write the command's output to this file (atomically) instead of standard output"},
	{Name: "output-dir", Type: "string", Default: "", Auto: true, Unit: Dir, Meaning: "folder the command writes its results into"},
	{Name: "output-format", Type: "string", Default: "text", Unit: Choice, Meaning: "format of what is printed: text or json (budget also csv)"},
	{Name: "pairs", Type: "string", Default: "", Unit: File, Meaning: "file of (user, item) pairs to predict (required)"},
	{Name: "popularity-scale", Type: "float64", Default: "0.5", Unit: None, Meaning: "scale of the popularity column ln(n̂/n₀) of the released counts, each user's own slope on popularity (0: none)"},
	{Name: "positive", Type: "float64", Default: "0", Auto: true, Unit: Ratings, Meaning: "public threshold of the ranking objective: a rating ≥ it is a positive (default: min + 0.75·(max − min), 4 on 1–5)"},
	{Name: "privacy", Type: "string", Default: "", Auto: true, Unit: Choice, Meaning: "privacy mode: paper (the paper's algorithms, no guarantee) or user (user-level DP)"},
	{Name: "quick", Type: "bool", Default: "false", Unit: Switch, Meaning: "a reduced smoke-test run, not comparable with full runs"},
	{Name: "rank", Type: "int", Default: "0", Auto: true, Unit: Count, Meaning: "rank r of the factors"},
	{Name: "rating-range", Type: "string", Default: "", Unit: "MIN,MAX in rating units", Meaning: "declared rating range of the input (default: the format's own)"},
	{Name: "ratings", Type: "int", Default: "10000000", Unit: Count, Meaning: "number of training ratings to generate"},
	{Name: "relevant", Type: "float64", Default: "4", Unit: Ratings, Meaning: "lowest rating that counts as relevant for ranking metrics"},
	{Name: "release-delta", Type: "float64", Default: "1e-05", Unit: Probability, Meaning: "δ of ONE Gaussian release (the paper's Table 1 uses 1e-5)"},
	{Name: "release-sensitivity", Type: "float64", Default: "5", Unit: Ratings, Meaning: "Δ₁ = Δ₂ of ONE release (the paper's Table 1: the rating range, 5)"},
	{Name: "repeats", Type: "int", Default: "5", Unit: Count, Meaning: "unseeded runs per private point of a sweep"},
	{Name: "report", Type: "string", Default: "", Auto: true, Unit: File, Meaning: "Markdown report to write"},
	{Name: "report-only", Type: "bool", Default: "false", Unit: Switch, Meaning: "re-render the report from earlier results without running"},
	{Name: "root-seed", Type: "uint64", Default: "1", Unit: Seed, Meaning: "root seed of every trial's data and noise seeds (reproduce is always seeded)"},
	{Name: "rows", Type: "int", Default: "1000", Unit: Count, Meaning: "built-in synthetic problem: users (rows)"},
	{Name: "runs", Type: "int", Default: "1000", Unit: Count, Meaning: "audited training runs per neighbour"},
	{Name: "sampler", Type: "string", Default: "", Auto: true, Unit: Choice, Meaning: "noise sampler: discrete (exact, the private one) or float (NOT private)"},
	{Name: "samples", Type: "int", Default: "1000000", Unit: Count, Meaning: "outputs drawn per neighbour per audit test"},
	{Name: "save", Type: "string", Default: "", Unit: File, Meaning: "model file to write"},
	{Name: "save-users", Type: "string", Default: "", Unit: File, Meaning: "file of each user's own bias and factor (NOT private)"},
	{Name: "scale", Type: "float64", Default: "1", Unit: Noised, Meaning: "Huber s or Laplace b"},
	{Name: "seed", Type: "uint64", Default: "0", Unit: Seed, Meaning: "seed the noise: reproducible and NOT private (default: none, crypto/rand)"},
	{Name: "shuffle-counters", Type: "bool", Default: "false", Unit: Switch, Meaning: "count every shuffle's elements and bytes (exact figures of the data, NOT private)"},
	{Name: "sensitivity", Type: "float64", Default: "1", Unit: Noised, Meaning: "sensitivity Δ of one release (ℓ1 for laplace and huber, ℓ2 for gaussian)"},
	{Name: "sigma", Type: "float64", Default: "1", Unit: Noised, Meaning: "Gaussian standard deviation σ"},
	{Name: "start", Type: "string", Default: "public", Unit: Choice, Meaning: "start of audited paper-mode runs: public or random"},
	{Name: "start-items", Type: "int", Default: "300", Unit: Count, Meaning: "most head items the PCA start covers, the most popular (0: the whole head)"},
	{Name: "synthetic", Type: "string", Default: "", Unit: Choice, Meaning: `built-in data: "" (the command's own: the paper's problem in train, the benchmark in generate) or realistic`},
	{Name: "study", Type: "string", Default: "both", Unit: Choice, Meaning: "which utility curves: both, rmse or ranking"},
	{Name: "tail-buckets", Type: "int", Default: "65536", Unit: Count, Meaning: "tail buckets under private item selection: an item outside the released list is predicted by its bucket's released bias and feature columns (0: the tail bias alone)"},
	{Name: "table", Type: "string", Default: "all", Unit: "comma-separated table names", Meaning: "the paper's tables to reproduce"},
	{Name: "target-epsilon", Type: "float64", Default: "0", Unit: Epsilon, Meaning: "find the noise parameter giving this total ε"},
	{Name: "test", Type: "string", Default: "", Unit: File, Meaning: "held-out ratings file to evaluate on"},
	{Name: "test-fraction", Type: "float64", Default: "0", Unit: Fraction, Meaning: "hold out this fraction of the ratings (--data, or the generated set) as the test set"},
	{Name: "test-output", Type: "string", Default: "", Unit: File, Meaning: "also write held-out ratings to this file"},
	{Name: "test-ratings", Type: "int", Default: "100000", Unit: Count, Meaning: "number of held-out ratings to generate"},
	{Name: "train", Type: "bool", Default: "false", Unit: Switch, Meaning: "audit a training run instead of a mechanism"},
	{Name: "trials", Type: "int", Default: "10", Unit: Count, Meaning: "trials per cell of a reproduced table"},
	{Name: "unknown", Type: "string", Default: "error", Unit: Choice, Meaning: "unknown users or items: error or fallback"},
	{Name: "user", Type: "string", Default: "", Unit: ID, Meaning: "the user to recommend for"},
	{Name: "users", Type: "int", Default: "6040", Unit: Count, Meaning: "users of the realistic synthetic data set"},
	{Name: "value", Type: "float64", Default: "0", Unit: Noised, Meaning: "release this value plus noise instead of bare noise"},
	{Name: "variance", Type: "float64", Default: "1", Unit: SqRatings, Meaning: "paper-mode noise variance per coordinate"},
	{Name: "variances", Type: "floats", Default: "1,2,3,4", Unit: SqRatings, Meaning: "noise variances to compare, comma-separated"},
	{Name: "weights", Type: "string", Default: "adaptive", Unit: Choice, Meaning: "factor-step weights within each user: adaptive or uniform"},
	{Name: "workers", Type: "int", Default: "0", Unit: Count, Meaning: "goroutines at work (default: all cores); results do not depend on it"},
}

// Lookup returns the entry of name.
func Lookup(name string) (Flag, bool) {
	i := slices.IndexFunc(Vocabulary, func(f Flag) bool { return f.Name == name })
	if i < 0 {
		return Flag{}, false
	}
	return Vocabulary[i], true
}

// Check reports how a registered flag (name, shorthand, type, default as
// help prints it, usage) departs from its entry: an unknown name, another
// shorthand, type or default, an empty usage, or an Auto flag whose usage
// does not say what its default is.
func Check(name, short, typ, def, usage string) error {
	lower := strings.ToLower(usage)
	v, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("--%s: not in the vocabulary (internal/flagvocab): add it, or use an existing name of the same meaning", name)
	}
	var errs []string
	if short != v.Short {
		errs = append(errs, fmt.Sprintf("shorthand %q, the vocabulary's %q", short, v.Short))
	}
	if typ != v.Type {
		errs = append(errs, fmt.Sprintf("type %s, the vocabulary's %s", typ, v.Type))
	}
	if def != v.Default {
		errs = append(errs, fmt.Sprintf("default %q, the vocabulary's %q", def, v.Default))
	}
	if strings.TrimSpace(usage) == "" {
		errs = append(errs, "empty usage")
	} else if v.Auto && !strings.Contains(lower, "default") && !strings.Contains(lower, "required") {
		errs = append(errs, "the command decides its default, but the usage does not say what it is (\"default …\" or \"required\")")
	}
	if len(errs) > 0 {
		return fmt.Errorf("--%s: %s", name, strings.Join(errs, "; "))
	}
	return nil
}

// ApplyStd gives every Auto flag of fs (a standard-library flag set, such
// as dpmc-beam's) the zero default of its type, which help does not
// print; the variables keep the values they were registered with.
func ApplyStd(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := Lookup(f.Name); ok && v.Auto {
			f.DefValue = v.Default
		}
	})
}

// StdType is the vocabulary's type name of a standard-library flag.
func StdType(f *flag.Flag) string {
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case string:
			return "string"
		case int:
			return "int"
		case int64:
			return "int64"
		case uint64:
			return "uint64"
		case float64:
			return "float64"
		case bool:
			return "bool"
		}
	}
	return fmt.Sprintf("%T", f.Value)
}

// Beam lists the flags of dpmc-beam (package beam/pipeline's Flags), for
// docs/cli.md; beam's tests check that it is exactly its flag set.
var Beam = []string{
	"bias-column-scale", "center", "clip-norm", "columns", "data", "delta", "epsilon", "factor-share", "force",
	"format", "head-items", "head-noise-ratio", "header", "items", "iters", "log-ids", "log-level",
	"max-user-ratings", "objective", "output-format", "popularity-scale", "positive", "rank", "rating-range", "sampler",
	"save", "seed", "shuffle-counters", "start-items", "tail-buckets", "weights",
}
