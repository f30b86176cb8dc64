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
// varied on its own: the tail bias, where the factor share goes without
// factors, the factor rule, the rank, the head size, the PCA share and
// the Gram/right-hand-side split.
func DefaultVariants() []Variant {
	return []Variant{
		{"no tail bias", func(o userdp.Options) userdp.Options { o.NoTail = true; return o }},
		{"without factors, their share all to the biases", func(o userdp.Options) userdp.Options {
			o.Shares.CountsWithoutFactors = 0
			return o
		}},
		{"factors always (rank 4)", func(o userdp.Options) userdp.Options { o.AutoFactorThreshold = 0; return o }},
		{"factors never", func(o userdp.Options) userdp.Options { o.AutoFactorThreshold = math.Inf(1); return o }},
		{"rank 2", func(o userdp.Options) userdp.Options { o.Rank = 2; return o }},
		{"rank 8", func(o userdp.Options) userdp.Options { o.Rank = 8; return o }},
		{"150 head items", func(o userdp.Options) userdp.Options { o.HeadItems = 150; return o }},
		{"PCA share 0.3", func(o userdp.Options) userdp.Options { o.Shares.PCA = 0.3; return o }},
		{"PCA share 0.7", func(o userdp.Options) userdp.Options { o.Shares.PCA = 0.7; return o }},
		{"Gram share 0.3", func(o userdp.Options) userdp.Options { o.Shares.Gram = 0.3; return o }},
		{"Gram share 0.7", func(o userdp.Options) userdp.Options { o.Shares.Gram = 0.7; return o }},
	}
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
