package userdp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrParam is wrapped by every error that reports an invalid option, so
// callers can tell bad input from other failures with errors.Is.
var ErrParam = errors.New("invalid parameter")

// Weights says how a user's factor-step weight is spread over the user's
// contributed ratings. Whatever the rule, a user's weights are normalized
// to ‖w‖₂ = 1, which is what bounds the sensitivity.
type Weights int

const (
	// WeightsAdaptive gives a rating of item j the weight ∝ n̂_j^(−β)
	// (Options.AdaptivePower β), n̂_j the item's released noisy count:
	// the minimizer of the popularity-weighted noise variance (see the
	// package documentation).
	WeightsAdaptive Weights = iota
	// WeightsUniform gives every contributed rating of a user the same
	// weight 1/√n.
	WeightsUniform
)

var weightNames = [...]string{WeightsAdaptive: "adaptive", WeightsUniform: "uniform"}

// String returns "adaptive" or "uniform".
func (w Weights) String() string {
	if w >= 0 && int(w) < len(weightNames) {
		return weightNames[w]
	}
	return fmt.Sprintf("Weights(%d)", int(w))
}

// ParseWeights parses "adaptive" or "uniform".
func ParseWeights(s string) (Weights, error) {
	for w, n := range weightNames {
		if s == n {
			return Weights(w), nil
		}
	}
	return 0, fmt.Errorf("userdp: %w: weights %q, want adaptive or uniform", ErrParam, s)
}

// Sampler says how a release's Gaussian noise is drawn, and so how the
// releases are accounted.
type Sampler int

const (
	// SamplerDiscrete rounds every released statistic to a grid γℤ (γ a
	// power of two about 2⁻²⁸ of the noise scale) and adds γ times an
	// exact discrete Gaussian integer (package discrete), drawn from
	// uniform random integers only: every output is exactly γ·integer, and
	// no floating-point artefact of the sampler can tell neighbours apart.
	// Releases compose as zCDP (Canonne, Kamath & Steinke 2020, Theorem
	// 14), with each release's sensitivity raised by γ√n for the rounding
	// of its n coordinates. The default.
	SamplerDiscrete Sampler = iota
	// SamplerFloat adds σ·NormFloat64() from math/rand/v2 and accounts the
	// releases exactly as μ-GDP. Its noise lies on the ziggurat's lattices
	// (dpmc audit --sampler float finds them), so it is NOT private: it is
	// allowed only in seeded runs, for experiments and comparisons.
	SamplerFloat
)

var samplerNames = [...]string{SamplerDiscrete: "discrete", SamplerFloat: "float"}

// String returns "discrete" or "float".
func (s Sampler) String() string {
	if s >= 0 && int(s) < len(samplerNames) {
		return samplerNames[s]
	}
	return fmt.Sprintf("Sampler(%d)", int(s))
}

// ParseSampler parses "discrete" or "float".
func ParseSampler(s string) (Sampler, error) {
	for k, n := range samplerNames {
		if s == n {
			return Sampler(k), nil
		}
	}
	return 0, fmt.Errorf("userdp: %w: sampler %q, want discrete or float", ErrParam, s)
}

// Shares split the privacy budget between the pipeline's releases, as
// fractions of μ² (the squared GDP parameter, or 2ρ with the discrete
// sampler's zCDP; either adds up over releases). Mean, Counts, Biases and
// Factors must be ≥ 0 and sum to 1; Mean, Counts and Biases must be > 0,
// and Factors > 0 unless the rank is 0.
type Shares struct {
	// Mean is the global mean (two releases: the sum of user means and the
	// number of users; with a public Center, the number of users only).
	// It must be > 0.
	Mean float64 `json:"mean"`
	// Counts is the noisy weighted item counts (selection, shrinkage,
	// regularization, head/tail split).
	Counts float64 `json:"counts"`
	// Biases is the noisy item-bias sums.
	Biases float64 `json:"biases"`
	// Factors is all ALS steps' Gram matrices and right-hand sides.
	Factors float64 `json:"factors"`
	// PCA is the fraction of the factor share spent on the start (the
	// noisy second-moment matrix of residuals); 0 starts from random
	// factors. In [0, 1]; 1 needs Iters = 0.
	PCA float64 `json:"pca"`
	// Gram is the fraction of each factor step's share spent on the Gram
	// matrices; the rest goes to the right-hand sides. In (0, 1).
	Gram float64 `json:"gram"`
	// CountsWithoutFactors is the fraction of the factor share that goes
	// to the item counts when AutoFactors switches factors off; the rest
	// goes to the item biases. In [0, 1]; Defaults sets ½, WithCatalogue 0.
	CountsWithoutFactors float64 `json:"counts_without_factors"`
}

