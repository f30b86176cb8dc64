package synthetic_test

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmc/dpmc/baseline"
	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
)

func hashOf(t *testing.T, g synthetic.Realistic) uint64 {
	t.Helper()
	d, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	h := fnv.New64a()
	for x := range d.Ratings.All() {
		var b [12]byte
		u, i, v := uint32(x.User), uint32(x.Item), uint32(x.Value*2)
		for k := range 4 {
			b[k], b[4+k], b[8+k] = byte(u>>(8*k)), byte(i>>(8*k)), byte(v>>(8*k))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// The fitted generator is deterministic per seed, and seeds differ.
func TestRealisticDeterministic(t *testing.T) {
	a, b := hashOf(t, synthetic.DefaultRealistic(150, 7)), hashOf(t, synthetic.DefaultRealistic(150, 7))
	if a != b {
		t.Error("same seed, different data")
	}
	if c := hashOf(t, synthetic.DefaultRealistic(150, 8)); c == a {
		t.Error("different seeds, same data")
	}
}

// LegacyRealistic is the generator of issues up to 25, unchanged: this
// is the hash of the old DefaultRealistic(300, 1).
func TestLegacyRealisticUnchanged(t *testing.T) {
	if got, want := hashOf(t, synthetic.LegacyRealistic(300, 1)), uint64(legacyHash300); got != want {
		t.Errorf("LegacyRealistic(300, 1) hash %#x, want %#x (the generator before issue 26)", got, want)
	}
}

// The shapes of MovieLens 100k and 1M stay available.
func TestRealisticShapes(t *testing.T) {
	for _, c := range []struct{ users, items, median int }{{943, 1682, 65}, {6040, 3706, 96}} {
		g := synthetic.DefaultRealistic(c.users, 1)
		if g.Items != c.items || int(math.Round(float64(g.MinPerUser)+g.UserMedian)) != c.median {
			t.Errorf("%d users: %d items and median activity %.1f, want %d and %d", c.users, g.Items, float64(g.MinPerUser)+g.UserMedian, c.items, c.median)
		}
	}
}

// At 300 users the fitted generator's statistics are within bands
// around MovieLens 100k's (docs/generator.md), and its co-occurrence
// structure lets EASE beat popularity by a margin, as on real data.
func TestRealisticStatistics(t *testing.T) {
	g := synthetic.DefaultRealistic(300, 1)
	d, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	s := synthetic.Describe(d.Ratings, 0)
	for k, h := range g.Hist {
		if math.Abs(s.Hist[k]-h) > 0.003 {
			t.Errorf("%d stars: fraction %.4f, want %.3f ± 0.003", k+1, s.Hist[k], h)
		}
	}
	band := func(name string, x, lo, hi float64) {
		if !(x >= lo && x <= hi) {
			t.Errorf("%s = %.3f, want in [%g, %g]", name, x, lo, hi)
		}
	}
	band("min activity", s.Activity.Min, 20, 21)
	band("median activity", s.Activity.Median, 45, 75)
	band("activity Gini", s.Activity.Gini, 0.38, 0.55)
	band("popularity Gini", s.Popularity.Gini, 0.5, 0.72)
	band("corr(log popularity, item mean)", s.PopularityCorr, 0.35, 0.7)
	band("corr(log activity, user mean)", s.ActivityCorr, -0.3, 0.1)
	band("bias-model RMSE", s.BiasRMSE, 0.86, 0.98)
	band("per-user residual SD", s.UserSD, 0.82, 0.98)
	band("SD of log per-user residual SD", s.UserSDSpread, 0.15, 0.3)

	ndcg := func(g synthetic.Realistic) (pop, ease float64) {
		d, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		tr, te, err := ratings.Split(d, 0.2, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		o := metrics.Options{K: 10, Ranking: true}
		pop = metrics.Evaluate(tr.Ratings, te.Ratings, baseline.NewPopularity(tr.Ratings, 0), o).NDCG
		e, err := baseline.FitEASE(tr.Ratings, baseline.EASEOptions{Lambda: 500})
		if err != nil {
			t.Fatal(err)
		}
		return pop, metrics.Evaluate(tr.Ratings, te.Ratings, e, o).NDCG
	}
	pop, ease := ndcg(g)
	t.Logf("300 users: NDCG@10 popularity %.3f, EASE %.3f", pop, ease)
	if ease < 1.4*pop {
		t.Errorf("NDCG@10 EASE %.3f, popularity %.3f: want EASE ≥ 1.4 × popularity (co-occurrence structure)", ease, pop)
	}
}

func TestRealisticErrors(t *testing.T) {
	ok := synthetic.DefaultRealistic(100, 1)
	for name, f := range map[string]func(*synthetic.Realistic){
		"version":     func(g *synthetic.Realistic) { g.Version = 3 },
		"users":       func(g *synthetic.Realistic) { g.Users = 0 },
		"exposure":    func(g *synthetic.Realistic) { g.Exposure = -1 },
		"rank":        func(g *synthetic.Realistic) { g.ExposureRank = -1 },
		"correlation": func(g *synthetic.Realistic) { g.ItemBiasCorr = 1.5 },
		"histogram":   func(g *synthetic.Realistic) { g.Hist[2] = math.NaN() },
		"spread":      func(g *synthetic.Realistic) { g.NoiseSpread = math.Inf(1) },
	} {
		g := ok
		f(&g)
		if _, err := g.Generate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// hash300v2 is the hash of DefaultRealistic(300, 1) before users had a
// slope on popularity and a scale on the item biases (commit 4bfe0ce).
const hash300v2 = 0x94e02ac40c49761d

// PopularitySlope and BiasScale 0 draw nothing: the data are those of
// the generator before they existed, bit for bit. With the defaults the
// data differ, and users' slopes on popularity and on the item bias
// spread as on MovieLens 100k (0.140 and 0.388 there; 0.149 and 0.382 at
// 943 users, docs/generator.md), against 0.054 and 0.087 without.
func TestUserSlopes(t *testing.T) {
	flat := func(users int) synthetic.Realistic {
		g := synthetic.DefaultRealistic(users, 1)
		g.PopularitySlope, g.BiasScale = 0, 0
		return g
	}
	if got := hashOf(t, flat(300)); got != hash300v2 {
		t.Errorf("PopularitySlope and BiasScale 0: hash %#x, want %#x (the data before them)", got, uint64(hash300v2))
	}
	if got := hashOf(t, synthetic.DefaultRealistic(300, 1)); got == hash300v2 {
		t.Error("the default slopes changed nothing")
	}
	stats := func(g synthetic.Realistic) synthetic.Stats {
		d, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		return synthetic.Describe(d.Ratings, 0)
	}
	with, without := stats(synthetic.DefaultRealistic(943, 1)), stats(flat(943))
	t.Logf("943 users: SD of users' slopes on popularity %.3f and on the item bias %.3f with the defaults, %.3f and %.3f without",
		with.PopularitySlopeSD, with.BiasSlopeSD, without.PopularitySlopeSD, without.BiasSlopeSD)
	if !(with.PopularitySlopeSD > 0.11 && with.PopularitySlopeSD < 0.18) || !(without.PopularitySlopeSD < 0.08) {
		t.Errorf("SD of users' slopes on popularity %.3f (want in (0.11, 0.18)) with the defaults, %.3f (want < 0.08) without", with.PopularitySlopeSD, without.PopularitySlopeSD)
	}
	if !(with.BiasSlopeSD > 0.3 && with.BiasSlopeSD < 0.46) || !(without.BiasSlopeSD < 0.15) {
		t.Errorf("SD of users' slopes on the item bias %.3f (want in (0.3, 0.46)) with the defaults, %.3f (want < 0.15) without", with.BiasSlopeSD, without.BiasSlopeSD)
	}
	for _, bad := range []func(*synthetic.Realistic){
		func(g *synthetic.Realistic) { g.PopularitySlope = -1 },
		func(g *synthetic.Realistic) { g.BiasScale = math.NaN() },
	} {
		g := synthetic.DefaultRealistic(300, 1)
		bad(&g)
		if _, err := g.Generate(); err == nil {
			t.Errorf("%+v accepted", g)
		}
	}
}

// On MovieLens 100k the statistics the slopes are fitted to are 0.140
// and 0.388.
func TestUserSlopesMovieLens(t *testing.T) {
	all, _, _ := movieLens(t)
	s := synthetic.Describe(all.Ratings, 0)
	if math.Abs(s.PopularitySlopeSD-0.140) > 0.0015 || math.Abs(s.BiasSlopeSD-0.388) > 0.0015 {
		t.Errorf("MovieLens 100k: SD of users' slopes on popularity %.4f and on the item bias %.4f, want 0.140 and 0.388 (docs/generator.md)", s.PopularitySlopeSD, s.BiasSlopeSD)
	}
}
