package ratings

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Split divides d's ratings at random into a training and a test set. The
// test set gets round(testFrac × d.Ratings.Len()) ratings drawn uniformly
// without replacement with r, the training set the rest; the same r state
// gives the same split. Both share d's Users, Items, shape, rating range,
// Source and Format, so a user or item may have no rating in one of them;
// their Stats are zero. It returns an error if d or r is nil or testFrac is
// not in [0, 1].
func Split(d *Dataset, testFrac float64, r *rand.Rand) (train, test *Dataset, err error) {
	if d == nil || d.Ratings == nil {
		return nil, nil, errors.New("ratings: Split of a nil Dataset")
	}
	if r == nil {
		return nil, nil, errors.New("ratings: Split needs a *rand.Rand")
	}
	if !(testFrac >= 0 && testFrac <= 1) {
		return nil, nil, fmt.Errorf("ratings: test fraction %v not in [0, 1]", testFrac)
	}
	all := d.Ratings.Triples()
	n := len(all)
	nTest := int(math.Round(testFrac * float64(n)))

	// A partial Fisher–Yates shuffle picks the test positions.
	perm := make([]int, n)
	for k := range perm {
		perm[k] = k
	}
	isTest := make([]bool, n)
	for k := 0; k < nTest; k++ {
		j := k + r.IntN(n-k)
		perm[k], perm[j] = perm[j], perm[k]
		isTest[perm[k]] = true
	}
	trainT := make([]Triple, 0, n-nTest)
	testT := make([]Triple, 0, nTest)
	for k, t := range all {
		if isTest[k] {
			testT = append(testT, t)
		} else {
			trainT = append(trainT, t)
		}
	}

	rows, cols := d.Ratings.Rows(), d.Ratings.Cols()
	trainM, err := New(rows, cols, trainT)
	if err != nil {
		return nil, nil, fmt.Errorf("ratings: split: %w", err)
	}
	testM, err := New(rows, cols, testT)
	if err != nil {
		return nil, nil, fmt.Errorf("ratings: split: %w", err)
	}
	train, test = d.withRatings(trainM), d.withRatings(testM)
	return train, test, nil
}

// withRatings returns a copy of d's description with ratings m and zero
// Stats.
func (d *Dataset) withRatings(m *Matrix) *Dataset {
	return &Dataset{
		Ratings:      m,
		Users:        d.Users,
		Items:        d.Items,
		Min:          d.Min,
		Max:          d.Max,
		Source:       d.Source,
		Format:       d.Format,
		FormatReason: d.FormatReason,
		Implicit:     d.Implicit,
	}
}
