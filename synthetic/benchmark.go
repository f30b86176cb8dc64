package synthetic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// Benchmark describes the project's throughput benchmark data set: a
// Users × Items matrix with exactly Ratings observed cells, chosen
// uniformly at random without replacement, each
//
//	x_ij = clamp(3 + 0.8·u_iᵀv_j/√Rank + N(0, NoiseSD²), 1, 5),
//
// with u_i, v_j ~ N(0, I_Rank) (so 0.8·uᵀv/√Rank has standard deviation
// 0.8), rounded to the nearest float32 (a relative change below 6·10⁻⁸,
// which keeps the matrix at 16 bytes per rating; see ratings.Matrix) and
// not otherwise. Every user and item has about the same number of
// ratings, so the cost of a sweep is the same per rating at every size:
// scaling Users, Items and Ratings together gives data sets whose training
// time should grow linearly in Ratings.
//
// The zero value is not useful; DefaultBenchmark gives the 10 M set.
// Everything is deterministic for a given Seed: experimental data, not
// private data.
type Benchmark struct {
	Users, Items int
	Ratings      int
	Rank         int
	NoiseSD      float64
	Seed         uint64
}

// DefaultBenchmark returns the benchmark set of 100 000 users × 20 000
// items with 10 000 000 ratings (0.5 % of the cells; 100 per user and 500
// per item on average), rank 10 and noise standard deviation 0.1, divided
// in every size by scale (≥ 1): scale 10 gives the 1 M set of 10 000 users
// × 2 000 items with the same ratings per user and per item.
func DefaultBenchmark(scale int, seed uint64) Benchmark {
	scale = max(scale, 1)
	return Benchmark{
		Users: 100_000 / scale, Items: 20_000 / scale, Ratings: 10_000_000 / scale,
		Rank: 10, NoiseSD: 0.1, Seed: seed,
	}
}

// Generate draws the data set. Users and items are named "1", "2", …. It
// returns an error naming the field if a size or parameter is out of range:
// Users and Items in [1, 2³¹ − 1], Ratings in [1, Users·Items] and at most
// 2³¹ − 1, Rank ≥ 1, NoiseSD finite and ≥ 0.
func (b Benchmark) Generate() (*ratings.Dataset, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	// The cells are in row-major order, so a Builder takes them as they
	// come, without a []Triple; values rounded to float32 keep the matrix
	// at 16 bytes per rating. Cell numbers take 4 bytes each while they fit.
	mb, err := ratings.NewBuilder(b.Users, b.Items, b.Ratings)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	if uint64(b.Users)*uint64(b.Items) <= math.MaxUint32+1 {
		err = addCells(b, mb, sampleCells[uint32](b))
	} else {
		err = addCells(b, mb, sampleCells[uint64](b))
	}
	if err != nil {
		return nil, err
	}
	m := mb.Matrix() // the cells are garbage by now
	return &ratings.Dataset{
		Ratings: m, Users: ratings.NumberedIDs(b.Users, 1), Items: ratings.NumberedIDs(b.Items, 1),
		Min: 1, Max: 5,
		Source: fmt.Sprintf("synthetic benchmark %d users × %d items, %d ratings, rank %d, noise sd %g, seed %d", b.Users, b.Items, b.Ratings, b.Rank, b.NoiseSD, b.Seed),
		Format: ratings.FormatCSV, FormatReason: "generated",
	}, nil
}

// Test draws a held-out test set of n ratings for the training set train
// that Generate made from b: n distinct cells, uniform among those train
// does not rate, valued by the same formula (the same u_i and v_j, fresh
// noise, rounded to float32 likewise). It returns an error if b is
// invalid, if train is not b's shape, or if n is negative or more than
// the cells left.
func (b Benchmark) Test(n int, train *ratings.Matrix) (*ratings.Matrix, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	if train == nil || train.Rows() != b.Users || train.Cols() != b.Items {
		return nil, fmt.Errorf("synthetic: benchmark test set: training matrix is not %d × %d", b.Users, b.Items)
	}
	total := uint64(b.Users) * uint64(b.Items)
	if n < 0 || uint64(n) > total-uint64(train.Len()) || n > math.MaxInt32 {
		return nil, fmt.Errorf("synthetic: benchmark test set of %d ratings, want in [0, %d]", n, total-uint64(train.Len()))
	}
	r := b.Rank
	u, v := b.factors()
	g := rng.Stream(b.Seed, 1004)
	// Rejection: a cell that is rated or drawn already is drawn again,
	// which leaves the set uniform among the unrated cells.
	picked := make(map[uint64]struct{}, n)
	cells := make([]uint64, 0, n)
	for len(cells) < n {
		c := g.Uint64N(total)
		if _, dup := picked[c]; dup {
			continue
		}
		if _, rated := train.Get(int(c/uint64(b.Items)), int(c%uint64(b.Items))); rated {
			continue
		}
		picked[c] = struct{}{}
		cells = append(cells, c)
	}
	slices.Sort(cells)
	mb, err := ratings.NewBuilder(b.Users, b.Items, n)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	scale := 0.8 / math.Sqrt(float64(r))
	for _, c := range cells {
		i, j := int(c/uint64(b.Items)), int(c%uint64(b.Items))
		if err := mb.Add(i, j, b.value(u[i*r:i*r+r], v[j*r:j*r+r], scale, g)); err != nil {
			return nil, fmt.Errorf("synthetic: %w", err)
		}
	}
	return mb.Matrix(), nil
}

