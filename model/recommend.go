package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Request asks RecommendUser for one user's top items.
type Request struct {
	// User is the user's ID: a user of a paper model, or a label for a
	// user-level model's user (who is defined by History).
	User string
	// History is the user's own ratings (nil for none). A user-level
	// model needs it: the user's bias and factor are folded in from it,
	// in this call, and nothing is kept. Its items are excluded from the
	// recommendations unless IncludeRated.
	History *History
	// K is the number of items wanted (≥ 1).
	K int
	// IncludeRated keeps the history's items among the candidates.
	IncludeRated bool
}

// Recommendation is RecommendUser's answer.
type Recommendation struct {
	User string `json:"user"`
	Kind Kind   `json:"model_kind"`
	K    int    `json:"k"`
	// HistoryRatings is the number of history ratings used,
	// HistoryUnknown those of items not in the model (bias only), and
	// Excluded the number of rated items left out of the candidates.
	HistoryRatings int `json:"history_ratings"`
	HistoryUnknown int `json:"history_items_not_in_model"`
	Excluded       int `json:"excluded_rated_items"`
	// UserBias is the user's bias (0 for a paper model).
	UserBias float64 `json:"user_bias"`
	// Items are the recommendations, best first (unclipped scores; ties by
	// the model's item order). A ranking model's scores order the items
	// and are not ratings (userdp.RankScores).
	Items []Scored `json:"recommendations"`
}

// RecommendUser returns the user's top K items: a paper model's user by
// ID, or a user-level model's user folded in from History (the billboard
// model: the user's data is used only here). A ranking model (Ranking)
// ranks with its ranking part from History's items alone (ratings, if
// any, are ignored: a history of pairs works); its scores are ranking
// scores, not ratings.
func (m *Model) RecommendUser(req Request) (*Recommendation, error) {
	if req.K < 1 {
		return nil, fmt.Errorf("model: recommend: k = %d, want ≥ 1", req.K)
	}
	rec := &Recommendation{User: req.User, Kind: m.Kind, K: req.K}
	if m.Ranking != nil {
		return m.recommendRanking(req, rec)
	}
	var u User
	switch m.Kind {
	case Paper:
		i, ok := m.UserIndex(req.User)
		if !ok {
			return nil, fmt.Errorf("model: recommend: user %q is not in the model", req.User)
		}
		u, _ = m.UserAt(i)
	default:
		if req.History == nil || len(req.History.Items) == 0 {
			return nil, errors.New("model: recommend: a user-level model holds no users; give the user's own ratings (a history) to fold the user in")
		}
		var err error
		if u, rec.HistoryUnknown, err = m.FoldIn(*req.History); err != nil {
			return nil, err
		}
		rec.UserBias = u.Bias
	}
	var rated map[int]bool
	if req.History != nil {
		rec.HistoryRatings = len(req.History.Items)
		if !req.IncludeRated {
			rated = make(map[int]bool, len(req.History.Items))
			for _, id := range req.History.Items {
				if j, ok := m.Item(id); ok {
					rated[j] = true
				}
			}
			rec.Excluded = len(rated)
		}
	}
	rec.Items = m.Recommend(u, req.K, func(j int) bool { return rated[j] })
	return rec, nil
}

// WriteText writes one line per item: rank, item ID and score, tab-separated.
func (r *Recommendation) WriteText(w io.Writer) error {
	for p, s := range r.Items {
		if _, err := fmt.Fprintf(w, "%d\t%s\t%s\n", p+1, s.ID, strconv.FormatFloat(s.Score, 'f', 4, 64)); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the recommendation as one indented JSON object.
func (r *Recommendation) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}
