package synthetic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/baseline"
	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
	"github.com/dpmc/dpmc/userdp"
)

// movieLens loads MovieLens 100k's u.data, u1.base and u1.test from
// ../../shared/data/movielens-100k, or skips.
func movieLens(t *testing.T) (all, train, test *ratings.Dataset) {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "data", "movielens-100k")
	if _, err := os.Stat(filepath.Join(dir, "u.data")); err != nil {
		t.Skip("MovieLens 100k not found under ../../shared/data/movielens-100k")
	}
	all, err := ratings.Load(filepath.Join(dir, "u.data"), ratings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	train, test, err = ratings.LoadPair(filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test"), ratings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return all, train, test
}

func TestStatsSideBySide(t *testing.T) {
	if os.Getenv("DPMC_GENERATOR_COMPARE") == "" {
		t.Skip("set DPMC_GENERATOR_COMPARE=1")
	}
	all, _, _ := movieLens(t)
	ml := synthetic.Describe(all.Ratings, 20)
	d, err := synthetic.DefaultRealistic(943, 1).Generate()
	if err != nil {
		t.Fatal(err)
	}
	g := synthetic.Describe(d.Ratings, 20)
	t.Logf("\n%s", synthetic.Compare("MovieLens 100k", ml, "generator, 943 users", g))
}

// side computes the side-by-side figures on one 80/20 split: test RMSE
// of userdp's default pipeline at each ε (mean over seeds 1–3, seeded
// noise) and without noise, of non-private biases, and NDCG@10 of the
// ranking baselines.
func side(t *testing.T, tr, te *ratings.Dataset) []float64 {
	t.Helper()
	var out []float64
	run := func(o userdp.Options) float64 {
		res, err := userdp.Train(context.Background(), tr, o)
		if err != nil {
			t.Fatal(err)
		}
		rmse, _ := res.FoldInAll(tr).Errors(te.Ratings)
		return rmse
	}
	for _, eps := range compareEps {
		var s float64
		for seed := range uint64(3) {
			o := userdp.Defaults(eps, 1e-6, 1, 5)
			o.Seeded, o.Seed = true, seed+1
			s += run(o)
		}
		out = append(out, s/3)
	}
	out = append(out, run(userdp.Defaults(math.Inf(1), 0, 1, 5)))
	b := userdp.Defaults(math.Inf(1), 0, 1, 5)
	b.Rank, b.Iters, b.PopularityScale, b.BiasColumnScale = 0, 0, 0, 0 // a bare bias model
	out = append(out, run(b))
	x := tr.Ratings
	ndcg := func(m metrics.Scorer) float64 {
		return metrics.Evaluate(x, te.Ratings, m, metrics.Options{K: 10, Ranking: true}).NDCG
	}
	out = append(out, ndcg(baseline.NewPopularity(x, 0)))
	e, err := baseline.FitEASE(x, baseline.EASEOptions{Lambda: 500})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, ndcg(e))
	s, err := baseline.FitPureSVD(x, baseline.PureSVDOptions{K: 20})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, ndcg(s))
	return out
}

var compareEps = []float64{1, 5, 10}

var sideNames = []string{"pipeline RMSE, ε = 1", "pipeline RMSE, ε = 5", "pipeline RMSE, ε = 10", "pipeline RMSE, no noise", "non-private biases RMSE", "NDCG@10 popularity", "NDCG@10 EASE λ = 500", "NDCG@10 PureSVD k = 20"}

// generator returns DefaultRealistic(users, seed) with the fields of the
// JSON object in $DPMC_GEN_PARAMS (for the parameter search) set.
func generator(t *testing.T, users int, seed uint64) synthetic.Realistic {
	g := synthetic.DefaultRealistic(users, seed)
	if p := os.Getenv("DPMC_GEN_PARAMS"); p != "" {
		if err := json.Unmarshal([]byte(p), &g); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestFitSideBySide prints MovieLens 100k's statistics and u1 figures
// beside the generator's at 943 users (data seeds 1–3), on a random 80/20
// split and on a split shaped like u1. It takes about a minute: DPMC_GENERATOR_COMPARE=1 go test ./synthetic
// -run TestFitSideBySide -v.
func TestFitSideBySide(t *testing.T) {
	if os.Getenv("DPMC_GENERATOR_COMPARE") == "" {
		t.Skip("set DPMC_GENERATOR_COMPARE=1")
	}
	all, tr, te := movieLens(t)
	mlTr, mlTe, err := ratings.Split(all, 0.2, rand.New(rand.NewPCG(0, 26)))
	if err != nil {
		t.Fatal(err)
	}
	ml := side(t, mlTr, mlTe)
	mlU1 := side(t, tr, te)
	seeds := []uint64{1, 2, 3}
	var gen, genU1 [][]float64
	var gs synthetic.Stats
	for k, seed := range seeds {
		d, err := generator(t, 943, seed).Generate()
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			gs = synthetic.Describe(d.Ratings, 20)
		}
		gtr, gte, err := ratings.Split(d, 0.2, rand.New(rand.NewPCG(seed, 26)))
		if err != nil {
			t.Fatal(err)
		}
		gen = append(gen, side(t, gtr, gte))
		gtr, gte = u1Like(t, d, seed)
		genU1 = append(genU1, side(t, gtr, gte))
	}
	t.Logf("\n%s", synthetic.Compare("MovieLens 100k (u.data)", synthetic.Describe(all.Ratings, 20), "generator, 943 users, seed 1", gs))
	var b strings.Builder
	fmt.Fprintf(&b, "| figure | ML-100k, random 80/20 | generator, random 80/20: mean (min–max of seeds 1–3) | gen − ML | ML-100k u1 | generator, u1-like split: mean (min–max) | gen − ML |\n|---|---|---|---|---|---|---|\n")
	summ := func(x [][]float64, k int) (m, lo, hi float64) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, g := range x {
			m += g[k] / float64(len(x))
			lo, hi = min(lo, g[k]), max(hi, g[k])
		}
		return m, lo, hi
	}
	for k, name := range sideNames {
		m, lo, hi := summ(gen, k)
		m1, lo1, hi1 := summ(genU1, k)
		fmt.Fprintf(&b, "| %s | %.4f | %.4f (%.4f–%.4f) | %+.4f | %.4f | %.4f (%.4f–%.4f) | %+.4f |\n", name, ml[k], m, lo, hi, m-ml[k], mlU1[k], m1, lo1, hi1, m1-mlU1[k])
	}
	t.Logf("\n%s", b.String())
}

// u1Like splits d as MovieLens 100k's u1 is split: the test set holds
// about 40 % of the ratings of the first 49 % of the users (u1.test: 20
// 000 ratings of users 1–462 of 943), the training set the rest.
func u1Like(t *testing.T, d *ratings.Dataset, seed uint64) (tr, te *ratings.Dataset) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	cut := int32(math.Round(0.49 * float64(d.Ratings.Rows())))
	var a, b []ratings.Triple
	for x := range d.Ratings.All() {
		if x.User < cut && r.Float64() < 0.4 {
			b = append(b, x)
		} else {
			a = append(a, x)
		}
	}
	mk := func(ts []ratings.Triple) *ratings.Dataset {
		m, err := ratings.New(d.Ratings.Rows(), d.Ratings.Cols(), ts)
		if err != nil {
			t.Fatal(err)
		}
		return &ratings.Dataset{Ratings: m, Users: d.Users, Items: d.Items, Min: d.Min, Max: d.Max}
	}
	return mk(a), mk(b)
}
