package utility

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

func TestRunAndRender(t *testing.T) {
	tr, te := tinySplit(t)
	res, err := Run(context.Background(), Config{
		Name: "tiny", Train: tr, Test: te, Epsilons: []float64{1, 10}, Delta: 1e-6,
		Runs: 2, Seeded: true, Seed: 9,
	})
	if err != nil {
		t.Fatal(err)
	}
	// mean, 2 series × 2 ε, 2 non-private.
	if len(res.Points) != 7 {
		t.Fatalf("%d points, want 7", len(res.Points))
	}
	mean := res.find(ModelMean, 1).Mean
	np := res.find(ModelNonPrivate, 1).Mean
	if !(np < mean) {
		t.Errorf("non-private RMSE %.4f not below the mean predictor's %.4f", np, mean)
	}
	for _, p := range res.Points {
		if !(p.Lo <= p.Mean && p.Mean <= p.Hi) || math.IsNaN(p.Mean) {
			t.Errorf("%s at ε %g: interval [%g, %g] around %g", p.Model, p.Epsilon, p.Lo, p.Hi, p.Mean)
		}
	}
	var b bytes.Buffer
	if err := res.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| 10 |") || !strings.Contains(b.String(), ModelBiases) {
		t.Errorf("markdown misses a row or a column:\n%s", b.String())
	}
	if err := res.WritePlot(filepath.Join(t.TempDir(), "p.svg"), "svg"); err != nil {
		t.Fatal(err)
	}
}

func TestMeanCI(t *testing.T) {
	// Mean 2, sd √(2/3), n = 4: half-width t(0.975, 3)·sd/√4.
	mean, lo, hi := meanCI([]float64{1, 2, 3, 2})
	if mean != 2 {
		t.Errorf("mean %g, want 2", mean)
	}
	want := 3.1824463052837078 * math.Sqrt(2.0/3) / 2
	if math.Abs((hi-lo)/2-want) > 1e-9 {
		t.Errorf("half-width %g, want %g", (hi-lo)/2, want)
	}
}

// tinySplit is a 400-user MovieLens-1M-shaped data set split 80/20, at
// fixed seeds.
func tinySplit(t *testing.T) (tr, te *ratings.Dataset) {
	t.Helper()
	d, err := synthetic.DefaultRealistic(400, 1).Generate()
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err = ratings.Split(d, 0.2, rng.Seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	return tr, te
}

// CheckDir writes only into a new or empty folder, one that holds dpmc
// utility's results, or any folder when forced.
func TestCheckDir(t *testing.T) {
	ours, err := json.Marshal(&Result{Name: "x", Points: []Point{{Model: ModelMean}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		force bool
		ok    bool
	}{
		{"absent", nil, false, true},
		{"empty", map[string]string{}, false, true},
		{"earlier results", map[string]string{"utility1.json": string(ours), "utility1.png": "png"}, false, true},
		{"a foreign JSON of the same name", map[string]string{"utility1.json": `{"name": "mine", "points": [1], "extra": true}`}, false, false},
		{"foreign files", map[string]string{"notes.txt": "mine"}, false, false},
		{"foreign files, forced", map[string]string{"notes.txt": "mine"}, true, true},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		if c.files != nil {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		err := CheckDir(dir, c.force)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok = %v", c.name, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "--force") {
			t.Errorf("%s: %v does not say how to proceed", c.name, err)
		}
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			t.Errorf("%s: %s not a folder after CheckDir: %v", c.name, dir, serr)
		}
	}
}
