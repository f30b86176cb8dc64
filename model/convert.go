package model

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/userdp"
)

// FromUserLevel returns the model of a user-level release: exactly res's
// released fields (item IDs, biases, factors, noisy counts, centre, rating
// range, fold-in ridges and privacy report) and settings (any value that
// marshals to a JSON object, e.g. the userdp.Options used; nil for none).
// It holds nothing per user. A release of the ranking objective
// (res.Ranking) gives a ranking model (Model.Ranking). The model aliases
// res's slices.
func FromUserLevel(res *userdp.Result, settings any) (*Model, error) {
	m := &Model{
		Kind: UserLevel, Min: res.Min, Max: res.Max, Mu: res.Mu, Rank: res.Rank, Features: res.Features,
		ItemIDs: res.ItemIDs, ItemBias: res.ItemBias, TailBias: res.TailBias, V: res.V, Counts: res.Counts,
		BucketBias: res.BucketBias, BucketV: res.BucketV,
		Ridges:   &FoldInRidges{UserLambda: res.UserLambda, UserLambdaPerRating: res.UserLambdaPerRating, UserBiasLambda: res.UserBiasLambda},
		Released: "the whole file is the release, at the privacy report's total (unseeded runs only); it holds nothing per user",
	}
	if res.Ranking != nil {
		m.Ranking = rankingFrom(res.Ranking)
	}
	if res.Report != nil && res.Report.NoNoise {
		m.Released = "a NON-PRIVATE baseline trained without noise; it holds nothing per user"
	} else if res.Report != nil && strings.HasPrefix(strings.ToLower(res.Report.Guarantee), "none") {
		m.Released = "NOT private (seeded noise, reproducible); it holds nothing per user"
	}
	var err error
	if m.Settings, err = raw(settings); err != nil {
		return nil, err
	}
	if res.Report != nil {
		if m.Privacy, err = raw(res.Report); err != nil {
			return nil, err
		}
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

// FromSolver returns the model of a paper-mode solver model: user and
// item IDs (in the solver's row and column order), U, V and the offset as
// the centre, the rating range [lo, hi], the mean training rating (the
// fallback for unknown users and items), settings and the privacy report
// (any values that marshal to JSON objects; nil for none). Item biases are
// zero. The model aliases sm's factors.
func FromSolver(sm *solver.Model, users, items []string, lo, hi, mean float64, settings, report any) (*Model, error) {
	if len(users) != sm.Users || len(items) != sm.Items {
		return nil, fmt.Errorf("model: %d user and %d item IDs for a %d × %d model", len(users), len(items), sm.Users, sm.Items)
	}
	m := &Model{
		Kind: Paper, Min: lo, Max: hi, Mu: sm.Offset, Mean: mean, Rank: sm.Rank,
		ItemIDs: items, ItemBias: make([]float64, sm.Items), V: sm.V, UserIDs: users, U: sm.U,
		Released: "the paper's algorithms: NO proved privacy guarantee (see the privacy report); holds every user's factor",
	}
	var err error
	if m.Settings, err = raw(settings); err != nil {
		return nil, err
	}
	if m.Privacy, err = raw(report); err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

// raw marshals v (nil and typed nil pointers give nil).
func raw(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}
