package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
)

// Load counts the (user, item) pairs a test file shares with its
// training file, and Warnings reports them; a disjoint test file or a
// held-out fraction gives no warning.
func TestLoadOverlapWarning(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write("train.tsv", "1\t10\t5\n1\t11\t3\n2\t10\t4\n2\t12\t2\n3\t11\t1\n3\t12\t4\n")
	for _, c := range []struct {
		name    string
		f       Files
		overlap int
	}{
		{"itself", Files{Train: base, Test: base}, 6},
		{"two shared", Files{Train: base, Test: write("two.tsv", "1\t10\t1\n3\t12\t2\n1\t12\t4\n")}, 2},
		{"disjoint", Files{Train: base, Test: write("disjoint.tsv", "1\t12\t4\n2\t11\t3\n")}, 0},
		{"fraction", Files{Train: base, TestFraction: 0.5, Rand: rng.Seeded(1)}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Load(c.f)
			if err != nil {
				t.Fatal(err)
			}
			if d.Overlap != c.overlap {
				t.Errorf("Overlap = %d, want %d", d.Overlap, c.overlap)
			}
			w := d.Warnings()
			if c.overlap == 0 {
				if len(w) != 0 {
					t.Errorf("warnings %q, want none", w)
				}
				return
			}
			if len(w) != 1 || !strings.Contains(w[0], "shares "+strconv.Itoa(c.overlap)+" of its") {
				t.Errorf("warnings %q, want one naming %d shared pairs", w, c.overlap)
			}
		})
	}
}

// A cancellation after the last sweep (during the evaluation) makes Paper
// return an error wrapping context.Canceled and no result, so that
// nothing is printed or saved; without it the same run succeeds.
func TestPaperCancelledAfterLastSweep(t *testing.T) {
	p, err := synthetic.Generate(synthetic.Options{Rows: 40, Cols: 30, Rank: 2, Observed: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &Data{Describe: "synthetic", Train: p.Observed, Min: synthetic.Min, Max: synthetic.Max, Problem: p}
	for _, cancelAtEnd := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		opts := solver.Options{Algorithm: solver.ALS, Rank: 2, Lambda: 0.1, Iters: 3, Seeded: true, Seed: 1, Workers: 1,
			Progress: func(done, total int) {
				if cancelAtEnd && done == total {
					cancel()
				}
			}}
		r, err := Paper(ctx, d, opts, Settings{Delta: 1e-6})
		cancel()
		switch {
		case cancelAtEnd && (!errors.Is(err, context.Canceled) || r != nil):
			t.Errorf("cancelled after the last sweep: result %v, err %v; want none and context.Canceled", r != nil, err)
		case !cancelAtEnd && err != nil:
			t.Errorf("not cancelled: %v", err)
		}
	}
}