// check returns an error naming the field if b is invalid (see Generate).
func (b Benchmark) check() error {
	switch {
	case b.Users < 1 || b.Users > math.MaxInt32:
		return fmt.Errorf("synthetic: benchmark users = %d, want in [1, %d]", b.Users, math.MaxInt32)
	case b.Items < 1 || b.Items > math.MaxInt32:
		return fmt.Errorf("synthetic: benchmark items = %d, want in [1, %d]", b.Items, math.MaxInt32)
	case b.Ratings < 1 || b.Ratings > math.MaxInt32 || uint64(b.Ratings) > uint64(b.Users)*uint64(b.Items):
		return fmt.Errorf("synthetic: benchmark ratings = %d, want in [1, min(users × items, %d)]", b.Ratings, math.MaxInt32)
	case b.Rank < 1:
		return fmt.Errorf("synthetic: benchmark rank = %d, want ≥ 1", b.Rank)
	case !(b.NoiseSD >= 0) || math.IsInf(b.NoiseSD, 0):
		return fmt.Errorf("synthetic: benchmark noise sd = %v, want a finite number ≥ 0", b.NoiseSD)
	}
	return nil
}

// factors returns the true factors u (Users × Rank) and v (Items × Rank).
func (b Benchmark) factors() (u, v []float64) {
	normals := func(n int, stream uint64) []float64 {
		g := rng.Stream(b.Seed, stream)
		x := make([]float64, n)
		for k := range x {
			x[k] = g.NormFloat64()
		}
		return x
	}
	return normals(b.Users*b.Rank, 1000), normals(b.Items*b.Rank, 1001)
}

// value returns one rating clamp(3 + scale·uᵀv + N(0, NoiseSD²), 1, 5),
// rounded to float32, drawing the noise from g.
func (b Benchmark) value(u, v []float64, scale float64, g *rand.Rand) float64 {
	var dot float64
	for a, x := range u {
		dot += x * v[a]
	}
	x := 3 + scale*dot + b.NoiseSD*g.NormFloat64()
	return float64(float32(math.Min(math.Max(x, 1), 5)))
}

// addCells adds the ratings of the cells, in increasing order, to mb.
func addCells[C uint32 | uint64](b Benchmark, mb *ratings.Builder, cells []C) error {
	r := b.Rank
	u, v := b.factors()
	g := rng.Stream(b.Seed, 1003)
	scale := 0.8 / math.Sqrt(float64(r))
	items := uint64(b.Items)
	for _, c := range cells {
		i, j := int(uint64(c)/items), int(uint64(c)%items)
		if err := mb.Add(i, j, b.value(u[i*r:i*r+r], v[j*r:j*r+r], scale, g)); err != nil {
			return fmt.Errorf("synthetic: %w", err)
		}
	}
	return nil
}

// sampleCells returns b.Ratings distinct cells i·Items + j, in increasing
// order, a uniformly random subset; C must hold Users·Items − 1. Sparse
// sets draw cells with replacement, drop repeats and draw again for the
// missing ones: the final set depends on the draws only through which
// cells they hit, symmetrically, so every subset of the size is equally
// likely. Dense sets (over a quarter of the cells) use selection sampling
// instead, which keeps each cell with probability (wanted − kept)/(cells
// left). The draws do not depend on C.
func sampleCells[C uint32 | uint64](b Benchmark) []C {
	total := uint64(b.Users) * uint64(b.Items)
	want := b.Ratings
	g := rng.Stream(b.Seed, 1002)
	cells := make([]C, 0, want)
	if uint64(want) > total/4 {
		for c := uint64(0); c < total && len(cells) < want; c++ {
			if float64(total-c)*g.Float64() < float64(want-len(cells)) {
				cells = append(cells, C(c))
			}
		}
		return cells
	}
	for len(cells) < want {
		for range want - len(cells) {
			cells = append(cells, C(g.Uint64N(total)))
		}
		slices.Sort(cells)
		cells = slices.Compact(cells)
	}
	return cells
}
