package solver

import (
	"math"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/ratings"
)

// Model is a factorization X ≈ Offset + U Vᵀ. U holds one row of Rank
// factors per user and V one per item, row-major and contiguous.
type Model struct {
	Users, Items, Rank int
	U, V               []float64
	// Offset is added to every prediction, in rating units. Train fits
	// no offset and leaves it 0; a caller may set it (model.FromSolver
	// reads it as the model's centre).
	Offset float64
}

// UserFactor returns user i's factor row; it aliases the model.
func (m *Model) UserFactor(i int) []float64 { return m.U[i*m.Rank : (i+1)*m.Rank] }

// ItemFactor returns item j's factor row; it aliases the model.
func (m *Model) ItemFactor(j int) []float64 { return m.V[j*m.Rank : (j+1)*m.Rank] }

// Predict returns the predicted rating Offset + u_iᵀ v_j.
func (m *Model) Predict(i, j int) float64 {
	return dense.Dot(m.UserFactor(i), m.ItemFactor(j)) + m.Offset
}

// Clip bounds predictions to a rating range; the zero Clip does nothing.
type Clip struct {
	Min, Max float64
	On       bool
}

// Apply returns v clipped to [Min, Max] if On, else v.
func (c Clip) Apply(v float64) float64 {
	if !c.On {
		return v
	}
	return math.Min(math.Max(v, c.Min), c.Max)
}

// Errors returns the root mean squared error and mean absolute error of the
// model's predictions (clipped by clip) over the ratings of x, whose rows
// and columns must index the model's users and items. Both are NaN when x
// has no rating.
func (m *Model) Errors(x *ratings.Matrix, clip Clip) (rmse, mae float64) {
	var se, ae float64
	n := 0
	for i := range x.Rows() {
		items, vals := x.Row(i)
		for k, j := range items {
			d := clip.Apply(m.Predict(i, int(j))) - vals.At(k)
			se += d * d
			ae += math.Abs(d)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return math.Sqrt(se / float64(n)), ae / float64(n)
}
