package baseline

import (
	"fmt"

	"github.com/dpmc/dpmc/ratings"
)

// Popularity ranks every item by its number of training ratings, the
// same list for every user. Non-private: the counts are exact.
type Popularity struct {
	// Counts[j] is item j's number of training ratings (of positives,
	// when Positive > 0).
	Counts []float64
	// Positive is the lowest rating counted; 0 counts every rating.
	Positive float64
}

// NewPopularity counts the ratings of every item of train: all of them if
// positive is 0 (or at most the lowest rating), else only those ≥
// positive (e.g. 4 on a 1–5 scale, package metrics' relevance threshold).
func NewPopularity(train *ratings.Matrix, positive float64) *Popularity {
	p := &Popularity{Counts: make([]float64, train.Cols()), Positive: positive}
	for j := range train.Cols() {
		_, vs := train.Col(j)
		if positive == 0 {
			p.Counts[j] = float64(vs.Len())
			continue
		}
		for k := range vs.Len() {
			if vs.At(k) >= positive {
				p.Counts[j]++
			}
		}
	}
	return p
}

// Name implements Model.
func (p *Popularity) Name() string {
	if p.Positive == 0 {
		return "popularity (non-private)"
	}
	return fmt.Sprintf("popularity of ratings ≥ %g (non-private)", p.Positive)
}

// Items implements Model.
func (p *Popularity) Items() int { return len(p.Counts) }

// ScoreInto implements Model: the counts, whatever the history.
func (p *Popularity) ScoreInto(dst []float64, _ []int32, _ []float64) { copy(dst, p.Counts) }

// Score returns every item's score for a user with the given history
// (item indices): the counts.
func (p *Popularity) Score(history []int) []float64 { return score(p, history) }

// Predict implements metrics.Scorer: item j's count, for every user.
func (p *Popularity) Predict(_, j int) float64 { return p.Counts[j] }
