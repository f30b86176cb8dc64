package ratings

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultHeldOutTest is the share of each held-out user's ratings that
// SplitUsers scores by default (Liang et al. 2018: 20 %).
const DefaultHeldOutTest = 0.2

// UserSplit says how SplitUsers divides a data set.
type UserSplit struct {
	// Users is the number of held-out users; if 0, Fraction of the users
	// (rounded) are held out. At least 1 and fewer than all users must
	// result.
	Users    int
	Fraction float64
	// Test is the share of each held-out user's ratings that is scored,
	// in (0, 1) (default DefaultHeldOutTest): ⌊Test × n⌋ of a user's n
	// ratings, drawn at random; the rest are the user's history.
	Test float64
}

// HeldOut is a held-out-users split: the protocol of D. Liang, R. G.
// Krishnan, M. D. Hoffman and T. Jebara, "Variational autoencoders for
// collaborative filtering" (WWW 2018). The model is trained on Train,
// whose users are disjoint from the held-out users; each held-out user's
// History is given to the model (the fold-in of dpmc's billboard model,
// recommend --history) and the user's Test ratings are scored.
type HeldOut struct {
	// Train holds every rating of the training users: one row per
	// training user, in d's order (Users holds their IDs), and every
	// column of d (Items is d's).
	Train *Dataset
	// History and Test hold the held-out users' ratings, split per user:
	// the same rows in both (one per held-out user, in d's order; Users,
	// shared, holds their IDs) and the columns of Train (Items is d's),
	// so metrics.Evaluate(History.Ratings, Test.Ratings, …) ranks each
	// held-out user's items not in their history.
	History, Test *Dataset
}

// SplitUsers holds out users of d at random with r: the held-out users
// are drawn uniformly without replacement, then each one's ratings are
// split into history and test, also uniformly (see UserSplit). The same r
// state gives the same split. All three Datasets share d's Items, rating
// range, Source and Format; their Stats are zero. It returns an error if d
// or r is nil or the split leaves no training or no held-out user.
func SplitUsers(d *Dataset, o UserSplit, r *rand.Rand) (*HeldOut, error) {
	if d == nil || d.Ratings == nil || d.Users == nil {
		return nil, errors.New("ratings: SplitUsers of a nil Dataset")
	}
	if r == nil {
		return nil, errors.New("ratings: SplitUsers needs a *rand.Rand")
	}
	m := d.Ratings.Rows()
	k := o.Users
	if k == 0 {
		if !(o.Fraction > 0 && o.Fraction < 1) {
			return nil, fmt.Errorf("ratings: held-out fraction %v not in (0, 1)", o.Fraction)
		}
		k = int(math.Round(o.Fraction * float64(m)))
	}
	if k < 1 || k >= m {
		return nil, fmt.Errorf("ratings: %d held-out users of %d, want at least 1 and fewer than all", k, m)
	}
	test := o.Test
	if test == 0 {
		test = DefaultHeldOutTest
	}
	if !(test > 0 && test < 1) {
		return nil, fmt.Errorf("ratings: held-out test share %v not in (0, 1)", test)
	}

	// A partial Fisher–Yates shuffle picks the held-out users.
	perm := make([]int, m)
	for i := range perm {
		perm[i] = i
	}
	for p := range k {
		q := p + r.IntN(m-p)
		perm[p], perm[q] = perm[q], perm[p]
	}
	held := perm[:k]
	slices.Sort(held)
	isHeld := make([]bool, m)
	for _, i := range held {
		isHeld[i] = true
	}

	x := d.Ratings
	var trainIDs, heldIDs []string
	var trainT, histT, testT []Triple
	var order []int
	for i := range m {
		items, vs := x.Row(i)
		if !isHeld[i] {
			row := int32(len(trainIDs))
			trainIDs = append(trainIDs, d.Users.ID(i))
			for p, j := range items {
				trainT = append(trainT, Triple{User: row, Item: j, Value: vs.At(p)})
			}
			continue
		}
		row := int32(len(heldIDs))
		heldIDs = append(heldIDs, d.Users.ID(i))
		n := len(items)
		nt := int(test * float64(n))
		order = order[:0]
		for p := range n {
			order = append(order, p)
		}
		for p := range nt {
			q := p + r.IntN(n-p)
			order[p], order[q] = order[q], order[p]
		}
		scored := make(map[int]bool, nt)
		for _, p := range order[:nt] {
			scored[p] = true
		}
		for p, j := range items {
			t := Triple{User: row, Item: j, Value: vs.At(p)}
			if scored[p] {
				testT = append(testT, t)
			} else {
				histT = append(histT, t)
			}
		}
	}
	cols := x.Cols()
	trainM, err := New(len(trainIDs), cols, trainT)
	if err != nil {
		return nil, fmt.Errorf("ratings: held-out split: %w", err)
	}
	histM, err := New(len(heldIDs), cols, histT)
	if err != nil {
		return nil, fmt.Errorf("ratings: held-out split: %w", err)
	}
	testM, err := New(len(heldIDs), cols, testT)
	if err != nil {
		return nil, fmt.Errorf("ratings: held-out split: %w", err)
	}
	tu, err := NewIDs(trainIDs)
	if err != nil {
		return nil, fmt.Errorf("ratings: held-out split: %w", err)
	}
	hu, err := NewIDs(heldIDs)
	if err != nil {
		return nil, fmt.Errorf("ratings: held-out split: %w", err)
	}
	h := &HeldOut{Train: d.withRatings(trainM), History: d.withRatings(histM), Test: d.withRatings(testM)}
	h.Train.Users = tu
	h.History.Users, h.Test.Users = hu, hu
	return h, nil
}
