package userdp

import (
	"context"
	"fmt"
	"math"
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
	// Rank is the number of factors (0: biases only).
	Rank int
	// Mu is the released global centre, in rating units.
	Mu float64
	// ItemIDs are the released items, in a canonical order (numeric IDs
	// ascending, then the rest lexicographically): the catalogue's items,
	// or those private selection kept. Row j of V and ItemBias[j] belong
	// to ItemIDs[j].
	ItemIDs []string
	// ItemBias holds the released item biases, in rating units.
	ItemBias []float64
	// V holds the released item factors, len(ItemIDs)·Rank, row-major;
	// rows of tail items are zero.
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
	// Min and Max are the public rating range; UserLambda and
	// UserBiasLambda the ridges of FoldIn.
	Min, Max                   float64
	UserLambda, UserBiasLambda float64
	// UserLambdaPerRating is added to UserLambda once per rating the user
	// fits (ALS-WR scaling of the user ridge).
	UserLambdaPerRating float64
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
}

// trainer holds one run's state. Users are in the canonical order of
// their IDs and candidate items in the canonical order of theirs, so
// every sum runs in an order fixed by the IDs alone (see Plan).
type trainer struct {
	*Plan
	workers int
	eval    Evaluation

	users int
	// contributed ratings per user, candidate-indexed: ccol[i] (index into
	// the candidate item space) and cval[i].
	ccol [][]int32
	cval [][]float64
	// all of each user's ratings on candidate items (for local fits).
	acol [][]int32
	aval [][]float64
	// tval[i] holds user i's contributed ratings of candidate items that
	// were not released (private selection only): they feed the tail bias.
	tval [][]float64

	candIDs []string // candidate item IDs, canonical order
	itemIDs []string // released item IDs, once selected
	userIDs []string // the users' external IDs, canonical order
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
	t.prepare(d)
	t.progress(fmt.Sprintf("prepared %d users over %d candidate items (exact counts of the data: evaluation only, not released)", t.users, len(t.candIDs)))

	var sums MeanSums
	for i := range t.users {
		sums.Add(t.UserMean(t.cval[i]))
	}
	mu, nusers := t.ReleaseMean(sums)
	if err := t.Decide(nusers); err != nil {
		return nil, err
	}
	counts, present := t.counts()
	model, mcounts := t.selectItems(counts, present)
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
	// remap every user's candidate indices to released item indices.
	toModel := make([]int32, len(t.candIDs))
	for c := range toModel {
		toModel[c] = -1
	}
	for j, c := range model {
		toModel[c] = int32(j)
	}
	t.remap(toModel)

	res.ItemBias, res.TailBias, res.biasSums = t.biases(mu, mcounts)
	t.progress("released item biases")
	if t.opts.Rank > 0 {
		v, err := t.factors(ctx, res)
		if err != nil {
			return nil, err
		}
		res.V = v
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

func (t *trainer) progress(s string) {
	if t.opts.Progress != nil {
		t.opts.Progress(s)
	}
}

// prepare maps the data onto the candidate items (in canonical order),
// orders the users canonically, draws each user's contribution subset and
// keeps each user's own ratings.
func (t *trainer) prepare(d *ratings.Dataset) {
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
	colToCand := make([]int32, x.Cols())
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
	rows := make([]int, t.users)
	for i := range rows {
		rows[i] = i
	}
	slices.SortFunc(rows, func(a, b int) int { return CompareIDs(d.Users.ID(a), d.Users.ID(b)) })
	t.userIDs = make([]string, t.users)
	t.ccol = make([][]int32, t.users)
	t.cval = make([][]float64, t.users)
	t.acol = make([][]int32, t.users)
	t.aval = make([][]float64, t.users)
	t.ncontrib = make([]int, t.users)
	lo, hi := t.opts.Min, t.opts.Max
	type rating struct {
		c int32
		v float64
	}
	var buf []rating
	for i, row := range rows {
		t.userIDs[i] = d.Users.ID(row)
		items, vals := x.Row(row)
		buf = buf[:0]
		for p, j := range items {
			if c := colToCand[j]; c >= 0 {
				buf = append(buf, rating{c, math.Min(math.Max(vals.At(p), lo), hi)})
			}
		}
		slices.SortFunc(buf, func(a, b rating) int { return int(a.c) - int(b.c) })
		ac := make([]int32, len(buf))
		av := make([]float64, len(buf))
		for p, r := range buf {
			ac[p], av[p] = r.c, r.v
		}
		t.acol[i], t.aval[i] = ac, av
		t.ncontrib[i] = len(ac)
		pos := t.Subset(t.userIDs[i], len(ac))
		if pos == nil {
			t.ccol[i], t.cval[i] = ac, av
			continue
		}
		cc := make([]int32, len(pos))
		cv := make([]float64, len(pos))
		for p, q := range pos {
			cc[p], cv[p] = ac[q], av[q]
		}
		t.ccol[i], t.cval[i] = cc, cv
		t.ncontrib[i] = len(pos)
	}
}

// counts returns the (noisy) weighted count of every candidate item: each
// user adds CountWeight to each contributed item. present[j] says that
// some contributed rating reaches item j (see Plan.Selected).
func (t *trainer) counts() (w []float64, present []bool) {
	w = make([]float64, len(t.candIDs))
	present = make([]bool, len(t.candIDs))
	for i := range t.users {
		c := t.ccol[i]
		if len(c) == 0 {
			continue
		}
		wi := t.CountWeight(len(c))
		for _, j := range c {
			w[j] += wi
			present[j] = true
		}
	}
	for j := range w {
		w[j] = t.ReleaseCount(t.candIDs[j], w[j])
	}
	return w, present
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

// remap rewrites every user's candidate indices to released item indices:
// the contributed ratings of items that were not released are dropped
// (and kept in tval for the tail); the user's own ratings keep them as
// −1, since the user's local fit still uses them for the user's bias.
func (t *trainer) remap(toModel []int32) {
	if t.WithTail() {
		t.tval = make([][]float64, t.users)
	}
	m := func(c int32) int32 { return toModel[c] }
	for i := range t.users {
		own := make([]int32, len(t.acol[i]))
		for p, c := range t.acol[i] {
			own[p] = toModel[c]
		}
		kc, kv, tail := SplitReleased(t.ccol[i], t.cval[i], m)
		t.acol[i], t.ccol[i], t.cval[i] = own, kc, kv
		if t.tval != nil {
			t.tval[i] = tail
		}
	}
}

// biases releases the item biases (Plan.UserBias, ReleaseBias) and,
// under private selection, the tail (ReleaseTail). It returns the
// released biases, the tail bias and the noisy sums (tail coordinates
// appended).
func (t *trainer) biases(mu float64, counts []float64) (bias []float64, tail float64, sums []float64) {
	n := len(counts)
	sum := make([]float64, n, n+2)
	wsum := make([]float64, n)
	var ts, tw float64
	for i := range t.users {
		var tv []float64
		if t.tval != nil {
			tv = t.tval[i]
		}
		if len(t.ccol[i]) == 0 && len(tv) == 0 {
			continue
		}
		beta := t.UserOffset(t.aval[i], mu)
		s, w, ok := t.UserBias(mu, beta, t.ncontrib[i], t.ccol[i], t.cval[i], tv, func(j int32, term, weight float64) {
			sum[j] += term
			wsum[j] += weight
		})
		if ok {
			ts += s
			tw += w
		}
	}
	b := make([]float64, n)
	for j := range b {
		sum[j], b[j] = t.ReleaseBias(t.itemIDs[j], sum[j], wsum[j], counts[j])
	}
	if t.tval == nil {
		return b, 0, sum
	}
	ns, nw, tb := t.ReleaseTail(ts, tw)
	return b, tb, append(sum, ns, nw)
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
	// Factor-step weights per contributed rating, normalized per user.
	wt := make([][]float64, t.users)
	for i := range t.users {
		wt[i] = t.FactorWeights(t.ccol[i], res.Counts, head)
	}
	if err := t.start(ctx, res, v, head, wt); err != nil {
		return nil, err
	}
	// Item-major index of contributions: for item j, the (user, position)
	// pairs in increasing (canonical) user order.
	start := make([]int, n+1)
	for i := range t.users {
		for p, j := range t.ccol[i] {
			if wt[i][p] > 0 {
				start[j+1]++
			}
		}
	}
	for j := range n {
		start[j+1] += start[j]
	}
	users := make([]int32, start[n])
	pos := make([]int32, start[n])
	fill := slices.Clone(start[:n])
	for i := range t.users {
		for p, j := range t.ccol[i] {
			if wt[i][p] > 0 {
				users[fill[j]], pos[fill[j]] = int32(i), int32(p)
				fill[j]++
			}
		}
	}

	u := make([]float64, t.users*r)
	ub := make([]float64, t.users)
	ws := make([]*Solver, t.workers)
	for w := range ws {
		ws[w] = t.NewSolver()
	}
	for step := range o.Iters {
		// Users fit their own factor and bias from V and their ratings.
		if err := t.parallel(ctx, t.users, func(w, i int) {
			ws[w].FoldIn(res, v, t.acol[i], t.aval[i], u[i*r:(i+1)*r], &ub[i])
		}); err != nil {
			return nil, err
		}
		t.progress(fmt.Sprintf("ALS step %d/%d: user fits", step+1, o.Iters))
		if err := t.parallel(ctx, n, func(w, j int) {
			if !head[j] {
				return
			}
			t.itemStep(ws[w], step, j, res, v, u, ub, wt, users[start[j]:start[j+1]], pos[start[j]:start[j+1]])
		}); err != nil {
			return nil, err
		}
		if !o.NoNoise {
			NormalizeRows(v, r, head)
		}
		t.progress(fmt.Sprintf("ALS step %d/%d: item release", step+1, o.Iters))
	}
	return v, nil
}

// start fills the head rows of v with the release's starting item
// factors. Without a PCA share it draws them data-independently
// (RandomStart). With one, it releases the noisy second-moment matrix of
// the users' weighted residual vectors over the head items,
//
//	M = Σ_users z zᵀ,  z_j = w_j · clip(x_j − μ − b_j − β_user, ±B_r),
//
// whose ℓ2 (Frobenius) sensitivity is ‖z‖₂² ≤ B_r² because each user's
// weights have ‖w‖₂ ≤ 1, and starts from its top-r eigenvectors
// (ReleaseStart). With no head item V stays zero.
func (t *trainer) start(ctx context.Context, res *Result, v []float64, head []bool, wt [][]float64) error {
	if !t.PCAStart() {
		t.RandomStart(res.ItemIDs, head, v)
		return nil
	}
	cand, pos := StartPositions(head)
	h := len(cand)
	if h == 0 {
		return nil
	}
	m := make([]float64, h*h)
	idx := make([]int32, 0, 64)
	z := make([]float64, 0, 64)
	for i := range t.users {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		beta := t.UserOffset(t.aval[i], res.Mu)
		idx, z = t.StartTerms(res.Mu, beta, res.ItemBias, pos, t.ccol[i], t.cval[i], wt[i], idx[:0], z[:0])
		AccumulateStart(m, h, idx, z)
	}
	return t.ReleaseStart(res.ItemIDs, head, cand, m, v)
}

// itemStep computes item j's Gram matrix and right-hand side from its
// raters' clipped factors and residuals (ItemTerm, AddItemTerm), adds the
// noise, and solves (ReleaseItem). Without noise it refits the item's
// bias jointly with its factor (a plain non-private ALS step with
// features [u; 1]).
func (t *trainer) itemStep(s *Solver, step, j int, res *Result, v, u, ub []float64, wt [][]float64, users, pos []int32) {
	o := &t.opts
	if o.NoNoise {
		t.itemStepExact(s.ws, j, res, v, u, ub, users, pos)
		return
	}
	r := o.Rank
	g, h, uc := s.ws.gram, s.ws.rhs, s.ws.uc
	clear(g)
	clear(h)
	for q, i := range users {
		p := pos[q]
		w := wt[i][p]
		e := t.ItemTerm(u[int(i)*r:int(i+1)*r], uc, t.cval[i][p], res.Mu, res.ItemBias[j], ub[i])
		AddItemTerm(g, h, w, e, uc)
		if o.observe != nil {
			o.observe(step, j, int(i), w, uc, e)
		}
	}
	t.ReleaseItem(s, step, t.itemIDs[j], res.Counts[j], g, h, v[j*r:(j+1)*r])
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
	ws.f[r] = 1
	for q, i := range users {
		copy(ws.f[:r], u[int(i)*r:int(i+1)*r])
		y := t.cval[i][pos[q]] - res.Mu - ub[i]
		dense.AddOuter(ws.a, n, 1, ws.f)
		dense.Axpy(ws.b, y, ws.f)
	}
	if dense.CholeskySolve(ws.a, n, ws.b) != nil {
		return
	}
	copy(v[j*r:(j+1)*r], ws.b[:r])
	res.ItemBias[j] = ws.b[r]
}
