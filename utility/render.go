package utility

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// models returns the models of r in order of first appearance.
func (r *Result) models() []string {
	var ms []string
	for _, p := range r.Points {
		if !slices.Contains(ms, p.Model) {
			ms = append(ms, p.Model)
		}
	}
	return ms
}

// epsilons returns the finite ε values of r, ascending.
func (r *Result) epsilons() []float64 {
	var es []float64
	for _, p := range r.Points {
		if !math.IsInf(p.Epsilon, 0) && !slices.Contains(es, p.Epsilon) {
			es = append(es, p.Epsilon)
		}
	}
	slices.Sort(es)
	return es
}

func (r *Result) find(model string, eps float64) *Point {
	for k := range r.Points {
		p := &r.Points[k]
		if p.Model == model && (p.Epsilon == eps || math.IsInf(p.Epsilon, 1)) {
			return p
		}
	}
	return nil
}

// WriteMarkdown writes r as a Markdown section: a table of test RMSE, one
// row per ε, one column per model, each cell the mean over the runs and
// its 95 % interval.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", r.Name)
	fmt.Fprintf(&b, "%d users × %d items, %d training and %d test ratings; δ = %g; %d runs per private point (%s); test RMSE, mean [95 %% interval].\n\n",
		r.Users, r.Items, r.Train, r.Test, r.Delta, r.Runs, map[bool]string{true: "seeded: NOT private, for tests", false: "unseeded: crypto/rand noise, as a real release"}[r.Seeded])
	ms := r.models()
	b.WriteString("| ε |")
	for _, m := range ms {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString("\n|---|")
	for range ms {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, e := range r.epsilons() {
		fmt.Fprintf(&b, "| %g |", e)
		for _, m := range ms {
			p := r.find(m, e)
			switch {
			case p == nil:
				b.WriteString(" — |")
			case math.IsInf(p.Epsilon, 1) || p.Lo == p.Hi:
				fmt.Fprintf(&b, " %.4f |", p.Mean)
			default:
				fmt.Fprintf(&b, " %.4f [%.4f, %.4f] |", p.Mean, p.Lo, p.Hi)
			}
		}
		b.WriteString("\n")
	}
	if p := r.find(ModelDefault, r.epsilons()[0]); p != nil {
		b.WriteString("\nFactors in the default pipeline (last run at each ε): ")
		var notes []string
		for _, e := range r.epsilons() {
			if p := r.find(ModelDefault, e); p != nil {
				notes = append(notes, fmt.Sprintf("ε = %g: %s", e, p.Factors))
			}
		}
		b.WriteString(strings.Join(notes, "; ") + ".\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Plot draws test RMSE against ε (log scale) with 95 % error bars; the
// non-private models are horizontal lines.
func (r *Result) Plot() (*plot.Plot, error) {
	es := r.epsilons()
	if len(es) == 0 {
		return nil, fmt.Errorf("utility: no private points to plot")
	}
	var cs []curve
	for _, m := range r.models() {
		c := curve{name: m}
		for _, e := range es {
			if q := r.find(m, e); q != nil {
				c.add(e, Stat{Mean: q.Mean, Lo: q.Lo, Hi: q.Hi})
				c.flat = math.IsInf(q.Epsilon, 1)
			}
		}
		cs = append(cs, c)
	}
	title := fmt.Sprintf("%s\ntest RMSE vs total ε (δ = %g, %d runs, 95 %% CI)", r.Name, r.Delta, r.Runs)
	return plotCurves(title, "test RMSE (rating units)", cs)
}

// decimalTicks labels a linear axis at round steps (0.01, 0.02, 0.05, 0.1,
// …) chosen for about six labels, printed with as many decimals as the step
// needs.
type decimalTicks struct{}

// Ticks implements plot.Ticker.
func (decimalTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ticks
}

// WritePlot writes the plot to path atomically, replacing it; format is
// "png" or "svg".
func (r *Result) WritePlot(path, format string) error {
	p, err := r.Plot()
	if err != nil {
		return err
	}
	return writePlot(p, path, format)
}

// WriteReport writes a whole Markdown report of RMSE curves: an
// introduction, then for each result its table and, if plots[i] is not
// empty, its plot (a path relative to the report).
func WriteReport(w io.Writer, command string, results []*Result, plots []string) error {
	return (&Report{Command: command, RMSE: results, RMSEPlots: plots}).Write(w)
}

// Report is the whole of dpmc utility's Markdown report (PRIVACY-UTILITY.md):
// the RMSE study and the ranking study, either of which may be empty.
type Report struct {
	// Command is the command that produced the numbers.
	Command string
	// RMSE are the RMSE curves; RMSEPlots[i], if not empty, the path of
	// RMSE[i]'s plot relative to the report.
	RMSE      []*Result
	RMSEPlots []string
	// SideBySide are the checks that the generator is as hard as real
	// data, after the RMSE curves.
	SideBySide []*SideBySide
	// Ranking are the ranking curves; RankingPlots[i], if present, the
	// paths of Ranking[i]'s plots (NDCG@10, then recall@20) relative to
	// the report.
	Ranking      []*RankingResult
	RankingPlots [][]string
}

// Write writes the report: a title, the command, and for each study an
// introduction, its tables and its plots.
func (rep *Report) Write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Privacy–utility of dpmc's user-level private models\n\n")
	b.WriteString("Generated by `" + rep.Command + "`; every number below comes from that run.\n\n")
	if len(rep.RMSE) > 0 {
		if len(rep.Ranking) > 0 {
			b.WriteString("## Rating prediction: test RMSE\n\n")
		}
		b.WriteString(`Test RMSE (lower is better) of the user-level private pipeline (package
userdp) at total ε with δ as given, beside the baselines. Private points are
means over independent runs with 95 % Student-t intervals. What each model
releases:

- **training mean**: one number for everybody (non-private, shown for scale);
- **DP item biases + local user biases**: a noisy global mean, noisy item
  counts and noisy shrunk item biases are released; each user computes their
  own bias from the release and their own ratings;
- **dpmc default**: ` + "`userdp.Defaults`" + ` — the same, plus two feature columns
  (the log of the released counts and the released biases, on which each
  user fits their own slope and scale locally: post-processing) and item
  factors when the released number of users × ε is large enough (a PCA
  start and one ALS step); items are selected privately unless a catalogue
  is given;
- **with the public catalogue**: the default with the data set's public item
  list (` + "`--items`" + `), so no budget or δ goes to selecting items;
- **biases only, no noise** and **same pipeline, no noise**: the pipeline
  without noise, with rank 0 and no feature columns, and with biases,
  the feature columns and ALS (λ scaled per rating, ALS-WR, rank 32) —
  non-private, for scale.

`)
		for i, r := range rep.RMSE {
			if err := r.WriteMarkdown(&b); err != nil {
				return err
			}
			if i < len(rep.RMSEPlots) && rep.RMSEPlots[i] != "" {
				fmt.Fprintf(&b, "\n![%s](%s)\n", r.Name, rep.RMSEPlots[i])
			}
			b.WriteString("\n")
		}
	}
	if len(rep.SideBySide) > 0 {
		b.WriteString(sideBySideIntro)
		for _, s := range rep.SideBySide {
			if err := s.WriteMarkdown(&b); err != nil {
				return err
			}
			b.WriteString("\n")
		}
	}
	if len(rep.Ranking) > 0 {
		fmt.Fprintf(&b, "## Top-k recommendation: NDCG@%d and recall@%d\n\n", NDCGK, RecallK)
		b.WriteString(rankingIntro)
		for i, r := range rep.Ranking {
			if err := r.WriteMarkdown(&b); err != nil {
				return err
			}
			if i < len(rep.RankingPlots) {
				for k, path := range rep.RankingPlots[i] {
					if path != "" {
						fmt.Fprintf(&b, "![%s — %s, %s](%s)\n", r.Name, r.Protocol, []Metric{MetricNDCG, MetricRecall}[k%2].label(), path)
					}
				}
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sideBySideIntro introduces the generator's check in the report.
const sideBySideIntro = `### Is the generator as hard as real data?

The generator (synthetic.DefaultRealistic, docs/generator.md) is fitted to
MovieLens 100k's statistics. The check: at MovieLens 100k's size (943
users), under the same protocol — a random 80/20 split of all of
MovieLens 100k's ratings (u.data) beside a random 80/20 split of the
generator's — every curve should agree within ±0.01. (u1's split is
not random: its test users are early users, which the generator cannot
reproduce, so u1 is not the comparison.)

`

// rankingIntro introduces the ranking study in the report.
const rankingIntro = `What a recommender's user sees: the top of each user's ranked list,
under package metrics' conventions — relevant items are the user's test
ratings ≥ 4; candidates are every item not in the user's history, including
items the user never rated (counted as not relevant); ties by item index;
macro average over the users with a relevant test item. Two protocols:

- **given split**: models are fitted to the training file and each user's
  history is their training ratings;
- **held-out users** (Liang et al. 2018, ` + "`ratings.SplitUsers`" + `): the held-out users
  are absent from training; 80 % of each one's ratings are given to the model
  as their history (` + "`dpmc recommend --history`" + `, the billboard fold-in) and the
  other 20 % are scored.

The **non-private** baselines read the training data exactly and are labelled
so; dpmc computes them itself (package baseline): popularity (training
counts), EASE (Steck 2019) and PureSVD (Cremonesi, Koren & Turrin 2010) on
the 0/1 matrix of every rating. Every **private** series is a user-level
(ε, δ)-DP release at the ε of its column (or of the plot's x axis), with
its mean over unseeded runs and a 95 % Student-t interval: the ranking
model (` + "`--objective ranking`" + `) ranks each user's candidates from its release
(noisy positive counts and the leading eigenvectors of a noisy
co-occurrence Gram) and the user's own history; "DP popularity of the
ranking release" is that release's noisy positive counts alone; "DP
popularity" is the noisy item counts that dpmc's default rating release
(` + "`userdp.Defaults`" + `) holds anyway, and the rating model ranks by the predicted
rating of that release, each user folding in from their own history.

`
