package userdp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
)

// rankStats returns the exact (pre-noise) statistics of the ranking
// objective on d under o (seeded, so that every other user draws the same
// subsets): the positive count of every candidate item, by ID, and the
// head Gram's upper triangle over the head items headIDs, by ID pair.
func rankStats(t *testing.T, d *ratings.Dataset, o Options, headIDs []string) (map[string]float64, map[[2]string]float64) {
	t.Helper()
	o.Seeded, o.Seed, o.Workers = true, 7, 1
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	rt := &rankTrainer{trainer: &trainer{Plan: p, workers: 1}}
	rt.prepare(d)
	counts, _ := rt.positiveCounts()
	cm := map[string]float64{}
	for c, v := range counts {
		cm[rt.candIDs[c]] = v
	}
	head := slices.Clone(headIDs)
	slices.SortFunc(head, CompareIDs)
	toRow := make([]int32, len(rt.candIDs))
	for c, id := range rt.candIDs {
		toRow[c] = int32(slices.Index(head, id))
	}
	m := len(head)
	g, err := rt.gram(context.Background(), toRow, m)
	if err != nil {
		t.Fatal(err)
	}
	gm := map[[2]string]float64{}
	for a := range m {
		for b := a; b < m; b++ {
			gm[[2]string{head[a], head[b]}] = g[a*m+b]
		}
	}
	return cm, gm
}

// l2Diff is the ℓ2 norm of the difference of two maps over the union of
// their keys.
func l2Diff[K comparable](a, b map[K]float64) float64 {
	var s float64
	for k, v := range a {
		d := v - b[k]
		s += d * d
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			s += v * v
		}
	}
	return math.Sqrt(s)
}

// neighbours is 40 users rating items i0–i19 at random, plus user "x"
// with the given ratings (item → rating); drop "x" for the neighbour.
func neighbours(t *testing.T, x map[string]string, drop string) *ratings.Dataset {
	g := rand.New(rand.NewPCG(3, 4))
	var rows [][3]string
	for u := range 40 {
		for k := range 20 {
			if g.IntN(3) == 0 {
				continue
			}
			rows = append(rows, [3]string{strconv.Itoa(u), "i" + strconv.Itoa(k), strconv.Itoa(1 + g.IntN(5))})
		}
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rows = append(rows, [3]string{"x", k, x[k]})
	}
	return dataset(t, rows, drop)
}

// Each new release moves by exactly its Δ₂ = 1 when one user is added
// (a user with any positive in the head, for the Gram), through the
// contribution subset and the head cap: the count vector by Σ 1/n = 1 over
// the n contributed positives, the Gram's upper triangle by
// √(m(m+1)/2·ω²) = 1 over the m capped head positives; and never more
// than the calibrated Δ₂′ that the report lists.
func TestRankingSensitivityAttained(t *testing.T) {
	many := map[string]string{"only1": "5", "only2": "4", "only3": "5"}
	for k := range 20 {
		many["i"+strconv.Itoa(k)] = strconv.Itoa(4 + k%2)
	}
	cases := []struct {
		name string
		x    map[string]string
	}{
		{"many positives (subset and head cap drawn)", many},
		{"one positive, an item only they rated", map[string]string{"only1": "5", "i3": "2", "i4": "1"}},
		{"only items only they rated", map[string]string{"only1": "4", "only2": "5", "only3": "4"}},
		{"one positive, a popular item", map[string]string{"i0": "5"}},
	}
	cat := []string{"only1", "only2", "only3"}
	for k := range 20 {
		cat = append(cat, "i"+strconv.Itoa(k))
	}
	head := []string{"only1", "only2", "i0", "i1", "i2", "i3", "i5", "i7", "i11", "i13", "i17"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := rankingOptions(1).WithCatalogue(cat)
			o.MaxItemsPerUser = 12
			o.Ranking.MaxHeadPositives = 5
			o.Ranking.MaxHead = len(head)
			o.Ranking.MinHead = 2
			full, without := neighbours(t, tc.x, ""), neighbours(t, tc.x, "x")
			c1, g1 := rankStats(t, full, o, head)
			c0, g0 := rankStats(t, without, o, head)
			dc, dg := l2Diff(c1, c0), l2Diff(g1, g0)
			if math.Abs(dc-1) > 1e-9 {
				t.Errorf("positive counts moved by %.12g, want exactly Δ₂ = 1", dc)
			}
			if math.Abs(dg-1) > 1e-9 {
				t.Errorf("head Gram moved by %.12g, want exactly Δ₂ = 1", dg)
			}
			res := train(t, full, o)
			var lc, lg float64
			for _, r := range res.Report.Releases {
				switch {
				case strings.HasPrefix(r.Name, "positive item counts"):
					lc = r.L2
				case strings.HasPrefix(r.Name, "head Gram"):
					lg = r.L2
				}
			}
			if !(dc <= lc && dg <= lg && lc < 1.001 && lg < 1.001) {
				t.Errorf("moved by %.6g and %.6g, but the report calibrates Δ₂′ = %.6g and %.6g", dc, dg, lc, lg)
			}
		})
	}
}

