package audit

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// TrainFunc trains once on x and returns the released item factors V,
// row-major x.Cols() × rank, for some rank ≥ 1 that is the same in every
// call. It must draw all of its randomness from seed (for the solver:
// Seeded with Seed = seed), so that calls with different seeds are
// independent runs and a call is reproducible; it is called concurrently
// from several goroutines, so it must not share mutable state between
// calls, and it should run single-threaded (Train parallelizes over runs).
// It may keep and reuse nothing of x. An error stops the audit.
type TrainFunc func(ctx context.Context, x *ratings.Matrix, seed uint64) (v []float64, err error)

// TrainOptions configure Train. Data, Neighbour and Fit are required, and
// Options.Claim is the claim under test (its zero value claims ε = 0).
type TrainOptions struct {
	// Options configure the audit of the chosen statistic (Claim,
	// Confidence and the event families' settings). Options.Bits is
	// ignored: a trained factor's low-order bits say nothing about the
	// training's privacy that the real-valued audit does not.
	Options
	// Data and Neighbour are the two neighbouring inputs, of the same
	// shape: typically D and D with one user's ratings removed (the
	// user's row kept, empty), as TinyTrainData builds. Side A of the
	// result is Data, side B Neighbour. Items (columns) must be in
	// [1, MaxTrainItems].
	Data, Neighbour *ratings.Matrix
	// Fit trains once and returns V; see TrainFunc.
	Fit TrainFunc
	// Runs is the number of audited training runs per side, in
	// [100, 1e7]; 0 means DefaultTrainRuns. Of these the audit's own
	// first SelectFraction choose its events.
	Runs int
	// SelectRuns is the number of further runs per side, not audited,
	// that choose the statistic, in [MinSelectRuns, 1e7]; 0 means
	// ⌈Runs/5⌉ (20 %), but at least MinSelectRuns.
	SelectRuns int
	// Seeded selects a reproducible root seed: run i of side s in phase p
	// (selection or audit) is trained with a seed derived from
	// (Seed, p, s, i) by rng.Stream, so the result does not depend on
	// Workers. Unseeded audits draw the root seed from crypto/rand and
	// report it in TrainResult.RootSeed.
	Seeded bool
	Seed   uint64
	// Workers is the number of runs trained at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called from the calling goroutine with the
	// runs finished so far and the total, 2·(SelectRuns + Runs).
	Progress func(done, total int)
}

// Defaults and limits of TrainOptions.
const (
	// DefaultTrainRuns is the default TrainOptions.Runs.
	DefaultTrainRuns = 1000
	// MinSelectRuns is the least TrainOptions.SelectRuns: the selection
	// runs are halved (fit, then score), and each half needs 10 per side.
	MinSelectRuns = 20
	// MaxTrainItems bounds the items n of the audited data: the
	// statistic is chosen among n² + 3 features of V Vᵀ, and this audit
	// is meant for tiny data.
	MaxTrainItems = 64
)

// TrainResult is the outcome of Train: the audit of the chosen statistic
// (side A is TrainOptions.Data, side B Neighbour), and how it was chosen.
type TrainResult struct {
	Result
	// Statistic describes the audited statistic of V, such as
	// "cos(v₂, v₅)" or "Fisher discriminant on the 39 features".
	Statistic string
	// Features names the rotation-invariant features of V that the
	// statistic combines (see Train), and Weights are its coefficients on
	// them: the statistic is Σ Weights[f]·feature f.
	Features []string
	Weights  []float64
	// Separation is the chosen statistic's |AUC − ½| on the second half
	// of the selection runs, in [0, ½], where AUC is the probability that
	// a Data run's value exceeds a Neighbour run's. It carries no
	// confidence.
	Separation float64
	// Candidates is the number of statistics the selection runs chose
	// among.
	Candidates int
	// Ceiling is the largest ε lower bound these runs could give at the
	// claimed δ, with this many events: that of an event holding in every
	// estimation run of one side and in none of the other's. A training
	// whose ε exceeds it cannot be shown to: use more runs.
	Ceiling float64
	// Runs and SelectRuns are the audited and the selection runs per
	// side; Rank is the number of columns of V.
	Runs, SelectRuns, Rank int
	// RootSeed is the root of every run's seed: TrainOptions.Seed when
	// Seeded, else drawn from crypto/rand. With Seeded = true it replays
	// the audit.
	RootSeed uint64
	Seeded   bool
}

