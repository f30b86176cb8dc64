package userdp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/ratings"
)

// Result is what Train releases — the private model — and its privacy
// report. Nothing in it is per user: each user's bias and factor are
// computed by the user from Result and the user's own ratings (FoldIn).
type Result struct {
	// Rank is the number of columns of V: the learned factors, then the
	// feature columns (0: biases only).
	Rank int
	// Features names the last len(Features) columns of V, in order
	// (FeaturePopularity, FeatureItemBias; Plan.AppendFeatures): not
	// learned factors but public functions of the released counts and
	// biases, whose coefficients each user fits in FoldIn.
	Features []string
	// Mu is the released global centre, in rating units.
	Mu float64
	// ItemIDs are the released items, in a canonical order (numeric IDs
	// ascending, then the rest lexicographically): the catalogue's items,
	// or those private selection kept. Row j of V and ItemBias[j] belong
	// to ItemIDs[j].
	ItemIDs []string
	// ItemBias holds the released item biases, in rating units.
	ItemBias []float64
	// V holds the released item factors, len(ItemIDs)·Rank, row-major:
	// the learned factors (zero for items outside the head), then the
	// feature columns.
	V []float64
	// Counts holds the released noisy weighted counts of the items, in
	// weighted-count units (each user's weights have ℓ2 norm ≤ 1).
	Counts []float64
	// TailBias is the released bias, in rating units, of every item that
	// is not in ItemIDs: under private selection, the shrunk noisy mean
	// offset of the ratings of the items that were not released (which
	// are mostly unpopular, and rated below the centre); with a public
	// catalogue, 0. Predictions and fold-ins use it for any item outside
	// the release.
	TailBias float64
	// BucketBias and BucketCounts are the released tail buckets (nil
	// without them; see TailBucket and Options.TailBuckets): bucket b's
	// bias in rating units, shrunk towards TailBias, and its released
	// weight in the item counts' units. An item outside ItemIDs is
	// predicted with its bucket's bias and, as its factor row, zero
	// learned factors and BucketV's row b.
	BucketBias, BucketCounts []float64
	// BucketV holds the buckets' feature columns, len(BucketBias) rows of
	// len(Features) entries (AppendFeatures).
	BucketV []float64
	// Min and Max are the public rating range; UserLambda and
	// UserBiasLambda the ridges of FoldIn.
	Min, Max                   float64
	UserLambda, UserBiasLambda float64
	// UserLambdaPerRating is added to UserLambda once per rating the user
	// fits (ALS-WR scaling of the user ridge).
	UserLambdaPerRating float64
	// Ranking is the released ranking model of the ranking objective
	// (Options.Objective = ObjectiveRanking), nil for the rating
	// objective. With it the rating part is empty: Rank 0, V nil, Mu the
	// scale's midpoint, ItemBias zero and TailBias 0 (nothing about
	// ratings is released), and Counts are the positive counts
	// (Ranking.Counts).
	Ranking *Ranking
	// Report says what was released with which noise and what it
	// guarantees.
	Report *Report
	// Evaluation holds exact figures of the training data for the
	// operator's evaluation: NOT released, NOT covered by the guarantee,
	// and not written to a model file.
	Evaluation Evaluation

	// biasSums are the released noisy bias sums, with the tail's sum and
	// scaled weight appended under private selection (kept for tests).
	biasSums []float64
	// bucketSums are the tail buckets' noisy coordinates, sum and weight
	// per bucket (kept for tests).
	bucketSums []float64
}

// LearnedRank returns the number of learned factors: Rank without the
// feature columns.
func (res *Result) LearnedRank() int { return res.Rank - len(res.Features) }

// trainer holds one run's state. Users are in the canonical order of
// their IDs and candidate items in the canonical order of theirs, so
// every sum runs in an order fixed by the IDs alone (see Plan).
type trainer struct {
	*Plan
	workers int
	eval    Evaluation

	users int
	// data holds every user's ratings of candidate items as positions into
	// the training matrix (see userData); view rebuilds one user's lists.
	data *userData
	// maxRow is the largest number of ratings of one user: the size of
	// the per-worker scratch.
	maxRow int

	candIDs []string // candidate item IDs, canonical order
	itemIDs []string // released item IDs, once selected
	// ncontrib[i] is the size of user i's contribution set over candidate
	// items, which fixes the user's count and bias weights 1/√n.
	ncontrib []int
}

