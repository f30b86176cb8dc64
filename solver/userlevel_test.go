package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/gaussian"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// prepared returns a trainer for x and o after initialization and the user
// half of sweep 1, exactly as Train runs them: the state in which the first
// item release step computes its statistics.
func prepared(t *testing.T, x *ratings.Matrix, o Options) *trainer {
	t.Helper()
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	tr := newTrainer(x, &o)
	if err := tr.initItems(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.parallel(context.Background(), x.Rows(), func(w *worker, i int) error { return tr.user(w, 1, i) }); err != nil {
		t.Fatal(err)
	}
	return tr
}

// releaseStats returns the stacked un-noised statistics of one release
// step, item by item: the Gram matrix on and below the diagonal, then the
// vector. thetas gives each item's IRLS iterate, or is nil for ALS.
func releaseStats(tr *trainer, thetas []float64) [][]float64 {
	r := tr.opts.Rank
	gram, rhs := make([]float64, r*r), make([]float64, r)
	out := make([][]float64, tr.x.Cols())
	for j := range out {
		var theta []float64
		if thetas != nil {
			theta = thetas[j*r : j*r+r]
		}
		tr.userLevelStats(j, theta, gram, rhs)
		for a := range r {
			out[j] = append(out[j], gram[a*r:a*r+a+1]...)
		}
		out[j] = append(out[j], rhs...)
	}
	return out
}

// withoutUser returns x with user's ratings removed (its row kept, empty):
// the add/remove neighbour of x.
func withoutUser(t *testing.T, x *ratings.Matrix, user int) *ratings.Matrix {
	t.Helper()
	var kept []ratings.Triple
	for _, tr := range x.Triples() {
		if int(tr.User) != user {
			kept = append(kept, tr)
		}
	}
	y, err := ratings.New(x.Rows(), x.Cols(), kept)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// adversarialMatrix is a 40 × 30 rank-3 problem (entries in [1, 5]) plus
// user 40, who rates every item at 3 ± 7, far outside [c − B, c + B].
func adversarialMatrix(t *testing.T) *ratings.Matrix {
	t.Helper()
	p := problem(t, 40, 30, 3, 0.3)
	triples := p.Observed.Triples()
	for j := range 30 {
		v := 10.0
		if j%3 == 0 {
			v = -4
		}
		triples = append(triples, ratings.Triple{User: 40, Item: int32(j), Value: v})
	}
	x, err := ratings.New(41, 30, triples)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestUserLevelSensitivityBoundsOneUser(t *testing.T) {
	x := adversarialMatrix(t)
	const adversary = 40
	for _, tt := range []struct {
		name string
		o    Options
		// tight: the adversary must move the statistics by at least this
		// fraction of both bounds.
		tight float64
	}{
		{"als", Options{Rank: 4, UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 5, ClipNorm: 0.5}}, 0.3},
		{"als rank 1", Options{Rank: 1, UserLevel: &UserLevel{Center: 3, Bound: 1, MaxUserRatings: 7, ClipNorm: 0.2}}, 0.9},
		{"als k=1", Options{Rank: 6, UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 1, ClipNorm: 2}}, 0.3},
		{"irls", Options{Rank: 4, Algorithm: IRLS, IRLSIters: 1, Threshold: 0.3, UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 5, ClipNorm: 0.5}}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.Lambda, o.Iters, o.Seeded, o.Seed = 0.5, 1, true, 7
			ul := o.UserLevel
			sens := UserLevelSensitivity(o.Rank, ul.MaxUserRatings, ul.ClipNorm, ul.Bound)
			if got, err := o.Sensitivity(); err != nil || got != sens {
				t.Fatalf("Options.Sensitivity() = %v, %v; want %v", got, err, sens)
			}
			full := prepared(t, x, o)
			var thetas []float64
			if o.Algorithm == IRLS {
				thetas = full.model.V // the public iterate at the first step (warm start)
			}
			with := releaseStats(full, thetas)
			for user := range x.Rows() {
				nb := newTrainer(withoutUser(t, x, user), full.opts)
				// Same public V and same clipped factors for everyone else.
				nb.model.V, nb.clipped = full.model.V, full.clipped
				without := releaseStats(nb, thetas)
				var l1, l2 float64
				changed := 0
				for j := range with {
					moved := false
					for p := range with[j] {
						d := math.Abs(with[j][p] - without[j][p])
						l1 += d
						l2 += d * d
						moved = moved || d != 0
					}
					if moved {
						changed++
					}
				}
				l2 = math.Sqrt(l2)
				if changed > ul.MaxUserRatings {
					t.Errorf("user %d changed %d items' statistics, cap k = %d", user, changed, ul.MaxUserRatings)
				}
				if l1 > sens.L1*(1+1e-9) || l2 > sens.L2*(1+1e-9) {
					t.Errorf("user %d: L1 %v, L2 %v exceed sensitivity %+v", user, l1, l2, sens)
				}
				if user == adversary {
					t.Logf("adversary: L1 %.4g of %.4g (%.0f %%), L2 %.4g of %.4g (%.0f %%), %d items",
						l1, sens.L1, 100*l1/sens.L1, l2, sens.L2, 100*l2/sens.L2, changed)
					if l1 < tt.tight*sens.L1 || l2 < tt.tight*sens.L2 {
						t.Errorf("adversary moved the statistics by L1 %v, L2 %v: want ≥ %v of %+v", l1, l2, tt.tight, sens)
					}
				}
			}
		})
	}
}