// resolve checks o and fills in the defaults.
func (o TrainOptions) resolve() (TrainOptions, error) {
	var err error
	o.Bits = false
	if o.Options, err = o.Options.resolve(); err != nil {
		return o, err
	}
	if o.Data == nil || o.Neighbour == nil {
		return o, fmt.Errorf("%w: data and neighbour matrices are required", check.ErrParam)
	}
	if o.Data.Rows() != o.Neighbour.Rows() || o.Data.Cols() != o.Neighbour.Cols() {
		return o, fmt.Errorf("%w: data is %d × %d but neighbour is %d × %d, want the same shape",
			check.ErrParam, o.Data.Rows(), o.Data.Cols(), o.Neighbour.Rows(), o.Neighbour.Cols())
	}
	if err := check.InRange("items", float64(o.Data.Cols()), 1, MaxTrainItems); err != nil {
		return o, err
	}
	if o.Fit == nil {
		return o, fmt.Errorf("%w: nil training function", check.ErrParam)
	}
	if o.Runs == 0 {
		o.Runs = DefaultTrainRuns
	}
	if err := check.InRange("runs", float64(o.Runs), 100, 1e7); err != nil {
		return o, err
	}
	if o.SelectRuns == 0 {
		o.SelectRuns = max(MinSelectRuns, (o.Runs+4)/5)
	}
	if err := check.InRange("select runs", float64(o.SelectRuns), MinSelectRuns, 1e7); err != nil {
		return o, err
	}
	if o.Workers, err = resolveWorkers(o.Workers); err != nil {
		return o, err
	}
	return o, nil
}

// Phases of a training audit, part of each run's seed.
const (
	phaseSelect = iota
	phaseAudit
)

// runSeed is the training seed of run i of side (0 = Data, 1 = Neighbour)
// in phase p under root.
func runSeed(re *rng.Reseeder, root uint64, phase, side, i int) uint64 {
	return re.Stream(root, uint64(phase)<<62|uint64(side)<<61|uint64(i)).Uint64()
}

