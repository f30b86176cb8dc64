package experiment

import (
	"fmt"
	"math"
	"strings"
)

// Verdicts on a claim of the paper.
const (
	Holds      = "holds"
	Fails      = "does not hold"
	WithinNois = "within noise"
	Partly     = "partly holds"
)

// view indexes a table's cells for rendering.
type view struct {
	res   *TableResult
	cells []*Cell
	by    map[Key]*Cell
}

func newView(res *TableResult) *view {
	v := &view{res: res, cells: Summarize(res.Results), by: map[Key]*Cell{}}
	for _, c := range v.cells {
		v.by[keyID(c.Key)] = c
	}
	return v
}

// cell finds the cell for the given coordinates; variance, epsilon and
// alpha are NaN where they do not apply.
func (v *view) cell(dataset string, rank int, variance, observed float64, algo, mech string, eps, alpha float64) *Cell {
	return v.by[keyID(Key{v.res.Table, dataset, rank, variance, observed, algo, mech, eps, alpha})]
}

// synthCell is the cell of a synthetic table at (variance, observed, algo,
// mech); the vanilla cell has no variance.
func (v *view) synthCell(rank int, variance, observed float64, algo, mech string) *Cell {
	eps := math.NaN()
	if mech != MechNone {
		for _, c := range v.cells {
			k := c.Key
			if k.Variance == variance && k.Observed == observed && k.Algo == algo && k.Mechanism == mech {
				return c
			}
		}
		return nil
	}
	return v.cell("synthetic", rank, math.NaN(), observed, algo, MechNone, eps, math.NaN())
}

// realCell is the cell of table 6 or 7 for column c at visible fraction
// observed (ignored for table 6, which has one row).
func (v *view) realCell(c column, observed float64) *Cell {
	for _, cell := range v.cells {
		k := cell.Key
		if k.Algo == c.Algo && k.Mechanism == c.Mechanism && (v.res.Table == "6" || k.Observed == observed) {
			return cell
		}
	}
	return nil
}

// RowVerdict is the check of one "best in row" claim: the paper's lowest
// RMSE among the private columns against ours.
type RowVerdict struct {
	Row       string
	PaperBest string
	OursBest  string
	Verdict   string
	// Detail lists the paired differences (other − paper's best) with
	// their 95 % intervals.
	Detail string
}

// bestInRow checks the paper's claim that labels[best] has the lowest
// RMSE of the cells: it holds if the paired interval of every other cell
// minus it lies above 0, does not hold if some other cell is significantly
// lower, and is within noise otherwise.
func bestInRow(row string, labels []string, cells []*Cell, paper []float64) RowVerdict {
	pb := argmin(paper)
	means := make([]float64, len(cells))
	for i, c := range cells {
		means[i] = math.Inf(1)
		if c != nil {
			means[i] = c.Mean
		}
	}
	ob := argmin(means)
	rv := RowVerdict{Row: row, PaperBest: labels[pb], OursBest: labels[ob], Verdict: Holds}
	if cells[pb] == nil {
		rv.Verdict = "not run"
		return rv
	}
	var parts []string
	for i, c := range cells {
		if i == pb || c == nil {
			continue
		}
		d := Paired(cells[pb], c)
		parts = append(parts, fmt.Sprintf("%s %+.4f [%+.4f, %+.4f]", labels[i], d.Mean, d.Lo, d.Hi))
		switch {
		case d.BetterB:
			rv.Verdict = Fails
		case !d.BetterA && rv.Verdict == Holds:
			rv.Verdict = WithinNois
		}
	}
	rv.Detail = strings.Join(parts, "; ")
	return rv
}

func argmin(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x < xs[best] {
			best = i
		}
	}
	return best
}

func f4(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.4f", x)
}

// meanSD renders "mean ± sd".
func meanSD(c *Cell) string {
	if c == nil {
		return "–"
	}
	if c.N < 2 {
		return f4(c.Mean)
	}
	return fmt.Sprintf("%.4f ± %.4f", c.Mean, c.SD)
}

func ci(c *Cell) string {
	if c == nil || c.N < 2 {
		return "–"
	}
	return fmt.Sprintf("[%.4f, %.4f]", c.Lo, c.Hi)
}

// relDiff renders (ours − paper)/paper in percent.
func relDiff(ours *Cell, paper float64) string {
	if ours == nil || math.IsNaN(paper) {
		return "–"
	}
	return fmt.Sprintf("%+.1f %%", 100*(ours.Mean-paper)/paper)
}