// Train fits the user-level private model to the training set d and
// returns the release. It returns an error wrapping ErrParam, naming the
// option, for invalid options, and ctx.Err() if cancelled. The result
// depends on d's ratings and IDs, not on the order of its rows and
// columns, nor on Options.Workers.
func Train(ctx context.Context, d *ratings.Dataset, opts Options) (*Result, error) {
	if d == nil || d.Ratings == nil {
		if err := opts.validate(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("userdp: %w: no training data", ErrParam)
	}
	plan, err := NewPlan(opts)
	if err != nil {
		return nil, err
	}
	if d.Users == nil || d.Items == nil || d.Users.Len() != d.Ratings.Rows() || d.Items.Len() != d.Ratings.Cols() {
		return nil, fmt.Errorf("userdp: %w: the training data's user and item IDs do not match its matrix", ErrParam)
	}
	t := &trainer{Plan: plan, workers: opts.Workers}
	if t.workers == 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	if opts.Objective == ObjectiveRanking {
		return trainRanking(ctx, t, d)
	}
	t.prepare(d)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.progress(fmt.Sprintf("prepared %d users over %d candidate items (exact counts of the data: evaluation only, not released)", t.users, len(t.candIDs)))

	sums, counts, present := t.sums()
	mu, nusers, err := t.ReleaseMean(sums)
	if err != nil {
		return nil, err
	}
	if err := t.Decide(nusers); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rs := t.newStreams()
	released := make([]float64, len(counts))
	for j := range counts {
		if released[j], err = t.releaseCount(t.candIDs[j], counts[j], rs); err != nil {
			return nil, err
		}
	}
	model, mcounts := t.selectItems(released, present)
	t.progress(fmt.Sprintf("released %d items", len(model)))
	o := t.opts
	res := &Result{
		Rank: o.Rank, Mu: mu, Min: o.Min, Max: o.Max,
		UserLambda: o.UserLambda, UserBiasLambda: o.UserBiasLambda,
		UserLambdaPerRating: o.UserLambdaPerRating,
		Report:              t.report,
		Evaluation:          t.eval,
	}
	res.ItemIDs = make([]string, len(model))
	for j, c := range model {
		res.ItemIDs[j] = t.candIDs[c]
	}
	t.itemIDs = res.ItemIDs
	res.Counts = mcounts
	// from now on every user's lists index the released items.
	toModel := make([]int32, len(t.candIDs))
	for c := range toModel {
		toModel[c] = -1
	}
	for j, c := range model {
		toModel[c] = int32(j)
	}
	var bucket func(col int) int32
	if nb := t.Buckets(); nb > 0 {
		bucket = func(col int) int32 { return int32(TailBucket(d.Items.ID(col), nb)) }
	}
	t.data.release(toModel, bucket)

	var buckets tailBuckets
	if res.ItemBias, res.TailBias, res.biasSums, buckets, err = t.biases(ctx, mu, mcounts); err != nil {
		return nil, err
	}
	if buckets.bias != nil {
		t.progress(fmt.Sprintf("released item biases, and %d tail buckets", len(buckets.bias)))
	} else {
		t.progress("released item biases")
	}
	if t.opts.Rank > 0 {
		v, err := t.factors(ctx, res)
		if err != nil {
			return nil, err
		}
		res.V = v
	}
	// The buckets join the release after the factors, which are fitted
	// with the tail bias for every unreleased item, as without them.
	res.BucketBias, res.BucketCounts, res.bucketSums = buckets.bias, buckets.counts, buckets.sums
	t.AppendFeatures(res)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// tailBuckets are the released tail buckets' biases and counts, and
// their noisy coordinates (sum, weight per bucket); nil without tail
// buckets.
type tailBuckets struct {
	bias, counts, sums []float64
}

func (t *trainer) progress(s string) {
	if t.opts.Progress != nil {
		t.opts.Progress(s)
	}
}

// candidates sets the candidate items (the catalogue, or every item of
// the data) in canonical order and returns each data column's candidate
// (−1 outside the catalogue, whose ratings are counted in
// eval.DroppedOutsideCatalogue) and the data's rows in the canonical
// order of the user IDs. Both objectives prepare from it.
func (t *trainer) candidates(d *ratings.Dataset) (colToCand, rows []int32) {
	x := d.Ratings
	t.users = x.Rows()
	if t.opts.Items != nil {
		t.candIDs = slices.Clone(t.opts.Items)
	} else {
		t.candIDs = make([]string, x.Cols())
		for j := range t.candIDs {
			t.candIDs[j] = d.Items.ID(j)
		}
	}
	slices.SortFunc(t.candIDs, CompareIDs)
	idx := make(map[string]int32, len(t.candIDs))
	for k, id := range t.candIDs {
		idx[id] = int32(k)
	}
	colToCand = make([]int32, x.Cols())
	dropped := 0
	for j := range colToCand {
		c, ok := idx[d.Items.ID(j)]
		if !ok {
			c = -1
			_, vals := x.Col(j)
			dropped += vals.Len()
		}
		colToCand[j] = c
	}
	if t.opts.Items != nil {
		t.eval.DroppedOutsideCatalogue = dropped
	}
	rows = make([]int32, t.users)
	for i := range rows {
		rows[i] = int32(i)
	}
	slices.SortFunc(rows, func(a, b int32) int { return CompareIDs(d.Users.ID(int(a)), d.Users.ID(int(b))) })
	return colToCand, rows
}

// prepare maps the data onto the candidate items (in canonical order),
// orders the users canonically and draws each user's contribution
// subset; the ratings stay in the matrix (userData).
func (t *trainer) prepare(d *ratings.Dataset) {
	x := d.Ratings
	colToCand, rows := t.candidates(d)
	t.data = newUserData(x, rows, colToCand, t.opts.Min, t.opts.Max)
	t.ncontrib = make([]int, t.users)
	var buf []int
	rs := t.newStreams()
	for i, row := range rows {
		n := t.data.n(i)
		t.maxRow = max(t.maxRow, n)
		t.ncontrib[i] = n
		pos := t.subset(d.Users.ID(int(row)), n, rs, buf)
		if cap(pos) > cap(buf) {
			buf = pos
		}
		t.data.setContributed(i, pos)
		if pos != nil {
			t.ncontrib[i] = len(pos)
		}
	}
}

// sums returns, in one pass over the users, the exact sums of the
// global mean (UserMean) and the exact weighted count of every candidate
// item: each user adds CountWeight to each contributed item (AddCount;
// ReleaseCount adds the noise once Decide has calibrated it). present[j]
// says that some contributed rating reaches item j (see Plan.Selected).
func (t *trainer) sums() (sums MeanSums, w []Sum, present []bool) {
	w = make([]Sum, len(t.candIDs))
	present = make([]bool, len(t.candIDs))
	sv := newUserView(t.maxRow)
	g := t.grids.unit
	for i := range t.users {
		t.data.view(i, false, sv)
		sums.Add(t.UserMean(sv.cval))
		c := sv.ccol
		if len(c) == 0 {
			continue
		}
		wi, ok := g.Units(t.CountWeight(len(c))) // one conversion per user: AddCount's term
		for _, j := range c {
			if ok {
				w[j].AddUnits(wi)
			} else {
				t.AddCount(&w[j], t.CountWeight(len(c)))
			}
			present[j] = true
		}
	}
	return sums, w, present
}

// selectItems returns the released items (candidate indices, in canonical
// ID order) and their released counts (see Plan.Selected).
func (t *trainer) selectItems(counts []float64, present []bool) ([]int, []float64) {
	var keep []int
	for c := range t.candIDs {
		if t.Selected(counts[c], present[c]) {
			keep = append(keep, c)
		}
	}
	out := make([]float64, len(keep))
	for j, c := range keep {
		out[j] = counts[c]
	}
	return keep, out
}

// biases releases the item biases (Plan.UserBias, ReleaseBias) and,
// under private selection, the tail (ReleaseTail) and the tail buckets
// (ReleaseBucket). It returns the released biases, the tail bias, the
// noisy sums (tail coordinates appended) and the buckets.
func (t *trainer) biases(ctx context.Context, mu float64, counts []float64) (bias []float64, tail float64, sums []float64, tb tailBuckets, err error) {
	n := len(counts)
	sum := make([]Sum, n)
	wsum := make([]Sum, n)
	var ts, tw Sum
	nb := t.Buckets()
	bsum := make([]Sum, nb)
	bw := make([]Sum, nb)
	withTail := t.WithTail()
	sv := newUserView(t.maxRow)
	for i := range t.users {
		t.data.view(i, withTail, sv)
		if len(sv.ccol) == 0 && len(sv.tval) == 0 {
			continue
		}
		beta := t.UserOffset(sv.aval, mu)
		s, w, ok := t.UserBias(mu, beta, t.ncontrib[i], sv.ccol, sv.cval, sv.tval, sv.tbkt, func(j int32, term, weight float64) {
			t.AddBias(&sum[j], &wsum[j], term, weight)
		}, func(b int32, term, weight float64) {
			t.AddTail(&bsum[b], &bw[b], term, weight)
		})
		if ok {
			t.AddTail(&ts, &tw, s, w)
		}
	}
	b := make([]float64, n)
	out := make([]float64, n, n+2)
	rs := t.newStreams()
	for j := range b {
		if out[j], b[j], err = t.releaseBias(t.itemIDs[j], sum[j], wsum[j], counts[j], rs); err != nil {
			return nil, 0, nil, tb, err
		}
	}
	t.FitBiasTrend(out, counts, b)
	if !withTail {
		return b, 0, out, tb, nil
	}
	ns, nw, tbias, err := t.ReleaseTail(ts, tw)
	if err != nil {
		return nil, 0, nil, tb, err
	}
	if nb > 0 {
		// Every bucket draws from its own stream, so the worker pool
		// releases the same buckets whatever the scheduling.
		tb.bias, tb.counts, tb.sums = make([]float64, nb), make([]float64, nb), make([]float64, 2*nb)
		wrs, werr := make([]*streams, t.workers), make([]error, t.workers)
		for w := range wrs {
			wrs[w] = t.newStreams()
		}
		if err := t.parallel(ctx, nb, func(w, k int) {
			if werr[w] != nil {
				return
			}
			var e error
			if tb.sums[2*k], tb.sums[2*k+1], tb.bias[k], tb.counts[k], e = t.releaseBucket(k, bsum[k], bw[k], tbias, wrs[w]); e != nil {
				werr[w] = e
			}
		}); err != nil {
			return nil, 0, nil, tb, err
		}
		if err := errors.Join(werr...); err != nil {
			return nil, 0, nil, tb, err
		}
	}
	return b, tbias, append(out, ns, nw), tb, nil
}

// parallel runs fn(worker, row) for row in [0, n) on the worker pool.
func (t *trainer) parallel(ctx context.Context, n int, fn func(w int, row int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	const chunk = 64
	for w := range t.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				start := int(next.Add(chunk)) - chunk
				if start >= n {
					return
				}
				for row := start; row < min(start+chunk, n); row++ {
					fn(w, row)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// factors runs the start and Iters ALS steps and returns the released V.
func (t *trainer) factors(ctx context.Context, res *Result) ([]float64, error) {
	o := &t.opts
	r := o.Rank
	n := len(res.ItemIDs)
	v := make([]float64, n*r)
	head := t.Head(res.Counts)
	// Factor-step weights per contributed rating: w = alpha[j]·scale[i]
	// (factorAlphas, factorScale), what FactorWeights returns, computed
	// where used instead of held per rating.
	alpha := t.factorAlphas(res.Counts, head)
	scale := make([]float64, t.users)
	// One pass over the users: each user's weight scale, the size of the
	// item-major index below and, with a PCA start, the user's terms of
	// the start matrix.
	start := make([]int, n+1)
	// The start covers the most popular head items only (StartHead),
	// with weights renormalized over them.
	shead := t.StartHead(res.Counts, head)
	salpha := t.factorAlphas(res.Counts, shead)
	st := t.newStart(shead)
	sv := newUserView(t.maxRow)
	withTail := t.WithTail()
	for i := range t.users {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t.data.view(i, withTail, sv)
		scale[i] = t.factorScale(sv.ccol, alpha)
		for _, j := range sv.ccol {
			if alpha[j]*scale[i] > 0 {
				start[j+1]++
			}
		}
		st.add(t, res, sv, salpha, t.factorScale(sv.ccol, salpha))
	}
	if err := st.release(t, res, v, head, shead); err != nil {
		return nil, err
	}
	// Item-major index of contributions: for item j, the (user, position
	// among the user's ratings) pairs in increasing (canonical) user
	// order, of the ratings with a positive weight.
	for j := range n {
		start[j+1] += start[j]
	}
	users := make([]int32, start[n])
	pos := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	for i := range t.users {
		t.data.view(i, withTail, sv)
		for q, j := range sv.ccol {
			if alpha[j]*scale[i] > 0 {
				users[fill[j]], pos[fill[j]] = int32(i), sv.cpos[q]
				fill[j]++
			}
		}
	}

	u := make([]float64, t.users*r)
	ub := make([]float64, t.users)
	ws := make([]*Solver, t.workers)
	views := make([]*userView, t.workers)
	for w := range ws {
		ws[w] = t.NewSolver()
		views[w] = newUserView(t.maxRow)
	}
	for step := range o.Iters {
		// Users fit their own factor and bias from V and their ratings.
		if err := t.parallel(ctx, t.users, func(w, i int) {
			s := views[w]
			t.data.view(i, false, s)
			ws[w].FoldIn(res, v, s.acol, s.aval, u[i*r:(i+1)*r], &ub[i])
		}); err != nil {
			return nil, err
		}
		t.progress(fmt.Sprintf("ALS step %d/%d: user fits", step+1, o.Iters))
		errs := make([]error, t.workers)
		if err := t.parallel(ctx, n, func(w, j int) {
			if !head[j] || errs[w] != nil {
				return
			}
			errs[w] = t.itemStep(ws[w], step, j, res, v, u, ub, alpha[j], scale, users[start[j]:start[j+1]], pos[start[j]:start[j+1]])
		}); err != nil {
			return nil, err
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		if !o.NoNoise {
			NormalizeRows(v, r, head)
		}
		t.progress(fmt.Sprintf("ALS step %d/%d: item release", step+1, o.Iters))
	}
	return v, nil
}

// startMatrix accumulates the start of the factors. Without a PCA share
// the start is drawn data-independently (RandomStart). With one, it
// releases the noisy second-moment matrix of the users' weighted residual
// vectors over the head items,
//
//	M = Σ_users z zᵀ,  z_j = w_j · clip(x_j − μ − b_j − β_user, ±B_r),
//
// whose ℓ2 (Frobenius) sensitivity is ‖z‖₂² ≤ B_r² because each user's
// weights have ‖w‖₂ ≤ 1, and starts from its top-r eigenvectors
// (ReleaseStart). With no head item V stays zero.
type startMatrix struct {
	pca  bool
	cand []int
	pos  []int32
	m    []Sum // packed lower triangle (AccumulateStart)
	idx  []int32
	z    []float64
	wt   []float64
}

// newStart returns an empty start for the head items (head marks them
// among the released items).
func (t *trainer) newStart(head []bool) *startMatrix {
	s := &startMatrix{pca: t.PCAStart()}
	if !s.pca {
		return s
	}
	s.cand, s.pos = StartPositions(head)
	h := len(s.cand)
	s.m = make([]Sum, h*(h+1)/2)
	s.idx = make([]int32, 0, 64)
	s.z = make([]float64, 0, 64)
	s.wt = make([]float64, 0, t.maxRow)
	return s
}

// add adds the terms of one user (sv, after selection, weights
// alpha[j]·scale); users must come in canonical order.
func (s *startMatrix) add(t *trainer, res *Result, sv *userView, alpha []float64, scale float64) {
	h := len(s.cand)
	if !s.pca || h == 0 {
		return
	}
	s.wt = s.wt[:0]
	for _, j := range sv.ccol {
		s.wt = append(s.wt, alpha[j]*scale)
	}
	beta := t.UserOffset(sv.aval, res.Mu)
	s.idx, s.z = t.StartTerms(res.Mu, beta, res.ItemBias, s.pos, sv.ccol, sv.cval, s.wt, s.idx[:0], s.z[:0])
	s.m = t.AccumulateStart(s.m, s.idx, s.z)
}

// release fills the rows of v with the starting factors: the head's
// drawn at random without a PCA start, else the start head's (shead,
// StartHead) from the released start matrix.
func (s *startMatrix) release(t *trainer, res *Result, v []float64, head, shead []bool) error {
	if !s.pca {
		t.RandomStart(res.ItemIDs, head, v)
		return nil
	}
	if len(s.cand) == 0 {
		return nil
	}
	return t.ReleaseStart(res.ItemIDs, shead, s.cand, s.m, v)
}

// itemStep computes item j's Gram matrix and right-hand side from its
// raters' clipped factors and residuals (ItemTerm, AddItemTerm), adds the
// noise, and solves (ReleaseItem). Without noise it refits the item's
// bias jointly with its factor (a plain non-private ALS step with
// features [u; 1]). A rater's weight is alpha·scale[user]; pos[q] is the
// position of the rating among its user's.
func (t *trainer) itemStep(s *Solver, step, j int, res *Result, v, u, ub []float64, alpha float64, scale []float64, users, pos []int32) error {
	o := &t.opts
	if o.NoNoise {
		t.itemStepExact(s.ws, j, res, v, u, ub, users, pos)
		return nil
	}
	r := o.Rank
	g, h, uc := s.ws.gramSum, s.ws.rhsSum, s.ws.uc
	clear(g)
	clear(h)
	for q, i := range users {
		w := alpha * scale[i]
		e := t.ItemTerm(u[int(i)*r:int(i+1)*r], uc, t.data.value(int(i), int(pos[q])), res.Mu, res.ItemBias[j], ub[i])
		t.AddItemTerm(g, h, w, e, uc)
		if o.observe != nil {
			o.observe(step, j, int(i), w, uc, e)
		}
	}
	return t.ReleaseItem(s, step, t.itemIDs[j], res.Counts[j], g, h, v[j*r:(j+1)*r])
}

// itemStepExact is the non-private item step: ridge least squares of the
// item's factor and bias on its raters' factors, with λ scaled by the
// item's number of ratings (ALS-WR); the bias is regularized by
// BiasLambda.
func (t *trainer) itemStepExact(ws *workspace, j int, res *Result, v, u, ub []float64, users, pos []int32) {
	o := &t.opts
	r := o.Rank
	n := r + 1
	dense.SetRidge(ws.a, n, o.Lambda*float64(len(users)))
	ws.a[r*n+r] = o.BiasLambda
	clear(ws.b)
	for lo := 0; lo < len(users); lo += normalBlock {
		block := users[lo:min(lo+normalBlock, len(users))]
		for q, i := range block {
			row := ws.rows[q*n : (q+1)*n]
			copy(row[:r], u[int(i)*r:int(i+1)*r])
			row[r] = 1
			ws.ys[q] = t.data.value(int(i), int(pos[lo+q])) - res.Mu - ub[i]
		}
		ws.addNormal(n, len(block))
	}
	if dense.CholeskySolve(ws.a, n, ws.b) != nil {
		return
	}
	copy(v[j*r:(j+1)*r], ws.b[:r])
	res.ItemBias[j] = ws.b[r]
}
