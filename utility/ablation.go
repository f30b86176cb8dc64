package utility

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/dpmc/dpmc/userdp"
)

// Variant is one change to userdp.Defaults that Ablate compares with the
// defaults themselves.
type Variant struct {
	// Name says what the variant changes, e.g. "Gram share 0.3".
	Name string `json:"name"`
	// Apply returns the variant's options from the defaults at one ε.
	Apply func(userdp.Options) userdp.Options `json:"-"`
}

// DefaultVariants are the choices behind userdp.Defaults' rule, each
// varied on its own: the tail bias, the tail buckets, the feature columns and their scales,
// the bias trend, where the factor share goes without
// factors, the factor rule and its threshold, the rank, the head rule
// (its noise ratio, the start's items), the start's rated term, the ALS steps, the residual clip, the PCA share and the
// Gram/right-hand-side split; then ShareVariants, what a tenth of the
// budget buys in each release.
func DefaultVariants() []Variant {
	return append([]Variant{
		{"no tail bias", func(o userdp.Options) userdp.Options { o.NoTail = true; return o }},
		{"no tail buckets (the tail bias alone)", func(o userdp.Options) userdp.Options { o.TailBuckets = 0; return o }},
		{"no popularity column", func(o userdp.Options) userdp.Options { o.PopularityScale = 0; return o }},
		{"popularity column scale 1", func(o userdp.Options) userdp.Options { o.PopularityScale = 1; return o }},
		{"no item-bias column", func(o userdp.Options) userdp.Options { o.BiasColumnScale = 0; return o }},
		{"item-bias column scale 2", func(o userdp.Options) userdp.Options { o.BiasColumnScale = 2; return o }},
		{"bias prior with mean 0 (no bias trend)", func(o userdp.Options) userdp.Options { o.NoBiasTrend = true; return o }},
		{"without factors, their share all to the biases", func(o userdp.Options) userdp.Options {
			o.Shares.CountsWithoutFactors = 0
			return o
		}},
		{"factors always (rank 4)", func(o userdp.Options) userdp.Options { o.AutoFactorThreshold = 0; return o }},
		{"factors never", func(o userdp.Options) userdp.Options { o.AutoFactorThreshold = math.Inf(1); return o }},
		{"rank 2", func(o userdp.Options) userdp.Options { o.Rank = 2; return o }},
		{"rank 8", func(o userdp.Options) userdp.Options { o.Rank = 8; return o }},
		{"400 head items, the start over all of them (the old rule)", func(o userdp.Options) userdp.Options {
			o.HeadItems, o.HeadNoiseRatio, o.StartItems = 400, 0, 0
			return o
		}},
		{"head count ≥ 7.5 σ_G (half the rule's)", func(o userdp.Options) userdp.Options { o.HeadNoiseRatio /= 2; return o }},
		{"head count ≥ 30 σ_G (twice the rule's)", func(o userdp.Options) userdp.Options { o.HeadNoiseRatio *= 2; return o }},
		{"start over 150 items", func(o userdp.Options) userdp.Options { o.StartItems = 150; return o }},
		{"start over 600 items", func(o userdp.Options) userdp.Options { o.StartItems = 600; return o }},
		{"start from the residuals alone (no rated term)", func(o userdp.Options) userdp.Options { o.StartRatedWeight = 0; return o }},
		{"start with rated term ½", func(o userdp.Options) userdp.Options { o.StartRatedWeight = 0.5; return o }},
		{"PCA share 0.3", func(o userdp.Options) userdp.Options { o.Shares.PCA = 0.3; return o }},
		{"PCA share 0.7", func(o userdp.Options) userdp.Options { o.Shares.PCA = 0.7; return o }},
		{"Gram share 0.3", func(o userdp.Options) userdp.Options { o.Shares.Gram = 0.3; return o }},
		{"Gram share 0.7", func(o userdp.Options) userdp.Options { o.Shares.Gram = 0.7; return o }},
		{"factor threshold 30 000 (users × ε)", func(o userdp.Options) userdp.Options { o.AutoFactorThreshold = 30000; return o }},
		{"factor clip C = 1 (the old clip)", func(o userdp.Options) userdp.Options { o.ClipNorm = 1; return o }},
		{"2 ALS steps", func(o userdp.Options) userdp.Options { o.Iters = 2; return o }},
		{"residual clip (max − min)/4", func(o userdp.Options) userdp.Options { o.ResidualBound = (o.Max - o.Min) / 4; return o }},
	}, ShareVariants()...)
}

// ShareStep is the part of the budget (of μ²) that ShareVariants move
// into or out of one release.
const ShareStep = 0.1

// ShareVariants measure what a unit of budget buys in each release: for
// the item counts, the item-bias sums and the factors (the global mean's
// 2 % stays), one variant gives the release ShareStep more of μ² and one
// ShareStep less, taken from or given to the other two in proportion to
// their shares. The change of test RMSE against the defaults is then the
// value of a tenth of the budget in that release. Where the rule turns
// the factors off, their share (moved or not) goes to the counts and
// biases as the rule says, so the factors' rows measure how the rule
// spends it.
func ShareVariants() []Variant {
	type rel struct {
		name string
		get  func(*userdp.Shares) *float64
	}
	rels := []rel{
		{"item counts", func(s *userdp.Shares) *float64 { return &s.Counts }},
		{"item-bias sums", func(s *userdp.Shares) *float64 { return &s.Biases }},
		{"factors", func(s *userdp.Shares) *float64 { return &s.Factors }},
	}
	var vs []Variant
	for k, r := range rels {
		for _, d := range []float64{ShareStep, -ShareStep} {
			vs = append(vs, Variant{
				Name: fmt.Sprintf("%s share %+.1f (others %+.1f)", r.name, d, -d),
				Apply: func(o userdp.Options) userdp.Options {
					o.Shares = moveShare(o.Shares, func(s *userdp.Shares) []*float64 {
						out := []*float64{rels[k].get(s)}
						for m, q := range rels {
							if m != k {
								out = append(out, q.get(s))
							}
						}
						return out
					}, d)
					return o
				},
			})
		}
	}
	return vs
}

