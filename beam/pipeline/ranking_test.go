package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// The ranking objective on Prism releases what userdp.Train releases at
// the same seed, from the input shuffled and split into files: the same
// items, noisy positive counts, head rows, components (V), weights,
// eigenvalues and edge, bit for bit, and the same privacy report — on
// explicit ratings (a positive threshold) and on implicit pairs.
func TestRankingMatchesTrain(t *testing.T) {
	type tc struct {
		name     string
		implicit bool
		gram     bool // the case must release a Gram (not the fallback)
		opts     func(o userdp.Options, d *ratings.Dataset) userdp.Options
	}
	for _, c := range []tc{
		{"ratings, private selection, capped users and head positives", false, true, func(o userdp.Options, _ *ratings.Dataset) userdp.Options {
			o.MaxItemsPerUser = 30
			o.Ranking.MaxHeadPositives = 8
			return o
		}},
		{"implicit pairs, private selection", true, true, func(o userdp.Options, _ *ratings.Dataset) userdp.Options { return o }},
		{"ratings, catalogue, positive 3", false, true, func(o userdp.Options, d *ratings.Dataset) userdp.Options {
			o = o.WithCatalogue(catalogue(d))
			o.Positive = 3
			return o
		}},
		{"ratings, fallback (few users for the Gram)", false, false, func(o userdp.Options, _ *ratings.Dataset) userdp.Options {
			o.Ranking.FallbackRatio = 1e9
			return o
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := writeCSV(t, 400, 7)
			if c.implicit {
				file = toPairs(t, file)
			}
			cfg := &Config{Files: []string{file}}
			lo, hi, err := Resolve(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c.implicit != cfg.Read.Format.Implicit() {
				t.Fatalf("format %v detected", cfg.Read.Format)
			}
			d, err := ratings.Load(file, cfg.Read)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Files = shuffleSplit(t, file, 3, 11)
			cfg.ReadBuffer = 101 // each user's ratings in many chunks
			o := userdp.Defaults(30, 1e-6, lo, hi)
			o.Objective = userdp.ObjectiveRanking
			if c.implicit {
				o.Positive = math.Inf(-1)
			}
			o = c.opts(o, d)
			o.Seeded, o.Seed = true, 5
			cfg.Options = o
			res, err := userdp.Train(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			want, err := model.FromUserLevel(res, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.ItemIDs) < 20 || c.gram != (want.Ranking.K > 0) {
				t.Fatalf("degenerate release: %d items, %d components, fallback %v", len(want.ItemIDs), want.Ranking.K, want.Ranking.Fallback)
			}
			got := runPrism(t, cfg)
			if !slices.Equal(got.ItemIDs, want.ItemIDs) {
				t.Fatalf("items: %d released, Train %d", len(got.ItemIDs), len(want.ItemIDs))
			}
			if !slices.Equal(got.Counts, want.Counts) {
				t.Errorf("counts differ from Train's (near to 1e-9 relative: %v)", near(got.Counts, want.Counts, 1e-9))
			}
			if got.Mu != want.Mu || got.Rank != 0 || got.Ranking == nil {
				t.Fatalf("centre %v, rank %d, ranking %v; Train %v, 0", got.Mu, got.Rank, got.Ranking != nil, want.Mu)
			}
			g, w := got.Ranking, want.Ranking
			if !slices.Equal(g.Head, w.Head) || g.K != w.K {
				t.Fatalf("head %d rows, k %d; Train %d, %d", len(g.Head), g.K, len(w.Head), w.K)
			}
			for _, f := range []struct {
				name      string
				got, want []float64
			}{{"V", g.V, w.V}, {"weights", g.Weights, w.Weights}, {"eigenvalues", g.Eigenvalues, w.Eigenvalues}, {"edge", []float64{g.Edge}, []float64{w.Edge}}} {
				if !slices.Equal(f.got, f.want) {
					t.Errorf("%s differ from Train's (near to 1e-9 relative: %v)", f.name, near(f.got, f.want, 1e-9))
				}
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("ranking differs:\npipeline %+v\nTrain    %+v", g, w)
			}
			var a, b bytes.Buffer
			json.Compact(&a, want.Privacy)
			json.Compact(&b, got.Privacy)
			if a.String() != b.String() {
				t.Errorf("privacy report differs:\npipeline %s\nTrain    %s", b.String(), a.String())
			}
			t.Logf("%d items, M = %d, k = %d, fallback %v", len(got.ItemIDs), len(g.Head), g.K, g.Fallback)
		})
	}
}

// toPairs writes the (user, item) columns of a csv ratings file as a
// pairs file (implicit feedback), with a few pairs repeated.
func toPairs(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, l := range append(lines, lines[:5]...) { // 5 pairs repeated: one positive each
		f := strings.Split(l, ",")
		sb.WriteString(f[0] + "," + f[1] + "\n")
	}
	path := filepath.Join(t.TempDir(), "pairs.csv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