func TestUserLevelSensitivityFormula(t *testing.T) {
	for _, tt := range []struct {
		r, k   int
		c, b   float64
		l1, l2 float64
	}{
		// k((r+1)C²/2 + B√r C), √k √(C⁴ + B²C²)
		{1, 1, 1, 1, 2, math.Sqrt2},
		{4, 3, 2, 0.5, 3 * (10 + 2), math.Sqrt(3) * math.Sqrt(16+1)},
		{32, 100, 1, 2, 100 * (16.5 + 2*math.Sqrt(32)), 10 * math.Sqrt(5)},
	} {
		got := UserLevelSensitivity(tt.r, tt.k, tt.c, tt.b)
		if math.Abs(got.L1-tt.l1) > 1e-12*tt.l1 || math.Abs(got.L2-tt.l2) > 1e-12*tt.l2 {
			t.Errorf("UserLevelSensitivity(%d, %d, %v, %v) = %+v, want L1 %v, L2 %v", tt.r, tt.k, tt.c, tt.b, got, tt.l1, tt.l2)
		}
	}
}

func TestContributionCap(t *testing.T) {
	p := problem(t, 60, 50, 3, 0.3)
	x := p.Observed
	for _, tt := range []struct {
		name   string
		k      int
		seeded bool
	}{
		{"k=1", 1, true},
		{"k=3", 3, true},
		{"k=3 crypto", 3, false},
		{"k above every row", 1000, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ul := &UserLevel{Center: 3, Bound: 1, MaxUserRatings: tt.k, ClipNorm: 1}
			c := selectContributions(x, ul, 5, tt.seeded)
			per := make([]int, x.Rows())
			for j := range x.Cols() {
				prev := -1
				for p := c.start[j]; p < c.start[j+1]; p++ {
					i := int(c.users[p])
					if i <= prev {
						t.Fatalf("item %d: users not increasing (%d after %d)", j, i, prev)
					}
					prev = i
					per[i]++
					v, ok := x.Get(i, j)
					if !ok {
						t.Fatalf("item %d: user %d contributes a rating they did not give", j, i)
					}
					if want := math.Min(math.Max(v, 2), 4) - 3; c.vals[p] != want {
						t.Errorf("(%d, %d): value %v, want clipped and centred %v", i, j, c.vals[p], want)
					}
				}
			}
			for i, n := range per {
				items, _ := x.Row(i)
				if n != min(len(items), tt.k) {
					t.Errorf("user %d contributes %d of %d ratings, want min(n, k = %d)", i, n, len(items), tt.k)
				}
			}
		})
	}
}