// moveShare returns s with d added to the first share pick returns and
// taken from the others in proportion to their values (never below 0:
// what they lack is not moved).
func moveShare(s userdp.Shares, pick func(*userdp.Shares) []*float64, d float64) userdp.Shares {
	p := pick(&s)
	var rest float64
	for _, q := range p[1:] {
		rest += *q
	}
	if rest <= 0 {
		return s
	}
	d = math.Max(d, -*p[0])
	d = math.Min(d, rest)
	*p[0] += d
	for _, q := range p[1:] {
		*q -= d * *q / rest
	}
	return s
}

// AblationConfig describes one data set's ablation study.
type AblationConfig struct {
	// Config gives the data set, the ε values, δ, the number of runs per
	// point (Runs ≥ 1) and Progress; its Catalogue, Seeded and Seed are
	// ignored.
	Config
	// Variants are compared with the defaults; nil means
	// DefaultVariants.
	Variants []Variant
}

// Ablation is the result of Ablate: the mean test RMSE of the defaults
// and of every variant at every ε.
type Ablation struct {
	Name     string    `json:"name"`
	Epsilons []float64 `json:"epsilons"`
	Delta    float64   `json:"delta"`
	Runs     int       `json:"runs"`
	// Rows[0] is the defaults; RMSE[k] is the mean over Runs at
	// Epsilons[k].
	Rows []AblationRow `json:"rows"`
}

// AblationRow is one variant's mean test RMSE at each ε.
type AblationRow struct {
	Variant string    `json:"variant"`
	RMSE    []float64 `json:"rmse"`
}

// Ablate trains the defaults and every variant Runs times at every ε and
// reports the mean test RMSE. Run k of every variant uses seed k, so
// variants are compared on the same noise where their releases coincide
// (paired runs): seeded runs are experiments, NOT private releases. It
// returns an error for a bad config, ctx.Err() if cancelled, or a training
// error naming the variant.
func Ablate(ctx context.Context, c AblationConfig) (*Ablation, error) {
	if c.Train == nil || c.Test == nil {
		return nil, fmt.Errorf("utility: %s: train and test sets are required", c.Name)
	}
	if c.Runs < 1 {
		return nil, fmt.Errorf("utility: runs = %d, want ≥ 1", c.Runs)
	}
	for _, e := range c.Epsilons {
		if !(e > 0) || math.IsInf(e, 0) {
			return nil, fmt.Errorf("utility: epsilon %v, want a finite number > 0", e)
		}
	}
	variants := c.Variants
	if variants == nil {
		variants = DefaultVariants()
	}
	variants = append([]Variant{{Name: "defaults", Apply: func(o userdp.Options) userdp.Options { return o }}}, variants...)
	lo, hi := c.Train.Min, c.Train.Max
	res := &Ablation{Name: c.Name, Epsilons: c.Epsilons, Delta: c.Delta, Runs: c.Runs}
	for _, v := range variants {
		row := AblationRow{Variant: v.Name}
		for _, e := range c.Epsilons {
			var sum float64
			for k := range c.Runs {
				o := v.Apply(userdp.Defaults(e, c.Delta, lo, hi))
				o.Seeded, o.Seed = true, uint64(k+1)
				m, err := userdp.Train(ctx, c.Train, o)
				if err != nil {
					return nil, fmt.Errorf("utility: %s, %s at ε = %g: %w", c.Name, v.Name, e, err)
				}
				rmse, _ := m.FoldInAll(c.Train).Errors(c.Test.Ratings)
				sum += rmse
			}
			row.RMSE = append(row.RMSE, sum/float64(c.Runs))
		}
		res.Rows = append(res.Rows, row)
		if c.Progress != nil {
			c.Progress(fmt.Sprintf("%s: ablation %s done", c.Name, v.Name))
		}
	}
	return res, nil
}

// WriteMarkdown writes the ablation as a Markdown table: test RMSE of the
// defaults, then of each variant with its difference from the defaults.
func (a *Ablation) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", a.Name)
	fmt.Fprintf(&b, "Mean test RMSE over %d seeded runs (seeds 1–%d, paired across variants; experiments, not private releases), δ = %g.\n\n", a.Runs, a.Runs, a.Delta)
	b.WriteString("| variant |")
	for _, e := range a.Epsilons {
		fmt.Fprintf(&b, " ε = %g |", e)
	}
	b.WriteString("\n|---|")
	for range a.Epsilons {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for r, row := range a.Rows {
		fmt.Fprintf(&b, "| %s |", row.Variant)
		for k, x := range row.RMSE {
			if r == 0 {
				fmt.Fprintf(&b, " %.4f |", x)
			} else {
				fmt.Fprintf(&b, " %.4f (%+.4f) |", x, x-a.Rows[0].RMSE[k])
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
