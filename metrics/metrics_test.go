package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpmc/dpmc/ratings"
)

func matrix(t *testing.T, rows, cols int, tr []ratings.Triple) *ratings.Matrix {
	t.Helper()
	m, err := ratings.New(rows, cols, tr)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fixture: 3 users × 6 items. User 0 trained on items 0, 1 and holds out
// 2 (5 stars), 3 (2) and 4 (4); user 1 holds out only item 0 at 3 stars
// (no relevant item: skipped); user 2 trained on item 0, holds out 5 (4).
func fixture(t *testing.T) (train, test *ratings.Matrix, s ScorerFunc) {
	train = matrix(t, 3, 6, []ratings.Triple{{User: 0, Item: 0, Value: 4}, {User: 0, Item: 1, Value: 3}, {User: 1, Item: 2, Value: 5}, {User: 2, Item: 0, Value: 1}})
	test = matrix(t, 3, 6, []ratings.Triple{{User: 0, Item: 2, Value: 5}, {User: 0, Item: 3, Value: 2}, {User: 0, Item: 4, Value: 4}, {User: 1, Item: 0, Value: 3}, {User: 2, Item: 5, Value: 4}})
	scores := [3][6]float64{
		{9, 9, 0.9, 0.8, 0.1, 0.8}, // items 3 and 5 tie: 3 ranks first
		{0.3, 0, 0, 0, 0, 0},
		{9, 0.5, 0.9, 0.7, 0.1, 0.6},
	}
	return train, test, func(i, j int) float64 { return scores[i][j] }
}

// Hand-computed values (see the fixture): user 0 ranks 2, 3, 5, 4 with
// relevant {2, 4}; user 2 ranks 2, 3, 5, 1, 4 with relevant {5}.
func TestEvaluateByHand(t *testing.T) {
	train, test, s := fixture(t)
	l3 := 1 / math.Log2(3)
	se := (0.9-5)*(0.9-5) + (0.8-2)*(0.8-2) + (0.1-4)*(0.1-4) + (0.3-3)*(0.3-3) + (0.6-4)*(0.6-4)
	ae := 4.1 + 1.2 + 3.9 + 2.7 + 3.4
	for _, c := range []struct {
		k                  int
		p, r, ndcg, mapAtK float64
	}{
		// k = 2: user 0 gets [2, 3] (hit, miss), user 2 [2, 3] (no hit).
		{2, (0.5 + 0) / 2, (0.5 + 0) / 2, (1/(1+l3) + 0) / 2, (0.5 + 0) / 2},
		// k = 3: user 0 [2, 3, 5]; user 2 [2, 3, 5] (hit at 3).
		{3, (1.0/3 + 1.0/3) / 2, (0.5 + 1) / 2, (1/(1+l3) + 0.5) / 2, (0.5 + 1.0/3) / 2},
		// k = 1: user 0 [2] (hit), user 2 [2] (miss).
		{1, 0.5, (0.5 + 0) / 2, 0.5, 0.5},
		// k = 10 (more than the candidates): user 0 [2, 3, 5, 4] hits at
		// 1 and 4; user 2 [2, 3, 5, 1, 4] hits at 3.
		{10, (0.2 + 0.1) / 2, (1 + 1) / 2, ((1+1/math.Log2(5))/(1+l3) + 0.5) / 2, ((1+2.0/4)/2 + 1.0/3) / 2},
	} {
		r := Evaluate(train, test, s, Options{K: c.k, Ranking: true})
		if r.Users != 2 || r.Ratings != 5 || r.Threshold != 4 {
			t.Errorf("k=%d: %d users, %d ratings, threshold %v", c.k, r.Users, r.Ratings, r.Threshold)
		}
		for _, m := range []struct {
			name      string
			got, want float64
		}{
			{"precision", r.Precision, c.p}, {"recall", r.Recall, c.r}, {"ndcg", r.NDCG, c.ndcg}, {"map", r.MAP, c.mapAtK},
			{"rmse", r.RMSE, math.Sqrt(se / 5)}, {"mae", r.MAE, ae / 5},
		} {
			if math.Abs(m.got-m.want) > 1e-12 {
				t.Errorf("k=%d %s = %v, want %v", c.k, m.name, m.got, m.want)
			}
		}
	}
	// A threshold of 5 leaves user 0 with one relevant item (2) and no
	// one else: precision@10 = 1/10, NDCG 1, MAP 1.
	r := Evaluate(train, test, s, Options{Threshold: 5, Ranking: true})
	if r.Users != 1 || r.K != 10 || math.Abs(r.Precision-0.1) > 1e-15 || r.NDCG != 1 || r.MAP != 1 || r.Recall != 1 {
		t.Errorf("threshold 5: %+v", r)
	}
	// Without Ranking, ranking metrics are NaN and null in JSON.
	r = Evaluate(train, test, s, Options{})
	if !math.IsNaN(r.NDCG) || r.NDCGJSON != nil || r.RMSEJSON == nil {
		t.Errorf("no ranking: %+v", r)
	}
}

func TestAtK(t *testing.T) {
	l3, l4 := 1/math.Log2(3), 1/math.Log2(4)
	for _, c := range []struct {
		hits          []bool
		nrel, k       int
		p, r, nd, apk float64
	}{
		{[]bool{true, true, true}, 3, 3, 1, 1, 1, 1},
		{[]bool{false, false, false}, 2, 3, 0, 0, 0, 0},
		{[]bool{false, true, false, true}, 2, 4, 0.5, 1, (l3 + 1/math.Log2(5)) / (1 + l3), (0.5 + 0.5) / 2},
		{[]bool{true, false, true}, 5, 3, 2.0 / 3, 0.4, (1 + l4) / (1 + l3 + l4), (1 + 2.0/3) / 3},
		{[]bool{true}, 1, 5, 0.2, 1, 1, 1}, // fewer candidates than k
	} {
		p, r, nd, apk := AtK(c.hits, c.nrel, c.k)
		if math.Abs(p-c.p) > 1e-12 || math.Abs(r-c.r) > 1e-12 || math.Abs(nd-c.nd) > 1e-12 || math.Abs(apk-c.apk) > 1e-12 {
			t.Errorf("AtK(%v, %d, %d) = %v %v %v %v, want %v %v %v %v", c.hits, c.nrel, c.k, p, r, nd, apk, c.p, c.r, c.nd, c.apk)
		}
	}
}

func TestTopK(t *testing.T) {
	s := []float64{1, 3, 3, 2, 5}
	got := TopK(len(s), 3, func(j int) float64 { return s[j] }, func(j int) bool { return j == 4 })
	want := []Scored{{1, 3}, {2, 3}, {3, 2}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("TopK = %v, want %v", got, want)
	}
}

// TestTopKHugeK: a k far above the number of items (math.MaxInt, as a
// caller's flag may give) returns every item, without allocating for k.
func TestTopKHugeK(t *testing.T) {
	s := []float64{1, 3, 2}
	for _, k := range []int{4, 1 << 43, math.MaxInt} {
		got := TopK(len(s), k, func(j int) float64 { return s[j] }, nil)
		if len(got) != 3 || got[0].Item != 1 || got[2].Item != 0 {
			t.Errorf("k = %d: TopK = %v", k, got)
		}
	}
}

// TestTopKMatchesSort holds TopK to a full sort by Before, on scores with
// many ties, for k below, at and above the number of items kept.
func TestTopKMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n, k := r.IntN(40), r.IntN(12)
		s := make([]float64, n)
		for j := range s {
			s[j] = float64(r.IntN(5)) // ties on purpose
		}
		skip := func(j int) bool { return j%7 == trial%7 }
		var want []Scored
		for j := range n {
			if !skip(j) {
				want = append(want, Scored{j, s[j]})
			}
		}
		slices.SortFunc(want, func(a, b Scored) int {
			if Before(a, b) {
				return -1
			}
			return 1
		})
		want = want[:min(k, len(want))]
		got := TopK(n, k, func(j int) float64 { return s[j] }, skip)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("trial %d (n %d, k %d): TopK = %v, want %v", trial, n, k, got, want)
		}
	}
}