// TestContributionSubsetIsUniform checks that each of a user's 10 ratings
// is kept with probability k/n = 0.3 over 3000 seeds (σ ≈ 0.008).
func TestContributionSubsetIsUniform(t *testing.T) {
	var triples []ratings.Triple
	for j := range 10 {
		triples = append(triples, ratings.Triple{User: 0, Item: int32(j), Value: 1})
	}
	x, err := ratings.New(1, 10, triples)
	if err != nil {
		t.Fatal(err)
	}
	ul := &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 3, ClipNorm: 1}
	const seeds = 3000
	kept := make([]int, 10)
	for seed := range uint64(seeds) {
		c := selectContributions(x, ul, seed, true)
		for j := range 10 {
			kept[j] += c.start[j+1] - c.start[j]
		}
	}
	for j, n := range kept {
		if f := float64(n) / seeds; math.Abs(f-0.3) > 0.04 {
			t.Errorf("item %d kept in %.3f of runs, want 0.3", j, f)
		}
	}
	a, b := selectContributions(x, ul, 1, true), selectContributions(x, ul, 1, true)
	if !equalInts(a.start, b.start) {
		t.Error("same seed selected different subsets")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestClipFactor(t *testing.T) {
	for _, tt := range []struct {
		u    []float64
		c    float64
		want []float64
	}{
		{[]float64{3, 4}, 5, []float64{3, 4}},
		{[]float64{3, 4}, 6, []float64{3, 4}},
		{[]float64{3, 4}, 1, []float64{0.6, 0.8}},
		{[]float64{0, 0, 0}, 1e-3, []float64{0, 0, 0}},
		{[]float64{-1e150, 1e150}, 2, []float64{-math.Sqrt2, math.Sqrt2}},
	} {
		got := make([]float64, len(tt.u))
		clipFactor(got, tt.u, tt.c)
		if n := math.Sqrt(dense.Dot(got, got)); n > tt.c {
			t.Errorf("clip(%v, %v) = %v has norm %v > C", tt.u, tt.c, got, n)
		}
		if maxDiff(got, tt.want) > 1e-12 {
			t.Errorf("clip(%v, %v) = %v, want %v", tt.u, tt.c, got, tt.want)
		}
	}
}

// TestItemUpdatesUseClippedFactors checks the factors item updates see,
// and through the statistics' code path that trace(Σ ũũᵀ) ≤ n_j·C².
func TestItemUpdatesUseClippedFactors(t *testing.T) {
	p := problem(t, 80, 60, 3, 0.3)
	for _, c := range []float64{0.05, 0.3, 1} {
		o := Options{Rank: 3, Lambda: 0.5, Iters: 1, Seeded: true, Seed: 3,
			UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 1000, ClipNorm: c}}
		tr := prepared(t, p.Observed, o)
		clippedUsers := 0
		for i := range p.Rows {
			u, cu := tr.model.UserFactor(i), tr.clipped[i*3:i*3+3]
			n, cn := math.Sqrt(dense.Dot(u, u)), math.Sqrt(dense.Dot(cu, cu))
			switch {
			case cn > c:
				t.Errorf("C = %v: user %d's clipped factor has norm %v", c, i, cn)
			case n <= c && maxDiff(u, cu) != 0:
				t.Errorf("C = %v: user %d (norm %v) was changed by clipping", c, i, n)
			case n > c:
				clippedUsers++
				if cn < c*(1-1e-12) || math.Abs(dense.Dot(u, cu)-n*cn) > 1e-9*n*cn {
					t.Errorf("C = %v: user %d clipped to %v, want (C/‖u‖)·u", c, i, cu)
				}
			}
		}
		t.Logf("C = %v: %d of %d user factors clipped", c, clippedUsers, p.Rows)
		gram, rhs := make([]float64, 9), make([]float64, 3)
		for j := range p.Cols {
			tr.userLevelStats(j, nil, gram, rhs)
			n := float64(tr.contrib.start[j+1] - tr.contrib.start[j])
			if tr := gram[0] + gram[4] + gram[8]; tr > n*c*c*(1+1e-12) {
				t.Errorf("C = %v: item %d: trace of Gram %v > n·C² = %v", c, j, tr, n*c*c)
			}
		}
	}
}

// fullSym returns the symmetric matrix whose lower triangle is a's.
func fullSym(a []float64, n int) *mat.SymDense {
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range i + 1 {
			s.SetSym(i, j, a[i*n+j])
		}
	}
	return s
}

