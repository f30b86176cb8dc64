package utility

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dpmc/dpmc/internal/atomicfile"
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
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s\ntest RMSE vs total ε (δ = %g, %d runs, 95 %% CI)", r.Name, r.Delta, r.Runs)
	p.X.Label.Text = "total ε (user-level)"
	p.Y.Label.Text = "test RMSE (rating units)"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	es := r.epsilons()
	if len(es) == 0 {
		return nil, fmt.Errorf("utility: no private points to plot")
	}
	for k, m := range r.models() {
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, e := range es {
			q := r.find(m, e)
			if q == nil {
				continue
			}
			pts = append(pts, plotter.XY{X: e, Y: q.Mean})
			errs = append(errs, struct{ Low, High float64 }{q.Mean - q.Lo, q.Hi - q.Mean})
		}
		col := plotutil.Color(k)
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = col, col
		points.Shape = plotutil.Shape(k)
		if q := r.find(m, es[0]); q != nil && math.IsInf(q.Epsilon, 1) {
			line.Dashes = plotutil.Dashes(1)
			p.Add(line)
			p.Legend.Add(m, line)
			continue
		}
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return nil, err
		}
		bars.Color = col
		p.Add(line, points, bars)
		p.Legend.Add(m, line, points)
	}
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Y.Tick.Marker = decimalTicks{}
	return p, nil
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
	wt, err := p.WriterTo(18*vg.Centimeter, 12*vg.Centimeter, format)
	if err != nil {
		return fmt.Errorf("utility: plot %s: %w", path, err)
	}
	return atomicfile.Write(path, true, func(w io.Writer) error { _, err := wt.WriteTo(w); return err })
}

// WriteReport writes a whole Markdown report: an introduction, then for
// each result its table and, if plots[i] is not empty, its plot (a path
// relative to the report).
func WriteReport(w io.Writer, command string, results []*Result, plots []string) error {
	var b strings.Builder
	b.WriteString("# Privacy–utility of dpmc's user-level private models\n\n")
	b.WriteString("Generated by `" + command + "`; every number below comes from that run.\n\n")
	b.WriteString(`Test RMSE (lower is better) of the user-level private pipeline (package
userdp) at total ε with δ as given, beside the baselines. Private points are
means over independent runs with 95 % Student-t intervals. What each model
releases:

- **training mean**: one number for everybody (non-private, shown for scale);
- **DP item biases + local user biases**: a noisy global mean, noisy item
  counts and noisy shrunk item biases are released; each user computes their
  own bias from the release and their own ratings;
- **dpmc default**: ` + "`userdp.Defaults`" + ` — the same, plus item factors when the
  released number of users × ε is large enough (a PCA start and one ALS
  step); items are selected privately unless a catalogue is given;
- **with the public catalogue**: the default with the data set's public item
  list (` + "`--items`" + `), so no budget or δ goes to selecting items;
- **biases only, no noise** and **same pipeline, no noise**: the pipeline
  without noise, with rank 0 and with biases plus ALS (λ scaled per rating,
  ALS-WR, rank 32) — non-private, for scale.

`)
	for i, r := range results {
		if err := r.WriteMarkdown(&b); err != nil {
			return err
		}
		if i < len(plots) && plots[i] != "" {
			fmt.Fprintf(&b, "\n![%s](%s)\n", r.Name, plots[i])
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
