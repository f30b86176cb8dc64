package metrics

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/dpmc/dpmc/ratings"
)

// Scorer predicts a rating for user i and item j, the row and column
// indices of the matrices given to Evaluate. Evaluate calls it from
// several goroutines at once (Options.Workers).
type Scorer interface {
	Predict(i, j int) float64
}

// ScorerFunc adapts a function to Scorer.
type ScorerFunc func(i, j int) float64

// Predict returns f(i, j).
func (f ScorerFunc) Predict(i, j int) float64 { return f(i, j) }

// Options are the ranking settings; the zero value means the defaults.
type Options struct {
	// K is the length of the ranked list (default 10).
	K int
	// Threshold is the lowest held-out rating that counts as relevant,
	// in rating units (default 4; must be set explicitly for other
	// scales).
	Threshold float64
	// Ranking asks for the ranking metrics besides the errors; they cost
	// one prediction per user and item.
	Ranking bool
	// Clip, if set, clips predictions to [ClipMin, ClipMax] for RMSE and
	// MAE only; ranking always uses the raw scores (clipping would tie
	// every score above the range).
	Clip             bool
	ClipMin, ClipMax float64
	// Workers is the number of goroutines ranking users (default: all
	// cores); the result does not depend on it. The Scorer must then be
	// safe for concurrent use.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.K <= 0 {
		o.K = 10
	}
	if o.Threshold == 0 {
		o.Threshold = 4
	}
	return o
}

// String returns the metrics on one line, e.g. "RMSE 0.9512, MAE 0.7490;
// precision@10 0.0712, recall@10 0.0520, NDCG@10 0.0893, MAP@10 0.0391
// over 459 users with a held-out rating ≥ 4".
func (r Result) String() string {
	f := func(x float64) string {
		if math.IsNaN(x) {
			return "—"
		}
		return strconv.FormatFloat(x, 'f', 4, 64)
	}
	s := fmt.Sprintf("RMSE %s, MAE %s", f(r.RMSE), f(r.MAE))
	if !math.IsNaN(r.NDCG) || r.Users > 0 {
		s += fmt.Sprintf("; precision@%d %s, recall@%d %s, NDCG@%d %s, MAP@%d %s over %d users with a held-out rating ≥ %g",
			r.K, f(r.Precision), r.K, f(r.Recall), r.K, f(r.NDCG), r.K, f(r.MAP), r.Users, r.Threshold)
	}
	return s
}

// Result holds the metrics of one evaluation. NaN marks a metric without
// data (no held-out rating, no user with a relevant item, or ranking not
// asked for); JSON renders it as null through the *JSON fields.
type Result struct {
	// Ratings is the number of held-out ratings; RMSE and MAE are in
	// rating units.
	Ratings int     `json:"ratings"`
	RMSE    float64 `json:"-"`
	MAE     float64 `json:"-"`
	// K and Threshold are the ranking settings used; Users the number of
	// users ranked (those with a relevant held-out item).
	K         int     `json:"k"`
	Threshold float64 `json:"relevance_threshold"`
	Users     int     `json:"ranked_users"`
	Precision float64 `json:"-"`
	Recall    float64 `json:"-"`
	NDCG      float64 `json:"-"`
	MAP       float64 `json:"-"`

	RMSEJSON      *float64 `json:"rmse"`
	MAEJSON       *float64 `json:"mae"`
	PrecisionJSON *float64 `json:"precision_at_k"`
	RecallJSON    *float64 `json:"recall_at_k"`
	NDCGJSON      *float64 `json:"ndcg_at_k"`
	MAPJSON       *float64 `json:"map_at_k"`
}

// Errors returns the RMSE and MAE of p over the ratings of test (both NaN
// without ratings).
func Errors(test *ratings.Matrix, p Scorer) (rmse, mae float64) {
	var se, ae float64
	n := 0
	for i := range test.Rows() {
		items, vals := test.Row(i)
		for k, j := range items {
			d := p.Predict(i, int(j)) - vals.At(k)
			se += d * d
			ae += math.Abs(d)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return math.Sqrt(se / float64(n)), ae / float64(n)
}

// Evaluate measures p on the held-out ratings test, with train (same
// users and items; nil for none) the ratings the model saw: errors
// always, ranking metrics if o.Ranking (see the package doc for the
// conventions).
func Evaluate(train, test *ratings.Matrix, p Scorer, o Options) Result {
	o = o.withDefaults()
	r := Result{Ratings: test.Len(), K: o.K, Threshold: o.Threshold}
	ep := p
	if o.Clip {
		ep = ScorerFunc(func(i, j int) float64 { return math.Min(math.Max(p.Predict(i, j), o.ClipMin), o.ClipMax) })
	}
	r.RMSE, r.MAE = Errors(test, ep)
	r.Precision, r.Recall, r.NDCG, r.MAP = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if o.Ranking {
		r.rank(train, test, p, o)
	}
	r.fillJSON()
	return r
}

// rankBatch is the number of users rank handles at a time: each batch's
// per-user metrics are summed before the next batch is ranked, so the
// scratch is 33 bytes a batch user, not a user of the matrix.
const rankBatch = 4096

// rank computes the ranking metrics, users split over o.Workers
// goroutines in batches of rankBatch consecutive users; each user's
// metrics are summed in user order afterwards, so the result does not
// depend on the number of workers or the batch size.
func (r *Result) rank(train, test *ratings.Matrix, p Scorer, o Options) {
	rows := test.Rows()
	batch := min(rows, rankBatch)
	per := make([][4]float64, batch)
	ranked := make([]bool, batch)
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, batch))
	rankers := make([]*ranker, workers)
	for w := range rankers {
		rankers[w] = newRanker(test.Cols(), o.K)
	}
	var sum [4]float64
	for lo := 0; lo < rows; lo += batch {
		n := min(batch, rows-lo)
		var wg sync.WaitGroup
		for w, rk := range rankers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := w; b < n; b += workers {
					per[b], ranked[b] = rk.user(train, test, p, o, lo+b)
				}
			}()
		}
		wg.Wait()
		for b := range n {
			if ranked[b] {
				r.Users++
				for k := range sum {
					sum[k] += per[b][k]
				}
			}
		}
	}
	if r.Users > 0 {
		n := float64(r.Users)
		r.Precision, r.Recall, r.NDCG, r.MAP = sum[0]/n, sum[1]/n, sum[2]/n, sum[3]/n
	}
}