var mechLabel = map[string]string{MechNone: "Vanilla", MechGaussian: "Gaussian", MechLaplace: "Laplacian", MechHuber: "Huber"}

var tableTitle = map[string]string{
	"1":       "Table 1 — privacy budget ε of one release at equal noise variance (Δ₁ = Δ₂ = 5, δ = 1e-5)",
	"3":       "Table 3 — RMSE, synthetic data of rank 5",
	"8":       "Table 8 — RMSE, synthetic data of rank 10",
	"9":       "Table 9 — RMSE, synthetic data of rank 20",
	"6":       "Table 6 — RMSE on MovieLens 100k (u1.base → u1.test)",
	"7":       "Table 7 — RMSE on SweetRS, by visible fraction",
	"privacy": "Equal privacy — RMSE with every mechanism calibrated to the same per-release ε",
}

// Markdown renders one table's summary. h is prefixed to its heading
// ("" for a level-1 heading, "#" for level 2 and so on).
func Markdown(res *TableResult, h string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s# %s\n\n", h, tableTitle[res.Table])
	if res.Skipped != "" {
		fmt.Fprintf(&b, "Not run: %s\n", res.Skipped)
		return b.String()
	}
	switch res.Table {
	case "1":
		budgetMarkdown(&b, res)
	case "3", "8", "9":
		syntheticMarkdown(&b, res)
	case "6", "7":
		realMarkdown(&b, res)
	case "privacy":
		privacyMarkdown(&b, res)
	}
	if res.Table != "1" {
		fmt.Fprintf(&b, "\n%d trials per cell, seed %d%s; %.0f s wall on %d workers (%d CPUs, %s).\n",
			res.Trials, res.Seed, quickNote(res), res.Seconds, res.Workers, res.CPUs, res.GoVersion)
	}
	return b.String()
}

func quickNote(res *TableResult) string {
	if res.Quick {
		return ", QUICK settings (fewer iterations; not comparable with the paper)"
	}
	return ""
}

func budgetMarkdown(b *strings.Builder, res *TableResult) {
	b.WriteString("| Variance | Gaussian σ | Gaussian ε (analytic, exact) | classic ε, ln (not a guarantee for ε ≥ 1) | classic ε with log₁₀ | paper Gaussian | Laplace ε | paper Laplace | Huber α (s) | Huber ε | paper Huber |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range res.Budget {
		pg, pl, ph := "–", "–", "–"
		if r.Paper != nil {
			pg, pl, ph = fmt.Sprintf("%.3f", r.Paper.Gaussian), fmt.Sprintf("%.3f", r.Paper.Laplace), fmt.Sprintf("%.3f", r.Paper.Huber)
		}
		fmt.Fprintf(b, "| %g | %.4f | %.3f | %.3f | %.3f | %s | %.3f | %s | %.4f (%g) | %.3f | %s |\n",
			r.Variance, math.Sqrt(r.Variance), r.GaussianAnalyticEpsilon, r.GaussianClassicEpsilon, r.GaussianLog10Epsilon, pg,
			r.LaplaceEpsilon, pl, r.HuberAlpha, r.HuberScale, r.HuberEpsilon, ph)
	}
}

func syntheticMarkdown(b *strings.Builder, res *TableResult) {
	v := newView(res)
	rank := map[string]int{"3": 5, "8": 10, "9": 20}[res.Table]
	b.WriteString("Mean ± standard deviation over trials, the 95 % confidence interval of the mean, the paper's figure and our difference from it. Vanilla (no noise) is one set of runs shown in both variance blocks, beside each block's published figure.\n\n")
	b.WriteString("| Variance | Observed | Algorithm | Mechanism | Ours | 95 % CI | Paper | Difference |\n|---|---|---|---|---|---|---|---|\n")
	for _, va := range syntheticVariances {
		for _, obs := range syntheticObserved {
			for _, algo := range syntheticAlgos {
				for _, mech := range syntheticMechs {
					c := v.synthCell(rank, va, obs, algo, mech)
					p, _ := PaperRMSE(res.Table, rank, va, obs, algo, mech)
					fmt.Fprintf(b, "| %g | %g %% | %s | %s | %s | %s | %s | %s |\n", va, 100*obs, strings.ToUpper(algo), mechLabel[mech], meanSD(c), ci(c), f4(p), relDiff(c, p))
				}
			}
		}
	}
	b.WriteString("\n**Best in row** (lowest RMSE among the noisy columns). The paper's claim is checked with paired differences: within a trial every mechanism sees the same data and noise stream. It *holds* if every other mechanism's paired difference (other − paper's best, 95 % interval) lies above 0, *does not hold* if one lies below, and is *within noise* otherwise.\n\n")
	b.WriteString("| Variance | Observed | Algorithm | Paper's best | Our best | Verdict | Other − paper's best |\n|---|---|---|---|---|---|---|\n")
	for _, rv := range syntheticRowVerdicts(v, rank) {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", rv.Row, rv.PaperBest, rv.OursBest, rv.Verdict, rv.Detail)
	}
}