// clustered is a data set with co-occurrence structure: items form
// clusters, each user likes one cluster (ratings 4–5 there) and rates a
// few popular items elsewhere (1–5), with a Zipf-like popularity skew
// inside and across clusters. Each user's ratings are split 80/20 into
// train and test.
func clustered(t *testing.T, users, items, clusters, perUser int, seed uint64) (train, test *ratings.Dataset) {
	t.Helper()
	g := rand.New(rand.NewPCG(seed, 99))
	weight := make([]float64, items) // popularity skew
	for j := range weight {
		weight[j] = 1 / math.Pow(float64(j/clusters+1), 0.8)
	}
	draw := func(ok func(j int) bool) int {
		var tot float64
		for j, w := range weight {
			if ok(j) {
				tot += w
			}
		}
		x := g.Float64() * tot
		for j, w := range weight {
			if ok(j) {
				if x -= w; x <= 0 {
					return j
				}
			}
		}
		return items - 1
	}
	var tr, te [][3]string
	for u := range users {
		c := g.IntN(clusters)
		seen := map[int]bool{}
		for k := range perUser {
			own := k < perUser*3/4
			j := draw(func(j int) bool { return !seen[j] && (j%clusters == c) == own })
			seen[j] = true
			r := 4 + g.IntN(2)
			if !own {
				r = 1 + g.IntN(5)
			}
			row := [3]string{"u" + strconv.Itoa(u), "m" + strconv.Itoa(j), strconv.Itoa(r)}
			if g.Float64() < 0.2 {
				te = append(te, row)
			} else {
				tr = append(tr, row)
			}
		}
	}
	train = dataset(t, tr, "")
	// The test set indexes the training set's users and items.
	var triples []ratings.Triple
	uidx, iidx := map[string]int32{}, map[string]int32{}
	for i := range train.Users.Len() {
		uidx[train.Users.ID(i)] = int32(i)
	}
	for j := range train.Items.Len() {
		iidx[train.Items.ID(j)] = int32(j)
	}
	for _, r := range te {
		u, ok1 := uidx[r[0]]
		i, ok2 := iidx[r[1]]
		if !ok1 || !ok2 {
			continue
		}
		v, _ := strconv.ParseFloat(r[2], 64)
		triples = append(triples, ratings.Triple{User: u, Item: i, Value: v})
	}
	m, err := ratings.New(train.Users.Len(), train.Items.Len(), triples)
	if err != nil {
		t.Fatal(err)
	}
	return train, &ratings.Dataset{Ratings: m, Users: train.Users, Items: train.Items, Min: 1, Max: 5}
}

// On data with real co-occurrence structure the private ranking beats the
// noisy popularity of the same release (seed 1, ε = 5 with a catalogue,
// ε = 10 under private selection), and so does the non-private pipeline.
func TestRankingBeatsPopularitySynthetic(t *testing.T) {
	train, test := clustered(t, 1500, 240, 8, 30, 1)
	cat := make([]string, train.Items.Len())
	for j := range cat {
		cat[j] = train.Items.ID(j)
	}
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"catalogue, ε = 5", rankingOptions(5).WithCatalogue(cat)},
		{"selection, ε = 10", rankingOptions(10)},
		{"no noise", rankingOptions(math.Inf(1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Seeded, o.Seed = true, 1
			rank, pop, res := rankNDCG(t, o, train, test)
			t.Logf("NDCG@10 %.4f vs popularity %.4f; recall@20 %.4f vs %.4f; %d items, M = %d, k = %d, weights %.3g",
				rank[0], pop[0], rank[1], pop[1], len(res.ItemIDs), res.Ranking.Head(), res.Ranking.K, res.Ranking.Weights)
			if res.Ranking.K == 0 || !(rank[0] > 1.5*pop[0]) {
				t.Errorf("NDCG@10 %.4f (k = %d), want at least 1.5 × the noisy popularity's %.4f", rank[0], res.Ranking.K, pop[0])
			}
			if o.NoNoise && (res.Ranking.K != min(16, res.Ranking.Head()) || slices.ContainsFunc(res.Ranking.Weights, func(w float64) bool { return w != 1 })) {
				t.Errorf("no noise: k = %d with weights %v, want min(16, M) components of weight 1", res.Ranking.K, res.Ranking.Weights)
			}
		})
	}
}

