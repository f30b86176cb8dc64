package utility

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dpmc/dpmc/internal/atomicfile"
)

// Metric names a ranking metric of RankingResult.
type Metric string

// The ranking metrics.
const (
	MetricNDCG   Metric = "ndcg"
	MetricRecall Metric = "recall"
)

// label returns the metric's name with its k, e.g. "NDCG@10".
func (m Metric) label() string {
	if m == MetricRecall {
		return fmt.Sprintf("recall@%d", RecallK)
	}
	return fmt.Sprintf("NDCG@%d", NDCGK)
}

func (p *RankPoint) stat(m Metric) Stat {
	if m == MetricRecall {
		return p.Recall
	}
	return p.NDCG
}

// models returns the models of r in order of first appearance, the
// non-private ones first.
func (r *RankingResult) models(private bool) []string {
	var ms []string
	for _, p := range r.Points {
		if p.Private == private && !slices.Contains(ms, p.Model) {
			ms = append(ms, p.Model)
		}
	}
	return ms
}

// epsilons returns the ε values of r's private points, ascending.
func (r *RankingResult) epsilons() []float64 {
	var es []float64
	for _, p := range r.Points {
		if p.Private && !slices.Contains(es, p.Epsilon) {
			es = append(es, p.Epsilon)
		}
	}
	slices.Sort(es)
	return es
}

func (r *RankingResult) find(model string, private bool, eps float64) *RankPoint {
	for k := range r.Points {
		p := &r.Points[k]
		if p.Model == model && p.Private == private && (!private || p.Epsilon == eps) {
			return p
		}
	}
	return nil
}

// WriteMarkdown writes r as a Markdown section: for NDCG@10 and for
// recall@20, a table with one row per model — the non-private baselines,
// labelled so, then every private series, with one column per ε at which
// it is user-level (ε, δ)-DP — each cell the mean over the runs and its
// 95 % interval.
func (r *RankingResult) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s — %s\n\n", r.Name, r.Protocol)
	if r.Note != "" {
		b.WriteString(r.Note + "\n\n")
	}
	fmt.Fprintf(&b, "Models fitted to %d users × %d items (%d ratings); %d users scored from their history of %d ratings on %d test ratings, %d of them with a test rating ≥ %g (package metrics: relevant = test rating ≥ %g, candidates = every item not in the user's history). Private series: user-level (ε, δ)-DP at the column's ε, δ = %g, %d runs per point (%s); mean [95 %% interval]. Non-private baselines: one deterministic fit.\n\n",
		r.Users, r.Items, r.TrainRatings, r.Scored, r.HistoryRatings, r.TestRatings, r.Ranked, r.Threshold, r.Threshold, r.Delta, r.Runs,
		map[bool]string{true: "seeded: NOT private, for tests", false: "unseeded: crypto/rand noise, as a real release"}[r.Seeded])
	es := r.epsilons()
	for _, m := range []Metric{MetricNDCG, MetricRecall} {
		fmt.Fprintf(&b, "%s:\n\n| model | privacy | non-private |", m.label())
		for _, e := range es {
			fmt.Fprintf(&b, " ε = %g |", e)
		}
		b.WriteString("\n|---|---|---|")
		for range es {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, name := range r.models(false) {
			s := r.find(name, false, 0).stat(m)
			fmt.Fprintf(&b, "| %s | non-private | %s |", name, cell(s))
			for range es {
				b.WriteString(" — |")
			}
			b.WriteString("\n")
		}
		for _, name := range r.models(true) {
			fmt.Fprintf(&b, "| %s | user-level (ε, δ)-DP, δ = %g | — |", name, r.Delta)
			for _, e := range es {
				if p := r.find(name, true, e); p != nil {
					fmt.Fprintf(&b, " %s |", cell(p.stat(m)))
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell formats a Stat: the mean, and its interval if there is one.
func cell(s Stat) string {
	if s.Lo == s.Hi {
		return fmt.Sprintf("%.4f", s.Mean)
	}
	return fmt.Sprintf("%.4f [%.4f, %.4f]", s.Mean, s.Lo, s.Hi)
}

// Plot draws metric m against ε (log scale): each private series with
// 95 % error bars, each non-private baseline as a dashed horizontal line
// labelled non-private.
func (r *RankingResult) Plot(m Metric) (*plot.Plot, error) {
	es := r.epsilons()
	if len(es) == 0 {
		return nil, fmt.Errorf("utility: no private points to plot")
	}
	var cs []curve
	for _, name := range r.models(false) {
		s := r.find(name, false, 0).stat(m)
		c := curve{name: name, flat: true}
		for _, e := range es {
			c.add(e, s)
		}
		cs = append(cs, c)
	}
	for _, name := range r.models(true) {
		c := curve{name: name + " (user-level DP at ε)"}
		for _, e := range es {
			if p := r.find(name, true, e); p != nil {
				c.add(e, p.stat(m))
			}
		}
		cs = append(cs, c)
	}
	title := fmt.Sprintf("%s — %s\n%s vs total ε (δ = %g, %d runs, 95 %% CI)", r.Name, r.Protocol, m.label(), r.Delta, r.Runs)
	p, err := plotCurves(title, m.label()+" (higher is better)", cs)
	if err != nil {
		return nil, err
	}
	// The legend goes above the curves: room for it at the top, and the
	// metrics are never below 0.
	p.Y.Min = max(p.Y.Min, 0)
	p.Y.Max += 0.5 * (p.Y.Max - p.Y.Min)
	p.Legend.Top = true
	return p, nil
}

// WritePlot writes the plot of metric m to path atomically, replacing it;
// format is "png" or "svg".
func (r *RankingResult) WritePlot(path string, m Metric, format string) error {
	p, err := r.Plot(m)
	if err != nil {
		return err
	}
	return writePlot(p, path, format)
}

// curve is one series of a plot: points at ε with 95 % intervals; flat
// ones (non-private) are drawn as dashed lines without bars.
type curve struct {
	name string
	flat bool
	pts  plotter.XYs
	errs plotter.YErrors
}

func (c *curve) add(eps float64, s Stat) {
	c.pts = append(c.pts, plotter.XY{X: eps, Y: s.Mean})
	c.errs = append(c.errs, struct{ Low, High float64 }{s.Mean - s.Lo, s.Hi - s.Mean})
}

// plotCurves draws curves against ε on a log scale.
func plotCurves(title, ylabel string, cs []curve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "total ε (user-level)"
	p.Y.Label.Text = ylabel
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	for k, c := range cs {
		if len(c.pts) == 0 {
			continue
		}
		col := plotutil.Color(k)
		line, points, err := plotter.NewLinePoints(c.pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = col, col
		points.Shape = plotutil.Shape(k)
		if c.flat {
			line.Dashes = plotutil.Dashes(1)
			p.Add(line)
			p.Legend.Add(c.name, line)
			continue
		}
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{c.pts, c.errs})
		if err != nil {
			return nil, err
		}
		bars.Color = col
		p.Add(line, points, bars)
		p.Legend.Add(c.name, line, points)
	}
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Y.Tick.Marker = decimalTicks{}
	return p, nil
}

// writePlot writes p to path atomically in format "png" or "svg".
func writePlot(p *plot.Plot, path, format string) error {
	wt, err := p.WriterTo(18*vg.Centimeter, 12*vg.Centimeter, format)
	if err != nil {
		return fmt.Errorf("utility: plot %s: %w", path, err)
	}
	return atomicfile.Write(path, true, func(w io.Writer) error { _, err := wt.WriteTo(w); return err })
}
