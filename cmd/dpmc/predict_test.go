package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/model"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// trainUserModel saves a seeded user-level model with factors.
func trainUserModel(t *testing.T) (*model.Model, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "user.dpmc")
	args := append(userSmall[:len(userSmall):len(userSmall)], "--privacy", "user", "--epsilon", "50", "--seed", "1", "--rank", "4", "--save", path)
	if _, stderr, code := dpmc(t, args...); code != 0 {
		t.Fatal(stderr)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	learned := false
	for j := range m.ItemIDs {
		learned = learned || slices.ContainsFunc(m.V[j*m.Rank:j*m.Rank+4], func(x float64) bool { return x != 0 })
	}
	if m.Rank != 4+len(m.Features) || len(m.Features) != 2 || !learned {
		t.Fatalf("model has rank %d (feature columns %q) and no nonzero learned factor: the test would not test the factors", m.Rank, m.Features)
	}
	return m, path
}

// recommend --history on a user-level model gives the top k of the
// scores computed in Go from V and the history: the user's part by
// userdp's FoldInAll on a one-user data set, the scores by a plain loop.
func TestRecommendHistoryMatchesFoldIn(t *testing.T) {
	m, path := trainUserModel(t)
	hist := filepath.Join(t.TempDir(), "me.tsv")
	var b strings.Builder
	var items []string
	var triples []ratings.Triple
	for p := range 25 {
		id := m.ItemIDs[(7*p)%len(m.ItemIDs)]
		if p == 24 {
			id = "not-in-the-model"
		}
		x := float64(1 + (p*3)%5)
		fmt.Fprintf(&b, "me\t%s\t%g\n", id, x)
		items = append(items, id)
		triples = append(triples, ratings.Triple{User: 0, Item: int32(p), Value: x})
	}
	os.WriteFile(hist, []byte(b.String()), 0o644)
	out, stderr, code := dpmc(t, "recommend", "--model", path, "--history", hist, "-k", "10", "--output-format", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var got model.Recommendation
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.User != "me" || got.HistoryRatings != 25 || got.HistoryUnknown != 1 || got.Excluded != 24 || len(got.Items) != 10 {
		t.Errorf("recommendation: %+v", got)
	}

	// The user's part, by userdp on a one-user data set.
	x, err := ratings.New(1, len(items), triples)
	if err != nil {
		t.Fatal(err)
	}
	iids, _ := ratings.NewIDs(items)
	ds := &ratings.Dataset{Ratings: x, Users: ratings.NumberedIDs(1, 1), Items: iids, Min: m.Min, Max: m.Max}
	res := &userdp.Result{Rank: m.Rank, Features: m.Features, Mu: m.Mu, ItemIDs: m.ItemIDs, ItemBias: m.ItemBias, TailBias: m.TailBias, V: m.V, Counts: m.Counts,
		BucketBias: m.BucketBias, BucketV: m.BucketV, Min: m.Min, Max: m.Max,
		UserLambda: m.Ridges.UserLambda, UserLambdaPerRating: m.Ridges.UserLambdaPerRating, UserBiasLambda: m.Ridges.UserBiasLambda}
	us := res.FoldInAll(ds)
	type sc struct {
		j int
		s float64
	}
	var all []sc
	for j, id := range m.ItemIDs {
		if slices.Contains(items, id) {
			continue
		}
		s := m.Mu + m.ItemBias[j] + us.Bias[0]
		for k := range m.Rank {
			s += us.U[k] * m.V[j*m.Rank+k]
		}
		all = append(all, sc{j, s})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].s > all[b].s })
	if math.Abs(got.UserBias-us.Bias[0]) > 1e-12 {
		t.Errorf("user bias %v, Go %v", got.UserBias, us.Bias[0])
	}
	for p, it := range got.Items {
		if it.ID != m.ItemIDs[all[p].j] || math.Abs(it.Score-all[p].s) > 1e-12 {
			t.Errorf("rank %d: %s %v, Go %s %v", p+1, it.ID, it.Score, m.ItemIDs[all[p].j], all[p].s)
		}
	}
	// Without a history a user-level model cannot recommend.
	if _, stderr, code := dpmc(t, "recommend", "--model", path, "--user", "me"); code != 1 || !strings.Contains(stderr, "holds no users") {
		t.Errorf("no history: exit %d, %q", code, stderr)
	}
}