// A seeded ranking run depends on the ratings and their IDs only: other
// row and column orders and other numbers of workers give the same
// release bit for bit, with contribution subsets and head caps drawn.
func TestRankingIndependentOfOrderAndWorkers(t *testing.T) {
	d, _ := clustered(t, 400, 120, 4, 40, 2)
	o := rankingOptions(20)
	o.Seeded, o.Seed = true, 11
	o.MaxItemsPerUser = 25
	o.Ranking.MaxHeadPositives = 10
	o.Workers = 1
	want := train(t, d, o)
	if want.Ranking.K == 0 || want.Ranking.Head() < 10 {
		t.Fatalf("degenerate release: M = %d, k = %d", want.Ranking.Head(), want.Ranking.K)
	}
	for k, seed := range []uint64{1, 2} {
		o.Workers = 2 + 3*k
		got := train(t, permuted(t, d, seed), o)
		a, b := got.Ranking, want.Ranking
		if !slices.Equal(got.ItemIDs, want.ItemIDs) || !slices.Equal(a.Counts, b.Counts) || !slices.Equal(a.HeadRow, b.HeadRow) ||
			!slices.Equal(a.V, b.V) || !slices.Equal(a.Weights, b.Weights) || a.K != b.K {
			t.Errorf("permutation %d, %d workers: the ranking release differs from the original order's", seed, o.Workers)
		}
	}
}

// Scores rank the head by the user's history, then the other released
// items by noisy count, and put the user's own history at −Inf; they
// match RankUsers.Score, and allocate nothing with a reused buffer.
func TestRankScores(t *testing.T) {
	r := &Ranking{
		Counts:  []float64{10, 3, 8, 1, 5},
		HeadRow: []int32{0, -1, 1, -1, 2},
		K:       1,
		V:       []float64{0.8, 0.6, -0.1}, // items 0, 2, 4
		Weights: []float64{0.5},
	}
	got := r.Scores([]int32{0, -1}, nil)
	if !math.IsInf(got[0], -1) {
		t.Errorf("history item scored %v, want -Inf", got[0])
	}
	// head: item 2 (0.6·0.8) > item 4 (−0.1·0.8); then item 1 (count 3) > item 3 (1).
	order := []int{2, 4, 1, 3}
	for k := 1; k < len(order); k++ {
		if !(got[order[k-1]] > got[order[k]]) {
			t.Errorf("scores %v: item %d not above item %d", got, order[k-1], order[k])
		}
	}
	if !(got[3] > UnreleasedScore) {
		t.Errorf("a released item scored %v, not above UnreleasedScore", got[3])
	}
	cold := r.Scores(nil, nil)
	if !(cold[0] > cold[2] && cold[2] > cold[4] && cold[4] > cold[1]) {
		t.Errorf("a user without history gets %v, want the head by count, then the rest", cold)
	}
	dst := make([]float64, 5)
	hist := []int32{2}
	if n := testing.AllocsPerRun(100, func() { r.Scores(hist, dst) }); n != 0 {
		t.Errorf("Scores allocated %v times per call", n)
	}
	// RankUsers.Score agrees with RankScores on a real release.
	d, _ := clustered(t, 300, 60, 3, 20, 5)
	o := rankingOptions(math.Inf(1))
	res := train(t, d, o)
	us := NewRankUsers(res.Ranking, res.ItemIDs, d)
	col := map[string]int32{}
	for j, id := range res.ItemIDs {
		col[id] = int32(j)
	}
	for i := range 20 {
		items, _ := d.Ratings.Row(i)
		h := make([]int32, len(items))
		for q, j := range items {
			h[q] = col[d.Items.ID(int(j))]
		}
		s := res.Ranking.Scores(h, nil)
		for j := range d.Items.Len() {
			want := s[col[d.Items.ID(j)]]
			if math.IsInf(want, -1) {
				continue
			}
			if d := us.Score(i, j) - want; math.Abs(d) > 1e-12 {
				t.Fatalf("user %d item %d: RankUsers.Score %v, RankScores %v", i, j, us.Score(i, j), want)
			}
		}
	}
}

