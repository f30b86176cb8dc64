package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/model"
)

// writeClicks writes a small implicit-feedback data set of two taste
// clusters (user<TAB>item pairs, no ratings) to dir: training pairs, test
// pairs (csv with a header), the item catalogue, and one new user's
// history of cluster-1 items. A repeated pair in the training file counts
// once.
func writeClicks(t *testing.T, dir string) (train, test, items, hist string) {
	t.Helper()
	var tr, te, cat, h strings.Builder
	te.WriteString("user,item\n")
	x := uint64(7)
	next := func(n int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int((x >> 33) % uint64(n))
	}
	const nItems = 60
	for j := range nItems {
		fmt.Fprintf(&cat, "i%d\n", j)
	}
	for u := range 400 {
		c := u % 2
		seen := map[int]bool{}
		for range 14 {
			var j int
			if next(4) == 0 {
				j = next(6) // the popular items 0–5, in both clusters
			} else {
				j = 6 + c*27 + next(27) // the user's cluster
			}
			if seen[j] {
				continue
			}
			seen[j] = true
			if next(5) == 0 {
				fmt.Fprintf(&te, "u%d,i%d\n", u, j)
			} else {
				fmt.Fprintf(&tr, "u%d\ti%d\n", u, j)
			}
		}
		fmt.Fprintf(&tr, "u%d\ti%d\n", u, 6+c*27) // some pairs twice
		fmt.Fprintf(&tr, "u%d\ti%d\n", u, 6+c*27)
	}
	for _, j := range []int{33, 34, 35, 40, 41} {
		fmt.Fprintf(&h, "me\ti%d\n", j)
	}
	train, test, items, hist = filepath.Join(dir, "clicks.tsv"), filepath.Join(dir, "clicks-test.csv"), filepath.Join(dir, "items.txt"), filepath.Join(dir, "me.tsv")
	for p, s := range map[string]string{train: tr.String(), test: te.String(), items: cat.String(), hist: h.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return train, test, items, hist
}

// TestPairsEndToEnd: a pairs-only file (no ratings) trains a ranking
// model (implicit data: the ranking objective, every pair a positive),
// evaluates it, saves it; recommend ranks for a user from a pairs
// history, differently from the popularity order; predict refuses the
// model; the rating objective and --positive are refused on such data.
func TestPairsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	train, test, items, hist := writeClicks(t, dir)
	save := filepath.Join(dir, "clicks.dpmc")
	out, stderr, code := dpmc(t, "train", "--data", train, "--test", test, "--privacy", "user", "--epsilon", "20", "--seed", "1", "--items", items, "--save", save)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"top-k ranking", "positives = every pair (implicit data)", "ranking: M = ", "fallback: no", "format pairs", "NDCG@10", "recall@20", "noisy popularity of the same release", "NOT private"} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	m, err := model.Load(save)
	if err != nil {
		t.Fatal(err)
	}
	if m.Ranking == nil || m.Ranking.K == 0 || len(m.ItemIDs) != 60 || m.HasRatings() {
		t.Fatalf("model: ranking %+v, %d items", m.Ranking, len(m.ItemIDs))
	}
	out, stderr, code = dpmc(t, "recommend", "--model", save, "--history", hist, "-k", "5")
	if code != 0 {
		t.Fatal(stderr)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("recommend line %q", line)
		}
		got = append(got, f[1])
	}
	own := []string{"i33", "i34", "i35", "i40", "i41"}
	order := make([]int, len(m.ItemIDs))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case m.Counts[a] > m.Counts[b]:
			return -1
		case m.Counts[a] < m.Counts[b]:
			return 1
		}
		return 0
	})
	var pop []string
	for _, j := range order {
		if id := m.ItemIDs[j]; !slices.Contains(own, id) && len(pop) < 5 {
			pop = append(pop, id)
		}
	}
	cluster := 0
	for _, id := range got {
		if slices.Contains(own, id) {
			t.Errorf("recommended %s from the history", id)
		}
		var j int
		fmt.Sscanf(id, "i%d", &j)
		if j >= 33 {
			cluster++
		}
	}
	if len(got) != 5 || slices.Equal(got, pop) || cluster < 3 {
		t.Errorf("recommend %v: popularity order %v; want mostly the history's cluster (items i33–i59)", got, pop)
	}
	// predict refuses a ranking-only model.
	_, stderr, code = dpmc(t, "predict", "--model", save, "--pairs", test)
	if code == 0 || !strings.Contains(stderr, "ranking model") || !strings.Contains(stderr, "no rating part") {
		t.Errorf("predict: code %d, %s", code, stderr)
	}
	// The rating objective, --positive and paper mode are refused on pairs.
	for _, args := range [][]string{
		{"--privacy", "user", "--epsilon", "5", "--objective", "rating"},
		{"--epsilon", "5", "--positive", "3"},
		{},
	} {
		_, stderr, code := dpmc(t, append([]string{"train", "--data", train}, args...)...)
		if code == 0 || !strings.Contains(stderr, "pairs without ratings") {
			t.Errorf("train %v on pairs: code %d, %s", args, code, stderr)
		}
	}
}

// TestTrainRankingRated: --objective ranking on rated data implies
// --privacy user, uses the default threshold 4 and reports the ranking
// part; the rating-only flags are refused.
func TestTrainRankingRated(t *testing.T) {
	args := append(userSmall[:len(userSmall):len(userSmall)], "--objective", "ranking", "--epsilon", "20", "--seed", "2")
	out, stderr, code := dpmc(t, args...)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"positives = a rating ≥ 4", "ranking:", "NDCG@10"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{{"--rank", "4"}, {"--privacy", "paper"}, {"--positive", "9"}} {
		_, stderr, code := dpmc(t, append(args[:len(args):len(args)], bad...)...)
		if code == 0 {
			t.Errorf("%v accepted", bad)
		} else if !strings.Contains(stderr, strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("%v: %s", bad, stderr)
		}
	}
}