// Train audits a training procedure: it trains opts.Fit many times on
// opts.Data (side A) and on opts.Neighbour (side B), reduces each released
// V to a one-dimensional statistic and audits it against opts.Claim as
// Samples does. The steps are:
//
//  1. SelectRuns runs per side, not audited, choose the statistic. V is
//     only identified up to an orthogonal rotation of its columns (every
//     run starts from a fresh random V), so each V is reduced to features
//     invariant to it, all functions of the Gram matrix G = V Vᵀ: its
//     entries G[j,k] = vⱼ·vₖ on and above the diagonal, the cosines
//     G[j,k]/√(G[j,j]·G[k,k]) for j < k, the trace ‖V‖²_F, the sum of all
//     entries ‖Σⱼ vⱼ‖² and the mean cosine — n² + 3 features for n items.
//     The candidate statistics are every single feature and two linear
//     combinations fitted on the first half of the selection runs:
//     Fisher's discriminant Σ⁻¹(μ_A − μ_B) with the pooled covariance Σ
//     shrunk towards its diagonal, and with the diagonal alone. The
//     candidate with the largest |AUC − ½| between the sides on the second
//     half wins.
//  2. Runs further runs per side, with fresh seeds, are reduced to that
//     statistic and audited with the Thresholds and Histogram families
//     (the audit's own first SelectFraction of them choose the events, the
//     rest estimate them).
//
// Because the statistic is fixed before any audited run is drawn, and the
// runs are independent, every bound of the result holds with probability
// at least Confidence, whatever the selection chose: a correct claim is
// flagged with probability at most 1 − Confidence. A statistic of V is a
// post-processing of the release, so a bound on it is a bound on the
// training's ε; a poor choice only loses power.
//
// The runs are spread over Workers goroutines; each calls Fit once per
// run, so Fit should be single-threaded. Memory is about 8·(n² + 3) bytes
// per selection run and 8 bytes per audited run, besides Fit's own.
//
// It returns an error naming the option if one is out of range, one
// naming the run and side if Fit fails or returns a V of the wrong length
// or with a non-finite entry, and one wrapping the context's error if ctx
// is cancelled.
func Train(ctx context.Context, opts TrainOptions) (TrainResult, error) {
	opts, err := opts.resolve()
	if err != nil {
		return TrainResult{}, err
	}
	res := TrainResult{Runs: opts.Runs, SelectRuns: opts.SelectRuns, Seeded: opts.Seeded, RootSeed: opts.Seed}
	if !opts.Seeded {
		var b [8]byte
		rand.Read(b[:])
		res.RootSeed = binary.LittleEndian.Uint64(b[:])
	}
	n := opts.Data.Cols()
	total := 2 * (opts.SelectRuns + opts.Runs)
	done := 0
	progress := func(k int) {
		done += k
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	r := &runner{opts: &opts, root: res.RootSeed, items: n}

	// Phase 1: the Gram features of the selection runs.
	nf := numFeatures(n)
	sel := [2][]float64{make([]float64, opts.SelectRuns*nf), make([]float64, opts.SelectRuns*nf)}
	err = r.run(ctx, phaseSelect, opts.SelectRuns, progress, func(side, i int, v []float64) {
		features(v, n, r.rank, sel[side][i*nf:(i+1)*nf])
	})
	if err != nil {
		return TrainResult{}, err
	}
	res.Rank = r.rank
	choice := chooseStatistic(sel[0], sel[1], n)
	res.Statistic, res.Weights, res.Separation, res.Candidates = choice.name, choice.weights, choice.separation, choice.candidates
	res.Features = make([]string, nf)
	for f := range nf {
		res.Features[f] = featureName(f, n)
	}

	// Phase 2: the audited runs, reduced to the chosen statistic.
	vals := [2][]float64{make([]float64, opts.Runs), make([]float64, opts.Runs)}
	feat := make([]float64, nf)
	err = r.run(ctx, phaseAudit, opts.Runs, progress, func(side, i int, v []float64) {
		features(v, n, r.rank, feat)
		vals[side][i] = dot(choice.weights, feat)
	})
	if err != nil {
		return TrainResult{}, err
	}
	res.Result, err = audit([]Statistic{{Name: res.Statistic, Symbol: "s(V)", A: vals[0], B: vals[1], Families: Thresholds | Histogram}}, opts.Options, true)
	if err != nil {
		return TrainResult{}, fmt.Errorf("the chosen statistic %s: %w", res.Statistic, err)
	}
	res.Ceiling = ceiling(res.Result, opts.Claim.Delta)
	return res, nil
}

// ceiling returns the largest EpsilonLower that res's estimation runs
// could give at δ: that of an event with every value of one side in it and
// none of the other's, at res's interval level.
func ceiling(res Result, delta float64) float64 {
	n := res.Samples - res.Selection
	if n < 1 || res.Events < 1 {
		return 0
	}
	tail := (1 - res.Confidence) / (4 * float64(res.Events))
	lo, _ := cpInterval(n, n, tail)
	_, hi := cpInterval(0, n, tail)
	if lo <= delta {
		return 0
	}
	return math.Log((lo - delta) / hi)
}

// runner trains the runs of one audit over a pool of workers.
type runner struct {
	opts  *TrainOptions
	root  uint64
	items int
	mu    sync.Mutex
	rank  int // columns of V, fixed by the first run to finish
}

type trainJob struct{ side, run int }

type trainDone struct {
	side, run int
	v         []float64
	err       error
}

// run trains runs per side in phase and hands each V, checked, to keep
// (called from the calling goroutine, in no particular order).
func (r *runner) run(ctx context.Context, phase, runs int, progress func(int), keep func(side, run int, v []float64)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan trainJob)
	results := make(chan trainDone, r.opts.Workers)
	var wg sync.WaitGroup
	for range min(r.opts.Workers, 2*runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			re := rng.NewReseeder()
			for j := range jobs {
				x := r.opts.Data
				if j.side == 1 {
					x = r.opts.Neighbour
				}
				seed := runSeed(re, r.root, phase, j.side, j.run)
				v, err := r.opts.Fit(ctx, x, seed)
				if err == nil {
					err = r.check(v)
				}
				results <- trainDone{j.side, j.run, v, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range runs {
			for side := range 2 {
				select {
				case jobs <- trainJob{side, i}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	var firstErr error
	finished := 0
	for d := range results {
		if firstErr != nil {
			continue // drain
		}
		if d.err != nil {
			name := map[int]string{phaseSelect: "selection", phaseAudit: "audited"}[phase]
			firstErr = fmt.Errorf("%s run %d on side %s: %w", name, d.run, "AB"[d.side:d.side+1], d.err)
			cancel()
			continue
		}
		keep(d.side, d.run, d.v)
		finished++
		progress(1)
	}
	if firstErr != nil {
		return firstErr
	}
	if finished < 2*runs {
		return fmt.Errorf("training stopped after %d of %d runs: %w", finished, 2*runs, context.Cause(ctx))
	}
	return nil
}

// check verifies that v is a finite items × rank matrix, with the rank of
// every other run.
func (r *runner) check(v []float64) error {
	if len(v) == 0 || len(v)%r.items != 0 {
		return fmt.Errorf("audit: V has %d entries, want a multiple ≥ 1 of the %d items", len(v), r.items)
	}
	r.mu.Lock()
	if r.rank == 0 {
		r.rank = len(v) / r.items
	}
	rank := r.rank
	r.mu.Unlock()
	if len(v) != rank*r.items {
		return fmt.Errorf("audit: V has %d entries, want %d items × rank %d as in the other runs", len(v), r.items, rank)
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("audit: V[%d, %d] = %v, want a finite number", k/rank, k%rank, x)
		}
	}
	return nil
}

// numFeatures is the number of features of an n-item V: the n(n+1)/2
// entries of V Vᵀ on and above the diagonal, the n(n−1)/2 cosines between
// distinct item factors, the trace, the sum and the mean cosine.
func numFeatures(n int) int { return n*n + 3 }

// features sets dst (numFeatures(n) long) to the features of V (n × r,
// row-major): first the entries G[j,k] = vⱼ·vₖ of G = V Vᵀ for j ≤ k,
// row by row, then the cosines G[j,k]/√(G[j,j]·G[k,k]) for j < k, row by
// row (0 when a factor is zero), then the trace of G, the sum of all its
// entries and the mean of the cosines (0 for one item). All are invariant
// to rotations of V's columns.
func features(v []float64, n, r int, dst []float64) {
	f := 0
	for j := range n {
		vj := v[j*r : j*r+r]
		for k := j; k < n; k++ {
			vk := v[k*r : k*r+r]
			var s float64
			for a := range r {
				s += vj[a] * vk[a]
			}
			dst[f] = s
			f++
		}
	}
	diag := func(j int) float64 { return dst[j*n-j*(j-1)/2] } // G[j,j]
	var trace, total, cos float64
	for j := range n {
		trace += diag(j)
	}
	for g := range f {
		total += 2 * dst[g]
	}
	total -= trace
	g := 0
	for j := range n {
		for k := j; k < n; k++ {
			if k > j {
				c := 0.0
				if d := diag(j) * diag(k); d > 0 {
					c = dst[g] / math.Sqrt(d)
				}
				dst[f] = c
				cos += c
				f++
			}
			g++
		}
	}
	if n > 1 {
		cos /= float64(n * (n - 1) / 2)
	}
	dst[f], dst[f+1], dst[f+2] = trace, total, cos
}

// featureName names feature f of an n-item V, in the order of features.
func featureName(f, n int) string {
	for j := range n {
		if f < n-j {
			k := j + f
			if j == k {
				return fmt.Sprintf("(V Vᵀ)[%d,%d] = ‖v%s‖²", j, j, subscript(j))
			}
			return fmt.Sprintf("(V Vᵀ)[%d,%d] = v%s·v%s", j, k, subscript(j), subscript(k))
		}
		f -= n - j
	}
	for j := range n {
		if f < n-j-1 {
			k := j + 1 + f
			return fmt.Sprintf("cos(v%s, v%s)", subscript(j), subscript(k))
		}
		f -= n - j - 1
	}
	switch f {
	case 0:
		return "trace(V Vᵀ) = ‖V‖²_F"
	case 1:
		return "sum of V Vᵀ = ‖Σⱼ vⱼ‖²"
	case 2:
		return "mean cosine between item factors"
	}
	return "?"
}

func subscript(i int) string {
	const digits = "₀₁₂₃₄₅₆₇₈₉"
	s := fmt.Sprint(i)
	var out []rune
	d := []rune(digits)
	for _, c := range s {
		out = append(out, d[c-'0'])
	}
	return string(out)
}

// choice is the statistic the selection runs chose.
type choice struct {
	name       string
	weights    []float64
	separation float64
	candidates int
}

// shrinkage is the weight of the diagonal in the shrunk pooled covariance
// of Fisher's discriminant: (1 − shrinkage)·Σ + shrinkage·diag(Σ).
const shrinkage = 0.2

// chooseStatistic picks the statistic from the selection features a and b
// (runs × nf, row-major, nf = numFeatures(n)): the linear combinations are
// fitted on the first half of the runs, and every candidate is scored by
// |AUC − ½| on the second half.
func chooseStatistic(a, b []float64, n int) choice {
	nf := numFeatures(n)
	runs := len(a) / nf
	half := runs / 2
	fitA, fitB := a[:half*nf], b[:half*nf]
	scoreA, scoreB := a[half*nf:], b[half*nf:]

	type candidate struct {
		name string
		w    []float64
	}
	var cands []candidate
	for f := range nf {
		w := make([]float64, nf)
		w[f] = 1
		cands = append(cands, candidate{featureName(f, n), w})
	}
	if nf > 1 {
		diag, full := fisher(fitA, fitB, nf)
		if diag != nil {
			cands = append(cands, candidate{fmt.Sprintf("diagonal Fisher discriminant on the %d features of V Vᵀ", nf), diag})
		}
		if full != nil {
			cands = append(cands, candidate{fmt.Sprintf("Fisher discriminant (covariance shrunk %g towards its diagonal) on the %d features of V Vᵀ", shrinkage, nf), full})
		}
	}
	best := choice{separation: -1, candidates: len(cands)}
	sa, sb := make([]float64, len(scoreA)/nf), make([]float64, len(scoreB)/nf)
	for _, c := range cands {
		for i := range sa {
			sa[i] = dot(c.w, scoreA[i*nf:(i+1)*nf])
		}
		for i := range sb {
			sb[i] = dot(c.w, scoreB[i*nf:(i+1)*nf])
		}
		if sep := math.Abs(auc(sa, sb) - 0.5); sep > best.separation {
			best.name, best.weights, best.separation = c.name, c.w, sep
		}
	}
	return best
}

func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// auc returns the probability that a value of a exceeds one of b, ties
// counting one half (the Mann–Whitney statistic over len(a)·len(b)).
func auc(a, b []float64) float64 {
	b = slices.Sorted(slices.Values(b))
	var s float64
	for _, x := range a {
		lo := below(b, x, false)
		hi := below(b, x, true)
		s += float64(lo) + 0.5*float64(hi-lo)
	}
	return s / float64(len(a)*len(b))
}

// fisher returns the discriminant directions of the features a and b
// (runs × nf): Σ⁻¹(μ_a − μ_b) with Σ the pooled covariance shrunk towards
// its diagonal (full), and with its diagonal alone (diag). A feature of
// zero variance gets weight 0; either is nil if it cannot be computed.
func fisher(a, b []float64, nf int) (diag, full []float64) {
	na, nb := len(a)/nf, len(b)/nf
	if na < 2 || nb < 2 {
		return nil, nil
	}
	mean := func(x []float64, rows int) []float64 {
		m := make([]float64, nf)
		for i := range rows {
			for f := range nf {
				m[f] += x[i*nf+f]
			}
		}
		for f := range m {
			m[f] /= float64(rows)
		}
		return m
	}
	ma, mb := mean(a, na), mean(b, nb)
	cov := mat.NewSymDense(nf, nil)
	for _, s := range [2]struct {
		x    []float64
		rows int
		m    []float64
	}{{a, na, ma}, {b, nb, mb}} {
		d := make([]float64, nf)
		for i := range s.rows {
			for f := range nf {
				d[f] = s.x[i*nf+f] - s.m[f]
			}
			cov.SymRankOne(cov, 1, mat.NewVecDense(nf, d))
		}
	}
	cov.ScaleSym(1/float64(na+nb-2), cov)
	diff := make([]float64, nf)
	for f := range diff {
		diff[f] = ma[f] - mb[f]
	}
	diag = make([]float64, nf)
	ok := false
	for f := range nf {
		if v := cov.At(f, f); v > 0 && !math.IsInf(v, 0) {
			diag[f] = diff[f] / v
			ok = ok || diag[f] != 0
		}
	}
	if !ok {
		return nil, nil
	}
	// Shrink to the diagonal; features of zero variance are left out.
	var keep []int
	for f := range nf {
		if cov.At(f, f) > 0 {
			keep = append(keep, f)
		}
	}
	s := mat.NewSymDense(len(keep), nil)
	for p, f := range keep {
		for q := p; q < len(keep); q++ {
			v := (1 - shrinkage) * cov.At(f, keep[q])
			if p == q {
				v = cov.At(f, f)
			}
			s.SetSym(p, q, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(s) {
		return diag, nil
	}
	rhs := mat.NewVecDense(len(keep), nil)
	for p, f := range keep {
		rhs.SetVec(p, diff[f])
	}
	var w mat.VecDense
	if err := chol.SolveVecTo(&w, rhs); err != nil {
		return diag, nil
	}
	full = make([]float64, nf)
	for p, f := range keep {
		full[f] = w.AtVec(p)
		if math.IsNaN(full[f]) || math.IsInf(full[f], 0) {
			return diag, nil
		}
	}
	return diag, full
}

// TrainData is a pair of neighbouring ratings matrices for Train, with
// the public rating scale they use.
type TrainData struct {
	// Data is D; Neighbour is D with user Target's ratings removed (the
	// row kept, empty, so both have the same shape and a user-level
	// solver gives the empty row no say in V).
	Data, Neighbour *ratings.Matrix
	Target          int
	// Min and Max bound the rating scale, in rating units; they are
	// public (not read from the data).
	Min, Max float64
	// Description says what the data is, for reports.
	Description string
}

// Shape of TinyTrainData.
const (
	TinyUsers = 12
	TinyItems = 6
	TinyMin   = 1.0
	TinyMax   = 5.0
)

// TinyTrainData returns the built-in training-audit data: TinyUsers users
// × TinyItems items on the rating scale [TinyMin, TinyMax] = [1, 5]. The
// first 11 users are a moderate rank-2 background: user i rates item j
// 3 + 0.9·cos(θᵢ − φⱼ) ∈ [2.1, 3.9], with angles θᵢ = 2πi/11 and
// φⱼ = 2πj/6 spread round the circle, and skips the two items j ≡ i
// (mod 3), so that every user has 4 ratings and every item 7 or 8. The
// last user (Target) rates the maximum, 5, on every item: as far from the
// centre 3 as the scale allows, on as many items as there are, and all in
// one direction (the constant vector, which the background, centred on 3,
// lacks), so that the user's removal moves the release as much as one
// user's ratings can once they are clipped to the scale's half-width
// around its midpoint (as userdp's bias and residual bounds clip them).
// Neighbour is D without that user. It returns an error only if the
// matrices cannot be built.
func TinyTrainData() (*TrainData, error) {
	const target = TinyUsers - 1
	var triples []ratings.Triple
	for i := range target {
		theta := 2 * math.Pi * float64(i) / float64(target)
		for j := range TinyItems {
			if j%3 == i%3 {
				continue
			}
			phi := 2 * math.Pi * float64(j) / float64(TinyItems)
			triples = append(triples, ratings.Triple{User: int32(i), Item: int32(j), Value: 3 + 0.9*math.Cos(theta-phi)})
		}
	}
	neighbour, err := ratings.New(TinyUsers, TinyItems, triples)
	if err != nil {
		return nil, fmt.Errorf("audit: tiny training data: %w", err)
	}
	for j := range TinyItems {
		triples = append(triples, ratings.Triple{User: target, Item: int32(j), Value: TinyMax})
	}
	data, err := ratings.New(TinyUsers, TinyItems, triples)
	if err != nil {
		return nil, fmt.Errorf("audit: tiny training data: %w", err)
	}
	return &TrainData{
		Data: data, Neighbour: neighbour, Target: target, Min: TinyMin, Max: TinyMax,
		Description: fmt.Sprintf("built-in %d users × %d items on [%g, %g]: %d users of moderate rank-2 ratings in [2.1, 3.9] (%d ratings) and user %d rating %g on every item; the neighbour lacks user %d",
			TinyUsers, TinyItems, TinyMin, TinyMax, target, neighbour.Len(), target, TinyMax, target),
	}, nil
}
