package model

import (
	"errors"
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
	// Histories holds users' own ratings by user ID. For a user-level
	// model it is how a user becomes known: the user's bias and factor
	// are folded in from it (locally; nothing is stored). For a paper
	// model it only marks the items a user already rated (for ranking).
	Histories map[string]History
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
	} else if h, ok := us.o.Histories[id]; ok {
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
// line; a user-level model knows a user only through Histories.
func (m *Model) PredictPairs(pairs []Pair, o PredictOptions) ([]Prediction, PredictStats, error) {
	var st PredictStats
	us := &users{m: m, o: &o, cache: make(map[string]*User), st: &st}
	out := make([]Prediction, len(pairs))
	for k, p := range pairs {
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
				return nil, st, fmt.Errorf("model: %s:%d: unknown user %s: %s", o.Name, p.Line, p.User, why)
			}
			if !okItem {
				return nil, st, fmt.Errorf("model: %s:%d: unknown item %s: not in the model", o.Name, p.Line, p.Item)
			}
		}
		switch {
		case u != nil && okItem:
			pr.Score = m.Predict(*u, j)
		case u != nil:
			pr.Score = m.FallbackItem(*u)
		case okItem:
			pr.Score = m.Fallback(j)
		default:
			pr.Score = m.Fallback(-1)
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
	return out, st, nil
}

// EvaluatePairs measures predictions of rated pairs (from PredictPairs,
// whose options o it takes again): RMSE and MAE over every rated pair,
// fallbacks included, and the ranking metrics of package metrics over
// the known users' known items, each user's candidates being every model
// item not in the user's history. It is an error if no pair has a rating.
func (m *Model) EvaluatePairs(preds []Prediction, o PredictOptions, mo metrics.Options) (metrics.Result, error) {
	var se, ae float64
	n := 0
	userIdx := map[string]int32{}
	var parts []*User
	var test []ratings.Triple
	us := &users{m: m, o: &o, cache: make(map[string]*User), st: &PredictStats{}}
	for _, p := range preds {
		if math.IsNaN(p.Rating) {
			continue
		}
		d := p.Score - p.Rating
		se += d * d
		ae += math.Abs(d)
		n++
		if p.UnknownUser || p.UnknownItem {
			continue
		}
		i, ok := userIdx[p.User]
		if !ok {
			u, err := us.get(p.User)
			if err != nil || u == nil {
				continue
			}
			i = int32(len(parts))
			userIdx[p.User] = i
			parts = append(parts, u)
		}
		j, _ := m.Item(p.Item)
		test = append(test, ratings.Triple{User: i, Item: int32(j), Value: p.Rating})
	}
	if n == 0 {
		return metrics.Result{}, errors.New("model: no pair has a rating to evaluate")
	}
	var train []ratings.Triple
	for id, i := range userIdx {
		seen := map[int]bool{}
		for _, it := range o.Histories[id].Items {
			if j, ok := m.Item(it); ok && !seen[j] {
				seen[j] = true
				train = append(train, ratings.Triple{User: i, Item: int32(j), Value: 1})
			}
		}
	}
	tm, err := ratings.New(len(parts), len(m.ItemIDs), test)
	if err != nil {
		return metrics.Result{}, fmt.Errorf("model: %s: %w", o.Name, err)
	}
	trm, err := ratings.New(len(parts), len(m.ItemIDs), train)
	if err != nil {
		return metrics.Result{}, fmt.Errorf("model: %w", err)
	}
	mo.Ranking = true
	r := metrics.Evaluate(trm, tm, metrics.ScorerFunc(func(i, j int) float64 { return m.Predict(*parts[i], j) }), mo)
	// The errors cover every rated pair (fallbacks too), as printed.
	rmse, mae := math.Sqrt(se/float64(n)), ae/float64(n)
	r.Ratings, r.RMSE, r.MAE, r.RMSEJSON, r.MAEJSON = n, rmse, mae, &rmse, &mae
	return r, nil
}
