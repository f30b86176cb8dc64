package utility

import (
	"bytes"
	"context"
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