// withEigenvalues returns Q·diag(vals)·Qᵀ (lower triangle) for a random
// orthogonal Q, the eigenvectors of a random symmetric matrix.
func withEigenvalues(g *rand.Rand, vals []float64) []float64 {
	n := len(vals)
	s := mat.NewSymDense(n, nil)
	for i := range n {
		for j := range i + 1 {
			s.SetSym(i, j, g.NormFloat64())
		}
	}
	var e mat.EigenSym
	e.Factorize(s, true)
	var q, a mat.Dense
	e.VectorsTo(&q)
	a.Mul(&q, mat.NewDiagDense(n, vals))
	a.Mul(&a, q.T())
	out := make([]float64, n*n)
	for i := range n {
		for j := range i + 1 {
			out[i*n+j] = a.At(i, j)
		}
	}
	return out
}

func TestProjectPSD(t *testing.T) {
	g := rng.Seeded(4)
	random := func(n int, shift float64) []float64 {
		a := make([]float64, n*n)
		for i := range n {
			for j := range i + 1 {
				a[i*n+j] = g.NormFloat64()
			}
			a[i*n+i] += shift
		}
		return a
	}
	gram := func(n, m int, ridge float64) []float64 { // Σ of m outer products + ridge·I
		a := make([]float64, n*n)
		v := make([]float64, n)
		for range m {
			for k := range v {
				v[k] = g.NormFloat64()
			}
			dense.AddOuter(a, n, 1, v)
		}
		for i := range n {
			a[i*n+i] += ridge
		}
		return a
	}
	for _, tt := range []struct {
		name      string
		n         int
		a         []float64
		floor     float64
		unchanged bool
	}{
		{"1×1 below floor", 1, []float64{-3}, 0.5, false},
		{"1×1 above floor", 1, []float64{2}, 0.5, true},
		{"4×4 indefinite", 4, random(4, 0), 0.5, false},
		{"32×32 indefinite", 32, random(32, 0), 0.5, false},
		{"32×32 mostly positive", 32, random(32, 8), 0.5, false},
		{"16×16 rank-deficient Gram + λI", 16, gram(16, 5, 0.5), 0.5, false},
		{"16×16 Gram + 2I, floor 0.5", 16, gram(16, 40, 2), 0.5, true},
		{"6×6 positive definite, eigenvalues 0.1…3, floor 0.5", 6, withEigenvalues(g, []float64{0.1, 0.2, 0.45, 1, 2, 3}), 0.5, false},
		{"6×6 eigenvalues 0.6…3, floor 0.5", 6, withEigenvalues(g, []float64{0.6, 0.7, 0.8, 1, 2, 3}), 0.5, true},
		{"8×8 negative definite, floor 0", 8, random(8, -20), 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.n
			p := newPSD(n)
			a := append([]float64(nil), tt.a...)
			const sentinel = 12345.0
			for i := range n {
				for j := i + 1; j < n; j++ {
					a[i*n+j] = sentinel
				}
			}
			if !p.project(a, tt.floor) {
				t.Fatal("project failed")
			}
			var in, out mat.EigenSym
			if !in.Factorize(fullSym(tt.a, n), true) || !out.Factorize(fullSym(a, n), false) {
				t.Fatal("gonum EigenSym failed")
			}
			for i := range n {
				for j := i + 1; j < n; j++ {
					if a[i*n+j] != sentinel {
						t.Fatalf("strict upper triangle written at (%d, %d)", i, j)
					}
				}
			}
			scale := math.Max(1, mat.Norm(fullSym(tt.a, n), 2))
			for k, mu := range out.Values(nil) {
				if mu < tt.floor-1e-12*scale {
					t.Errorf("eigenvalue %d = %v < floor %v", k, mu, tt.floor)
				}
			}
			// Reference: Q max(Λ, floor) Qᵀ from gonum's EigenSym.
			vals := in.Values(nil)
			var q mat.Dense
			in.VectorsTo(&q)
			for k := range vals {
				vals[k] = math.Max(vals[k], tt.floor)
			}
			var ref mat.Dense
			ref.Mul(&q, mat.NewDiagDense(n, vals))
			ref.Mul(&ref, q.T())
			for i := range n {
				for j := range i + 1 {
					if d := math.Abs(a[i*n+j] - ref.At(i, j)); d > 1e-10*scale {
						t.Errorf("(%d, %d) = %v, want %v", i, j, a[i*n+j], ref.At(i, j))
					}
					if tt.unchanged && a[i*n+j] != tt.a[i*n+j] {
						t.Errorf("PSD input above the floor changed at (%d, %d): %v → %v", i, j, tt.a[i*n+j], a[i*n+j])
					}
				}
			}
			if allocs := testing.AllocsPerRun(5, func() {
				copy(a, tt.a)
				p.project(a, tt.floor)
			}); allocs != 0 {
				t.Errorf("project allocates %v times per call", allocs)
			}
		})
	}
	p := newPSD(2)
	for _, bad := range [][]float64{{math.NaN(), 0, 1, 1}, {1, 0, math.Inf(1), 1}} {
		a := append([]float64(nil), bad...)
		if p.project(a, 0.5) {
			t.Errorf("project(%v) succeeded, want failure on a non-finite entry", bad)
		}
	}
}