// A ranked user costs no allocation: an evaluation ranks every test user.
func TestRankerAllocs(t *testing.T) {
	train, test, s := fixture(t)
	rk := newRanker(test.Cols(), 3)
	o := Options{K: 3, Threshold: 4}
	if a := testing.AllocsPerRun(100, func() { rk.user(train, test, s, o, 0) }); a != 0 {
		t.Errorf("ranking a user allocates %v times", a)
	}
}

// The ranking metrics do not depend on the number of workers.
func TestWorkers(t *testing.T) {
	train, test, s := fixture(t)
	a := Evaluate(train, test, s, Options{K: 3, Ranking: true, Workers: 1})
	for _, w := range []int{2, 3, 8} {
		b := Evaluate(train, test, s, Options{K: 3, Ranking: true, Workers: w})
		if a.Precision != b.Precision || a.Recall != b.Recall || a.NDCG != b.NDCG || a.MAP != b.MAP || a.Users != b.Users {
			t.Errorf("workers %d: %+v, want %+v", w, b, a)
		}
	}
}

// Ranking in batches of rankBatch users gives, bit for bit, the sums of
// one pass over every user in user order (the evaluation before batches),
// at every worker count, with the last batch partial.
func TestRankBatches(t *testing.T) {
	const rows, cols = 2*rankBatch + 123, 40
	rnd := rand.New(rand.NewPCG(7, 8))
	var tr, te []ratings.Triple
	for i := range rows {
		for j := range cols {
			switch rnd.IntN(8) {
			case 0:
				tr = append(tr, ratings.Triple{User: int32(i), Item: int32(j), Value: float64(1 + rnd.IntN(5))})
			case 1:
				te = append(te, ratings.Triple{User: int32(i), Item: int32(j), Value: float64(1 + rnd.IntN(5))})
			}
		}
	}
	train, test := matrix(t, rows, cols, tr), matrix(t, rows, cols, te)
	s := ScorerFunc(func(i, j int) float64 { return math.Sin(float64(i*cols + j)) })
	o := Options{K: 5, Ranking: true}.withDefaults()
	rk := newRanker(cols, o.K)
	var sum [4]float64
	users := 0
	for i := range rows {
		if m, ok := rk.user(train, test, s, o, i); ok {
			users++
			for k := range sum {
				sum[k] += m[k]
			}
		}
	}
	if users <= rankBatch {
		t.Fatalf("fixture ranks only %d users", users)
	}
	n := float64(users)
	for _, w := range []int{1, 2, 3, 7} {
		o.Workers = w
		got := Evaluate(train, test, s, o)
		if got.Users != users || got.Precision != sum[0]/n || got.Recall != sum[1]/n || got.NDCG != sum[2]/n || got.MAP != sum[3]/n {
			t.Errorf("workers %d: %d users, %v %v %v %v; want %d, %v %v %v %v", w, got.Users,
				got.Precision, got.Recall, got.NDCG, got.MAP, users, sum[0]/n, sum[1]/n, sum[2]/n, sum[3]/n)
		}
	}
}