// predict writes the file's IDs with the loaded model's predictions,
// bit for bit; unknown users and items are an error or a counted
// fallback; a rating column adds metrics on stderr.
func TestPredictPaper(t *testing.T) {
	dir := t.TempDir()
	mp := filepath.Join(dir, "paper.dpmc")
	if _, stderr, code := dpmc(t, append(small, "--seed", "4", "--save", mp)...); code != 0 {
		t.Fatal(stderr)
	}
	m, err := model.Load(mp)
	if err != nil {
		t.Fatal(err)
	}
	pairs := filepath.Join(dir, "pairs.csv")
	os.WriteFile(pairs, []byte("user,item,rating\n1,2,4\n3,4,5\n60,50,1\n7,nosuch,3\nnobody,1,2\n"), 0o644)
	_, stderr, code := dpmc(t, "predict", "--model", mp, "--pairs", pairs, "--columns", "user,item,rating")
	if code != 1 || !strings.Contains(stderr, pairs+`:5: unknown item "nosuch"`) {
		t.Errorf("--unknown error: exit %d, %q", code, stderr)
	}
	out, stderr, code := dpmc(t, "predict", "--model", mp, "--pairs", pairs, "--columns", "user,item,rating", "--unknown", "fallback")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "5 pairs; 1 with an unknown user, 1 with an unknown item") || !strings.Contains(stderr, "evaluation only (exact figures of --pairs, not private): RMSE") || !strings.Contains(stderr, "NDCG@10") {
		t.Errorf("stderr %q", stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("output %q", out)
	}
	for p, want := range [][2]string{{"1", "2"}, {"3", "4"}, {"60", "50"}} {
		f := strings.Split(lines[p], "\t")
		got, _ := strconv.ParseFloat(f[2], 64)
		i, _ := m.UserIndex(want[0])
		j, _ := m.Item(want[1])
		u, _ := m.UserAt(i)
		if f[0] != want[0] || f[1] != want[1] || math.Float64bits(got) != math.Float64bits(m.Predict(u, j)) {
			t.Errorf("line %d = %q, want %s %s %v", p+1, lines[p], want[0], want[1], m.Predict(u, j))
		}
	}
	j1, _ := m.Item("1")
	if m.Mean < 1 || m.Mean > 5 || lines[3] != "7\tnosuch\t"+strconv.FormatFloat(m.Mean, 'g', -1, 64) || lines[4] != "nobody\t1\t"+strconv.FormatFloat(m.Fallback(j1), 'g', -1, 64) {
		t.Errorf("fallback lines %q", lines[3:])
	}
	// --clip keeps every prediction in the rating range.
	out, _, _ = dpmc(t, "predict", "--model", mp, "--pairs", pairs, "--columns", "user,item,_", "--unknown", "fallback", "--clip")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		if x, _ := strconv.ParseFloat(f[2], 64); x < m.Min || x > m.Max {
			t.Errorf("clipped line %q", l)
		}
	}
}

// For a user-level model, predict folds each user in from --history and
// gives the same predictions as the library.
func TestPredictUserHistory(t *testing.T) {
	m, path := trainUserModel(t)
	dir := t.TempDir()
	hist, pairs := filepath.Join(dir, "h.tsv"), filepath.Join(dir, "p.tsv")
	os.WriteFile(hist, []byte(fmt.Sprintf("a\t%s\t5\na\t%s\t1\nb\t%s\t4\n", m.ItemIDs[0], m.ItemIDs[1], m.ItemIDs[2])), 0o644)
	os.WriteFile(pairs, []byte(fmt.Sprintf("a\t%s\nb\t%s\nc\t%s\n", m.ItemIDs[3], m.ItemIDs[4], m.ItemIDs[5])), 0o644)
	if _, stderr, code := dpmc(t, "predict", "--model", path, "--pairs", pairs, "--history", hist); code != 1 || !strings.Contains(stderr, `unknown user "c"`) {
		t.Errorf("user without history: exit %d, %q", code, stderr)
	}
	out, stderr, code := dpmc(t, "predict", "--model", path, "--pairs", pairs, "--history", hist, "--unknown", "fallback")
	if code != 0 || !strings.Contains(stderr, "2 users folded in") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	ua, _, _ := m.FoldIn(model.History{Items: []string{m.ItemIDs[0], m.ItemIDs[1]}, Ratings: []float64{5, 1}})
	want := fmt.Sprintf("a\t%s\t%s\n", m.ItemIDs[3], strconv.FormatFloat(m.Predict(ua, 3), 'g', -1, 64))
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, fmt.Sprintf("c\t%s\t%s\n", m.ItemIDs[5], strconv.FormatFloat(m.Fallback(5), 'g', -1, 64))) {
		t.Errorf("output %q, want it to start with %q", out, want)
	}
}

// train --json carries the test metrics: at the top level in paper mode,
// under the evaluation-only section in user mode.
func TestTrainJSONMetrics(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "r.tsv")
	var b strings.Builder
	for u := range 40 {
		for j := range 30 {
			if (u*7+j*3)%4 != 0 {
				fmt.Fprintf(&b, "%d\t%d\t%d\n", u, j, 1+(u+j)%5)
			}
		}
	}
	os.WriteFile(data, []byte(b.String()), 0o644)
	for _, c := range []struct {
		args []string
		path []string
	}{
		{[]string{"--algo", "als", "--rank", "2", "--iters", "2", "--mechanism", "none"}, []string{"test_metrics"}},
		{[]string{"--privacy", "user", "--mechanism", "none"}, []string{"evaluation_only_not_released", "test_metrics"}},
	} {
		args := append([]string{"train", "--data", data, "--test-fraction", "0.2", "--seed", "1", "--output-format", "json"}, c.args...)
		out, stderr, code := dpmc(t, args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		for _, k := range c.path {
			v, _ = v[k].(map[string]any)
		}
		if v == nil || v["k"] != 10.0 || v["ndcg_at_k"] == nil || v["map_at_k"] == nil || v["precision_at_k"] == nil || v["recall_at_k"] == nil || v["rmse"] == nil {
			t.Errorf("%v: test metrics %v", c.args, v)
		}
	}
}
