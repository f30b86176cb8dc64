package pipeline

import (
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// The pipeline's element types. Every field is exported so that Beam's
// schema coder can encode them.

// rating is one rating of a user (the key): the item's ID and the value.
type rating struct {
	Item  string
	Value float64
}

// userRec is one user's data after the per-user preparation: all the
// user's ratings of candidate items (clipped to the rating range) in the
// canonical order of the item IDs, and the contributed subset.
type userRec struct {
	ID     string
	Items  []string
	Vals   []float64
	CItems []string
	CVals  []float64
}

// meanTerm is one user's terms of the global mean.
type meanTerm struct {
	User                       string
	Sum, Users, Total, Ratings float64
}

// sums are the exact (not released) sums of the mean terms: every stage
// replays the plan from them (userdp.Plan.ReleaseMean draws the same
// noise wherever it runs, see the package documentation).
type sums struct {
	Sum, Users, Total, Ratings float64
}

// weighted is one user's term of an item's count, bias sum or tail.
type weighted struct {
	User string
	S, W float64
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

// startTerm is one user's weighted residual vector over the head items.
type startTerm struct {
	User string
	Idx  []int32
	Z    []float64
}

// itemTerm is one user's term of an item's Gram matrix and right-hand
// side: weight, clipped residual and clipped factor.
type itemTerm struct {
	User string
	W, E float64
	U    []float64
}

// itemRow is an item's released factor row.
type itemRow struct {
	Item string
	Row  []float64
}

func init() {
	for _, t := range []any{rating{}, userRec{}, meanTerm{}, sums{}, weighted{}, itemValue{}, release{}, startTerm{}, itemTerm{}, itemRow{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
}