// The report lists the three releases of the ranking objective, the
// guarantee meets the target, and with few users under private selection
// the whole budget goes to the counts (the fallback), which the report
// says.
func TestRankingReportAndFallback(t *testing.T) {
	d, _ := clustered(t, 1000, 100, 4, 20, 3)
	for _, tc := range []struct {
		eps      float64
		fallback bool
	}{{0.5, true}, {8, false}} {
		o := rankingOptions(tc.eps)
		res := train(t, d, o)
		rep := res.Report
		var names []string
		for _, r := range rep.Releases {
			names = append(names, r.Name)
		}
		want := 3
		if tc.fallback {
			want = 2
		}
		if len(names) != want || names[0] != "number of users" {
			t.Errorf("ε = %g: releases %q, want the number of users, the counts and (unless the fallback) the Gram", tc.eps, names)
		}
		if res.Ranking.Fallback != tc.fallback || tc.fallback != strings.Contains(rep.Ranking, "fallback") {
			t.Errorf("ε = %g: fallback %v, report %q; want fallback %v", tc.eps, res.Ranking.Fallback, rep.Ranking, tc.fallback)
		}
		if tc.fallback && (res.Ranking.K != 0 || res.Ranking.Head() != 0) {
			t.Errorf("ε = %g: the fallback released %d components over %d head items", tc.eps, res.Ranking.K, res.Ranking.Head())
		}
		if rep.TotalEpsilon > tc.eps*(1+1e-9) || rep.TotalDelta > 1e-6 {
			t.Errorf("ε = %g: total (%g, %g) exceeds the target", tc.eps, rep.TotalEpsilon, rep.TotalDelta)
		}
		if res.Rank != 0 || res.V != nil || len(res.ItemBias) != len(res.ItemIDs) {
			t.Errorf("ε = %g: the ranking release holds a rating part: rank %d", tc.eps, res.Rank)
		}
	}
}

// Implicit data: with Positive = −Inf every rated pair is a positive, so
// ratings below the default threshold still count.
func TestRankingImplicit(t *testing.T) {
	rows := [][3]string{{"a", "x", "1"}, {"a", "y", "1"}, {"b", "x", "2"}, {"c", "y", "5"}}
	d := dataset(t, rows, "")
	o := rankingOptions(math.Inf(1))
	res := train(t, d, o)
	if len(res.ItemIDs) != 1 || res.ItemIDs[0] != "y" {
		t.Errorf("threshold 4: released %v, want [y]", res.ItemIDs)
	}
	o.Positive = math.Inf(-1)
	res = train(t, d, o)
	if len(res.ItemIDs) != 2 || math.Abs(res.Ranking.Counts[0]-(1/math.Sqrt2+1)) > 1e-12 {
		t.Errorf("implicit: released %v with counts %v, want x and y with x's count 1/√2 + 1", res.ItemIDs, res.Ranking.Counts)
	}
}

// Bad ranking options are refused with ErrParam, naming the option.
func TestRankingOptionsValidated(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Options)
	}{
		{"objective", func(o *Options) { o.Objective = 7 }},
		{"positive", func(o *Options) { o.Positive = math.NaN() }},
		{"count share", func(o *Options) { o.Ranking.CountShare = 1.5 }},
		{"head size", func(o *Options) { o.Ranking.MinHead = 1 }},
		{"components", func(o *Options) { o.Ranking.Components = MaxComponents + 1 }},
		{"max head positives", func(o *Options) { o.Ranking.MaxHeadPositives = 0 }},
	} {
		o := rankingOptions(1)
		tc.set(&o)
		_, err := NewPlan(o)
		if !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: error %v, want ErrParam naming it", tc.name, err)
		}
	}
	if _, err := ParseObjective("ranking"); err != nil {
		t.Error(err)
	}
	if _, err := ParseObjective("rank"); !errors.Is(err, ErrParam) {
		t.Errorf("ParseObjective(rank): %v", err)
	}
}

// A Gram of rank one — three users with the same 1 000 positives, no
// noise — leaves the eigensolver blocks of nearly zero norm (a no-noise
// run on it once panicked inside gonum's Dsterf): the run completes, with
// one component along the common direction (every entry 1/√1000) and the
// rest an orthonormal basis of the zero eigenvalues.
func TestRankingRankOneGram(t *testing.T) {
	var rows [][3]string
	for _, u := range []string{"a", "b", "c"} {
		for j := range 1000 {
			rows = append(rows, [3]string{u, strconv.Itoa(j), "5"})
		}
	}
	res := train(t, dataset(t, rows, ""), rankingOptions(math.Inf(1)))
	rk := res.Ranking
	m := rk.Head()
	if m != 1000 || rk.K < 1 {
		t.Fatalf("M = %d, k = %d; want 1000 head items and components", m, rk.K)
	}
	if rk.Eigenvalues[0] <= 0 || (rk.K > 1 && math.Abs(rk.Eigenvalues[1]) > 1e-9*rk.Eigenvalues[0]) {
		t.Errorf("eigenvalues %v, want one positive, then zeros", rk.Eigenvalues)
	}
	for r := range m {
		if v := rk.V[r*rk.K]; math.Abs(v-1/math.Sqrt(1000)) > 1e-12 {
			t.Fatalf("first component, entry %d: %v, want 1/√1000", r, v)
		}
	}
	for c := range rk.K {
		for q := 0; q <= c; q++ {
			var dot float64
			for r := range m {
				dot += rk.V[r*rk.K+c] * rk.V[r*rk.K+q]
			}
			want := 0.0
			if c == q {
				want = 1
			}
			if math.Abs(dot-want) > 1e-9 {
				t.Fatalf("components %d, %d: dot %v, want %v", q, c, dot, want)
			}
		}
	}
}