// ranker is one worker's scratch space.
type ranker struct {
	rated, relevant []bool
	top             topK
	best            []Scored // top, sorted
	hits            []bool
}

func newRanker(cols, k int) *ranker {
	k = min(k, cols) // a k beyond the items would only allocate
	return &ranker{rated: make([]bool, cols), relevant: make([]bool, cols), top: make(topK, 0, k), best: make([]Scored, 0, k), hits: make([]bool, 0, k)}
}

// user returns user i's precision, recall, NDCG and AP at k, and whether
// the user was ranked (has a relevant held-out item).
func (rk *ranker) user(train, test *ratings.Matrix, p Scorer, o Options, i int) (m [4]float64, ok bool) {
	titems, tvals := test.Row(i)
	nrel := 0
	for k, j := range titems {
		if tvals.At(k) >= o.Threshold {
			rk.relevant[j] = true
			nrel++
		}
	}
	if nrel > 0 {
		var ritems []int32
		if train != nil && i < train.Rows() {
			ritems, _ = train.Row(i)
		}
		for _, j := range ritems {
			rk.rated[j] = true
		}
		rk.top = rk.top[:0]
		for j := range len(rk.rated) {
			if !rk.rated[j] {
				rk.top.offer(Scored{j, p.Predict(i, j)}, o.K)
			}
		}
		rk.hits = rk.hits[:0]
		rk.best = rk.top.sortedInto(rk.best)
		for _, s := range rk.best {
			rk.hits = append(rk.hits, rk.relevant[s.Item])
		}
		m[0], m[1], m[2], m[3] = AtK(rk.hits, nrel, o.K)
		for _, j := range ritems {
			rk.rated[j] = false
		}
	}
	for _, j := range titems {
		rk.relevant[j] = false
	}
	return m, nrel > 0
}

func (r *Result) fillJSON() {
	num := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	r.RMSEJSON, r.MAEJSON = num(r.RMSE), num(r.MAE)
	r.PrecisionJSON, r.RecallJSON, r.NDCGJSON, r.MAPJSON = num(r.Precision), num(r.Recall), num(r.NDCG), num(r.MAP)
}

// AtK returns precision@k, recall@k, NDCG@k and AP@k of one ranked list:
// hits[p] says whether the item at position p+1 is relevant (only the
// first k entries are read), nrel is the user's number of relevant items
// (> 0). See the package doc for the formulas.
func AtK(hits []bool, nrel, k int) (precision, recall, ndcg, ap float64) {
	var n int
	var dcg, idcg float64
	for p := range min(len(hits), k) {
		if hits[p] {
			n++
			dcg += 1 / math.Log2(float64(p+2))
			ap += float64(n) / float64(p+1)
		}
	}
	for p := range min(nrel, k) {
		idcg += 1 / math.Log2(float64(p+2))
	}
	return float64(n) / float64(k), float64(n) / float64(nrel), dcg / idcg, ap / float64(min(nrel, k))
}

// Scored is an item index and its score.
type Scored struct {
	Item  int
	Score float64
}

// Before orders scored items: higher score first, then lower index.
func Before(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Item < b.Item
}

// topK keeps the best k offers, the worst of them at the root of a
// binary heap. It is written out rather than run by container/heap, whose
// interface boxes every item pushed or popped: one allocation per offer
// and per result, for every user that an evaluation ranks.
type topK []Scored

// worse reports whether entry a of the heap ranks below entry b.
func (h topK) worse(a, b int) bool { return Before(h[b], h[a]) }

func (h topK) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.worse(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h topK) down(i int) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && h.worse(r, c) {
			c = r
		}
		if !h.worse(c, i) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

func (h *topK) offer(s Scored, k int) {
	if len(*h) < k {
		*h = append(*h, s)
		h.up(len(*h) - 1)
	} else if Before(s, (*h)[0]) {
		(*h)[0] = s
		h.down(0)
	}
}

// sortedInto empties h and returns its items best first, in dst's memory
// when it has room.
func (h *topK) sortedInto(dst []Scored) []Scored {
	n := len(*h)
	if cap(dst) < n {
		dst = make([]Scored, n)
	}
	out := dst[:n]
	for p := n - 1; p >= 0; p-- {
		last := len(*h) - 1
		out[p] = (*h)[0]
		(*h)[0] = (*h)[last]
		*h = (*h)[:last]
		h.down(0)
	}
	return out
}

// TopK returns the k best of n items scored by score, best first (ties:
// lower index first), skipping the items for which skip returns true (nil
// skips none). A k above n returns at most n items and allocates for n.
func TopK(n, k int, score func(j int) float64, skip func(j int) bool) []Scored {
	if k <= 0 || n <= 0 {
		return nil
	}
	h := make(topK, 0, min(k, n))
	for j := range n {
		if skip == nil || !skip(j) {
			h.offer(Scored{j, score(j)}, k)
		}
	}
	return h.sortedInto(nil)
}