// syntheticRowVerdicts checks every "best in row" claim of a synthetic
// table; Row is "variance | observed | algo".
func syntheticRowVerdicts(v *view, rank int) []RowVerdict {
	var out []RowVerdict
	noisy := syntheticMechs[1:]
	labels := make([]string, len(noisy))
	for i, m := range noisy {
		labels[i] = mechLabel[m]
	}
	for _, va := range syntheticVariances {
		for _, obs := range syntheticObserved {
			for _, algo := range syntheticAlgos {
				cells := make([]*Cell, len(noisy))
				paper := make([]float64, len(noisy))
				for i, m := range noisy {
					cells[i] = v.synthCell(rank, va, obs, algo, m)
					paper[i], _ = PaperRMSE(v.res.Table, rank, va, obs, algo, m)
				}
				out = append(out, bestInRow(fmt.Sprintf("%g | %g %% | %s", va, 100*obs, strings.ToUpper(algo)), labels, cells, paper))
			}
		}
	}
	return out
}

func realFractions(res *TableResult) []float64 {
	if res.Table == "6" {
		return []float64{0.051}
	}
	return sweetObserved
}

func realMarkdown(b *strings.Builder, res *TableResult) {
	v := newView(res)
	b.WriteString("Each cell: our mean ± standard deviation, then the paper's figure in parentheses. RMSE over held-out ratings, predictions not clipped.\n\n")
	b.WriteString("| Visible |")
	for _, c := range realColumns {
		fmt.Fprintf(b, " %s |", c.Label)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(realColumns)) + "\n")
	for _, obs := range realFractions(res) {
		label := fmt.Sprintf("%g %%", 100*obs)
		if res.Table == "6" && len(res.Results) > 0 {
			label = fmt.Sprintf("%.2f %%", 100*res.Results[0].Observed)
		}
		fmt.Fprintf(b, "| %s |", label)
		for _, c := range realColumns {
			p, _ := PaperRMSE(res.Table, 0, math.NaN(), obs, c.Algo, c.Mechanism)
			fmt.Fprintf(b, " %s (%s) |", meanSD(v.realCell(c, obs)), f4(p))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n| Visible | Column | 95 % CI | Difference from paper |\n|---|---|---|---|\n")
	for _, obs := range realFractions(res) {
		for _, c := range realColumns {
			p, _ := PaperRMSE(res.Table, 0, math.NaN(), obs, c.Algo, c.Mechanism)
			cell := v.realCell(c, obs)
			fmt.Fprintf(b, "| %g %% | %s | %s | %s |\n", 100*obs, c.Label, ci(cell), relDiff(cell, p))
		}
	}
	b.WriteString("\n**Best private column in row**, checked with paired differences as for the synthetic tables.\n\n")
	b.WriteString("| Visible | Paper's best | Our best | Verdict | Other − paper's best |\n|---|---|---|---|---|\n")
	for _, rv := range realRowVerdicts(v) {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", rv.Row, rv.PaperBest, rv.OursBest, rv.Verdict, rv.Detail)
	}
}

func realRowVerdicts(v *view) []RowVerdict {
	private := realColumns[2:]
	labels := make([]string, len(private))
	for i, c := range private {
		labels[i] = c.Label
	}
	var out []RowVerdict
	for _, obs := range realFractions(v.res) {
		cells := make([]*Cell, len(private))
		paper := make([]float64, len(private))
		for i, c := range private {
			cells[i] = v.realCell(c, obs)
			paper[i], _ = PaperRMSE(v.res.Table, 0, math.NaN(), obs, c.Algo, c.Mechanism)
		}
		out = append(out, bestInRow(fmt.Sprintf("%g %%", 100*obs), labels, cells, paper))
	}
	return out
}

// privacyCurve is one mechanism's RMSE against ε for one algorithm.
type privacyCurve struct {
	Label string
	Cells []*Cell // by PrivacyEpsilons; nil where missing
}

// privacyCurves returns, for algo, the Gaussian and Laplace curves, one
// Huber curve per α, and the best-α Huber envelope (chosen per ε after the
// fact, so optimistic).
func privacyCurves(v *view, algo string) (curves []privacyCurve, best privacyCurve, bestAlpha []float64) {
	s := v.res.Settings
	rank, obs := s.PrivacyRank, s.PrivacyObserved
	get := func(mech string, eps, alpha float64) *Cell {
		return v.cell("synthetic", rank, math.NaN(), obs, algo, mech, eps, alpha)
	}
	for _, mech := range []string{MechGaussian, MechLaplace} {
		c := privacyCurve{Label: mechLabel[mech]}
		for _, e := range s.PrivacyEpsilons {
			c.Cells = append(c.Cells, get(mech, e, math.NaN()))
		}
		curves = append(curves, c)
	}
	for _, a := range s.PrivacyAlphas {
		c := privacyCurve{Label: fmt.Sprintf("Huber α = %g", a)}
		for _, e := range s.PrivacyEpsilons {
			c.Cells = append(c.Cells, get(MechHuber, e, a))
		}
		curves = append(curves, c)
	}
	best = privacyCurve{Label: "Huber, best α per ε"}
	for _, e := range s.PrivacyEpsilons {
		var bc *Cell
		ba := math.NaN()
		for _, a := range s.PrivacyAlphas {
			if c := get(MechHuber, e, a); c != nil && (bc == nil || c.Mean < bc.Mean) {
				bc, ba = c, a
			}
		}
		best.Cells = append(best.Cells, bc)
		bestAlpha = append(bestAlpha, ba)
	}
	return curves, best, bestAlpha
}

// laplaceAndPre picks the Laplace curve and the Huber curve at PreAlpha
// out of curves (nil if absent).
func laplaceAndPre(curves []privacyCurve) (lap, pre *privacyCurve) {
	for k := range curves {
		switch curves[k].Label {
		case mechLabel[MechLaplace]:
			lap = &curves[k]
		case fmt.Sprintf("Huber α = %g", PreAlpha):
			pre = &curves[k]
		}
	}
	return lap, pre
}

// PreAlpha is the Huber shape fixed before the equal-privacy runs: the
// paper's α = 3.
const PreAlpha = 3.0

func privacyMarkdown(b *strings.Builder, res *TableResult) {
	v := newView(res)
	s := res.Settings
	fmt.Fprintf(b, "Synthetic rank %d, %g %% observed. Every mechanism is calibrated to the same per-release ε at Δ₁ = Δ₂ = %g (Gaussian: analytic, δ = %g); Huber at each shape α with scale s = α·Δ/ε. The IRLS threshold is c = %g for every mechanism, so only the noise differs. Mean ± standard deviation of the RMSE over all entries; the paired comparison is Huber at α = %g (fixed in advance: the paper's shape) against Laplace. The best-α column picks α after seeing the results, so it is optimistic.\n\n",
		s.PrivacyRank, 100*s.PrivacyObserved, Sensitivity, Delta, s.Threshold, PreAlpha)
	for _, algo := range syntheticAlgos {
		curves, best, bestAlpha := privacyCurves(v, algo)
		van := v.cell("synthetic", s.PrivacyRank, math.NaN(), s.PrivacyObserved, algo, MechNone, math.NaN(), math.NaN())
		fmt.Fprintf(b, "**%s** (no noise: %s)\n\n| ε |", strings.ToUpper(algo), meanSD(van))
		for _, c := range curves {
			fmt.Fprintf(b, " %s |", c.Label)
		}
		b.WriteString(" best α | Huber α = 3 − Laplace |\n|---|" + strings.Repeat("---|", len(curves)+2) + "\n")
		lap, pre := laplaceAndPre(curves)
		for i, e := range s.PrivacyEpsilons {
			fmt.Fprintf(b, "| %g |", e)
			for _, c := range curves {
				fmt.Fprintf(b, " %s |", meanSD(c.Cells[i]))
			}
			cmp := "–"
			if lap != nil && pre != nil && lap.Cells[i] != nil && pre.Cells[i] != nil {
				d := Paired(lap.Cells[i], pre.Cells[i])
				cmp = fmt.Sprintf("%+.4f [%+.4f, %+.4f]", d.Mean, d.Lo, d.Hi)
			}
			fmt.Fprintf(b, " %g (%s) | %s |\n", bestAlpha[i], meanSD(best.Cells[i]), cmp)
		}
		b.WriteString("\n")
	}
}
