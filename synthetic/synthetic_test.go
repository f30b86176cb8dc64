package synthetic

import (
	"testing"
)

func TestGenerate(t *testing.T) {
	p, err := Generate(Options{Rows: 60, Cols: 40, Rank: 3, Observed: 0.25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Observed.Len(), 600; got != want {
		t.Errorf("%d observed entries, want %d", got, want)
	}
	// A ratings.Matrix holds each value rounded to the nearest float32
	// (package ratings): the observed entries are the truth, so rounded.
	for tr := range p.Observed.All() {
		if v := p.At(int(tr.User), int(tr.Item)); tr.Value != float64(float32(v)) {
			t.Fatalf("observed (%d, %d) = %v, truth %v (float32 %v)", tr.User, tr.Item, tr.Value, v, float32(v))
		}
	}
	for i := range p.Rows {
		for j := range p.Cols {
			if v := p.At(i, j); v < Min || v > Max {
				t.Fatalf("entry (%d, %d) = %v outside [1, 5]", i, j, v)
			}
		}
	}
	q, _ := Generate(Options{Rows: 60, Cols: 40, Rank: 3, Observed: 0.25, Seed: 1})
	if q.At(5, 7) != p.At(5, 7) || q.Observed.Len() != p.Observed.Len() {
		t.Error("same seed, different problem")
	}
	a, _ := p.Observed.Row(3)
	b, _ := q.Observed.Row(3)
	if len(a) != len(b) {
		t.Error("same seed, different observed pattern")
	}
	o, _ := Generate(Options{Rows: 60, Cols: 40, Rank: 3, Observed: 0.25, Seed: 2})
	if o.At(5, 7) == p.At(5, 7) {
		t.Error("different seeds, same entry")
	}
}

type truth struct{ p *Problem }

func (t truth) Predict(i, j int) float64 { return t.p.At(i, j) }

type constant float64

func (c constant) Predict(int, int) float64 { return float64(c) }

func TestFullRMSE(t *testing.T) {
	p, _ := Generate(Options{Rows: 10, Cols: 12, Rank: 2, Observed: 0.5, Seed: 3})
	if got := p.FullRMSE(truth{p}); got != 0 {
		t.Errorf("RMSE of the truth = %v, want 0", got)
	}
	if got := p.FullRMSE(constant(0)); got < 1 {
		t.Errorf("RMSE of predicting 0 = %v, want ≥ 1 (entries are ≥ 1)", got)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, o := range []Options{
		{Rows: 0, Cols: 5, Rank: 1, Observed: 0.5},
		{Rows: 5, Cols: 0, Rank: 1, Observed: 0.5},
		{Rows: 5, Cols: 5, Rank: 0, Observed: 0.5},
		{Rows: 5, Cols: 5, Rank: 6, Observed: 0.5},
		{Rows: 5, Cols: 5, Rank: 1, Observed: 0},
		{Rows: 5, Cols: 5, Rank: 1, Observed: 1.5},
		{Rows: 5, Cols: 5, Rank: 1, Observed: 0.001},
	} {
		if _, err := Generate(o); err == nil {
			t.Errorf("Generate(%+v): no error", o)
		}
	}
}
