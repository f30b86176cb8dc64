package pipeline

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/dpmc/dpmc/internal/exactsum"
)

// The pipeline's element types. Every field is exported so that Beam's
// schema coder can encode them.

// rating is one rating of a user: the item's ID and the value.
type rating struct {
	Item  string
	Value float64
}

// chunk is some of one user's (the key's) ratings from one file, in the
// file's order: what the read emits, so that the grouping by user moves
// one element per user and file (per buffer flush, see readFn) instead
// of one per rating.
type chunk struct {
	Items []string
	Vals  []float64
}

// userRec is one user's data after the per-user preparation: all the
// user's ratings of candidate items (clipped to the rating range) in the
// canonical order of the item IDs, and the contributed subset: all of
// them unless Capped, else the positions Sub (ascending). The subset is
// kept as positions, not as a copy of the IDs and values, because every
// per-user stage receives the record: on Prism each element's bytes.
type userRec struct {
	ID     string
	Items  []string
	Vals   []float64
	Capped bool
	Sub    []int32
}

// contributed returns the user's contributed ratings: the item IDs and
// values of the subset (Items and Vals themselves unless Capped).
func (u *userRec) contributed() ([]string, []float64) {
	if !u.Capped {
		return u.Items, u.Vals
	}
	items, vals := make([]string, len(u.Sub)), make([]float64, len(u.Sub))
	for k, q := range u.Sub {
		items[k], vals[k] = u.Items[q], u.Vals[q]
	}
	return items, vals
}

// sums are exact sums of the global mean's terms (userdp.MeanSums):
// one user's (userdp.Plan.UserMean), or any partial or whole sum of
// them; merged by a combiner in any order. Every stage replays the plan
// from the whole sum (userdp.Plan.ReleaseMean draws the same noise
// wherever it runs, see the package documentation).
type sums struct {
	Sum, Users, Total, Ratings exactsum.Sum
}

// weighted is an exact sum and weight: one user's term of an item's bias
// sum or of the tail (userdp.Plan.AddBias, AddTail), or any partial or
// whole sum of such terms.
type weighted struct {
	S, W exactsum.Sum
}

// packed is the start's exact second-moment matrix, its lower triangle
// packed (userdp.Plan.AccumulateStart): a combiner's accumulator.
type packed struct {
	M []exactsum.Sum
}

// gramSums are an item's exact Gram matrix (r × r, lower triangle) and
// right-hand side in an ALS step (userdp.Plan.AddItemTerm): a bundle's
// partial sum (userStepFn) and the combiner's accumulator; nil until the
// first term.
type gramSums struct {
	G, H []exactsum.Sum
}

// itemValue is an item's released value (count, or bias sum and bias).
type itemValue struct {
	Item   string
	Sum, V float64
}

// release is the model released so far: the selected items in canonical
// order, their counts, biases, the tail and the factors.
type release struct {
	ItemIDs  []string
	Counts   []float64
	ItemBias []float64
	BiasSums []float64
	TailBias float64
	V        []float64
}

// bucketRelease is the released tail buckets (userdp.Plan.ReleaseBucket):
// kept out of release, which every factor stage broadcasts, since they
// join the model only when it is written (after the factors, which are
// fitted without them, as in userdp.Train).
type bucketRelease struct {
	Bias, Counts []float64
}

// startTerm is one user's weighted residual vector over the head items.
type startTerm struct {
	Idx []int32
	Z   []float64
}

// itemTerm is one user's term of an item's Gram matrix and right-hand
// side: weight, clipped residual and clipped factor (added to a bundle's
// gramSums by userStepFn, not shuffled).
type itemTerm struct {
	W, E float64
	U    []float64
}

// itemRow is an item's released factor row.
type itemRow struct {
	Item string
	Row  []float64
}

func init() {
	for _, t := range []any{chunk{}, userRec{}, sums{}, weighted{}, packed{}, gramSums{}, exactsum.Sum{}, itemValue{}, release{}, startTerm{}, itemRow{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
}
