package dense

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/rng"
)

// TestCholeskySolveAgainstGonum builds λI + Σ w xxᵀ with AddOuter and checks
// the solve against gonum's dense solver.
func TestCholeskySolveAgainstGonum(t *testing.T) {
	r := rng.Seeded(1)
	for _, n := range []int{1, 2, 5, 17, 32} {
		a := make([]float64, n*n)
		SetRidge(a, n, 0.5)
		full := mat.NewDense(n, n, nil)
		for i := range n {
			full.Set(i, i, 0.5)
		}
		x := make([]float64, n)
		for range 3 * n {
			for i := range x {
				x[i] = r.NormFloat64()
			}
			w := r.Float64()
			AddOuter(a, n, w, x)
			xv := mat.NewVecDense(n, append([]float64(nil), x...))
			full.RankOne(full, w, xv, xv)
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		var want mat.VecDense
		if err := want.SolveVec(full, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
			t.Fatal(err)
		}
		if err := CholeskySolve(a, n, b); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		for i := range n {
			if math.Abs(b[i]-want.AtVec(i)) > 1e-9*math.Max(1, math.Abs(want.AtVec(i))) {
				t.Errorf("n=%d: x[%d] = %v, gonum %v", n, i, b[i], want.AtVec(i))
			}
		}
	}
}

func TestCholeskyRejectsIndefinite(t *testing.T) {
	tests := [][]float64{
		{0},
		{-1},
		{1, 0, 2, 1}, // [[1,2],[2,1]] has a negative eigenvalue
		{math.NaN()},
		{math.Inf(1)},
	}
	for _, a := range tests {
		n := int(math.Sqrt(float64(len(a))))
		b := make([]float64, n)
		if err := CholeskySolve(append([]float64(nil), a...), n, b); !errors.Is(err, ErrNotPositiveDefinite) {
			t.Errorf("CholeskySolve(%v) err = %v, want ErrNotPositiveDefinite", a, err)
		}
	}
}

func BenchmarkNormalEquations32(b *testing.B) {
	const n, k = 32, 50 // rank 32, 50 ratings per row
	r := rng.Seeded(1)
	xs := make([]float64, k*n)
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	a := make([]float64, n*n)
	rhs := make([]float64, n)
	b.ReportAllocs()
	for b.Loop() {
		SetRidge(a, n, 0.5)
		clear(rhs)
		for p := range k {
			AddOuter(a, n, 1, xs[p*n:(p+1)*n])
			Axpy(rhs, 1, xs[p*n:(p+1)*n])
		}
		if err := CholeskySolve(a, n, rhs); err != nil {
			b.Fatal(err)
		}
	}
}
