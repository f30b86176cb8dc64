package baseline

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

// u1 loads MovieLens 100k u1.base / u1.test from ../shared/data, or skips.
func u1(t *testing.T) (train, test *ratings.Dataset) {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "data", "movielens-100k")
	if _, err := os.Stat(filepath.Join(dir, "u1.base")); err != nil {
		dir = filepath.Join("..", "shared", "data", "movielens-100k")
	}
	if _, err := os.Stat(filepath.Join(dir, "u1.base")); err != nil {
		t.Skip("MovieLens 100k u1 not found under ../shared/data/movielens-100k")
	}
	train, test, err := ratings.LoadPair(filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test"), ratings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

// The known figures on u1 (issue 25), package metrics' conventions.
func TestMovieLens100kU1(t *testing.T) {
	if testing.Short() {
		t.Skip("fits EASE and PureSVD on MovieLens 100k")
	}
	train, test := u1(t)
	x := train.Ratings
	for _, c := range []struct {
		name string
		fit  func() (metrics.Scorer, error)
		want float64
	}{
		{"popularity", func() (metrics.Scorer, error) { return NewPopularity(x, 0), nil }, 0.245},
		{"EASE λ = 500", func() (metrics.Scorer, error) { return FitEASE(x, EASEOptions{Lambda: 500}) }, 0.448},
		{"PureSVD k = 20", func() (metrics.Scorer, error) { return FitPureSVD(x, PureSVDOptions{K: 20}) }, 0.424},
	} {
		start := time.Now()
		m, err := c.fit()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fit := time.Since(start)
		r := metrics.Evaluate(x, test.Ratings, m, metrics.Options{K: 10, Ranking: true})
		t.Logf("%s: NDCG@10 %.4f (fit %v, total %v); %v", c.name, r.NDCG, fit, time.Since(start), r)
		if math.Abs(r.NDCG-c.want) > 0.005 {
			t.Errorf("%s: NDCG@10 %.4f, want %.3f ± 0.005", c.name, r.NDCG, c.want)
		}
	}
}
