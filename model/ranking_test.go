package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// rankingModel trains a seeded ranking model (public catalogue) on train.
func rankingModel(t testing.TB, train *ratings.Dataset, noNoise bool) (*Model, *userdp.Result) {
	t.Helper()
	cat := make([]string, train.Items.Len())
	for j := range cat {
		cat[j] = train.Items.ID(j)
	}
	o := userdp.Defaults(5, 1e-6, train.Min, train.Max).WithCatalogue(cat)
	o.Objective = userdp.ObjectiveRanking
	o.Seeded, o.Seed, o.NoNoise = true, 4, noNoise
	res, err := userdp.Train(context.Background(), train, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ranking == nil || res.Ranking.K == 0 {
		t.Fatalf("ranking %+v: no components, the tests would not test them", res.Ranking)
	}
	m, err := FromUserLevel(res, o)
	if err != nil {
		t.Fatal(err)
	}
	return m, res
}

// TestRankingRoundTrip: a ranking model's file holds its ranking part
// exactly, scores as the release does, holds nothing per user, and
// refuses rating predictions.
func TestRankingRoundTrip(t *testing.T) {
	train, _ := split(t)
	names := make([]string, train.Users.Len())
	for i := range names {
		names[i] = fmt.Sprintf("person-%d", i)
	}
	var err error
	if train.Users, err = ratings.NewIDs(names); err != nil {
		t.Fatal(err)
	}
	m, res := rankingModel(t, train, false)
	got, path := saveLoad(t, m)
	r, g := m.Ranking, got.Ranking
	if g == nil || g.K != r.K || !slices.Equal(g.Head, r.Head) || !slices.Equal(g.V, r.V) || !slices.Equal(g.Weights, r.Weights) ||
		!slices.Equal(g.Eigenvalues, r.Eigenvalues) || g.Edge != r.Edge || g.Fallback != r.Fallback || g.Positive != 4 || !slices.Equal(got.Counts, m.Counts) {
		t.Fatalf("ranking part changed in the round trip: %+v", g)
	}
	if got.HasRatings() || m.Rank != 0 {
		t.Error("a ranking model has a rating part")
	}
	hist := []int32{0, 3, 7, 11, 40}
	want := userdp.RankScores(res.Ranking.Counts, res.Ranking.HeadRow, res.Ranking.V, res.Ranking.K, res.Ranking.Weights, hist, nil)
	if s := got.RankScores(hist, false, nil); !slices.Equal(s, want) {
		t.Error("the loaded model scores differently from the release")
	}
	// Nothing per user in the file.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("person-")) {
		t.Error("the file holds a user ID")
	}
	h := readHeader(t, b)
	var arrays []string
	for _, a := range h.Arrays {
		arrays = append(arrays, a.Name)
	}
	if h.Users != 0 || h.Ranking == nil || !slices.Equal(arrays, []string{"item_ids", "item_bias", "v", "noisy_counts", "rank_head", "rank_v", "rank_weights", "rank_eigenvalues"}) {
		t.Errorf("header: %d users, ranking %+v, arrays %v", h.Users, h.Ranking, arrays)
	}
	// Rating predictions are refused.
	if _, _, err := got.PredictPairs(context.Background(), []Pair{{User: "a", Item: m.ItemIDs[0]}}, PredictOptions{}); !errors.Is(err, ErrNoRatings) {
		t.Errorf("PredictPairs: %v, want ErrNoRatings", err)
	}
	if _, _, err := got.FoldIn(History{Items: m.ItemIDs[:1], Ratings: []float64{4}}); !errors.Is(err, ErrNoRatings) {
		t.Errorf("FoldIn: %v, want ErrNoRatings", err)
	}
	// A flipped bit of the ranking header is caught.
	at := bytes.Index(b, []byte(`"edge": `))
	b[at+len(`"edge": `)] ^= 0x01
	if _, err := Read(bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("flipped ranking header: %v", err)
	}
	// Implicit data: the threshold is written as null and read as −Inf.
	m.Ranking.Positive = math.Inf(-1)
	got, _ = saveLoad(t, m)
	if !math.IsInf(got.Ranking.Positive, -1) {
		t.Errorf("positive %v, want -Inf", got.Ranking.Positive)
	}
}

// TestRecommendRanking: a ranking model ranks for a user from the user's
// history, differently from the popularity order, leaves the history
// out, and works from a history without ratings.
func TestRecommendRanking(t *testing.T) {
	train, _ := split(t)
	m, _ := rankingModel(t, train, true)
	pop := slices.Clone(m.Counts)
	order := make([]int, len(pop))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case pop[a] > pop[b]:
			return -1
		case pop[a] < pop[b]:
			return 1
		}
		return 0
	})
	// A user of the training set, by the user's own items.
	items, _ := train.Ratings.Row(5)
	h := History{}
	for _, j := range items {
		h.Items = append(h.Items, train.Items.ID(int(j)))
		h.Ratings = append(h.Ratings, math.NaN()) // pairs: no ratings
	}
	rec, err := m.RecommendUser(Request{User: "u", History: &h, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Items) != 10 || rec.Excluded != len(h.Items) {
		t.Fatalf("%d items, %d excluded", len(rec.Items), rec.Excluded)
	}
	var popTop []string
	for _, j := range order {
		if !slices.Contains(h.Items, m.ItemIDs[j]) {
			popTop = append(popTop, m.ItemIDs[j])
		}
		if len(popTop) == 10 {
			break
		}
	}
	var got []string
	for _, s := range rec.Items {
		got = append(got, s.ID)
		if slices.Contains(h.Items, s.ID) {
			t.Errorf("recommended %s from the history", s.ID)
		}
	}
	if slices.Equal(got, popTop) {
		t.Errorf("the ranking model recommends the popularity order %v", got)
	}
	if _, err := m.RecommendUser(Request{User: "u", K: 10}); err == nil || !strings.Contains(err.Error(), "history") {
		t.Errorf("no history: %v", err)
	}
	all, err := m.RecommendUser(Request{User: "u", History: &h, K: len(m.ItemIDs), IncludeRated: true})
	if err != nil || len(all.Items) != len(m.ItemIDs) {
		t.Errorf("include rated: %v, %d items", err, len(all.Items))
	}
}