func TestUserLevelReproducibleAcrossWorkers(t *testing.T) {
	p := problem(t, 80, 70, 3, 0.2)
	lap, _ := laplace.New(0.7)
	hub, _ := huber.New(1, 0.5)
	gau, _ := gaussian.New(0.5)
	for _, o := range []Options{
		{Algorithm: ALS, Noise: lap},
		{Algorithm: ALS, Noise: gau},
		{Algorithm: ALS},
		{Algorithm: IRLS, Noise: hub, IRLSIters: 3, Threshold: 1, Init: InitPaper},
		{Algorithm: IRLS, Noise: hub, IRLSIters: 2, Threshold: 1, Init: InitWarm},
	} {
		o.Rank, o.Lambda, o.Iters, o.Seeded, o.Seed = 3, 0.5, 3, true, 11
		o.UserLevel = &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 5, ClipNorm: 1}
		name := o.Algorithm.String() + "/" + o.Init.String()
		if o.Noise != nil {
			name += "/" + o.Noise.Name()
		}
		o.Workers = 1
		one := train(t, p.Observed, o)
		o.Workers = 4
		four := train(t, p.Observed, o)
		if maxDiff(one.U, four.U) != 0 || maxDiff(one.V, four.V) != 0 {
			t.Errorf("%s: factors differ between 1 and 4 workers", name)
		}
		if one.Offset != 3 {
			t.Errorf("%s: offset %v, want the centre 3", name, one.Offset)
		}
		o.Seed = 12
		if other := train(t, p.Observed, o); maxDiff(one.V, other.V) == 0 {
			t.Errorf("%s: different seeds gave identical factors", name)
		}
		o.Seeded = false
		if a, b := train(t, p.Observed, o), train(t, p.Observed, o); maxDiff(a.V, b.V) == 0 {
			t.Errorf("%s: two unseeded runs gave identical factors", name)
		}
	}
}

// TestUserLevelNoiselessMatchesALS: without noise, a cap and clipping that
// never bind, user-level ALS is ALS on x − c. With c = 0 it is plain ALS up
// to rounding; with c = 3 (a rank-r fit of a rank-(r+1) matrix) it stays
// close, and so it does with a cap that binds.
func TestUserLevelNoiselessMatchesALS(t *testing.T) {
	p := problem(t, 120, 100, 3, 0.4)
	base := Options{Rank: 3, Lambda: 0.1, Iters: 30, Seeded: true, Seed: 1}
	plain := p.FullRMSE(train(t, p.Observed, base))
	for _, tt := range []struct {
		name  string
		ul    UserLevel
		slack float64 // allowed RMSE above plain ALS
	}{
		{"c=0, nothing binds", UserLevel{Center: 0, Bound: 100, MaxUserRatings: 1e6, ClipNorm: 1e6}, 1e-6},
		{"c=3, nothing binds", UserLevel{Center: 3, Bound: 2, MaxUserRatings: 1e6, ClipNorm: 1e6}, 0.05},
		{"c=3, k=25, C=2", UserLevel{Center: 3, Bound: 2, MaxUserRatings: 25, ClipNorm: 2}, 0.1},
	} {
		o := base
		o.UserLevel = &tt.ul
		got := p.FullRMSE(train(t, p.Observed, o))
		t.Logf("%s: full RMSE %.5f, plain ALS %.5f", tt.name, got, plain)
		if !(got <= plain+tt.slack) {
			t.Errorf("%s: full RMSE %v, want ≤ plain ALS %v + %v", tt.name, got, plain, tt.slack)
		}
	}
}

