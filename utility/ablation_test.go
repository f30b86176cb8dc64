package utility

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/userdp"
)

// Ablate's defaults row is the plain seeded pipeline (run k at seed k),
// every variant gets a row, and a variant that changes nothing matches
// the defaults exactly (the runs are paired).
func TestAblate(t *testing.T) {
	tr, te := tinySplit(t)
	same := Variant{"unchanged", func(o userdp.Options) userdp.Options { return o }}
	a, err := Ablate(context.Background(), AblationConfig{
		Config:   Config{Name: "tiny", Train: tr, Test: te, Epsilons: []float64{2, 10}, Delta: 1e-6, Runs: 2},
		Variants: append([]Variant{same}, DefaultVariants()[:2]...),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) != 4 || a.Rows[0].Variant != "defaults" {
		t.Fatalf("rows %+v, want defaults and 3 variants", a.Rows)
	}
	var want float64
	for k := range 2 {
		o := userdp.Defaults(10, 1e-6, tr.Min, tr.Max)
		o.Seeded, o.Seed = true, uint64(k+1)
		m, err := userdp.Train(context.Background(), tr, o)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := m.FoldInAll(tr).Errors(te.Ratings)
		want += r / 2
	}
	if got := a.Rows[0].RMSE[1]; got != want {
		t.Errorf("defaults at ε = 10: %v, want the seeded runs' mean %v", got, want)
	}
	if a.Rows[1].RMSE[0] != a.Rows[0].RMSE[0] || a.Rows[1].RMSE[1] != a.Rows[0].RMSE[1] {
		t.Errorf("an unchanged variant %v differs from the defaults %v: runs not paired", a.Rows[1].RMSE, a.Rows[0].RMSE)
	}
	if a.Rows[2].RMSE[0] == a.Rows[0].RMSE[0] {
		t.Errorf("switching the tail bias off changed nothing at ε = 2 (%v)", a.Rows[2].RMSE[0])
	}
	var b bytes.Buffer
	if err := a.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| no tail bias |") || !strings.Contains(b.String(), "ε = 10") {
		t.Errorf("markdown misses a row or a column:\n%s", b.String())
	}
}

// Every share variant moves exactly ShareStep of μ² into or out of its
// release, keeps the shares summing to 1 and the global mean's share,
// and gives valid options at any ε.
func TestShareVariants(t *testing.T) {
	vs := ShareVariants()
	if len(vs) != 6 {
		t.Fatalf("%d share variants, want 6 (3 releases, ±)", len(vs))
	}
	for _, eps := range []float64{1, 20} {
		d := userdp.Defaults(eps, 1e-6, 1, 5)
		for k, v := range vs {
			o := v.Apply(d)
			if err := o.Validate(); err != nil {
				t.Errorf("%s at ε = %g: %v", v.Name, eps, err)
			}
			s, s0 := o.Shares, d.Shares
			if sum := s.Mean + s.Counts + s.Biases + s.Factors; math.Abs(sum-1) > 1e-12 || s.Mean != s0.Mean {
				t.Errorf("%s: shares %+v sum to %v (mean %v), want 1 (mean %v)", v.Name, s, sum, s.Mean, s0.Mean)
			}
			moved := []float64{s.Counts - s0.Counts, s.Biases - s0.Biases, s.Factors - s0.Factors}[k/2]
			want := ShareStep
			if k%2 == 1 {
				want = -ShareStep
			}
			if math.Abs(moved-want) > 1e-12 {
				t.Errorf("%s moved %v, want %v", v.Name, moved, want)
			}
		}
	}
}
