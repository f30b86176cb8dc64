package utility

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// SideBySide compares the RMSE curves of a real data set and of a
// generated one of the same size under the same protocol: the check that
// the generator is as hard as the real data (issue 26, item 1).
type SideBySide struct {
	// Real and Generated are the two curves, each from Run.
	Real, Generated *Result
	// Tolerance is the largest difference (in test RMSE) the check
	// accepts, e.g. 0.01.
	Tolerance float64
}

// WriteMarkdown writes one row per model and ε with both curves' means
// and the difference (generated − real), marks every difference beyond
// the tolerance, and ends with how many are within it.
func (s *SideBySide) WriteMarkdown(w io.Writer) error {
	if s.Real == nil || s.Generated == nil {
		return fmt.Errorf("utility: side by side: a curve is missing")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### %s beside %s\n\n", s.Generated.Name, s.Real.Name)
	fmt.Fprintf(&b, "Both: %d runs per private point (%s), δ = %g; evaluation figures of the data (not released); the mean test RMSE of each, and the difference (generated − real; **bold** beyond ±%g).\n\n",
		s.Real.Runs, map[bool]string{true: "seeded: NOT private, for tests", false: "unseeded: crypto/rand noise, as a real release"}[s.Real.Seeded || s.Generated.Seeded], s.Real.Delta, s.Tolerance)
	b.WriteString("| model | ε | real | generated | difference |\n|---|---|---|---|---|\n")
	within, all := 0, 0
	worst, worstAt := 0.0, ""
	for _, m := range s.Real.models() {
		for _, e := range s.Real.epsilons() {
			pr, pg := s.Real.find(m, e), s.Generated.find(m, e)
			if pr == nil || pg == nil || (math.IsInf(pr.Epsilon, 1) && e != s.Real.epsilons()[0]) {
				continue // a non-private model is listed once
			}
			eps := fmt.Sprint(e)
			if math.IsInf(pr.Epsilon, 1) {
				eps = "non-private"
			}
			d := pg.Mean - pr.Mean
			cell := fmt.Sprintf("%+.4f", d)
			all++
			if math.Abs(d) <= s.Tolerance {
				within++
			} else {
				cell = "**" + cell + "**"
			}
			if math.Abs(d) > math.Abs(worst) {
				worst, worstAt = d, m+" at "+eps
			}
			fmt.Fprintf(&b, "| %s | %s | %.4f | %.4f | %s |\n", m, eps, pr.Mean, pg.Mean, cell)
		}
	}
	fmt.Fprintf(&b, "\n%d of %d figures within ±%g; the largest difference is %+.4f (%s).\n", within, all, s.Tolerance, worst, worstAt)
	_, err := io.WriteString(w, b.String())
	return err
}
