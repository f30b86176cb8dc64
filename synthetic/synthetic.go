// Package synthetic generates the low-rank test problems of the paper's
// section 4: a ratings matrix X = U Vᵀ of exact rank r with entries in
// [1, 5], of which a given fraction is observed uniformly at random.
//
// The paper leaves sizes and distributions open. The choice made here:
// every entry of U (m × r) and V (n × r) is drawn i.i.d. uniform on
// [1/√r, √(5/r)], so that each x_ij = Σₖ u_ik v_jk lies in [1, 5] by
// construction and X has rank exactly r — no clipping or affine shift,
// which would raise the rank. Exactly round(fraction·m·n) entries are
// observed, chosen uniformly without replacement by selection sampling.
// The defaults (1000 × 1000, rank 5, 10 % observed) are the CLI's
// built-in problem.
//
// Everything is deterministic for a given seed: this is experimental data,
// not private data.
package synthetic

import (
	"fmt"
	"math"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// Options describe a synthetic problem.
type Options struct {
	Rows, Cols, Rank int
	// Observed is the fraction of the Rows·Cols entries observed, in (0, 1].
	Observed float64
	Seed     uint64
}

// Problem is a generated matrix: its exact factors and the observed
// entries.
type Problem struct {
	Options
	// U (Rows × Rank) and V (Cols × Rank), row-major: X = U Vᵀ.
	U, V []float64
	// Observed holds the observed entries of X.
	Observed *ratings.Matrix
}

// Min and Max are the ratings range of every generated entry.
const (
	Min = 1.0
	Max = 5.0
)

// Generate returns the problem for opts. It returns an error naming the
// option if a size is below 1, the rank exceeds min(Rows, Cols), or
// Observed is not in (0, 1] or rounds to no entry.
func Generate(opts Options) (*Problem, error) {
	switch {
	case opts.Rows < 1:
		return nil, fmt.Errorf("synthetic: rows = %d, want ≥ 1", opts.Rows)
	case opts.Cols < 1:
		return nil, fmt.Errorf("synthetic: cols = %d, want ≥ 1", opts.Cols)
	case opts.Rank < 1 || opts.Rank > min(opts.Rows, opts.Cols):
		return nil, fmt.Errorf("synthetic: rank = %d, want in [1, min(rows, cols) = %d]", opts.Rank, min(opts.Rows, opts.Cols))
	case !(opts.Observed > 0 && opts.Observed <= 1):
		return nil, fmt.Errorf("synthetic: observed = %v, want a fraction in (0, 1]", opts.Observed)
	case int64(opts.Rows)*int64(opts.Cols) > math.MaxInt32:
		return nil, fmt.Errorf("synthetic: %d × %d entries is too many", opts.Rows, opts.Cols)
	}
	total := opts.Rows * opts.Cols
	want := int(math.Round(opts.Observed * float64(total)))
	if want < 1 {
		return nil, fmt.Errorf("synthetic: observed = %v of %d entries rounds to none", opts.Observed, total)
	}
	p := &Problem{Options: opts}
	r := opts.Rank
	lo, hi := 1/math.Sqrt(float64(r)), math.Sqrt(5/float64(r))
	fill := func(x []float64, stream uint64) {
		g := rng.Stream(opts.Seed, stream)
		for i := range x {
			x[i] = lo + (hi-lo)*g.Float64()
		}
	}
	p.U = make([]float64, opts.Rows*r)
	p.V = make([]float64, opts.Cols*r)
	fill(p.U, 0)
	fill(p.V, 1)

	// Selection sampling (Knuth's Algorithm S): entry e is kept with
	// probability (want − kept)/(total − e), which keeps exactly want.
	g := rng.Stream(opts.Seed, 2)
	triples := make([]ratings.Triple, 0, want)
	for e := 0; e < total && len(triples) < want; e++ {
		if float64(total-e)*g.Float64() < float64(want-len(triples)) {
			i, j := e/opts.Cols, e%opts.Cols
			triples = append(triples, ratings.Triple{User: int32(i), Item: int32(j), Value: p.At(i, j)})
		}
	}
	m, err := ratings.New(opts.Rows, opts.Cols, triples)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	p.Observed = m
	return p, nil
}

// At returns the true entry x_ij = u_iᵀ v_j.
func (p *Problem) At(i, j int) float64 {
	r := p.Rank
	u, v := p.U[i*r:i*r+r], p.V[j*r:j*r+r]
	var s float64
	for k := range u {
		s += u[k] * v[k]
	}
	return s
}

// Predictor is anything that predicts entry (i, j); *solver.Model is one.
type Predictor interface {
	Predict(i, j int) float64
}

// FullRMSE returns ‖X − X̂‖_F / √(mn), the RMSE over all entries observed or
// not: the paper's metric for synthetic data.
func (p *Problem) FullRMSE(model Predictor) float64 {
	var se float64
	for i := range p.Rows {
		for j := range p.Cols {
			d := model.Predict(i, j) - p.At(i, j)
			se += d * d
		}
	}
	return math.Sqrt(se / float64(p.Rows*p.Cols))
}
