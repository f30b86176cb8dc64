package model

import (
	"context"
	"fmt"
	"math"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/ratings"
)

// Unknown says what PredictPairs does with a user or item the model
// cannot score.
type Unknown int

const (
	// UnknownError makes the first unknown user or item an error.
	UnknownError Unknown = iota
	// UnknownFallback predicts without the unknown part: Mu + ItemBias[j]
	// for an unknown user, Mu + the user's bias for an unknown item, Mu
	// for both (a paper model: its Mean in every case).
	UnknownFallback
)

// ParseUnknown parses "error" or "fallback".
func ParseUnknown(s string) (Unknown, error) {
	switch s {
	case "error":
		return UnknownError, nil
	case "fallback":
		return UnknownFallback, nil
	}
	return 0, fmt.Errorf("model: %q: want error or fallback", s)
}

// PredictOptions are the settings of PredictPairs.
type PredictOptions struct {
	// Clip clips every prediction to the rating range.
	Clip bool
	// Unknown says what to do with unknown users and items.
	Unknown Unknown
	// Histories holds users' own ratings (LoadHistories). For a
	// user-level model it is how a user becomes known: the user's bias
	// and factor are folded in from it (locally; nothing is stored). For
	// a paper model it only marks the items a user already rated (for
	// ranking). Its items are ranking candidates too (EvaluatePairs).
	Histories Histories
	// Name names the pairs file in errors.
	Name string
}

// Prediction is one scored pair.
type Prediction struct {
	Pair
	// Score is the prediction, in rating units.
	Score float64
	// UnknownUser and UnknownItem say which fallback was used.
	UnknownUser, UnknownItem bool
}

// PredictStats counts what PredictPairs did.
type PredictStats struct {
	// Pairs scored; pairs whose user or item was unknown (fallbacks).
	Pairs, UnknownUsers, UnknownItems int
	// FoldedIn is the number of users folded in from their histories, and
	// HistoryUnknown the number of history ratings of items the model does
	// not have (they count toward the user's bias only).
	FoldedIn, HistoryUnknown int
}

// users resolves and caches the user parts of a batch.
type users struct {
	m     *Model
	o     *PredictOptions
	cache map[string]*User
	st    *PredictStats
}

// get returns the user's part, or nil if the user is unknown.
func (us *users) get(id string) (*User, error) {
	if u, ok := us.cache[id]; ok {
		return u, nil
	}
	var u *User
	if us.m.Kind == Paper {
		if i, ok := us.m.UserIndex(id); ok {
			p, _ := us.m.UserAt(i)
			u = &p
		}
	} else if h, ok := us.o.Histories.ByUser[id]; ok {
		p, unknown, err := us.m.FoldIn(h)
		if err != nil {
			return nil, fmt.Errorf("user %s: %w", id, err)
		}
		us.st.FoldedIn++
		us.st.HistoryUnknown += unknown
		u = &p
	}
	us.cache[id] = u
	return u, nil
}

// PredictPairs scores every pair (see PredictOptions). With
// UnknownError the first unknown user or item is an error naming its
// line; a user-level model knows a user only through Histories. If no
// pair has a user or an item of the model, it is an error even with
// UnknownFallback (the file, or its columns, do not match the model). ctx
// is looked at every 1024 pairs: once it is done PredictPairs returns an
// error wrapping ctx.Err(). A ranking model predicts no rating:
// ErrNoRatings.
func (m *Model) PredictPairs(ctx context.Context, pairs []Pair, o PredictOptions) ([]Prediction, PredictStats, error) {
	var st PredictStats
	if !m.HasRatings() {
		return nil, st, ErrNoRatings
	}
	us := &users{m: m, o: &o, cache: make(map[string]*User), st: &st}
	out := make([]Prediction, len(pairs))
	for k, p := range pairs {
		if k%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, st, fmt.Errorf("model: %s: predicting: %w", o.Name, err)
			}
		}
		u, err := us.get(p.User)
		if err != nil {
			return nil, st, fmt.Errorf("model: %s:%d: %w", o.Name, p.Line, err)
		}
		j, okItem := m.Item(p.Item)
		pr := Prediction{Pair: p, UnknownUser: u == nil, UnknownItem: !okItem}
		if o.Unknown == UnknownError {
			if u == nil {
				why := "not in the model"
				if m.Kind == UserLevel {
					why = "no ratings in the history (a user-level model holds no users: give the user's ratings with a history)"
				}
				return nil, st, fmt.Errorf("model: %s:%d: unknown user %q: %s", o.Name, p.Line, p.User, why)
			}
			if !okItem {
				return nil, st, fmt.Errorf("model: %s:%d: unknown item %q: not in the model", o.Name, p.Line, p.Item)
			}
		}
		switch {
		case u != nil && okItem:
			pr.Score = m.Predict(*u, j)
		case u != nil:
			pr.Score = m.FallbackItem(*u, m.TailIndex(p.Item))
		case okItem:
			pr.Score = m.Fallback(j)
		default:
			pr.Score = m.Fallback(m.TailIndex(p.Item))
		}
		if o.Clip {
			pr.Score = m.Clip(pr.Score)
		}
		if pr.UnknownUser {
			st.UnknownUsers++
		}
		if pr.UnknownItem {
			st.UnknownItems++
		}
		out[k] = pr
	}
	st.Pairs = len(out)
	if n := len(out); n > 0 && st.UnknownUsers == n && st.UnknownItems == n {
		return nil, st, fmt.Errorf("model: %s: none of the %d pairs has a user or an item of the model (first pair: user %q, item %q on line %d): the wrong file, or the wrong columns?",
			o.Name, n, out[0].User, out[0].Item, out[0].Line)
	}
	return out, st, nil
}

