package solver

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/cryptotest"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/noise/laplace"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

func problem(t testing.TB, rows, cols, rank int, observed float64) *synthetic.Problem {
	t.Helper()
	p, err := synthetic.Generate(synthetic.Options{Rows: rows, Cols: cols, Rank: rank, Observed: observed, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func train(t testing.TB, x *ratings.Matrix, o Options) *Model {
	t.Helper()
	m, err := Train(context.Background(), x, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNoiselessALSRecoversLowRank(t *testing.T) {
	p := problem(t, 120, 100, 3, 0.4)
	m := train(t, p.Observed, Options{Rank: 3, Lambda: 1e-6, Iters: 60, Seeded: true, Seed: 1})
	if rmse := p.FullRMSE(m); rmse > 1e-2 {
		t.Errorf("full RMSE = %v, want < 1e-2", rmse)
	}
}

// normalResidual returns the largest |(AᵀA + λI)x − Aᵀy| over the rows of
// x (users if byUser, else items), where A holds the other side's factors.
func normalResidual(x *ratings.Matrix, m *Model, lambda float64, byUser bool) float64 {
	r := m.Rank
	worst := 0.0
	n, self, other := x.Cols(), m.V, m.U
	if byUser {
		n, self, other = x.Rows(), m.U, m.V
	}
	for row := range n {
		var (
			idx  []int32
			vals ratings.Values
		)
		if byUser {
			idx, vals = x.Row(row)
		} else {
			idx, vals = x.Col(row)
		}
		theta := self[row*r : row*r+r]
		res := make([]float64, r)
		for k := range res {
			res[k] = lambda * theta[k]
		}
		for p, o := range idx {
			a := other[int(o)*r : int(o)*r+r]
			dense.Axpy(res, dense.Dot(a, theta)-vals.At(p), a)
		}
		for _, v := range res {
			worst = math.Max(worst, math.Abs(v))
		}
	}
	return worst
}

func TestRowSolvesSatisfyNormalEquations(t *testing.T) {
	p := problem(t, 50, 40, 4, 0.3)
	o := Options{Rank: 4, Lambda: 0.5, Iters: 3, Seeded: true, Seed: 2, Precision: Double}
	m := train(t, p.Observed, o)
	// The items were solved last, from the final U.
	if res := normalResidual(p.Observed, m, o.Lambda, false); res > 1e-8 {
		t.Errorf("item normal equations off by %v", res)
	}
	// Re-solve the users from the final V, with the solver's own code.
	tr := &trainer{x: p.Observed, opts: &Options{Rank: 4, Lambda: 0.5, Workers: 2}, model: m}
	if err := tr.parallel(context.Background(), m.Users, func(w *worker, i int) error { return tr.user(w, 1, i) }); err != nil {
		t.Fatal(err)
	}
	if res := normalResidual(p.Observed, m, o.Lambda, true); res > 1e-8 {
		t.Errorf("user normal equations off by %v", res)
	}
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func TestIRLSWithHugeThresholdIsALS(t *testing.T) {
	p := problem(t, 60, 50, 3, 0.3)
	base := Options{Rank: 3, Lambda: 0.5, Iters: 5, Seeded: true, Seed: 3, Precision: Double}
	als := train(t, p.Observed, base)
	irls := base
	irls.Algorithm, irls.IRLSIters, irls.Threshold = IRLS, 3, 1e12
	got := train(t, p.Observed, irls)
	if d := maxDiff(als.V, got.V); d > 1e-9 {
		t.Errorf("IRLS with c = 1e12 differs from ALS by %v in V", d)
	}
	if d := maxDiff(als.U, got.U); d > 1e-9 {
		t.Errorf("IRLS with c = 1e12 differs from ALS by %v in U", d)
	}
}

// TestIRLSIsRobustToOutliers corrupts 3 % of the observed entries by +15;
// the Huber-weighted item solves shrug most of it off, least squares cannot.
func TestIRLSIsRobustToOutliers(t *testing.T) {
	p := problem(t, 150, 120, 3, 0.3)
	g := rng.Seeded(9)
	triples := p.Observed.Triples()
	for k := range triples {
		if g.Float64() < 0.03 {
			triples[k].Value += 15
		}
	}
	x, err := ratings.New(p.Rows, p.Cols, triples)
	if err != nil {
		t.Fatal(err)
	}
	base := Options{Rank: 3, Lambda: 0.5, Iters: 20, Seeded: true, Seed: 4}
	alsRMSE := p.FullRMSE(train(t, x, base))
	irls := base
	irls.Algorithm, irls.IRLSIters, irls.Threshold = IRLS, 10, 0.5
	irlsRMSE := p.FullRMSE(train(t, x, irls))
	t.Logf("full RMSE with outliers: ALS %.4f, IRLS %.4f", alsRMSE, irlsRMSE)
	if !(irlsRMSE < alsRMSE/2) {
		t.Errorf("IRLS RMSE %.4f not clearly below ALS %.4f", irlsRMSE, alsRMSE)
	}
}

func TestReproducibleAcrossWorkers(t *testing.T) {
	p := problem(t, 80, 70, 3, 0.2)
	lap, _ := laplace.New(0.7)
	hub, _ := huber.New(1, 1)
	for _, o := range []Options{
		{Algorithm: ALS, Noise: lap},
		{Algorithm: ALS, Noise: lap, Precision: Double},
		{Algorithm: IRLS, Noise: hub, IRLSIters: 3, Threshold: 1, Init: InitPaper},
		{Algorithm: IRLS, Noise: hub, IRLSIters: 2, Threshold: 1, Init: InitWarm},
	} {
		o.Rank, o.Lambda, o.Iters, o.Seeded, o.Seed = 3, 0.5, 4, true, 11
		o.Workers = 1
		one := train(t, p.Observed, o)
		o.Workers = 8
		eight := train(t, p.Observed, o)
		again := train(t, p.Observed, o)
		for name, pair := range map[string][2]*Model{"1 vs 8 workers": {one, eight}, "same seed": {eight, again}} {
			if maxDiff(pair[0].U, pair[1].U) != 0 || maxDiff(pair[0].V, pair[1].V) != 0 {
				t.Errorf("%v %v: factors differ (%s)", o.Algorithm, o.Init, name)
			}
		}
		o.Seed = 12
		other := train(t, p.Observed, o)
		if maxDiff(one.V, other.V) == 0 {
			t.Errorf("%v: different seeds gave identical factors", o.Algorithm)
		}
	}
}

func TestNoiseIsApplied(t *testing.T) {
	p := problem(t, 60, 50, 3, 0.3)
	base := Options{Rank: 3, Lambda: 0.5, Iters: 10, Seeded: true, Seed: 5}
	clean := p.FullRMSE(train(t, p.Observed, base))
	lap, _ := laplace.New(3)
	base.Noise = lap
	noisy := p.FullRMSE(train(t, p.Observed, base))
	if !(noisy > clean*1.5) {
		t.Errorf("Laplace(b=3) noise: full RMSE %v vs %v without; want clearly worse", noisy, clean)
	}
}

// TestStartV checks that a given start replaces the random one: with no
// noise the result no longer depends on the seed, the caller's slice is
// not modified, and with noise two seeds still differ.
func TestStartV(t *testing.T) {
	p := problem(t, 40, 30, 2, 0.4)
	start := make([]float64, 30*2)
	for k := range start {
		start[k] = 1 + 0.1*float64(k%7)
	}
	orig := append([]float64(nil), start...)
	lap, _ := laplace.New(0.5)
	for _, o := range []Options{
		{Algorithm: ALS},
		{Algorithm: IRLS, IRLSIters: 2, Threshold: 1, Init: InitWarm},
	} {
		o.Rank, o.Lambda, o.Iters, o.Seeded, o.StartV = 2, 0.5, 3, true, start
		o.Seed = 1
		a := train(t, p.Observed, o)
		o.Seed = 2
		b := train(t, p.Observed, o)
		if maxDiff(a.V, b.V) != 0 {
			t.Errorf("%v without noise: the seed still matters with StartV", o.Algorithm)
		}
		o.StartV = nil
		if c := train(t, p.Observed, o); maxDiff(a.V, c.V) == 0 {
			t.Errorf("%v: StartV was ignored", o.Algorithm)
		}
		o.StartV, o.Noise = start, lap
		if d := train(t, p.Observed, o); maxDiff(a.V, d.V) == 0 {
			t.Errorf("%v: noise had no effect with StartV", o.Algorithm)
		}
	}
	if maxDiff(start, orig) != 0 {
		t.Error("Train modified StartV")
	}
}

func TestUnseededDrawsFromCrypto(t *testing.T) {
	p := problem(t, 30, 20, 2, 0.5)
	o := Options{Rank: 2, Lambda: 0.5, Iters: 2}
	a, b := train(t, p.Observed, o), train(t, p.Observed, o)
	if maxDiff(a.V, b.V) == 0 {
		t.Error("two unseeded runs gave identical factors")
	}
	// With crypto/rand made reproducible (cryptotest.SetGlobalRandom), two
	// unseeded runs agree, and with another global seed they do not: the
	// run key, hence every draw, comes from crypto/rand and nothing else.
	hub, _ := huber.New(1, 1)
	o.Noise, o.Algorithm, o.IRLSIters, o.Threshold = hub, IRLS, 2, 1
	var runs [3]*Model
	for i, seed := range []uint64{1, 1, 2} {
		cryptotest.SetGlobalRandom(t, seed)
		runs[i] = train(t, p.Observed, o)
	}
	if maxDiff(runs[0].V, runs[1].V) != 0 {
		t.Error("two unseeded runs under the same crypto/rand output differ: something else draws")
	}
	if maxDiff(runs[0].V, runs[2].V) == 0 {
		t.Error("unseeded runs under different crypto/rand outputs agree: the key does not come from crypto/rand")
	}
}

// TestUnseededAcrossWorkers checks that an unseeded run's draws depend on
// its key and the rows only: with one key (set through the unexported
// Options.keyed) 1 and 8 workers give identical factors, with every kind
// of noise, exact discrete noise included; another key gives others.
func TestUnseededAcrossWorkers(t *testing.T) {
	p := problem(t, 80, 70, 3, 0.2)
	lap, _ := laplace.New(0.7)
	hub, _ := huber.New(1, 1)
	dhub, err := discrete.For(hub)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{
		{Algorithm: ALS, Noise: lap},
		{Algorithm: IRLS, Noise: hub, IRLSIters: 3, Threshold: 1, Init: InitPaper},
		{Algorithm: IRLS, Noise: dhub, IRLSIters: 2, Threshold: 1, Init: InitWarm},
	} {
		o.Rank, o.Lambda, o.Iters = 3, 0.5, 4
		o.keyed = rng.NewKeyed()
		o.Workers = 1
		one := train(t, p.Observed, o)
		o.Workers = 8
		eight := train(t, p.Observed, o)
		if maxDiff(one.U, eight.U) != 0 || maxDiff(one.V, eight.V) != 0 {
			t.Errorf("%v %v: one key, 1 vs 8 workers: factors differ", o.Algorithm, o.Noise)
		}
		o.keyed = rng.NewKeyed()
		if other := train(t, p.Observed, o); maxDiff(one.V, other.V) == 0 {
			t.Errorf("%v %v: two keys gave identical factors", o.Algorithm, o.Noise)
		}
	}
}

// TestNoKeyInOptions: a Go caller cannot give a run its key. No exported
// field of Options is, or holds, a key or a generator.
func TestNoKeyInOptions(t *testing.T) {
	typ := reflect.TypeFor[Options]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.IsExported() && (f.Type.PkgPath() == "github.com/dpmc/dpmc/rng" ||
			(f.Type.Kind() == reflect.Pointer && f.Type.Elem().PkgPath() == "github.com/dpmc/dpmc/rng") ||
			strings.Contains(strings.ToLower(f.Name), "key")) {
			t.Errorf("Options.%s (%v) lets a caller set the run's randomness", f.Name, f.Type)
		}
	}
}

func TestSingularSystemIsAnError(t *testing.T) {
	// Item 0 has one rating: with λ = 0 and rank 2 its Gram matrix is singular.
	x, err := ratings.New(3, 2, []ratings.Triple{{User: 0, Item: 0, Value: 3}, {User: 0, Item: 1, Value: 4}, {User: 1, Item: 1, Value: 2}, {User: 2, Item: 1, Value: 5}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Train(context.Background(), x, Options{Rank: 2, Lambda: 0, Iters: 2, Seeded: true})
	if err == nil || !errors.Is(err, dense.ErrNotPositiveDefinite) || !strings.Contains(err.Error(), "sweep 1") {
		t.Errorf("err = %v, want a not-positive-definite error naming the sweep and row", err)
	}
}

func TestCancel(t *testing.T) {
	p := problem(t, 50, 50, 2, 0.3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, p.Observed, Options{Rank: 2, Lambda: 0.5, Iters: 5, Seeded: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestBadOptions(t *testing.T) {
	p := problem(t, 10, 10, 2, 0.5)
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Rank: 0, Iters: 1}, "rank"},
		{Options{Rank: 2, Iters: 0}, "iters"},
		{Options{Rank: 2, Iters: 1, Lambda: -1}, "lambda"},
		{Options{Rank: 2, Iters: 1, Lambda: math.NaN()}, "lambda"},
		{Options{Rank: 2, Iters: 1, Algorithm: IRLS, Threshold: 1}, "irls iters"},
		{Options{Rank: 2, Iters: 1, Algorithm: IRLS, IRLSIters: 2}, "threshold"},
		{Options{Rank: 2, Iters: 1, Algorithm: 7}, "algorithm"},
		{Options{Rank: 2, Iters: 1, StartV: make([]float64, 19)}, "StartV has 19 values, want items × rank = 10 × 2 = 20"},
		{Options{Rank: 2, Iters: 1, StartV: append(make([]float64, 5), math.Inf(1), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)}, "StartV[5] (item 2, factor 1)"},
	} {
		if _, err := Train(context.Background(), p.Observed, tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Train(%+v) err = %v, want mention of %q", tt.o, err, tt.want)
		}
	}
}

// TestMovieLens100k is a sanity check on real data, not tuning: ALS rank 32,
// λ 0.5, T 20 on u1.base predicts u1.test with RMSE in (0.85, 1.5).
func TestMovieLens100k(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "movielens-100k")
	train1, test1, err := ratings.LoadPair(filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test"), ratings.Options{})
	if err != nil {
		if errors.Is(err, fsNotExist) {
			t.Skipf("MovieLens 100k not found in %s", dir)
		}
		t.Fatal(err)
	}
	m := train(t, train1.Ratings, Options{Rank: 32, Lambda: 0.5, Iters: 20, Seeded: true, Seed: 1})
	rmse, mae := m.Errors(test1.Ratings, Clip{})
	t.Logf("u1.test RMSE %.4f, MAE %.4f", rmse, mae)
	if !(rmse > 0.85 && rmse < 1.5) {
		t.Errorf("u1.test RMSE = %v, want in (0.85, 1.5)", rmse)
	}
}

func TestReleases(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want int
	}{
		{Options{Algorithm: ALS, Iters: 20, IRLSIters: 7}, 20},
		{Options{Algorithm: IRLS, Iters: 20, IRLSIters: 2}, 40},
		{Options{Algorithm: IRLS, Iters: 3, IRLSIters: 20}, 60},
	} {
		if got := tt.o.Releases(); got != tt.want {
			t.Errorf("%v T=%d K=%d: Releases() = %d, want %d", tt.o.Algorithm, tt.o.Iters, tt.o.IRLSIters, got, tt.want)
		}
	}
}

// TestModelOffset: Train leaves the offset 0, and a model's offset enters
// every prediction and its errors.
func TestModelOffset(t *testing.T) {
	p := problem(t, 30, 20, 2, 0.5)
	m := train(t, p.Observed, Options{Rank: 2, Lambda: 0.5, Iters: 3, Seeded: true, Seed: 2})
	if m.Offset != 0 {
		t.Errorf("trained offset = %v, want 0", m.Offset)
	}
	m.Offset = 3
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
}
