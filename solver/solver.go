package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// Algorithm selects the item update: ALS or IRLS.
type Algorithm int

const (
	// ALS solves each item by noisy ridge least squares (Algorithm 1).
	ALS Algorithm = iota
	// IRLS solves each item by K iterations of noisy Huber-weighted ridge
	// least squares (Algorithms 2 and 3).
	IRLS
)

// String returns "als" or "irls".
func (a Algorithm) String() string {
	switch a {
	case ALS:
		return "als"
	case IRLS:
		return "irls"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// ParseAlgorithm parses "als" or "irls".
func ParseAlgorithm(s string) (Algorithm, error) {
	switch s {
	case "als":
		return ALS, nil
	case "irls":
		return IRLS, nil
	}
	return 0, fmt.Errorf("algorithm %q: want als or irls", s)
}

// Init selects how R-IRLS starts each item solve.
type Init int

const (
	// InitWarm starts from the item's current factor, so the first
	// weights reflect the model rather than a random guess.
	InitWarm Init = iota
	// InitPaper draws θ ~ N(0, I) at every call, as Algorithm 3 says.
	InitPaper
)

// String returns "warm" or "paper".
func (i Init) String() string {
	switch i {
	case InitWarm:
		return "warm"
	case InitPaper:
		return "paper"
	}
	return fmt.Sprintf("Init(%d)", int(i))
}

// ParseInit parses "warm" or "paper".
func ParseInit(s string) (Init, error) {
	switch s {
	case "warm":
		return InitWarm, nil
	case "paper":
		return InitPaper, nil
	}
	return 0, fmt.Errorf("init %q: want paper or warm", s)
}

// LambdaScale says how the ridge penalty of a row solve depends on the
// row.
type LambdaScale int

const (
	// LambdaNone uses λ for every row solve, as the paper does.
	LambdaNone LambdaScale = iota
	// LambdaCount multiplies λ by the number of ratings of the row being
	// solved (at least 1, so a row without ratings still gets λ): the
	// weighted-λ regularization of ALS-WR (Zhou et al. 2008), which lets
	// one λ suit rows with 20 ratings and rows with 2 000. Typical λ is
	// then 0.02–0.1 rather than 0.5–20.
	LambdaCount
)

// String returns "none" or "count".
func (s LambdaScale) String() string {
	switch s {
	case LambdaNone:
		return "none"
	case LambdaCount:
		return "count"
	}
	return fmt.Sprintf("LambdaScale(%d)", int(s))
}

// ParseLambdaScale parses "none" or "count".
func ParseLambdaScale(s string) (LambdaScale, error) {
	switch s {
	case "none":
		return LambdaNone, nil
	case "count":
		return LambdaCount, nil
	}
	return 0, fmt.Errorf("lambda scale %q: want none or count", s)
}

// Precision selects the arithmetic of ALS's row solves.
type Precision int

const (
	// Mixed, the zero value and the default, keeps the factors in float32
	// while ALS trains and builds each row's Gram matrix and right-hand
	// side from them in float32, with float32 sums (package
	// internal/asm/f32: half the memory traffic of float64 and twice the
	// lanes a vector instruction); the ridge, the noise and the Cholesky
	// solve are in float64, and each solution is rounded to float32. The
	// returned Model holds those float32 factors as float64s. Its results
	// differ from Double's at float32 rounding level: test RMSE agrees to
	// 1e-4 (TestMixedMatchesDouble), and a seeded run is still identical
	// whatever the number of workers. On a CPU with AVX2 but not
	// AVX-512, where the float32 kernels would be plain Go, the float32
	// rows are gathered widened to float64 and summed by the float64
	// assembly instead (still half the bytes gathered from memory). IRLS
	// always runs in Double, and so does ALS with Lambda = 0, whose row
	// systems may be singular: float32 sums could turn an exactly singular
	// Gram matrix into a barely positive definite one, and the run would
	// go on with huge factors instead of reporting it.
	Mixed Precision = iota
	// Double keeps the factors and every sum in float64.
	Double
)

// String returns "mixed" or "double".
func (p Precision) String() string {
	switch p {
	case Mixed:
		return "mixed"
	case Double:
		return "double"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// Options configure Train. Rank, Iters and, for IRLS, IRLSIters and
// Threshold must be set; the zero value of the rest is a sensible default.
type Options struct {
	Algorithm Algorithm
	// Rank is r, the number of latent factors (≥ 1).
	Rank int
	// Lambda is the ridge penalty λ ≥ 0 of every row solve, scaled as
	// LambdaScale says.
	Lambda float64
	// LambdaScale is how λ depends on the row: LambdaNone (the zero value,
	// the paper's convention) uses λ as it is, LambdaCount multiplies it by
	// the row's number of ratings (ALS-WR).
	LambdaScale LambdaScale
	// Iters is T, the number of outer (user, then item) sweeps (≥ 1).
	Iters int
	// IRLSIters is K, the inner iterations of each R-IRLS item solve
	// (≥ 1; IRLS only). K = 2 is the paper's IRLS-2.
	IRLSIters int
	// Threshold is the Huber threshold c of the IRLS weights ψ_c(r)/r, in
	// rating units (> 0; IRLS only).
	Threshold float64
	// Init is how R-IRLS starts each item solve (IRLS only).
	Init Init
	// Precision is the arithmetic of ALS: Mixed (the zero value, float32
	// factors and sums, the fast path) or Double (float64 throughout).
	// IRLS, and ALS with Lambda = 0, ignore it and run in Double.
	Precision Precision
	// Noise is added to the right-hand side of every item solve: once per
	// item per sweep for ALS, once per inner iteration for IRLS. Nil
	// trains without noise, the non-private baseline.
	Noise noise.Mechanism
	// StartV, if not nil, is the item factor matrix V (Cols × Rank,
	// row-major) to start from, instead of N(0, 1) draws; Train copies it.
	// It must not depend on the ratings: a public, data-independent start
	// (a fixed seed, say) leaves every privacy guarantee unchanged, while
	// one fitted to the data is a release the accounting does not cover.
	StartV []float64
	// Seed, when Seeded, makes initialization and noise reproducible
	// (and therefore not private). Otherwise both come from ChaCha8
	// streams under a fresh 256-bit key from crypto/rand that only this
	// call of Train knows (rng.NewKeyed): one stream per row and phase of
	// each sweep, so that the draws do not depend on the number of workers
	// either; the key is dropped when Train returns and written nowhere.
	Seed   uint64
	Seeded bool
	// Workers is the number of goroutines solving rows; ≤ 0 means
	// runtime.GOMAXPROCS(0). With a seed the result does not depend on it.
	Workers int
	// Progress, if not nil, is called after each sweep with the number of
	// sweeps done and Iters.
	Progress func(done, total int)

	// keyed, if not nil, is the key of an unseeded run instead of a fresh
	// one: tests set it to train twice with the same key. Nothing outside
	// the package can.
	keyed *rng.Keyed
}

func (o *Options) validate() error {
	switch {
	case o.Algorithm != ALS && o.Algorithm != IRLS:
		return fmt.Errorf("solver: unknown algorithm %d", int(o.Algorithm))
	case o.Rank < 1:
		return fmt.Errorf("solver: rank = %d, want ≥ 1", o.Rank)
	case math.IsNaN(o.Lambda) || math.IsInf(o.Lambda, 0) || o.Lambda < 0:
		return fmt.Errorf("solver: lambda = %v, want a finite number ≥ 0", o.Lambda)
	case o.Iters < 1:
		return fmt.Errorf("solver: iters = %d, want ≥ 1", o.Iters)
	case o.LambdaScale != LambdaNone && o.LambdaScale != LambdaCount:
		return fmt.Errorf("solver: unknown lambda scale %d", int(o.LambdaScale))
	case o.Precision != Mixed && o.Precision != Double:
		return fmt.Errorf("solver: unknown precision %d", int(o.Precision))
	}
	if o.Algorithm == IRLS {
		switch {
		case o.IRLSIters < 1:
			return fmt.Errorf("solver: irls iters = %d, want ≥ 1", o.IRLSIters)
		case math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0) || o.Threshold <= 0:
			return fmt.Errorf("solver: irls threshold = %v, want a finite number > 0", o.Threshold)
		case o.Init != InitWarm && o.Init != InitPaper:
			return fmt.Errorf("solver: unknown init %d", int(o.Init))
		}
	}
	return nil
}

// Releases returns the number of noisy releases of one item's statistics
// in a training run: Iters for ALS, Iters·IRLSIters for IRLS. Each adds
// noise from Options.Noise to the item's right-hand side; no per-release
// sensitivity is known (see the package documentation). Releases does not
// check the options.
func (o Options) Releases() int {
	if o.Algorithm == IRLS {
		return o.Iters * o.IRLSIters
	}
	return o.Iters
}

// Phases of a sweep, part of each row's stream identity.
const (
	phaseInit = iota
	phaseItems
)

// streamID identifies the random stream of one row in one phase of one
// sweep. Rows are below 2³², sweeps below 2³⁰.
func streamID(sweep, phase int, row int) uint64 {
	return uint64(sweep)<<34 | uint64(phase)<<32 | uint64(row)
}

// releaseID identifies one phase of one sweep among an unseeded run's
// keyed streams (rng.Keyed.Stream(releaseID, row)).
func releaseID(sweep, phase int) uint64 {
	return uint64(sweep)<<8 | uint64(phase)
}

// Train factorizes x with the options' solver. It returns an error if the
// options are invalid, if a row's normal equations are not positive definite
// (possible only with Lambda = 0), if the factors stop being finite (noise
// too large for float64), or if ctx is cancelled. Train does
// not modify x.
func Train(ctx context.Context, x *ratings.Matrix, opts Options) (*Model, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.StartV != nil {
		if want := x.Cols() * opts.Rank; len(opts.StartV) != want {
			return nil, fmt.Errorf("solver: %w: StartV has %d values, want items × rank = %d × %d = %d", check.ErrParam, len(opts.StartV), x.Cols(), opts.Rank, want)
		}
		for k, v := range opts.StartV {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("solver: %w: StartV[%d] (item %d, factor %d) = %v, want finite", check.ErrParam, k, k/opts.Rank, k%opts.Rank, v)
			}
		}
	}
	t := newTrainer(x, &opts)
	if err := t.initItems(ctx); err != nil {
		return nil, err
	}
	item := t.itemALS
	if opts.Algorithm == IRLS {
		item = t.itemIRLS
	}
	for sweep := 1; sweep <= opts.Iters; sweep++ {
		if err := t.parallel(ctx, x.Rows(), func(w *worker, i int) error { return t.user(w, sweep, i) }); err != nil {
			return nil, err
		}
		if err := t.parallel(ctx, x.Cols(), func(w *worker, j int) error { return item(w, sweep, j) }); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(sweep, opts.Iters)
		}
	}
	t.finish()
	return t.model, nil
}

type trainer struct {
	x     *ratings.Matrix
	opts  *Options
	model *Model
	// pool holds the workers, made on first use and kept across sweeps;
	// rows is the number of rows of each one's gathered block (blockRows
	// unless set before).
	pool []*worker
	rows int
	// keyed is the run's key when it is not seeded.
	keyed *rng.Keyed
	// u32 and v32 are the factors of a Mixed ALS run while it trains, as
	// float32s in the first half of the memory of model.U and model.V
	// (float32View); finish widens them in place. Both nil otherwise.
	u32, v32 []float32
}

// mixed reports whether the trainer runs the float32 path.
func (t *trainer) mixed() bool { return t.v32 != nil }

// finish widens a Mixed run's float32 factors to the model's float64s, in
// place; the model holds float64 factors from then on.
func (t *trainer) finish() {
	if !t.mixed() {
		return
	}
	widenInPlace(t.model.U)
	widenInPlace(t.model.V)
	t.u32, t.v32 = nil, nil
}

// newWorker returns a worker with its scratch space.
func (t *trainer) newWorker() *worker {
	r := t.opts.Rank
	w := &worker{seed: t.opts.Seed, seeded: t.opts.Seeded,
		gram: make([]float64, r*r), rhs: make([]float64, r), theta: make([]float64, r),
		scratch: newScratch(r, t.rows, t.mixed())}
	if w.seeded {
		w.streams = rng.NewReseeder()
	} else {
		if t.keyed == nil { // a trainer not made by newTrainer (tests)
			t.keyed = rng.NewKeyed()
		}
		w.keyed = t.keyed.Reseeder()
	}
	return w
}

// newTrainer returns the trainer of x with valid options opts, its model's
// factors zero.
func newTrainer(x *ratings.Matrix, opts *Options) *trainer {
	r := opts.Rank
	t := &trainer{
		x:     x,
		opts:  opts,
		model: &Model{Users: x.Rows(), Items: x.Cols(), Rank: r, U: make([]float64, x.Rows()*r), V: make([]float64, x.Cols()*r)},
	}
	if !opts.Seeded {
		t.keyed = opts.keyed
		if t.keyed == nil {
			t.keyed = rng.NewKeyed()
		}
	}
	if opts.Algorithm == ALS && opts.Precision == Mixed && opts.Lambda > 0 {
		t.u32, t.v32 = float32View(t.model.U), float32View(t.model.V)
	}
	return t
}

// initItems fills V with N(0, 1) entries, or copies StartV; U is computed
// from it first.
func (t *trainer) initItems(ctx context.Context) error {
	r := t.opts.Rank
	if t.opts.StartV != nil {
		if t.mixed() {
			for k, v := range t.opts.StartV {
				t.v32[k] = float32(v)
			}
			return ctx.Err()
		}
		copy(t.model.V, t.opts.StartV)
		return ctx.Err()
	}
	return t.parallel(ctx, t.x.Cols(), func(w *worker, j int) error {
		rnd := w.rand(0, phaseInit, j)
		for k := range r {
			if t.mixed() {
				t.v32[j*r+k] = float32(rnd.NormFloat64())
			} else {
				t.model.V[j*r+k] = rnd.NormFloat64()
			}
		}
		return nil
	})
}

// worker holds one goroutine's scratch space; nothing in a row solve
// allocates.
type worker struct {
	seed             uint64
	seeded           bool
	streams          *rng.Reseeder      // seeded runs
	keyed            *rng.KeyedReseeder // unseeded runs
	gram, rhs, theta []float64
	*scratch
}

// rand returns the generator for one row in one phase of one sweep.
func (w *worker) rand(sweep, phase, row int) *rand.Rand {
	if w.seeded {
		return w.streams.Stream(w.seed, streamID(sweep, phase, row))
	}
	return w.keyed.Stream(releaseID(sweep, phase), uint64(row))
}

// parallel calls fn for every row in [0, n) on the trainer's workers and
// returns the first error.
func (t *trainer) parallel(ctx context.Context, n int, fn func(w *worker, row int) error) error {
	const chunk = 8
	var (
		next     atomic.Int64
		firstErr error
		once     sync.Once
		failed   atomic.Bool
		wg       sync.WaitGroup
	)
	if t.pool == nil {
		if t.rows == 0 {
			t.rows = blockRows(t.x)
		}
		for range t.opts.Workers {
			t.pool = append(t.pool, t.newWorker())
		}
	}
	for _, w := range t.pool {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("solver: %w", err) })
					failed.Store(true)
					return
				}
				for row := start; row < min(start+chunk, n); row++ {
					if err := fn(w, row); err != nil {
						once.Do(func() { firstErr = err })
						failed.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// user solves user i's ridge least squares from V, without noise, on all
// of the user's ratings.
func (t *trainer) user(w *worker, sweep, i int) error {
	r := t.opts.Rank
	items, vals := t.x.Row(i)
	if t.mixed() {
		w.mixedStats(t.v32, items, vals, t.lambda(len(items)), w.gram, w.rhs)
		return t.solve32(w, sweep, "user", i, t.u32[i*r:i*r+r])
	}
	dense.SetRidge(w.gram, r, t.lambda(len(items)))
	clear(w.rhs)
	w.addStats(t.model.V, items, vals, nil, 0, w.gram, w.rhs)
	return t.solve(w, sweep, "user", i, t.model.U[i*r:i*r+r])
}

// itemALS solves item j's noisy ridge least squares from U (Algorithm 1).
func (t *trainer) itemALS(w *worker, sweep, j int) error {
	r := t.opts.Rank
	users, vals := t.x.Col(j)
	if t.mixed() {
		w.mixedStats(t.u32, users, vals, t.lambda(len(users)), w.gram, w.rhs)
	} else {
		dense.SetRidge(w.gram, r, t.lambda(len(users)))
		clear(w.rhs)
		w.addStats(t.model.U, users, vals, nil, 0, w.gram, w.rhs)
	}
	if t.opts.Noise != nil {
		addNoise(t.opts.Noise, w.rhs, w.rand(sweep, phaseItems, j))
	}
	if t.mixed() {
		return t.solve32(w, sweep, "item", j, t.v32[j*r:j*r+r])
	}
	return t.solve(w, sweep, "item", j, t.model.V[j*r:j*r+r])
}

// startTheta sets the R-IRLS start θ: N(0, I) draws from rnd
// (InitPaper) or the item's current factor v.
func (t *trainer) startTheta(w *worker, rnd *rand.Rand, v []float64) {
	if t.opts.Init == InitPaper {
		for k := range w.theta {
			w.theta[k] = rnd.NormFloat64()
		}
		return
	}
	copy(w.theta, v)
}

// lambda returns the ridge penalty of a row solve over n ratings.
func (t *trainer) lambda(n int) float64 {
	if t.opts.LambdaScale == LambdaCount {
		return t.opts.Lambda * float64(max(n, 1))
	}
	return t.opts.Lambda
}

// solve solves gram·x = rhs into dst, with errors that name the row.
func (t *trainer) solve(w *worker, sweep int, kind string, row int, dst []float64) error {
	if err := dense.CholeskySolve(w.gram, t.opts.Rank, w.rhs); err != nil {
		return t.singular(sweep, kind, row, err)
	}
	return t.finite(sweep, kind, row, w.rhs, dst)
}

// solve32 is solve for a Mixed run: it rounds the solution to float32
// into dst.
func (t *trainer) solve32(w *worker, sweep int, kind string, row int, dst []float32) error {
	if err := dense.CholeskySolve(w.gram, t.opts.Rank, w.rhs); err != nil {
		return t.singular(sweep, kind, row, err)
	}
	// As in finite: v − v is 0 for every finite v, after the rounding
	// (a float64 beyond float32's range rounds to ±Inf).
	var z0, z1 float32
	x := w.rhs
	i := 0
	for ; i+2 <= len(x); i += 2 {
		a, b := float32(x[i]), float32(x[i+1])
		dst[i], dst[i+1] = a, b
		z0 += a - a
		z1 += b - b
	}
	for ; i < len(x); i++ {
		a := float32(x[i])
		dst[i] = a
		z0 += a - a
	}
	if z0+z1 != 0 {
		return fmt.Errorf("solver: sweep %d, %s %d: factor is not finite in float32 (noise too large?)", sweep, kind, row)
	}
	return nil
}

// singular returns the error of a row whose normal equations are not
// positive definite.
func (t *trainer) singular(sweep int, kind string, row int, err error) error {
	return fmt.Errorf("solver: sweep %d, %s %d: normal equations: %w (lambda = %g)", sweep, kind, row, err, t.opts.Lambda)
}

// finite copies the solution x into dst, or returns an error naming the
// row if it is not finite.
func (t *trainer) finite(sweep int, kind string, row int, x, dst []float64) error {
	// v − v is 0 for every finite v and NaN for ±Inf and NaN: sums test
	// them all without a branch per value, four at a time so that the
	// additions do not wait on each other.
	var z0, z1, z2, z3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		z0 += x[i] - x[i]
		z1 += x[i+1] - x[i+1]
		z2 += x[i+2] - x[i+2]
		z3 += x[i+3] - x[i+3]
	}
	for ; i < len(x); i++ {
		z0 += x[i] - x[i]
	}
	if z0+z1+z2+z3 != 0 {
		return fmt.Errorf("solver: sweep %d, %s %d: factor is not finite (noise too large?)", sweep, kind, row)
	}
	copy(dst, x)
	return nil
}

// addNoise is noise.AddNoise(m, x, r), through the vector path of the
// exact discrete mechanisms (package discrete): they are noise.Granular,
// for which noise.AddNoise makes one AddTo call per value, and their
// AddNoise adds the same values, bit for bit and from the same words, at
// less cost per value.
func addNoise(m noise.Mechanism, x []float64, r *rand.Rand) {
	switch d := m.(type) {
	case *discrete.Huber:
		d.AddNoise(x, r)
	case *discrete.Gaussian:
		d.AddNoise(x, r)
	case *discrete.Laplace:
		d.AddNoise(x, r)
	default:
		noise.AddNoise(m, x, r)
	}
}

// float32View returns the len(x) float32s held by the first half of x's
// memory: a Mixed run keeps its float32 factors there while it trains,
// so that widening them to the model's float64s at the end
// (widenInPlace) needs no second copy of the factors. x must not be
// read as float64s meanwhile.
func float32View(x []float64) []float32 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// widenInPlace sets x[k] to float32View(x)[k] for every k. Going from the
// last k down, x[k] overwrites float32s 2k and 2k+1, which are past k (or
// k itself, for k = 0) and so already read.
func widenInPlace(x []float64) {
	f := float32View(x)
	for k := len(x) - 1; k >= 0; k-- {
		x[k] = float64(f[k])
	}
}