// cancelEvery is how many pairs PredictPairs and EvaluatePairs handle
// between two looks at their context.
const cancelEvery = 1024

// EvaluatePairs measures predictions of rated pairs (from PredictPairs,
// whose options o it takes again): RMSE and MAE over every rated pair,
// fallbacks included, and the ranking metrics of package metrics exactly
// as dpmc train computes them for its test set, given the training file
// as o.Histories:
//
//   - the candidates are the items of o.Histories and of the model, in
//     that order (train's columns: its training items), and each user's
//     candidates are those not in the user's history; an item of the
//     histories that the model does not hold scores FallbackItem;
//   - the users ranked are the known users (a paper model's users; a
//     user-level model's users with a history) with a relevant pair,
//     taken in the order of o.Histories.Users (paper: the model's order);
//   - the relevant items are a user's pairs rated ≥ mo.Threshold whose item
//     is a candidate, whether or not the model holds it: one it does not
//     hold counts as relevant and is almost always missed. A pair of an
//     unknown user, or of an item neither in the model nor in a history
//     (train's "cold" test ratings), is not ranked.
//
// It is an error if no pair has a rating. ctx is looked at every 1024
// pairs and before ranking.
func (m *Model) EvaluatePairs(ctx context.Context, preds []Prediction, o PredictOptions, mo metrics.Options) (metrics.Result, error) {
	var se, ae float64
	n := 0
	// The candidates: train's columns.
	colOf := make(map[string]int32, len(o.Histories.Items)+len(m.ItemIDs))
	var itemOf []int32 // column → model item, −1 if not in the model
	addCol := func(id string) {
		if _, ok := colOf[id]; ok {
			return
		}
		colOf[id] = int32(len(itemOf))
		j, ok := m.Item(id)
		if !ok {
			j = -1
		}
		itemOf = append(itemOf, int32(j))
	}
	for _, id := range o.Histories.Items {
		addCol(id)
	}
	for _, id := range m.ItemIDs {
		addCol(id)
	}
	// The users: train's rows.
	order := o.Histories.Users
	if m.Kind == Paper {
		order = m.UserIDs
	}
	rowOf := make(map[string]int32, len(order))
	for i, id := range order {
		rowOf[id] = int32(i)
	}
	parts := make([]*User, len(order))
	us := &users{m: m, o: &o, cache: make(map[string]*User), st: &PredictStats{}}
	var test []ratings.Triple
	for k, p := range preds {
		if k%cancelEvery == 0 {
			if err := ctx.Err(); err != nil {
				return metrics.Result{}, fmt.Errorf("model: %s: evaluating: %w", o.Name, err)
			}
		}
		if math.IsNaN(p.Rating) {
			continue
		}
		d := p.Score - p.Rating
		se += d * d
		ae += math.Abs(d)
		n++
		i, ok := rowOf[p.User]
		j, okItem := colOf[p.Item]
		if !ok || !okItem {
			continue
		}
		if parts[i] == nil {
			u, err := us.get(p.User)
			if err != nil {
				return metrics.Result{}, fmt.Errorf("model: %s:%d: %w", o.Name, p.Line, err)
			}
			if u == nil {
				continue
			}
			parts[i] = u
		}
		test = append(test, ratings.Triple{User: i, Item: j, Value: p.Rating})
	}
	if n == 0 {
		return metrics.Result{}, fmt.Errorf("model: %s: no pair has a rating to evaluate", o.Name)
	}
	var train []ratings.Triple
	for i, id := range order {
		if parts[i] == nil {
			continue // no test rating: not ranked
		}
		for _, it := range o.Histories.ByUser[id].Items {
			if j, ok := colOf[it]; ok {
				train = append(train, ratings.Triple{User: int32(i), Item: j, Value: 1})
			}
		}
	}
	tm, err := ratings.New(len(order), len(itemOf), test)
	if err != nil {
		return metrics.Result{}, fmt.Errorf("model: %s: %w", o.Name, err)
	}
	trm, _, err := ratings.Build(len(order), len(itemOf), train, ratings.DuplicatesAverage)
	if err != nil {
		return metrics.Result{}, fmt.Errorf("model: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return metrics.Result{}, fmt.Errorf("model: %s: evaluating: %w", o.Name, err)
	}
	mo.Ranking = true
	r := metrics.Evaluate(trm, tm, metrics.ScorerFunc(func(i, j int) float64 {
		if mj := itemOf[j]; mj >= 0 {
			return m.Predict(*parts[i], int(mj))
		}
		// Ranked, an item outside the model (which recommend cannot
		// propose) scores the tail's prediction, as in utility's rating
		// ranker; its rating above used its tail bucket.
		return m.FallbackItem(*parts[i], -1)
	}), mo)
	// The errors cover every rated pair (fallbacks too), as printed.
	rmse, mae := math.Sqrt(se/float64(n)), ae/float64(n)
	r.Ratings, r.RMSE, r.MAE, r.RMSEJSON, r.MAEJSON = n, rmse, mae, &rmse, &mae
	return r, nil
}
