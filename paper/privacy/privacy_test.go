package privacy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/accounting"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/solver"
)

func TestPaperReportGuaranteesNothing(t *testing.T) {
	b, _ := laplace.New(1)
	opts := solver.Options{Algorithm: solver.IRLS, Rank: 3, Lambda: 0.5, Iters: 10, IRLSIters: 2, Threshold: 3, Noise: b}
	r, err := Paper(opts, 5, 7, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, " ")
	f := r.Figures
	if r.Guarantee != "none" || r.CoversGram || r.Unit != "rating" || r.ReleasesPerUser != 10*2*7 || *f.PerReleaseEpsilon != 5 ||
		!strings.Contains(notes, "NOT a guarantee") || !strings.Contains(notes, "Gram matrix") {
		t.Errorf("paper report %+v", r)
	}
	// The composed figures are the accountants' at the assumed
	// sensitivity, and the tightest of them.
	totals, err := accounting.Compose(b, f.AssumedSensitivity, r.ReleasesPerUser, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	best, _ := totals.Tightest()
	if f.ComposedEpsilon != best.Epsilon || f.ComposedDelta != best.Delta || f.Accountant != best.Accountant || f.ComposedByAccountant.Basic == nil {
		t.Errorf("composed %v, %v by %s; want %+v", f.ComposedEpsilon, f.ComposedDelta, f.Accountant, best)
	}
}

// TestPaperReportMarksTheSampler: with the float sampler the figures are
// marked as the ideal mechanism's, which it does not deliver; with exact
// discrete noise they are the run's mechanism's, at the sensitivity after
// rounding.
func TestPaperReportMarksTheSampler(t *testing.T) {
	b, _ := laplace.New(1)
	d, err := discrete.For(b)
	if err != nil {
		t.Fatal(err)
	}
	opts := solver.Options{Algorithm: solver.ALS, Rank: 3, Lambda: 0.5, Iters: 4}
	var text strings.Builder
	for _, tt := range []struct {
		sampler  string
		noise    noise.Mechanism
		delivers bool
		figures  string
	}{
		{"float", b, false, "does NOT deliver"},
		{"discrete", d, true, "exact discrete mechanism"},
	} {
		o := opts
		o.Noise = tt.noise
		r, err := Paper(o, 5, 7, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Figures
		if r.Sampler != tt.sampler || f.SamplerDeliversMechanism != tt.delivers || !strings.Contains(f.FiguresOf, tt.figures) {
			t.Errorf("%s: sampler %q, delivers %v, figures of %q", tt.sampler, r.Sampler, f.SamplerDeliversMechanism, f.FiguresOf)
		}
		if tt.sampler == "discrete" && !(f.AssumedSensitivity.L1 > 5 && strings.Contains(f.SensitivitySource, "rounding")) {
			t.Errorf("discrete: sensitivity %+v (%s), want 5 raised by the rounding", f.AssumedSensitivity, f.SensitivitySource)
		}
		text.Reset()
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		ideal := strings.Count(text.String(), "of the ideal mechanism, which the float sampler does not deliver")
		if want := map[bool]int{false: 2, true: 0}[tt.delivers]; ideal != want || !strings.Contains(text.String(), "composed (NOT a guarantee)") {
			t.Errorf("%s: %d ideal-mechanism marks (want %d) in\n%s", tt.sampler, ideal, want, text.String())
		}
		// No key of the report's JSON outside "not_a_guarantee" names an
		// ε or δ; inside, every one says what it is conditioned on.
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal(js, &top); err != nil {
			t.Fatal(err)
		}
		for k := range top {
			if strings.Contains(k, "epsilon") || strings.Contains(k, "delta") {
				t.Errorf("%s: top-level key %q beside guarantee %q", tt.sampler, k, top["guarantee"])
			}
		}
		for k, v := range top["not_a_guarantee"].(map[string]any) {
			if _, num := v.(float64); num && (strings.Contains(k, "epsilon") || strings.Contains(k, "delta")) && !strings.HasSuffix(k, "_if_sensitivity_held") {
				t.Errorf("%s: not_a_guarantee.%s = %v does not say it is conditional", tt.sampler, k, v)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	plain := solver.Options{Algorithm: solver.ALS, Rank: 2, Lambda: 1, Iters: 2}
	if _, err := Paper(plain, 5, 7, 1e-6); err == nil {
		t.Error("paper report without noise")
	}
}
