package utility

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/baseline"
	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/userdp"
)

// rankingConfigs are the tiny data set under both protocols, seeded
// (NOT private: tests only).
func rankingConfigs(t *testing.T) []RankingConfig {
	t.Helper()
	tr, te := tinySplit(t)
	d, err := ratings.New(tr.Ratings.Rows(), tr.Ratings.Cols(), append(tr.Ratings.Triples(), te.Ratings.Triples()...))
	if err != nil {
		t.Fatal(err)
	}
	all := *tr
	all.Ratings = d
	ho, err := ratings.SplitUsers(&all, ratings.UserSplit{Users: 100}, rng.Seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	base := RankingConfig{
		Name: "tiny", Private: DefaultPrivate(), Baselines: DefaultBaselines(50),
		Epsilons: []float64{1, 10}, Delta: 1e-6, Runs: 2, Seeded: true, Seed: 9,
	}
	given, held := base, base
	given.Protocol, given.Train, given.History, given.Test = "given split", tr, tr, te
	held.Protocol, held.Train, held.History, held.Test = "held-out users", ho.Train, ho.History, ho.Test
	return []RankingConfig{given, held}
}

func TestRunRanking(t *testing.T) {
	for _, c := range rankingConfigs(t) {
		t.Run(c.Protocol, func(t *testing.T) {
			res, err := RunRanking(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			// 4 baselines, 4 private series × 2 ε.
			if len(res.Points) != 12 {
				t.Fatalf("%d points, want 12", len(res.Points))
			}
			for _, p := range res.Points {
				for _, s := range []Stat{p.NDCG, p.Recall} {
					if !(s.Lo <= s.Mean && s.Mean <= s.Hi) || !(s.Mean >= 0 && s.Mean <= 1) {
						t.Errorf("%s at ε %g: %+v", p.Model, p.Epsilon, s)
					}
				}
				if p.Private != !math.IsInf(p.Epsilon, 1) || p.Private == strings.Contains(p.Model, "non-private") {
					t.Errorf("%s: private %v at ε %g", p.Model, p.Private, p.Epsilon)
				}
				if want := 1; !p.Private && len(p.NDCG.Runs) != want || p.Private && len(p.NDCG.Runs) != c.Runs {
					t.Errorf("%s: %d runs", p.Model, len(p.NDCG.Runs))
				}
			}
			// (No order of the models is asserted: the generator draws
			// which items a user rates by popularity alone, so popularity
			// is hard to beat on it.)
			pop := res.find(res.models(false)[0], false, 0).NDCG.Mean
			// The study's popularity is metrics.Evaluate's.
			want := metrics.Evaluate(c.History.Ratings, c.Test.Ratings, baseline.NewPopularity(c.Train.Ratings, 0), metrics.Options{K: 10, Ranking: true})
			if pop != want.NDCG || res.Ranked != want.Users {
				t.Errorf("popularity NDCG@10 %v over %d users, metrics.Evaluate %v over %d", pop, res.Ranked, want.NDCG, want.Users)
			}
			// Seeded runs are reproducible.
			c.Baselines, c.Private = nil, c.Private[:1]
			again, err := RunRanking(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range again.Points {
				if a := res.find(b.Model, true, b.Epsilon); a.NDCG.Mean != b.NDCG.Mean || a.Recall.Mean != b.Recall.Mean {
					t.Errorf("%s at ε %g: %v then %v", a.Model, a.Epsilon, a.NDCG, b.NDCG)
				}
			}
			var b bytes.Buffer
			if err := res.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"| popularity (non-private) | non-private |", "| ε = 10 |", "user-level (ε, δ)-DP", "NDCG@10:", "recall@20:", "seeded: NOT private"} {
				if !strings.Contains(b.String(), s) {
					t.Errorf("markdown misses %q:\n%s", s, b.String())
				}
			}
			for _, m := range []Metric{MetricNDCG, MetricRecall} {
				if err := res.WritePlot(filepath.Join(t.TempDir(), "p.svg"), m, "svg"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// The rating ranker folds a user in from their history exactly as
// userdp's own evaluation (FoldInAll, Score) does (its history's
// unreleased items by their tail buckets), and scores every item outside
// the release at the tail's score, below no released item's rule.
func TestRatingRankerMatchesUserdp(t *testing.T) {
	tr, _ := tinySplit(t)
	seed := uint64(4)
	hs, err := RatingRanker().Train(context.Background(), tr, 5, 1e-6, &seed)
	if err != nil {
		t.Fatal(err)
	}
	o := userdp.Defaults(5, 1e-6, tr.Min, tr.Max)
	o.Seeded, o.Seed = true, seed
	m, err := userdp.Train(context.Background(), tr, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.BucketBias) == 0 || len(m.ItemIDs) == tr.Items.Len() {
		t.Fatalf("%d tail buckets, %d of %d items released: the test needs both kinds of item", len(m.BucketBias), len(m.ItemIDs), tr.Items.Len())
	}
	us := m.FoldInAll(tr)
	dst := make([]float64, tr.Ratings.Cols())
	for _, i := range []int{0, 17, 399} {
		items, vs := tr.Ratings.Row(i)
		hs.ScoreInto(dst, items, vs.CopyTo(make([]float64, vs.Len())))
		for j := range dst {
			want := us.Score(i, j)
			if !slices.Contains(m.ItemIDs, tr.Items.ID(j)) {
				want = m.Mu + m.TailBias + us.Bias[i]
			}
			if math.Abs(dst[j]-want) > 1e-9 {
				t.Fatalf("user %d item %d: %v, userdp %v", i, j, dst[j], want)
			}
		}
	}
}

func TestRunRankingRefuses(t *testing.T) {
	c := rankingConfigs(t)[0]
	for _, tc := range []struct {
		name string
		edit func(*RankingConfig)
		want string
	}{
		{"no test", func(c *RankingConfig) { c.Test = nil }, "required"},
		{"one run", func(c *RankingConfig) { c.Runs = 1 }, "runs"},
		{"ε = 0", func(c *RankingConfig) { c.Epsilons = []float64{0} }, "epsilon"},
		{"mismatched history", func(c *RankingConfig) { c.History = c.Train; c.Test = rankingConfigs(t)[1].Test }, "do not match"},
	} {
		cc := c
		tc.edit(&cc)
		if _, err := RunRanking(context.Background(), cc); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// The report holds both studies, labels the baselines non-private, and
// its ranking JSON is recognised by CheckDir.
func TestReportAndCheckDir(t *testing.T) {
	c := rankingConfigs(t)[0]
	c.Private = []Ranker{DPPopularityRanker()}
	c.Baselines = DefaultBaselines(50)[:1]
	res, err := RunRanking(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rmse := &Result{Name: "rmse", Points: []Point{point(ModelMean, math.Inf(1), []float64{1}, ""), point(ModelDefault, 1, []float64{1.1, 1.2}, "no")}}
	if err := (&Report{Command: "dpmc utility", RMSE: []*Result{rmse}, Ranking: []*RankingResult{res}, RankingPlots: [][]string{{"a.png", "b.png"}}}).Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# Privacy–utility", "## Rating prediction", "## Top-k recommendation", "(a.png)", "(b.png)", "non-private", "held-out users"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report misses %q", s)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "utility-ranking1.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(dir, false); err != nil {
		t.Errorf("a folder of ranking results refused: %v", err)
	}
}
