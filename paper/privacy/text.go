package privacy

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report as the labelled lines dpmc train prints:
// the noise and where it is added, "NONE proved", the assumed sensitivity
// and its source, the paper's per-release figure and its composition
// (marked "NOT a guarantee", and marked as the ideal mechanism's under
// the float sampler) and the notes.
func (p *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	f := &p.Figures
	where := "the right-hand side of every item update"
	if p.CoversGram {
		where = "the Gram matrix and the right-hand side of every item update"
	}
	fmt.Fprintf(&b, "noise:      %s, variance %.4g, on %s\n", p.Mechanism, p.Variance, where)
	per := "n/a"
	if f.PerReleaseEpsilon != nil {
		per = fmt.Sprintf("ε = %.4g", *f.PerReleaseEpsilon)
		if f.PerReleaseDelta > 0 {
			per += fmt.Sprintf(", δ = %.3g", f.PerReleaseDelta)
		}
	}
	by := f.Accountant + " accountant"
	if !f.SamplerDeliversMechanism {
		const ideal = "of the ideal mechanism, which the float sampler does not deliver"
		per += " (" + ideal + ")"
		by += "; " + ideal
	}
	total := fmt.Sprintf("ε = %.4g, δ = %.3g (%s)", f.ComposedEpsilon, f.ComposedDelta, by)
	fmt.Fprintf(&b, "privacy:    NONE proved for the model (unit: %s)\n", p.Unit)
	fmt.Fprintf(&b, "            sensitivity per release Δ₁ = %.4g, Δ₂ = %.4g: %s\n", f.AssumedSensitivity.L1, f.AssumedSensitivity.L2, f.SensitivitySource)
	fmt.Fprintf(&b, "            per release %s; %d releases touch one user\n", per, p.ReleasesPerUser)
	fmt.Fprintf(&b, "            composed (NOT a guarantee): %s\n", total)
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "            - %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
