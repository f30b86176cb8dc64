package synthetic

import (
	"math"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
)

func TestBenchmark(t *testing.T) {
	for _, b := range []Benchmark{
		{Users: 300, Items: 80, Ratings: 2000, Rank: 10, NoiseSD: 0.1, Seed: 1}, // sparse: draws and repeats
		{Users: 30, Items: 20, Ratings: 500, Rank: 3, NoiseSD: 0.1, Seed: 2},    // dense: selection sampling
		{Users: 5, Items: 4, Ratings: 20, Rank: 1, Seed: 3},                     // every cell
	} {
		d, err := b.Generate()
		if err != nil {
			t.Fatal(err)
		}
		x := d.Ratings
		if x.Rows() != b.Users || x.Cols() != b.Items || x.Len() != b.Ratings {
			t.Fatalf("%+v: %d × %d with %d ratings", b, x.Rows(), x.Cols(), x.Len())
		}
		var sum float64
		for tr := range x.All() {
			if tr.Value < 1 || tr.Value > 5 {
				t.Fatalf("rating %v outside [1, 5]", tr.Value)
			}
			sum += tr.Value
		}
		// The ratings are uncorrelated with standard deviation about 0.8, so
		// the mean of 500 or more is within 0.15 of 3 but for a 4σ false
		// alarm (p < 1e-4 at this fixed seed).
		if mean := sum / float64(x.Len()); x.Len() >= 500 && math.Abs(mean-3) > 0.15 {
			t.Errorf("%+v: mean rating %.3f, want about 3", b, mean)
		}
		again, _ := b.Generate()
		for tr := range x.All() {
			if v, ok := again.Ratings.Get(int(tr.User), int(tr.Item)); !ok || v != tr.Value {
				t.Fatalf("same seed, different data at (%d, %d)", tr.User, tr.Item)
			}
		}
	}
}

// TestBenchmarkCellsUniform checks that every cell is equally likely to
// be observed: over 200 seeds of a 6 × 5 matrix with 9 ratings, each cell
// is observed 200·9/30 = 60 times on average, and the chi-square statistic
// of the 30 counts (29 degrees of freedom) stays below 58.3, its 0.1 %
// upper quantile: a false alarm once in a thousand seeds sets.
func TestBenchmarkCellsUniform(t *testing.T) {
	const users, items, want, runs = 6, 5, 9, 200
	var count [users * items]int
	for s := range runs {
		b := Benchmark{Users: users, Items: items, Ratings: want, Rank: 1, Seed: uint64(s)}
		for _, c := range sampleCells[uint64](b) {
			count[c]++
		}
	}
	exp := float64(runs*want) / (users * items)
	var chi2 float64
	for _, n := range count {
		chi2 += (float64(n) - exp) * (float64(n) - exp) / exp
	}
	if chi2 > 58.3 {
		t.Errorf("chi-square %.1f over 29 degrees of freedom: cells not uniform (%v)", chi2, count)
	}
}

func TestDefaultBenchmark(t *testing.T) {
	b := DefaultBenchmark(1, 7)
	if b.Users != 100_000 || b.Items != 20_000 || b.Ratings != 10_000_000 || b.Rank != 10 || b.NoiseSD != 0.1 || b.Seed != 7 {
		t.Errorf("DefaultBenchmark(1, 7) = %+v", b)
	}
	if s := DefaultBenchmark(10, 7); s.Users != 10_000 || s.Items != 2_000 || s.Ratings != 1_000_000 {
		t.Errorf("DefaultBenchmark(10, 7) = %+v", s)
	}
}

func TestBenchmarkBadOptions(t *testing.T) {
	for _, tt := range []struct {
		b    Benchmark
		want string
	}{
		{Benchmark{Users: 0, Items: 5, Ratings: 1, Rank: 1}, "users"},
		{Benchmark{Users: 5, Items: 0, Ratings: 1, Rank: 1}, "items"},
		{Benchmark{Users: 2, Items: 2, Ratings: 5, Rank: 1}, "ratings"},
		{Benchmark{Users: 2, Items: 2, Ratings: 0, Rank: 1}, "ratings"},
		{Benchmark{Users: 2, Items: 2, Ratings: 1, Rank: 0}, "rank"},
		{Benchmark{Users: 2, Items: 2, Ratings: 1, Rank: 1, NoiseSD: math.NaN()}, "noise"},
		{Benchmark{Users: 2, Items: 2, Ratings: 1, Rank: 1, NoiseSD: -1}, "noise"},
	} {
		if _, err := tt.b.Generate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want mention of %q", tt.b, err, tt.want)
		}
	}
}

// TestBenchmarkTest checks the held-out set: n cells, none rated in
// training, values in [1, 5] from the same factors (so training and test
// ratings of one generator agree in mean), the same for the same seed,
// and errors for a wrong shape or too many cells.
func TestBenchmarkTest(t *testing.T) {
	b := Benchmark{Users: 300, Items: 80, Ratings: 2000, Rank: 10, NoiseSD: 0.1, Seed: 1}
	d, err := b.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 500, 300*80 - 2000} {
		test, err := b.Test(n, d.Ratings)
		if err != nil {
			t.Fatal(err)
		}
		if test.Len() != n || test.Rows() != b.Users || test.Cols() != b.Items {
			t.Fatalf("n = %d: %d × %d with %d ratings", n, test.Rows(), test.Cols(), test.Len())
		}
		again, _ := b.Test(n, d.Ratings)
		for tr := range test.All() {
			if _, rated := d.Ratings.Get(int(tr.User), int(tr.Item)); rated {
				t.Fatalf("n = %d: test cell (%d, %d) is rated in training", n, tr.User, tr.Item)
			}
			if tr.Value < 1 || tr.Value > 5 {
				t.Fatalf("n = %d: rating %v outside [1, 5]", n, tr.Value)
			}
			if v, ok := again.Get(int(tr.User), int(tr.Item)); !ok || v != tr.Value {
				t.Fatalf("n = %d: same seed, different test set at (%d, %d)", n, tr.User, tr.Item)
			}
		}
	}
	other, _ := Benchmark{Users: 30, Items: 80, Ratings: 200, Rank: 10, Seed: 1}.Generate()
	for _, tc := range []struct {
		n     int
		train *ratings.Matrix
	}{{-1, d.Ratings}, {300*80 - 1999, d.Ratings}, {10, other.Ratings}, {10, nil}} {
		if _, err := b.Test(tc.n, tc.train); err == nil {
			t.Errorf("Test(%d, …): no error", tc.n)
		}
	}
}

// TestCellsWidth checks that cell numbers of 4 and 8 bytes give the same
// cells, sparse and dense, so that Generate's choice does not change the
// data.
func TestCellsWidth(t *testing.T) {
	for _, b := range []Benchmark{
		{Users: 300, Items: 80, Ratings: 2000, Seed: 1},
		{Users: 30, Items: 20, Ratings: 500, Seed: 2},
	} {
		a, c := sampleCells[uint32](b), sampleCells[uint64](b)
		if len(a) != b.Ratings || len(c) != b.Ratings {
			t.Fatalf("%+v: %d and %d cells", b, len(a), len(c))
		}
		for k := range a {
			if uint64(a[k]) != c[k] {
				t.Fatalf("%+v: cell %d is %d with uint32, %d with uint64", b, k, a[k], c[k])
			}
		}
	}
}