func TestModelOffset(t *testing.T) {
	p := problem(t, 30, 20, 2, 0.5)
	o := Options{Rank: 2, Lambda: 0.5, Iters: 3, Seeded: true, Seed: 2,
		UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 100, ClipNorm: 100}}
	m := train(t, p.Observed, o)
	var se float64
	for tr := range p.Observed.All() {
		pred := 3 + dense.Dot(m.UserFactor(int(tr.User)), m.ItemFactor(int(tr.Item)))
		if got := m.Predict(int(tr.User), int(tr.Item)); got != pred {
			t.Fatalf("Predict(%d, %d) = %v, want 3 + uᵀv = %v", tr.User, tr.Item, got, pred)
		}
		se += (pred - tr.Value) * (pred - tr.Value)
	}
	rmse, _ := m.Errors(p.Observed, Clip{})
	if want := math.Sqrt(se / float64(p.Observed.Len())); math.Abs(rmse-want) > 1e-12 {
		t.Errorf("Errors RMSE %v, want %v", rmse, want)
	}
	o.UserLevel = nil
	if m := train(t, p.Observed, o); m.Offset != 0 {
		t.Errorf("paper mode offset = %v, want 0", m.Offset)
	}
}

func TestUserLevelBadOptions(t *testing.T) {
	p := problem(t, 10, 10, 2, 0.5)
	good := UserLevel{Center: 3, Bound: 2, MaxUserRatings: 5, ClipNorm: 1}
	with := func(f func(u *UserLevel)) *UserLevel { u := good; f(&u); return &u }
	for _, tt := range []struct {
		ul     *UserLevel
		lambda float64
		want   string
	}{
		{with(func(u *UserLevel) { u.Center = math.NaN() }), 0.5, "user-level center"},
		{with(func(u *UserLevel) { u.Center = math.Inf(-1) }), 0.5, "user-level center"},
		{with(func(u *UserLevel) { u.Bound = 0 }), 0.5, "user-level bound"},
		{with(func(u *UserLevel) { u.Bound = -1 }), 0.5, "user-level bound"},
		{with(func(u *UserLevel) { u.Bound = math.Inf(1) }), 0.5, "user-level bound"},
		{with(func(u *UserLevel) { u.MaxUserRatings = 0 }), 0.5, "user-level max user ratings"},
		{with(func(u *UserLevel) { u.ClipNorm = 0 }), 0.5, "user-level clip norm"},
		{with(func(u *UserLevel) { u.ClipNorm = math.NaN() }), 0.5, "user-level clip norm"},
		{&good, 0, "lambda"},
	} {
		o := Options{Rank: 2, Iters: 1, Lambda: tt.lambda, UserLevel: tt.ul}
		_, err := Train(context.Background(), p.Observed, o)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, check.ErrParam) {
			t.Errorf("Train(%+v, %+v) err = %v, want check.ErrParam naming %q", o, *tt.ul, err, tt.want)
		}
		if _, err := o.Sensitivity(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Sensitivity(%+v) err = %v, want mention of %q", *tt.ul, err, tt.want)
		}
	}
	if _, err := (Options{Rank: 2, Iters: 1}).Sensitivity(); err == nil || !errors.Is(err, check.ErrParam) || !strings.Contains(err.Error(), "user level") {
		t.Errorf("Sensitivity without UserLevel: err = %v, want a user-level error", err)
	}
}

func TestReleases(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want int
	}{
		{Options{Algorithm: ALS, Iters: 20, IRLSIters: 7}, 20},
		{Options{Algorithm: IRLS, Iters: 20, IRLSIters: 2}, 40},
		{Options{Algorithm: IRLS, Iters: 3, IRLSIters: 20, UserLevel: &UserLevel{}}, 60},
	} {
		if got := tt.o.Releases(); got != tt.want {
			t.Errorf("%v T=%d K=%d: Releases() = %d, want %d", tt.o.Algorithm, tt.o.Iters, tt.o.IRLSIters, got, tt.want)
		}
	}
}

