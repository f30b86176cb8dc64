package experiment

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/dpmc/dpmc/internal/atomicfile"
)

// series is one line of a plot: points with 95 % confidence half-widths.
type series struct {
	label string
	x, y  []float64
	lo    []float64 // lower end of the error bar (absolute)
	hi    []float64
	dash  int
}

func (s *series) add(x float64, c *Cell) {
	if c == nil || math.IsNaN(c.Mean) {
		return
	}
	lo, hi := c.Mean, c.Mean
	if c.N >= 2 {
		lo, hi = c.Lo, c.Hi
	}
	s.x, s.y, s.lo, s.hi = append(s.x, x), append(s.y, c.Mean), append(s.lo, lo), append(s.hi, hi)
}

// errPoints adapts a series to plotter's XYer and YErrorer.
type errPoints struct{ s *series }

func (e errPoints) Len() int                    { return len(e.s.x) }
func (e errPoints) XY(i int) (float64, float64) { return e.s.x[i], e.s.y[i] }
func (e errPoints) YError(i int) (float64, float64) {
	return e.s.y[i] - e.s.lo[i], e.s.hi[i] - e.s.y[i]
}

// PlotFiles lists the plots written for a table, without extension; each
// exists as .png and .svg.
func PlotFiles(res *TableResult) []string {
	switch res.Table {
	case "3", "8", "9":
		var out []string
		for _, va := range syntheticVariances {
			out = append(out, fmt.Sprintf("table%s_variance%g", res.Table, va))
		}
		return out
	case "7":
		return []string{"table7"}
	case "privacy":
		return []string{"privacy_als", "privacy_irls"}
	}
	return nil
}

func writePlots(dir string, res *TableResult) error {
	v := newView(res)
	for _, name := range PlotFiles(res) {
		p, err := buildPlot(v, name)
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		for _, format := range []string{"png", "svg"} {
			wt, err := p.WriterTo(18*vg.Centimeter, 12*vg.Centimeter, format)
			if err != nil {
				return fmt.Errorf("plot %s: %w", name, err)
			}
			path := filepath.Join(dir, name+"."+format)
			if err := atomicfile.Write(path, true, func(w io.Writer) error { _, err := wt.WriteTo(w); return err }); err != nil {
				return fmt.Errorf("plot %s: %w", name, err)
			}
		}
	}
	return nil
}

func buildPlot(v *view, name string) (*plot.Plot, error) {
	res := v.res
	var (
		ss    []*series
		p     = plot.New()
		logXY bool
	)
	p.Y.Label.Text = "RMSE (rating units)"
	switch res.Table {
	case "3", "8", "9":
		rank := map[string]int{"3": 5, "8": 10, "9": 20}[res.Table]
		var va float64
		fmt.Sscanf(name, "table"+res.Table+"_variance%g", &va)
		p.Title.Text = fmt.Sprintf("Table %s: rank %d, noise variance %g (%d trials, 95 %% CI)", res.Table, rank, va, res.Trials)
		p.X.Label.Text = "observed fraction of entries (%)"
		for ai, algo := range syntheticAlgos {
			for _, mech := range syntheticMechs {
				s := &series{label: fmt.Sprintf("%s %s", algoLabel[algo], mechLabel[mech]), dash: ai}
				for _, obs := range syntheticObserved {
					s.add(100*obs, v.synthCell(rank, va, obs, algo, mech))
				}
				ss = append(ss, s)
			}
		}
	case "7":
		p.Title.Text = fmt.Sprintf("Table 7: SweetRS (%d trials, 95 %% CI)", res.Trials)
		p.X.Label.Text = "visible fraction of cells used for training (%)"
		for k, c := range realColumns {
			s := &series{label: c.Label, dash: k / 4}
			for _, obs := range sweetObserved {
				s.add(100*obs, v.realCell(c, obs))
			}
			ss = append(ss, s)
		}
	case "privacy":
		algo := AlgoALS
		if name == "privacy_irls" {
			algo = AlgoIRLS
		}
		p.Title.Text = fmt.Sprintf("RMSE at equal privacy, %s, synthetic rank %d (%d trials, 95 %% CI)", algoLabel[algo], res.Settings.PrivacyRank, res.Trials)
		p.X.Label.Text = "per-release ε (Δ₁ = Δ₂ = 5; Gaussian δ = 1e-5)"
		logXY = true
		curves, _, _ := privacyCurves(v, algo)
		for k, c := range curves {
			s := &series{label: c.Label, dash: k / 4}
			for i, e := range res.Settings.PrivacyEpsilons {
				s.add(e, c.Cells[i])
			}
			ss = append(ss, s)
		}
	default:
		return nil, fmt.Errorf("no plot for table %s", res.Table)
	}
	if logXY {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	p.Add(plotter.NewGrid())
	for k, s := range ss {
		if len(s.x) == 0 {
			continue
		}
		if logXY {
			for i := range s.lo {
				s.lo[i] = math.Max(s.lo[i], s.y[i]/10) // keep bars on a log axis
			}
		}
		pts := errPoints{s}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		col := plotutil.Color(k % 4)
		if res.Table != "3" && res.Table != "8" && res.Table != "9" {
			col = plotutil.Color(k)
		}
		line.Color, points.Color = col, col
		line.Dashes = plotutil.Dashes(s.dash)
		points.Shape = plotutil.Shape(k)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = col
		p.Add(line, points, bars)
		p.Legend.Add(s.label, line, points)
	}
	p.Legend.Top = true
	p.Legend.Left = false
	return p, nil
}

var algoLabel = map[string]string{AlgoALS: "ALS", AlgoIRLS: "IRLS", AlgoIRLS2: "IRLS-2"}

// logTicks marks a log axis at 1, 2 and 5 times each power of ten, labelled
// as plain decimals ("0.2", "10"), with unlabelled minor ticks between (all
// labelled when the range holds no 1, 2 or 5).
// plot.LogTicks labels powers of ten only, in exponent form ("1e+01"), which
// leaves an RMSE axis spanning 0.1–2 with a single label.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for d := 1; d <= 9; d++ {
			// Round to 3 significant digits so 3·10⁻¹ prints as 0.3.
			v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(d)*math.Pow10(e), 'g', 3, 64), 64)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if d == 1 || d == 2 || d == 5 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Label != "" }) {
		for i := range ticks { // a narrow range: label what there is
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}
