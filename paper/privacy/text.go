package privacy

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report as the labelled lines dpmc train prints:
// the noise and where it is added, the guarantee (or "NONE proved"), the
// sensitivity and its source, the per-release and composed totals (the
// latter marked "NOT a guarantee" when Guarantee is "none") and the notes.
func (p *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	where := "the right-hand side of every item update"
	if p.CoversGram {
		where = "the Gram matrix and the right-hand side of every item update"
	}
	fmt.Fprintf(&b, "noise:      %s, variance %.4g, on %s\n", p.Mechanism, p.Variance, where)
	per := "n/a"
	if p.PerReleaseEpsilon != nil {
		per = fmt.Sprintf("ε = %.4g", *p.PerReleaseEpsilon)
		if p.PerReleaseDelta > 0 {
			per += fmt.Sprintf(", δ = %.3g", p.PerReleaseDelta)
		}
	}
	total := "n/a"
	if p.TotalEpsilon != nil {
		total = fmt.Sprintf("ε = %.4g, δ = %.3g (%s accountant)", *p.TotalEpsilon, *p.TotalDelta, p.Accountant)
	}
	if p.Guarantee == "none" {
		fmt.Fprintf(&b, "privacy:    NONE proved for the model (unit: %s)\n", p.Unit)
	} else {
		fmt.Fprintf(&b, "privacy:    %s\n", p.Guarantee)
	}
	fmt.Fprintf(&b, "            sensitivity per release Δ₁ = %.4g, Δ₂ = %.4g: %s\n", p.Sensitivity.L1, p.Sensitivity.L2, p.SensitivitySource)
	fmt.Fprintf(&b, "            per release %s; %d releases touch one user\n", per, p.ReleasesPerUser)
	if p.Guarantee == "none" {
		fmt.Fprintf(&b, "            composed (NOT a guarantee): %s\n", total)
	} else {
		fmt.Fprintf(&b, "            total: %s\n", total)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "            - %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