// TestUserLevelNoiseIsApplied: Gram and vector noise make a user-level
// model clearly worse than its noiseless baseline, and the run still
// succeeds (the projection keeps every solve well posed).
func TestUserLevelNoiseIsApplied(t *testing.T) {
	p := problem(t, 60, 50, 3, 0.3)
	o := Options{Rank: 3, Lambda: 0.5, Iters: 10, Seeded: true, Seed: 5,
		UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 50, ClipNorm: 2}}
	clean := p.FullRMSE(train(t, p.Observed, o))
	var lap noise.Mechanism
	lap, _ = laplace.New(3)
	o.Noise = lap
	noisy := p.FullRMSE(train(t, p.Observed, o))
	t.Logf("full RMSE %v noiseless, %v with Laplace(b=3)", clean, noisy)
	if !(noisy > clean*1.5) {
		t.Errorf("Laplace(b=3) noise: full RMSE %v vs %v without; want clearly worse", noisy, clean)
	}
}

// TestReleaseNoisesBothStatistics pins down one release: one noise draw per
// Gram entry on and below the diagonal (row by row), then one per vector
// coordinate, all from the item's stream, then λ on the diagonal.
func TestReleaseNoisesBothStatistics(t *testing.T) {
	const r, lambda = 3, 1.0
	gau, _ := gaussian.New(0.01) // small: the result stays above the floor, no projection
	tr := &trainer{opts: &Options{Rank: r, Lambda: lambda, Noise: gau}}
	w := &worker{gram: make([]float64, r*r), rhs: make([]float64, r), psd: newPSD(r)}
	base := []float64{2, 0, 0, 0.5, 3, 0, -0.2, 0.1, 4}
	copy(w.gram, base)
	w.rhs = []float64{1, -1, 2}
	if err := tr.release(w, 1, 0, rng.Stream(9, 1)); err != nil {
		t.Fatal(err)
	}
	g := rng.Stream(9, 1)
	for a := range r {
		for b := range a + 1 {
			want := base[a*r+b] + gau.Sample(g)
			if a == b {
				want += lambda
			}
			if w.gram[a*r+b] != want {
				t.Errorf("gram(%d, %d) = %v, want %v", a, b, w.gram[a*r+b], want)
			}
		}
	}
	for a, v := range []float64{1, -1, 2} {
		if want := v + gau.Sample(g); w.rhs[a] != want {
			t.Errorf("rhs(%d) = %v, want %v", a, w.rhs[a], want)
		}
	}
}

// TestUserLevelNoiseStreamsDiffer: all four items have identical ratings,
// hence identical statistics; only independent noise tells them apart.
func TestUserLevelNoiseStreamsDiffer(t *testing.T) {
	var triples []ratings.Triple
	for i := range 20 {
		for j := range 4 {
			v := float64(1 + i%5)
			triples = append(triples, ratings.Triple{User: int32(i), Item: int32(j), Value: v})
		}
	}
	x, err := ratings.New(20, 4, triples)
	if err != nil {
		t.Fatal(err)
	}
	lap, _ := laplace.New(1)
	o := Options{Rank: 2, Lambda: 0.5, Iters: 2, Seeded: true, Seed: 1, Noise: lap,
		UserLevel: &UserLevel{Center: 3, Bound: 2, MaxUserRatings: 10, ClipNorm: 1}}
	m := train(t, x, o)
	o.Noise = nil
	clean := train(t, x, o)
	for a := range 4 {
		for b := range a {
			if maxDiff(clean.ItemFactor(a), clean.ItemFactor(b)) != 0 {
				t.Fatalf("noiseless: identical items %d and %d got different factors", a, b)
			}
			if maxDiff(m.ItemFactor(a), m.ItemFactor(b)) == 0 {
				t.Errorf("identical items %d and %d got identical noisy factors: noise streams are shared", a, b)
			}
		}
	}
}
