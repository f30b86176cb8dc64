package baseline

import (
	"sync"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

// Model is a recommender that scores every item for one user from that
// user's history alone. Its methods are safe for concurrent use.
type Model interface {
	// Name says what the model is, including "non-private".
	Name() string
	// Items is the number of items scored: the columns of the training
	// matrix.
	Items() int
	// ScoreInto writes the score of every item into dst (len Items()) for
	// a user whose history is items[k] rated vals[k] (item indices of the
	// training matrix; vals nil means implicit data, every item a
	// positive). Higher is better.
	ScoreInto(dst []float64, items []int32, vals []float64)
}

// score returns m's scores of every item for an implicit history.
func score(m Model, history []int) []float64 {
	items := make([]int32, len(history))
	for k, j := range history {
		items[k] = int32(j)
	}
	dst := make([]float64, m.Items())
	m.ScoreInto(dst, items, nil)
	return dst
}

// RowOf returns row i of x as item indices and values, the values in
// *buf's memory (grown as needed).
func RowOf(x *ratings.Matrix, i int, buf *[]float64) ([]int32, []float64) {
	items, vs := x.Row(i)
	if cap(*buf) < vs.Len() {
		*buf = make([]float64, vs.Len())
	}
	return items, vs.CopyTo((*buf)[:vs.Len()])
}

// positive reports whether the k-th history entry counts as a positive:
// always for implicit data (vals nil), else if vals[k] ≥ threshold.
func positive(vals []float64, k int, threshold float64) bool {
	return vals == nil || vals[k] >= threshold
}

// For adapts m to metrics.Scorer for the users of history: Predict(i, j)
// is the score of item j for the user whose history is row i of history
// (its items and ratings). Each user's scores are computed once, on the
// first call for that user, and kept in one of a few slots; metrics.Evaluate
// asks for one user's items in a run, so a user is scored about once. Safe
// for concurrent use.
func For(m Model, history *ratings.Matrix) metrics.Scorer {
	return NewRows(m.Items(), func(i int, dst []float64, buf *[]float64) {
		items, vals := RowOf(history, i, buf)
		m.ScoreInto(dst, items, vals)
	})
}

// rowSlots is the number of users whose scores Rows keeps: more than the
// goroutines that metrics.Evaluate runs on any usual machine, so that
// the users being ranked at once rarely share a slot.
const rowSlots = 64

// Rows is a metrics.Scorer that computes a whole user's row of scores at
// once with a function and keeps the last few rows. Safe for concurrent
// use.
type Rows struct {
	items int
	fill  func(i int, dst []float64, scratch *[]float64)
	slots [rowSlots]rowSlot
}

type rowSlot struct {
	mu      sync.Mutex
	user    int
	row     []float64
	scratch []float64
}

// NewRows returns a Scorer of items columns whose row i is fill(i, dst,
// scratch): fill writes user i's score of every item into dst (len items)
// and may use *scratch (a reusable slice that it may grow) for its own
// needs. fill is called from several goroutines at once, on different
// dst and scratch.
func NewRows(items int, fill func(i int, dst []float64, scratch *[]float64)) *Rows {
	r := &Rows{items: items, fill: fill}
	for k := range r.slots {
		r.slots[k].user = -1
	}
	return r
}

// Predict returns user i's score of item j.
func (r *Rows) Predict(i, j int) float64 {
	s := &r.slots[i%rowSlots]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.user != i {
		if s.row == nil {
			s.row = make([]float64, r.items)
		}
		r.fill(i, s.row, &s.scratch)
		s.user = i
	}
	return s.row[j]
}