// Options configure Train. Defaults returns a complete set chosen by a
// documented rule from the privacy target and the public rating scale;
// every field documents its unit and range. All fields must come from
// public knowledge, never from a look at the private data.
type Options struct {
	// Epsilon and Delta are the target total (ε, δ) of everything
	// released, user-level. Epsilon in [MinEpsilon, MaxEpsilon], Delta in
	// (0, 1) and below 1/n for the released number of users n (Decide
	// refuses it otherwise). Ignored with NoNoise.
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`

	// NoNoise trains the same pipeline without any noise, clipping or
	// contribution bound: the non-private baseline (biases plus ALS with
	// λ scaled by each item's rating count). It guarantees nothing.
	NoNoise bool `json:"no_noise"`

	// Min and Max are the public rating range, in rating units (Min < Max).
	Min float64 `json:"min"`
	Max float64 `json:"max"`

	// Objective is what the pipeline fits: ObjectiveRating (the zero
	// value: ratings) or ObjectiveRanking (a top-k ranking model,
	// Result.Ranking). The ranking objective releases the number of
	// users (with Shares.Mean), positive counts and a head Gram (with the
	// rest, split by Ranking.CountShare); it ignores Center, the other
	// Shares and the rating model's options.
	Objective Objective `json:"-"`
	// Positive is the public rating threshold of the ranking objective,
	// in rating units: a rating ≥ Positive is a positive. Defaults sets
	// DefaultPositive(Min, Max) (4 on 1–5); math.Inf(-1) makes every rated
	// pair a positive (implicit data: clicks, plays, purchases). NaN and
	// +Inf are refused with the ranking objective.
	Positive float64 `json:"-"`
	// Ranking tunes the ranking objective (unused otherwise).
	Ranking RankingOptions `json:"ranking"`

	// Items is the public item catalogue (external IDs). Nil means private
	// selection: an item is released only if its noisy weighted count of
	// raters clears a threshold set from δ.
	Items []string `json:"-"`

	// Center, if not NaN, is a public global mean (rating units, in
	// [Min, Max]) used instead of a noisy one; Shares.Mean then goes to
	// the number of users alone.
	Center float64 `json:"center"`

	// Rank is the number of latent factors (in [1, MaxRank]; 0 = biases
	// only).
	Rank int `json:"rank"`
	// Iters is the number of ALS steps T (item releases) after the start,
	// in [0, MaxIters] (≥ 1 without a PCA start).
	Iters int `json:"iters"`
	// HeadItems (≥ Rank) caps the items that get factors: the most
	// popular by released count among those whose count also reaches
	// TailCount and HeadNoiseRatio·σ_G. Every user's factor-step weights
	// are spread over the user's head items only, so a small head
	// concentrates the signal.
	HeadItems int `json:"head_items"`
	// HeadNoiseRatio (≥ 0): with noise, an item gets a factor only if its
	// released count is at least HeadNoiseRatio times σ_G, the noise of
	// one entry of an ALS step's Gram matrix (see Defaults); 0 leaves
	// TailCount and HeadItems alone to choose the head.
	HeadNoiseRatio float64 `json:"head_noise_ratio"`
	// StartItems (≥ 0): the PCA start covers only the StartItems most
	// popular head items (0: the whole head); the ALS steps then give
	// the rest of the head their factors. The start's noise spectrum
	// grows as √StartItems while its signal does not (see Defaults).
	StartItems int `json:"start_items"`
	// StartRatedWeight a (in [0, 1]) mixes the fact of rating into the
	// start: each of a user's start items enters the start's vector as
	// w_j·((1 − a)·r̃_j + a·B_r), r̃_j the clipped residual, so the
	// start's second-moment matrix holds the items' weighted
	// co-occurrence (which items users rate together: on real data a
	// mark of their taste) beside the residuals' covariance. The term
	// stays within ±B_r, so the start's Δ₂ is unchanged. 0 is the
	// residuals alone.
	StartRatedWeight float64 `json:"start_rated_weight"`
	// PopularityScale s (≥ 0, finite) appends a popularity column to the
	// released item factors (Plan.AppendFeatures): item j's entry is
	// s·ln(max(n̂_j, n₀)/n₀), n̂_j its released count and n₀ the
	// PopularityFloor; an item outside the release has 0. Each user's
	// fold-in fits its own coefficient for it beside the factors and the
	// bias: the user's lean towards popular or towards niche items,
	// which real ratings have and a bias cannot express. The column is
	// computed from released counts only (post-processing: no budget);
	// s sets its ridge: the fold-in's factor ridge (UserLambda +
	// UserLambdaPerRating·n) divided by s², per unit of ln n̂. 0: no
	// column.
	PopularityScale float64 `json:"popularity_scale"`
	// BiasColumnScale c (≥ 0, finite) appends an item-bias column to the
	// released item factors after the popularity column
	// (Plan.AppendFeatures): item j's entry is c·(b_j − b_tail) of the
	// released biases. Each user's fold-in fits its own coefficient: how
	// much more or less than the crowd the user follows the items'
	// biases (users' rating scales differ; a bias alone shifts them, it
	// cannot stretch them). Post-processing of the released biases, no
	// budget; c sets its ridge as s does the popularity column's. 0: no
	// column.
	BiasColumnScale float64 `json:"bias_column_scale"`
	// MaxItemsPerUser is the most ratings one user contributes to any
	// release, in [1, MaxMaxItemsPerUser]; a user with more contributes a
	// uniformly random subset. Users fit their own factors from all their ratings.
	MaxItemsPerUser int `json:"max_items_per_user"`
	// ClipNorm C (> 0, factor units): user factors are scaled to ‖u‖₂ ≤ C
	// before they enter an item step.
	ClipNorm float64 `json:"clip_norm"`
	// BiasBound B_b (> 0, rating units): a user's bias-sum term
	// x − μ − β_user is clipped to [−B_b, B_b].
	BiasBound float64 `json:"bias_bound"`
	// ResidualBound B_r (> 0, rating units): the residual
	// x − μ − b_item − b_user entering an item step is clipped to
	// [−B_r, B_r].
	ResidualBound float64 `json:"residual_bound"`
	// BiasPrior τ_b (> 0, rating units) is the prior standard deviation
	// of item biases, used to shrink noisy biases toward zero.
	BiasPrior float64 `json:"bias_prior"`
	// BiasLambda (≥ 0, weighted-count units) is the ridge of the item
	// biases: b_j = S_j / (W_j + BiasLambda) without noise.
	BiasLambda float64 `json:"bias_lambda"`
	// Lambda (> 0) is the item-factor ridge per unit of weighted count:
	// item j is regularized by Lambda·Ŵ_j + NoiseLambda·σ_G·√r.
	Lambda float64 `json:"lambda"`
	// NoiseLambda (≥ 0) scales the extra ridge NoiseLambda·σ_h² that
	// covers the noise of the right-hand sides; the Gram matrix's noise is
	// covered by σ_G·√r (the order of its operator norm) in any case.
	NoiseLambda float64 `json:"noise_lambda"`
	// UserLambda and UserBiasLambda (> 0) are the ridges of each user's
	// local fit of factor and bias (rating units squared).
	UserLambda     float64 `json:"user_lambda"`
	UserBiasLambda float64 `json:"user_bias_lambda"`
	// UserLambdaPerRating (≥ 0) adds this much to the user-factor ridge
	// per rating the user fits (ALS-WR scaling).
	UserLambdaPerRating float64 `json:"user_lambda_per_rating"`
	// RidgeScale (≥ 0), without noise only: if > 0, Train replaces Lambda
	// by RidgeScale/√(mean ratings per released item) and
	// UserLambdaPerRating by RidgeScale/√(mean ratings per user) (ALS-WR
	// whose per-rating ridge falls with the rows' length; see ridge.go).
	// Defaults sets 1 for the non-private pipeline; 0 keeps Lambda and
	// UserLambdaPerRating as given. Ignored with noise.
	RidgeScale float64 `json:"ridge_scale"`
	// NoTail switches off the tail bias under private selection: items
	// outside the release are then predicted with item bias 0, as before
	// the tail was released (for ablations; it is never better).
	NoTail bool `json:"no_tail"`
	// TailBuckets (0 to MaxTailBuckets) is the number of tail buckets
	// under private selection with noise (see TailBucket): every item
	// outside the release is predicted by its bucket's released bias and
	// feature columns instead of by the tail bias alone. 0 releases the
	// tail's two coordinates only, as before the buckets. Defaults sets
	// DefaultTailBuckets. Ignored with a catalogue, with NoTail, without
	// noise and by the ranking objective.
	TailBuckets int `json:"tail_buckets"`
	// NoBiasTrend switches off the bias trend (Plan.FitBiasTrend): with
	// noise, the items' bias prior then has mean 0, as before the trend
	// (for ablations), instead of a line in the log released count fitted
	// to the released sums.
	NoBiasTrend bool `json:"no_bias_trend"`
	// TailCount (≥ 0, weighted-count units): items whose noisy count is
	// below it keep a zero factor and are predicted by biases alone.
	TailCount float64 `json:"tail_count"`
	// AutoFactors, if set, releases factors only when the released number
	// of users times Epsilon reaches AutoFactorThreshold; otherwise Rank
	// becomes 0 and the factor share goes to the item biases (half of it
	// to the item counts under private selection). The choice
	// depends only on released values (fully adaptive composition of
	// Gaussian releases with a fixed total μ² stays μ-GDP).
	AutoFactors         bool    `json:"auto_factors"`
	AutoFactorThreshold float64 `json:"auto_factor_threshold"`
	// Weights and AdaptivePower β (≥ 0) set the factor-step weights.
	Weights       Weights `json:"-"`
	AdaptivePower float64 `json:"adaptive_power"`
	// Shares split the budget; SelectionDelta (in (0, 1)) is the fraction
	// of Delta given to private item selection (unused with Items).
	Shares         Shares  `json:"shares"`
	SelectionDelta float64 `json:"selection_delta_fraction"`

	// Sampler draws the noise: SamplerDiscrete (the zero value, the
	// default) or SamplerFloat, which is refused unless Seeded.
	Sampler Sampler `json:"-"`

	// Seed and Seeded: with Seeded, all randomness (noise, subsets, the
	// start) comes from streams derived from Seed — reproducible and
	// therefore NOT private. Without, every draw comes from crypto/rand.
	Seed   uint64 `json:"seed"`
	Seeded bool   `json:"seeded"`
	// Workers is the number of goroutines (in [1, MaxWorkers]; 0 = all
	// CPUs). Results do not depend on it.
	Workers int `json:"workers"`
	// Progress, if not nil, is called after each stage with a short
	// description; never concurrently.
	Progress func(stage string) `json:"-"`

	// observe, if not nil, sees every rating's contribution to an ALS
	// step's Gram matrix (w·ũũᵀ) and right-hand side (w·e·ũ) before any
	// noise; tests use it to check the sensitivity bounds. It is called
	// from the worker goroutines: set Workers to 1 with it.
	observe func(step, item, user int, w float64, uc []float64, e float64)
	// oracle names releases ("counts", "biases", "pca", "gram", "rhs")
	// whose noise is divided by 1 000: an experiment that says how much
	// each release's noise costs (rule_experiment_test.go). Only tests
	// set it, and Validate refuses it unless Seeded with the float
	// sampler: such a run is not private at the reported ε, and the
	// report's σ are the undivided ones.
	oracle []string
}

// Defaults returns the options for a target (epsilon, delta) on the public
// rating range [min, max]. Epsilon = +Inf gives the non-private pipeline
// (NoNoise). The rule uses public facts only — the target and the rating
// scale — plus the released (noisy, accounted) number of users:
//
//   - budget (shares of μ²): 2 % global mean and number of users, 30 %
//     item counts (18 % with a catalogue: WithCatalogue), 28 % item-bias
//     sums (40 % with a catalogue), 40 % factors; contribution cap
//     1000 ratings per user; bias clip ±(max−min)/2 around each user's own
//     offset, residual clip ±(max−min)/8, factor clip C = ½; item-bias
//     prior standard deviation (max−min)/8. The residual clip bounds the
//     start's and the right-hand sides' Δ₂ (B_r² and B_r·C): halving it
//     from (max−min)/4 divides their noise by 4 and 2 and clips little of
//     what rank-4 factors explain (test RMSE −0.001 to −0.002 with
//     factors on the generator at 3 500 and 6 040 users, ε = 10 and 20,
//     median of 3 seeds; dpmc utility --ablation). The factor clip sets
//     the Gram matrices' Δ₂ (C²) and the right-hand sides' (B_r·C), while
//     the users' factors are only as long as the release's conventions
//     make them (V's rows of root mean square 1, the user ridge 5): with
//     C = 1 their median norm was 0.43 (0.69 at the 90th percentile; the
//     generator, ε = 20), so most of C² was noise without signal. C = ½
//     gave 0.9551 → 0.9532, 0.9370 → 0.9334 and 0.9227 → 0.9190 at ε = 5,
//     10 and 20 on the generator, and 0.9814 → 0.9779, 0.9762 → 0.9735,
//     0.9712 → 0.9669 on MovieLens 100k u1 with factors at ε = 20, 30, 50
//     (C = 0.35 within 0.0005 of ½);
//   - factors (AutoFactors): rank 4, a PCA start and one ALS step, if
//     the released number of users times ε is at least 20 000; otherwise
//     no factors, and their 40 % goes to the item biases (with a
//     catalogue) or half to the item counts and half to the biases
//     (private selection: with few users the number of items that clear
//     the threshold limits the model more than their biases' noise — on
//     MovieLens 100k u1, test RMSE 1.0600 → 1.0591 at ε = 1, 1.0210 →
//     1.0146 at ε = 5, 0.9871 → 0.9848 at ε = 20, mean of 3 seeds;
//     0.9576 → 0.9557 on the generator at 6 040 users, ε = 1);
//   - the head (the items that get factors): every released item whose
//     count reaches 15 σ_G/C² (HeadNoiseRatio; σ_G/C² the noise of one
//     Gram entry of an ALS step per unit of its largest term), at most
//     4 000; the PCA start covers only the
//     300 most popular of them (StartItems), and the ALS step gives the
//     rest their factors. Two mechanisms set these. The start's noise
//     is a Wigner matrix whose spectrum reaches 2σ_PCA√H over H items,
//     while its signal (each user's weights have norm 1 over the items
//     covered) does not grow with H, so a start over too many items
//     loses its top eigenvectors in the noise: over 1 000 head items,
//     test RMSE at ε = 10 was 0.9516 against 0.9412 over 400. An item's
//     own step, by contrast, is a ridge solve whose Gram matrix has
//     about Ŵ_j signal against σ_G·√r noise: a factor from a count below
//     about 10 σ_G is mostly noise, and it also spoils the fits of the
//     users who rated the item. On the generator (6 040 users, median of
//     3 seeds), head count ≥ 6 / 10 / 15 / 20 / 30 σ_G gave 0.9488 /
//     0.9387 / 0.9383 / 0.9403 / 0.9422 at ε = 10 and 0.9375 / 0.9264 /
//     0.9245 / 0.9245 / 0.9287 at ε = 20 (start over 400), and a start
//     over 300 / 400 / 600 items 0.9232 / 0.9245 / 0.9273 at ε = 20
//     (head count ≥ 20 σ_G). Against the old rule (400 head items, the start over all
//     of them): 0.9412 → 0.9370 at ε = 10, 0.9317 → 0.9227 at ε = 20,
//     0.9259 → 0.9109 at ε = 50 (these with C = 1);
//   - the start's terms mix the fact of rating into the clipped residual,
//     w_j·(¾·r̃_j + ¼·B_r) (StartRatedWeight ¼), so the start also sees
//     which items users rate together, on real data a mark of their
//     taste: with factors on, test RMSE moved by −0.0002 to −0.0084 on
//     MovieLens 100k u1 (ε = 5 to 50) and by −0.0004 to −0.0008 on the
//     generator, whose co-occurrence is mostly an exposure independent of
//     the ratings (a weight of ½ was worse than ¼ there at ε ≥ 10;
//     docs/private-models.md, "The start's rated term");
//   - the feature columns (PopularityScale ½ with n₀ half the selection
//     threshold, BiasColumnScale 1): users differ in how much more than
//     their bias they like popular items and in how closely they follow
//     the crowd's view of an item — on MovieLens 100k the SD over users of
//     their own slope is 0.140 stars per SD of log popularity and 0.388
//     stars per star of item bias, beyond sampling noise
//     (synthetic.Stats) — and the columns ½·ln(n̂_j/n₀) and b_j − b_tail
//     let each user fit both at no privacy cost. Test RMSE (median of 3
//     seeds) moved on MovieLens 100k u1 by −0.0005 / −0.0143 / −0.0182 /
//     −0.0199 at ε = 1 / 5 / 10 / 20 (no learned factors there; the item-bias
//     column alone −0.0022 to −0.0072 of it at ε ≥ 5), by −0.0114 /
//     −0.0134 / −0.0105 / −0.0091 with factors forced on (ε = 5 / 10 / 20
//     / 50) and by −0.0056 without noise; on the generator, whose users'
//     slopes are fitted to MovieLens 100k's (docs/generator.md), by
//     −0.0060 / −0.0048 / −0.0043 / −0.0049 at ε = 1 / 5 / 10 / 20.
//     Scales ½ and 2 for the bias column were within 0.0023, 0.35 and 0.7
//     for the popularity column within 0.0006 (measured before the bias
//     column; docs/private-models.md, "Users' own slopes: the feature
//     columns");
//   - the bias trend (NoBiasTrend false): item biases are shrunk towards
//     a line in the log released count fitted to the released sums, not
//     towards 0. Under private selection the released items are popular
//     enough that it moved test RMSE by at most 0.0004; with a public
//     catalogue, whose niche items have noisy biases, by +0.0017 /
//     −0.0031 / −0.0030 / −0.0026 on the generator and −0.0001 / −0.0013
//     / −0.0026 / −0.0029 on MovieLens 100k u1 at ε = 1 / 5 / 10 / 20;
//   - non-private (+Inf): rank 32, 15 ALS steps, ALS-WR on both sides
//     with per-rating ridges 1/√(mean ratings per item) for items and
//     1/√(mean ratings per user) for users (RidgeScale 1: 0.144 and 0.109
//     on MovieLens 100k u1, 0.069 and 0.088 at MovieLens 1M's shape),
//     item-bias ridge 1 (as with noise), user-bias ridge 5. A fixed
//     λ = 0.12, tuned on MovieLens 100k, over-regularized denser data.
//
// Where the numbers come from: test RMSE on MovieLens 100k (943 users)
// and on synthetic.DefaultRealistic (refitted to MovieLens 100k, as hard
// as real data) at 6 040 users, median of 3 seeds, with the head rule
// and C above: factors minus no factors was +0.0053 and +0.0024 at
// users × ε = 15 100 and 18 120 (factors lose), −0.0004 at 21 140, and
// −0.0017, −0.0070 and −0.0071 on MovieLens 100k at 14 145, 18 860 and
// 23 575 (they win), so the threshold sits at 20 000 — a compromise
// between two data sets whose break-even differs (users × ε is not the
// whole story). With the head rule and C before (400 items, the start
// over all of them, C = 1) factors paid only from about 50 000.
// Rank 6 and 8, 2 and 3 ALS steps, factor shares 0.3–0.55, PCA shares
// 0.35–0.65 and count shares 0.15–0.2 were all within 0.003 of the rule
// or worse where factors are on (ε = 5, 10, 20); at ε = 1 000 the rule
// reaches 0.8991 against 0.8952 without noise, so what is left at ε ≤ 20
// is the noise, not the model's form.
func Defaults(epsilon, delta, min, max float64) Options {
	span := max - min
	o := Options{
		Epsilon: epsilon, Delta: delta, Min: min, Max: max,
		Center:              math.NaN(),
		MaxItemsPerUser:     1000,
		ClipNorm:            0.5,
		BiasBound:           span / 2,
		ResidualBound:       span / 8,
		BiasPrior:           span / 8,
		BiasLambda:          1,
		UserLambda:          5,
		UserBiasLambda:      5,
		Weights:             WeightsAdaptive,
		AdaptivePower:       0.5,
		SelectionDelta:      0.25,
		Shares:              Shares{Mean: 0.02, Counts: 0.3, Biases: 0.28, Factors: 0.4, PCA: 0.5, Gram: 0.5, CountsWithoutFactors: 0.5},
		Lambda:              0.1,
		NoiseLambda:         1,
		Rank:                4,
		Iters:               1,
		HeadItems:           4000,
		HeadNoiseRatio:      15,
		StartItems:          300,
		StartRatedWeight:    0.25,
		PopularityScale:     0.5,
		BiasColumnScale:     1,
		TailCount:           5,
		TailBuckets:         DefaultTailBuckets,
		AutoFactors:         true,
		AutoFactorThreshold: 20000,
		Positive:            DefaultPositive(min, max),
		Ranking:             defaultRanking(),
	}
	if math.IsInf(epsilon, 1) {
		o.NoNoise = true
		o.AutoFactors = false
		o.Rank, o.Iters = 32, 15
		o.Lambda = 0.12 // replaced from the data's shape (RidgeScale)
		o.UserLambda = 1
		o.UserLambdaPerRating = 0.12 // likewise
		o.RidgeScale = 1
	}
	return o
}

// WithFactors returns o with rank-r item factors always on (AutoFactors
// off) in private mode: a PCA start and iters ALS steps, with the given
// share of the budget (half to the start unless iters = 0, the rest split
// evenly between Gram matrices and right-hand sides) and the rest of the
// factor and bias shares to the item biases. Rank 0 gives all of it to
// the biases. In non-private mode it only sets the rank and steps.
func (o Options) WithFactors(rank, iters int, share float64) Options {
	o.Rank, o.Iters = rank, iters
	o.AutoFactors = false
	if o.NoNoise {
		return o
	}
	if rank == 0 {
		share = 0
	}
	o.Shares.Biases += o.Shares.Factors - share
	o.Shares.Factors = share
	o.Shares.PCA, o.Shares.Gram = 0.5, 0.5
	if iters == 0 {
		o.Shares.PCA = 1
	}
	return o
}

// DefaultFactorShare is the share of the budget (of μ²) that Overrides
// give the factors when they set the rank or the steps explicitly.
const DefaultFactorShare = 0.4

// Overrides are explicit choices that replace parts of Defaults' rule, as
// dpmc train's and dpmc audit's flags give them; a nil field keeps the
// rule's value.
type Overrides struct {
	// Rank and Iters, if either is set, switch AutoFactors off: factors
	// of that rank with that many ALS steps (WithFactors), with
	// FactorShare of the budget (DefaultFactorShare if nil).
	Rank, Iters *int
	FactorShare *float64
	// HeadItems, HeadNoiseRatio, StartItems, MaxItemsPerUser, TailBuckets,
	// ClipNorm, PopularityScale and BiasColumnScale replace the option of
	// the same name.
	HeadItems, StartItems, MaxItemsPerUser, TailBuckets        *int
	HeadNoiseRatio, ClipNorm, PopularityScale, BiasColumnScale *float64
}

// With returns o with v applied. It returns an error wrapping ErrParam
// for a factor share outside (0, biases + factors) or one given without a
// rank or steps; the other values are checked by Validate (and Train).
func (o Options) With(v Overrides) (Options, error) {
	if v.FactorShare != nil && v.Rank == nil && v.Iters == nil {
		return o, fmt.Errorf("userdp: %w: a factor share needs a rank or a number of steps", ErrParam)
	}
	if v.Rank != nil || v.Iters != nil {
		rank, iters, share := o.Rank, o.Iters, DefaultFactorShare
		if v.Rank != nil {
			rank = *v.Rank
		}
		if v.Iters != nil {
			iters = *v.Iters
		}
		if v.FactorShare != nil {
			share = *v.FactorShare
			if hi := o.Shares.Biases + o.Shares.Factors; !(share > 0 && share < hi) {
				return o, fmt.Errorf("userdp: %w: factor share = %v, want in (0, %g)", ErrParam, share, hi)
			}
		}
		o = o.WithFactors(rank, iters, share)
	}
	if v.HeadItems != nil {
		o.HeadItems = *v.HeadItems
	}
	if v.HeadNoiseRatio != nil {
		o.HeadNoiseRatio = *v.HeadNoiseRatio
	}
	if v.StartItems != nil {
		o.StartItems = *v.StartItems
	}
	if v.MaxItemsPerUser != nil {
		o.MaxItemsPerUser = *v.MaxItemsPerUser
	}
	if v.ClipNorm != nil {
		o.ClipNorm = *v.ClipNorm
	}
	if v.TailBuckets != nil {
		o.TailBuckets = *v.TailBuckets
	}
	if v.PopularityScale != nil {
		o.PopularityScale = *v.PopularityScale
	}
	if v.BiasColumnScale != nil {
		o.BiasColumnScale = *v.BiasColumnScale
	}
	return o, nil
}

// WithCatalogue returns o with the public item catalogue items: the
// counts no longer select items, so 12 points of their share go to the
// item biases (if the counts have at least 0.24), and so does all of the
// factor share if factors are switched off.
func (o Options) WithCatalogue(items []string) Options {
	o.Items = items
	o.Shares.CountsWithoutFactors = 0
	if o.Shares.Counts >= 0.24 {
		o.Shares.Counts -= 0.12
		o.Shares.Biases += 0.12
	}
	return o
}

// WithCenter returns o with a public global centre c (rating units): only
// the number of users is released from the mean's share.
func (o Options) WithCenter(c float64) Options {
	o.Center = c
	return o
}

// The accepted ranges of the options that would otherwise make the
// calibration or the training run for ever or break the noise sampler.
const (
	// MaxEpsilon is the largest accepted Epsilon. Beyond it the noise
	// scale leaves the range the exact sampler takes (and e^ε bounds
	// nothing anyway).
	MaxEpsilon = 1000
	// MinEpsilon is the smallest accepted Epsilon.
	MinEpsilon = 1e-6
	// MaxMaxItemsPerUser is the largest accepted MaxItemsPerUser: no user
	// contributes more ratings than that, and beyond it the discrete
	// noise's grid rounding (γ·√n) is no longer negligible.
	MaxMaxItemsPerUser = 1_000_000_000
	// MaxRank, MaxIters and MaxWorkers bound Rank, Iters and Workers.
	MaxRank    = 1024
	MaxIters   = 1000
	MaxWorkers = 4096
)

// ParamError is the error of an invalid option. It wraps ErrParam and
// names the Options field and the flag of dpmc train --privacy user
// (and dpmc-beam) that sets it, so that a Go caller and the command line
// get the same refusal.
type ParamError struct {
	// Field is the Options field, e.g. "Rank" or "Shares.Counts".
	Field string
	// Flag is the flag that sets it, e.g. "--rank"; "" when none does.
	Flag string
	// Value is the value given, formatted.
	Value string
	// Reason says what is wrong and what is wanted, e.g. "want ≥ 0".
	Reason string
}

// sep is what joins "Field = value" to the reason.
func (e *ParamError) sep() string {
	switch {
	case strings.HasPrefix(e.Reason, "want"):
		return ", "
	case strings.HasPrefix(e.Reason, ":"):
		return ""
	}
	return " "
}

// Error returns "userdp: invalid parameter: Field = value (--flag), reason".
func (e *ParamError) Error() string {
	flag := ""
	if e.Flag != "" {
		flag = " (" + e.Flag + ")"
	}
	return "userdp: " + ErrParam.Error() + ": " + e.Field + " = " + e.Value + flag + e.sep() + e.Reason
}

// FlagMessage returns the refusal in the command line's words,
// "--flag = value, reason" ("--flag name reason" for a named choice), or
// Error() when no flag sets the field.
func (e *ParamError) FlagMessage() string {
	if e.Flag == "" {
		return e.Error()
	}
	if _, err := strconv.ParseFloat(e.Value, 64); err != nil && e.Reason != "" && !strings.HasPrefix(e.Reason, "want") {
		return e.Flag + " " + e.Value + e.sep() + e.Reason
	}
	return e.Flag + " = " + e.Value + e.sep() + e.Reason
}

// Unwrap returns ErrParam.
func (e *ParamError) Unwrap() error { return ErrParam }

// optionFlags maps Options fields to the flags of dpmc train
// --privacy user and dpmc-beam.
var optionFlags = map[string]string{
	"Epsilon": "--epsilon", "Delta": "--delta", "Min": "--rating-range", "Max": "--rating-range",
	"Center": "--center", "Rank": "--rank", "Iters": "--iters", "HeadItems": "--head-items",
	"HeadNoiseRatio": "--head-noise-ratio", "StartItems": "--start-items", "PopularityScale": "--popularity-scale", "BiasColumnScale": "--bias-column-scale",
	"MaxItemsPerUser": "--max-user-ratings", "ClipNorm": "--clip-norm", "Items": "--items",
	"Sampler": "--sampler", "Weights": "--weights", "Workers": "--workers", "Shares.Factors": "--factor-share",
	"TailBuckets": "--tail-buckets",
}

// validate is Validate.
func (o *Options) validate() error { return o.Validate() }

// knownOracle says whether every name in names is a release's.
func knownOracle(names []string) bool {
	var n noiseScales
	for _, name := range names {
		if n.byName(name) == nil {
			return false
		}
	}
	return true
}

// Validate checks every option and returns a *ParamError (wrapping
// ErrParam) naming the first bad one, its field and its flag. NewPlan and
// Train call it; a caller may call it first to refuse bad options before
// any long work (reading the data, say). It runs in constant time
// whatever the values, except for a catalogue, which it reads once.
func (o Options) Validate() error {
	bad := func(field string, v any, format string, args ...any) error {
		val := fmt.Sprint(v)
		if f, ok := v.(float64); ok {
			val = fmt.Sprintf("%g", f)
		}
		return &ParamError{Field: field, Flag: optionFlags[field], Value: val, Reason: fmt.Sprintf(format, args...)}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(o.Min) || !finite(o.Max) || !(o.Min < o.Max):
		return bad("Min", fmt.Sprintf("%v, Max = %v", o.Min, o.Max), "want a finite rating range Min < Max")
	case o.Rank < 0:
		return bad("Rank", o.Rank, "want ≥ 0 (0: no learned factors)")
	case o.Iters < 0:
		return bad("Iters", o.Iters, "want ≥ 0 (0: the PCA start alone)")
	case o.Iters > MaxIters:
		return bad("Iters", o.Iters, "want ≤ %d", MaxIters)
	case o.Rank > 0 && o.Iters == 0 && o.NoNoise:
		return bad("Iters", 0, ": the non-private baseline (NoNoise, --mechanism none) has no PCA start, so its factors need Iters ≥ 1 (or Rank 0, --rank 0, for no learned factors)")
	case o.Rank > 0 && o.Iters == 0 && o.Shares.PCA == 0:
		return bad("Iters", 0, "needs a PCA start (Shares.PCA > 0)")
	case o.Rank > 0 && !o.NoNoise && o.HeadItems < 1:
		return bad("HeadItems", o.HeadItems, "want ≥ 1")
	case o.Rank > 0 && !o.NoNoise && o.HeadItems < o.Rank:
		return bad("Rank", o.Rank, "exceeds the %d most popular items that get factors (--head-items): lower --rank or raise --head-items (Rank, HeadItems)", o.HeadItems)
	case !(o.HeadNoiseRatio >= 0) || !finite(o.HeadNoiseRatio):
		return bad("HeadNoiseRatio", o.HeadNoiseRatio, "want a finite number ≥ 0")
	case o.StartItems < 0:
		return bad("StartItems", o.StartItems, "want ≥ 0 (0: the whole head)")
	case !(o.StartRatedWeight >= 0 && o.StartRatedWeight <= 1):
		return bad("StartRatedWeight", o.StartRatedWeight, "want a number in [0, 1]")
	case !(o.PopularityScale >= 0) || !finite(o.PopularityScale):
		return bad("PopularityScale", o.PopularityScale, "want a finite number ≥ 0 (0: no popularity column)")
	case !(o.BiasColumnScale >= 0) || !finite(o.BiasColumnScale):
		return bad("BiasColumnScale", o.BiasColumnScale, "want a finite number ≥ 0 (0: no item-bias column)")
	case o.Rank > MaxRank:
		return bad("Rank", o.Rank, "want ≤ %d", MaxRank)
	case o.MaxItemsPerUser < 1 || o.MaxItemsPerUser > MaxMaxItemsPerUser:
		return bad("MaxItemsPerUser", o.MaxItemsPerUser, "want in [1, %d]", MaxMaxItemsPerUser)
	case !(o.ClipNorm > 0) || !finite(o.ClipNorm):
		return bad("ClipNorm", o.ClipNorm, "want a finite number > 0")
	case !(o.BiasBound > 0) || !finite(o.BiasBound):
		return bad("BiasBound", o.BiasBound, "want > 0")
	case !(o.ResidualBound > 0) || !finite(o.ResidualBound):
		return bad("ResidualBound", o.ResidualBound, "want > 0")
	case !(o.BiasPrior > 0) || !finite(o.BiasPrior):
		return bad("BiasPrior", o.BiasPrior, "want > 0")
	case !(o.BiasLambda >= 0) || !finite(o.BiasLambda):
		return bad("BiasLambda", o.BiasLambda, "want ≥ 0")
	case !(o.Lambda > 0) || !finite(o.Lambda):
		return bad("Lambda", o.Lambda, "want > 0")
	case !(o.NoiseLambda >= 0) || !finite(o.NoiseLambda):
		return bad("NoiseLambda", o.NoiseLambda, "want ≥ 0")
	case !(o.UserLambda > 0) || !finite(o.UserLambda):
		return bad("UserLambda", o.UserLambda, "want > 0")
	case !(o.UserLambdaPerRating >= 0) || !finite(o.UserLambdaPerRating):
		return bad("UserLambdaPerRating", o.UserLambdaPerRating, "want ≥ 0")
	case !(o.RidgeScale >= 0) || !finite(o.RidgeScale):
		return bad("RidgeScale", o.RidgeScale, "want ≥ 0")
	case !(o.UserBiasLambda > 0) || !finite(o.UserBiasLambda):
		return bad("UserBiasLambda", o.UserBiasLambda, "want > 0")
	case o.TailBuckets < 0 || o.TailBuckets > MaxTailBuckets:
		return bad("TailBuckets", o.TailBuckets, "want 0 to %d", MaxTailBuckets)
	case !(o.TailCount >= 0) || !finite(o.TailCount):
		return bad("TailCount", o.TailCount, "want ≥ 0")
	case !(o.AdaptivePower >= 0) || !finite(o.AdaptivePower):
		return bad("AdaptivePower", o.AdaptivePower, "want ≥ 0")
	case o.Weights != WeightsAdaptive && o.Weights != WeightsUniform:
		return bad("Weights", int(o.Weights), "want adaptive or uniform")
	case o.Sampler != SamplerDiscrete && o.Sampler != SamplerFloat:
		return bad("Sampler", int(o.Sampler), "want discrete or float")
	case !knownOracle(o.oracle):
		return bad("oracle", o.oracle, "names a release other than counts, biases, pca, gram or rhs")
	case len(o.oracle) > 0 && (!o.Seeded || o.Sampler != SamplerFloat):
		return bad("oracle", o.oracle, "reduces the noise below the reported ε: experiments only, with Seeded and the float sampler (the discrete sampler's noise is built before the oracle could divide it)")
	case o.Sampler == SamplerFloat && !o.Seeded && !o.NoNoise:
		return bad("Sampler", "float", "is not private (its noise lies on floating-point lattices): use it only with --seed (Seeded), for comparisons, or the discrete sampler (the default)")
	case o.Workers < 0 || o.Workers > MaxWorkers:
		return bad("Workers", o.Workers, "want in [0, %d] (0: all CPUs)", MaxWorkers)
	}
	if err := o.validateRanking(); err != nil {
		return err
	}
	if !math.IsNaN(o.Center) && (!finite(o.Center) || o.Center < o.Min || o.Center > o.Max) {
		return bad("Center", o.Center, "want a number in the rating range [%g, %g]", o.Min, o.Max)
	}
	if o.Items != nil {
		if len(o.Items) == 0 {
			return bad("Items", "[]", "the item catalogue is empty")
		}
		seen := make(map[string]struct{}, len(o.Items))
		for k, id := range o.Items {
			if id == "" {
				return bad("Items", fmt.Sprintf("[%d]", k+1), "the catalogue entry is empty")
			}
			if _, dup := seen[id]; dup {
				return bad("Items", fmt.Sprintf("%q", id), "the catalogue lists it twice")
			}
			seen[id] = struct{}{}
		}
	}
	if o.NoNoise {
		return nil
	}
	if !(o.Epsilon >= MinEpsilon && o.Epsilon <= MaxEpsilon) {
		return bad("Epsilon", o.Epsilon, "want in [%g, %g]: the total user-level ε (beyond %g the noise is too small for the exact sampler, and e^ε guarantees nothing)", float64(MinEpsilon), float64(MaxEpsilon), float64(MaxEpsilon))
	}
	if !(o.Delta > 0 && o.Delta < 1) {
		return bad("Delta", o.Delta, "want in (0, 1), and below 1/(number of users)")
	}
	s := o.Shares
	for _, f := range []struct {
		name string
		v    float64
	}{{"Mean", s.Mean}, {"Counts", s.Counts}, {"Biases", s.Biases}, {"Factors", s.Factors}} {
		if !(f.v >= 0) || !finite(f.v) {
			return bad("Shares."+f.name, f.v, "want ≥ 0")
		}
	}
	if sum := s.Mean + s.Counts + s.Biases + s.Factors; math.Abs(sum-1) > 1e-9 {
		return bad("Shares", fmt.Sprintf("%g + %g + %g + %g", s.Mean, s.Counts, s.Biases, s.Factors), "the shares of mean, counts, biases and factors sum to %v, want 1", sum)
	}
	if !(s.Counts > 0) {
		return bad("Shares.Counts", s.Counts, "want > 0 (counts drive selection and shrinkage)")
	}
	if !(s.Biases > 0) {
		return bad("Shares.Biases", s.Biases, "want > 0")
	}
	if !(s.Mean > 0) {
		return bad("Shares.Mean", s.Mean, "want > 0 (the number of users is always released)")
	}
	if o.AutoFactors && !(o.AutoFactorThreshold >= 0) {
		return bad("AutoFactorThreshold", o.AutoFactorThreshold, "want ≥ 0")
	}
	if o.Rank > 0 && !(s.Factors > 0) {
		return bad("Shares.Factors", s.Factors, "want > 0 with rank %d (or rank 0)", o.Rank)
	}
	if !(s.PCA >= 0 && s.PCA <= 1) || (s.PCA == 1 && o.Iters > 0) {
		return bad("Shares.PCA", s.PCA, "want in [0, 1) (1 only with Iters = 0)")
	}
	if !(s.CountsWithoutFactors >= 0 && s.CountsWithoutFactors <= 1) {
		return bad("Shares.CountsWithoutFactors", s.CountsWithoutFactors, "want in [0, 1]")
	}
	if o.Rank > 0 && o.Iters > 0 && !(s.Gram > 0 && s.Gram < 1) {
		return bad("Shares.Gram", s.Gram, "want in (0, 1)")
	}
	if o.Items == nil && !(o.SelectionDelta > 0 && o.SelectionDelta < 1) {
		return bad("SelectionDelta", o.SelectionDelta, "want in (0, 1)")
	}
	return nil
}

// MarshalJSON encodes o with "center" null when no public centre is set
// and "epsilon" null for the non-private pipeline, since JSON has no NaN
// or infinity; "weights" is the name of the weighting rule, "objective"
// the objective's, and "positive" null for implicit data (every pair a
// positive).
func (o Options) MarshalJSON() ([]byte, error) {
	type plain Options
	finite := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		plain
		Epsilon *float64 `json:"epsilon"`
		Center  *float64 `json:"center"`
		Weights string   `json:"weights"`
		Sampler string   `json:"sampler"`
		// Objective is the objective's name; Positive is null when every
		// pair is a positive (-Inf).
		Objective string   `json:"objective"`
		Positive  *float64 `json:"positive"`
	}{plain(o), finite(o.Epsilon), finite(o.Center), o.Weights.String(), o.Sampler.String(), o.Objective.String(), finite(o.Positive)})
}
