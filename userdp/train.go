package userdp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
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

	// biasSums are the released noisy bias sums (kept for tests).
	biasSums []float64
}

// phase tags of the random streams derived from (seed, phase, row).
const (
	phaseSubset = iota + 1
	phaseMean
	phaseCounts
	phaseBias
	phaseStart
	phaseGram
	phaseRHS
	phasePCA
)

// streamKey is the stream of (phase, step, id): the first 8 bytes of
// SHA-256 over a domain tag, the phase, the step and the user's or item's
// external ID. Keying by ID rather than by position makes the noise of an
// item independent of the file's order, so that any implementation that
// knows the IDs (a distributed one, say) draws the same noise.
func streamKey(phase, step int, id string) uint64 {
	h := sha256.New()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(phase))
	binary.LittleEndian.PutUint64(b[8:], uint64(step))
	h.Write([]byte("dpmc/userdp/v1"))
	h.Write(b[:])
	h.Write([]byte(id))
	var sum [sha256.Size]byte
	return binary.LittleEndian.Uint64(h.Sum(sum[:0]))
}

// trainer holds one run's state.
type trainer struct {
	opts    Options
	workers int
	mu      float64 // the GDP parameter of the whole run
	report  *Report
	noise   noiseScales

	users int
	// contributed ratings per user, candidate-indexed: cand[i] (index into
	// the candidate item space) and cval[i].
	ccol [][]int32
	cval [][]float64
	// all of each user's ratings on candidate items (for local fits).
	acol [][]int32
	aval [][]float64

	candIDs []string     // candidate item IDs
	itemIDs []string     // released item IDs, once selected
	userIDs *ratings.IDs // the users' external IDs
	// ncontrib[i] is the size of user i's contribution set over candidate
	// items, which fixes the user's count and bias weights 1/√n.
	ncontrib []int
}

// noiseScales are the σ of every release, 0 without noise.
type noiseScales struct {
	meanSum, meanCount, counts, biases, gram, rhs, pca float64
}

// Train fits the user-level private model to the training set d and
// returns the release. It returns an error wrapping ErrParam, naming the
// option, for invalid options, and ctx.Err() if cancelled.
func Train(ctx context.Context, d *ratings.Dataset, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if d == nil || d.Ratings == nil {
		return nil, fmt.Errorf("userdp: %w: no training data", ErrParam)
	}
	if d.Users == nil || d.Items == nil || d.Users.Len() != d.Ratings.Rows() || d.Items.Len() != d.Ratings.Cols() {
		return nil, fmt.Errorf("userdp: %w: the training data's user and item IDs do not match its matrix", ErrParam)
	}
	t := &trainer{opts: opts, workers: opts.Workers}
	if t.workers == 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	if err := t.plan(); err != nil {
		return nil, err
	}
	t.prepare(d)
	t.progress(fmt.Sprintf("prepared %d users over %d candidate items", t.users, len(t.candIDs)))

	mu, nusers := t.mean()
	t.decideFactors(nusers)
	t.planRest()
	counts := t.counts()
	model, mcounts := t.selectItems(counts)
	t.progress(fmt.Sprintf("released %d items", len(model)))
	res := &Result{
		Rank: t.opts.Rank, Mu: mu, Min: opts.Min, Max: opts.Max,
		UserLambda: opts.UserLambda, UserBiasLambda: opts.UserBiasLambda,
		UserLambdaPerRating: opts.UserLambdaPerRating,
		Report:              t.report,
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

	res.ItemBias, res.biasSums = t.biases(mu, mcounts)
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

// rand returns the generator of (phase, step, id): a derived stream when
// seeded, crypto/rand otherwise.
func (t *trainer) rand(phase, step int, id string) *rand.Rand {
	if t.opts.Seeded {
		return rng.Stream(t.opts.Seed, streamKey(phase, step, id))
	}
	return rng.Crypto()
}

// plan starts the report and calibrates the first releases (the global
// mean's sum and the number of users) to the target; planRest does the
// others once the factor decision is made.
func (t *trainer) plan() error {
	o := &t.opts
	r := &Report{Unit: "user", Mode: "user", NoNoise: o.NoNoise, Epsilon: o.Epsilon, Delta: o.Delta}
	t.report = r
	if o.Items != nil {
		r.Items = fmt.Sprintf("public catalogue of %d items (--items)", len(o.Items))
	} else {
		r.Items = "private selection: an item is released only if its noisy weighted count clears the threshold"
	}
	if o.NoNoise {
		r.Guarantee = "none: the pipeline ran without noise (a non-private baseline)"
		r.Factors = fmt.Sprintf("rank %d", o.Rank)
		return nil
	}
	deltaGDP := o.Delta
	if o.Items == nil {
		r.SelectionDelta = o.Delta * o.SelectionDelta
		deltaGDP = o.Delta - r.SelectionDelta
	}
	mu, err := MuFor(o.Epsilon, deltaGDP)
	if err != nil {
		return err
	}
	t.mu = mu
	B0 := (o.Max - o.Min) / 2
	s := o.Shares
	if math.IsNaN(o.Center) {
		t.noise.meanSum = t.sigma(B0, s.Mean/2, 1)
		t.noise.meanCount = t.sigma(1, s.Mean/2, 1)
		r.Releases = append(r.Releases,
			Release{Name: "global mean: sum of users' mean ratings minus the scale's midpoint", L2: B0, Sigma: t.noise.meanSum, Times: 1})
	} else {
		t.noise.meanCount = t.sigma(1, s.Mean, 1)
	}
	r.Releases = append(r.Releases, Release{Name: "number of users", L2: 1, Sigma: t.noise.meanCount, Times: 1})
	return nil
}

// sigma is the noise of a release of ℓ2 sensitivity l2 made times times
// with the given share of μ²: times·(l2/σ)² = share·μ².
func (t *trainer) sigma(l2, share float64, times int) float64 {
	return l2 * math.Sqrt(float64(times)/(share*t.mu*t.mu))
}

// decideFactors applies the AutoFactors rule to the released number of
// users: without factors, their share goes to the item biases.
func (t *trainer) decideFactors(users float64) {
	o := &t.opts
	r := t.report
	if o.Rank == 0 {
		r.Factors = "none (rank 0)"
		return
	}
	if !o.AutoFactors || o.NoNoise {
		r.Factors = fmt.Sprintf("rank %d", o.Rank)
		return
	}
	score := users * o.Epsilon
	if score >= o.AutoFactorThreshold {
		r.Factors = fmt.Sprintf("rank %d: released users × ε = %.0f × %g ≥ %g", o.Rank, users, o.Epsilon, o.AutoFactorThreshold)
		return
	}
	r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item biases", users, o.Epsilon, o.AutoFactorThreshold)
	o.Rank = 0
	o.Shares.Biases += o.Shares.Factors
	o.Shares.Factors = 0
}

// planRest calibrates the releases after the number of users.
func (t *trainer) planRest() {
	o := &t.opts
	r := t.report
	if o.NoNoise {
		return
	}
	s := o.Shares
	t.noise.counts = t.sigma(1, s.Counts, 1)
	r.Releases = append(r.Releases, Release{Name: "item counts (weights 1/√n per user)", L2: 1, Sigma: t.noise.counts, Times: 1})
	t.noise.biases = t.sigma(o.BiasBound, s.Biases, 1)
	r.Releases = append(r.Releases, Release{Name: "item bias sums", L2: o.BiasBound, Sigma: t.noise.biases, Times: 1})
	if o.Rank > 0 && s.PCA > 0 {
		t.noise.pca = t.sigma(o.ResidualBound*o.ResidualBound, s.Factors*s.PCA, 1)
		r.Releases = append(r.Releases, Release{Name: fmt.Sprintf("start: second-moment matrix of weighted residuals over the (at most %d) head items", o.HeadItems), L2: o.ResidualBound * o.ResidualBound, Sigma: t.noise.pca, Times: 1})
	}
	if o.Rank > 0 && o.Iters > 0 {
		c := o.ClipNorm
		als := s.Factors * (1 - s.PCA)
		t.noise.gram = t.sigma(c*c, als*s.Gram, o.Iters)
		t.noise.rhs = t.sigma(o.ResidualBound*c, als*(1-s.Gram), o.Iters)
		r.Releases = append(r.Releases,
			Release{Name: "item Gram matrices Σ w·ũũᵀ, per ALS step", L2: c * c, Sigma: t.noise.gram, Times: o.Iters},
			Release{Name: "item right-hand sides Σ w·r̃·ũ, per ALS step", L2: o.ResidualBound * c, Sigma: t.noise.rhs, Times: o.Iters})
	}
	if o.Items == nil {
		r.Threshold = SelectionThreshold(t.noise.counts, o.MaxItemsPerUser, r.SelectionDelta)
	}
	r.finish()
	what := "item list, global mean, number of users, noisy item counts, item biases"
	if o.Rank > 0 {
		what += ", item factors"
	}
	r.Guarantee = "user-level (ε, δ)-DP of everything released: " + what + " (billboard model: each user's bias, factor and predictions are computed from the release and the user's own ratings, so they are joint-DP)"
	if o.Seeded {
		r.Guarantee = "NONE in this run: the noise is seeded (reproducible), so anyone with the seed can remove it; unseeded runs give " + r.Guarantee
	}
}

// prepare maps the data onto the candidate items, draws each user's
// contribution subset and keeps each user's own ratings.
func (t *trainer) prepare(d *ratings.Dataset) {
	x := d.Ratings
	t.users = x.Rows()
	t.userIDs = d.Users
	var colToCand []int32
	if t.opts.Items != nil {
		t.candIDs = t.opts.Items
		idx := make(map[string]int32, len(t.opts.Items))
		for k, id := range t.opts.Items {
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
		t.report.Evaluation.DroppedOutsideCatalogue = dropped
	} else {
		t.candIDs = make([]string, x.Cols())
		colToCand = make([]int32, x.Cols())
		for j := range colToCand {
			t.candIDs[j] = d.Items.ID(j)
			colToCand[j] = int32(j)
		}
	}
	t.ccol = make([][]int32, t.users)
	t.cval = make([][]float64, t.users)
	t.acol = make([][]int32, t.users)
	t.aval = make([][]float64, t.users)
	t.ncontrib = make([]int, t.users)
	k := t.opts.MaxItemsPerUser
	lo, hi := t.opts.Min, t.opts.Max
	for i := range t.users {
		items, vals := x.Row(i)
		ac := make([]int32, 0, len(items))
		av := make([]float64, 0, len(items))
		for p, j := range items {
			if c := colToCand[j]; c >= 0 {
				ac = append(ac, c)
				av = append(av, math.Min(math.Max(vals.At(p), lo), hi))
			}
		}
		t.acol[i], t.aval[i] = ac, av
		t.ncontrib[i] = len(ac)
		if t.opts.NoNoise || len(ac) <= k {
			t.ccol[i], t.cval[i] = ac, av
			continue
		}
		// A uniform k-subset by a partial Fisher–Yates shuffle of
		// positions, then sorted so the user's list stays ordered.
		r := t.rand(phaseSubset, 0, t.userIDs.ID(i))
		pos := make([]int, len(ac))
		for p := range pos {
			pos[p] = p
		}
		for p := range k {
			q := p + r.IntN(len(pos)-p)
			pos[p], pos[q] = pos[q], pos[p]
		}
		pos = pos[:k]
		slices.Sort(pos)
		cc := make([]int32, k)
		cv := make([]float64, k)
		for p, q := range pos {
			cc[p], cv[p] = ac[q], av[q]
		}
		t.ccol[i], t.cval[i] = cc, cv
		t.ncontrib[i] = k
	}
}

// mean releases the number of users and the global centre: a public
// centre, the exact mean without noise, or a noisy mean of the users'
// mean ratings. It returns the centre and the released number of users.
func (t *trainer) mean() (mu, users float64) {
	o := &t.opts
	mid := (o.Min + o.Max) / 2
	var sum, n, nr float64
	for i := range t.users {
		if len(t.cval[i]) == 0 {
			continue
		}
		var s float64
		for _, v := range t.cval[i] {
			s += v
		}
		sum += s/float64(len(t.cval[i])) - mid
		n++
		nr += float64(len(t.cval[i]))
	}
	if o.NoNoise {
		t.report.Center = "mean rating of the training data (no noise)"
		if !math.IsNaN(o.Center) {
			t.report.Center = fmt.Sprintf("public centre %g (--center)", o.Center)
			return o.Center, n
		}
		var total float64
		for i := range t.users {
			for _, v := range t.cval[i] {
				total += v
			}
		}
		return total / math.Max(nr, 1), n
	}
	r := t.rand(phaseMean, 0, "")
	n += t.noise.meanCount * r.NormFloat64()
	if !math.IsNaN(o.Center) {
		t.report.Center = fmt.Sprintf("public centre %g (--center)", o.Center)
		return o.Center, n
	}
	sum += t.noise.meanSum * r.NormFloat64()
	t.report.Center = "noisy mean of the users' mean ratings"
	mu = mid + sum/math.Max(n, 1)
	return math.Min(math.Max(mu, o.Min), o.Max), n
}

// counts returns the (noisy) weighted count of every candidate item: each
// user adds 1/√n to each of the n items the user contributes.
func (t *trainer) counts() []float64 {
	w := make([]float64, len(t.candIDs))
	for i := range t.users {
		c := t.ccol[i]
		if len(c) == 0 {
			continue
		}
		wi := 1 / math.Sqrt(float64(len(c)))
		if t.opts.NoNoise {
			wi = 1
		}
		for _, j := range c {
			w[j] += wi
		}
	}
	if !t.opts.NoNoise {
		for j := range w {
			w[j] += t.noise.counts * t.rand(phaseCounts, 0, t.candIDs[j]).NormFloat64()
		}
	}
	return w
}

// selectItems returns the released items (candidate indices, in canonical
// ID order) and their released counts.
func (t *trainer) selectItems(counts []float64) ([]int, []float64) {
	var keep []int
	for c := range t.candIDs {
		if t.opts.Items != nil || t.opts.NoNoise || counts[c] >= t.report.Threshold {
			if t.opts.Items == nil && t.opts.NoNoise && counts[c] == 0 {
				continue
			}
			keep = append(keep, c)
		}
	}
	slices.SortFunc(keep, func(a, b int) int { return compareIDs(t.candIDs[a], t.candIDs[b]) })
	out := make([]float64, len(keep))
	for j, c := range keep {
		out[j] = counts[c]
	}
	return keep, out
}

// compareIDs orders IDs canonically: integers numerically first, then the
// rest lexicographically.
func compareIDs(a, b string) int {
	ia, ea := strconv.ParseInt(a, 10, 64)
	ib, eb := strconv.ParseInt(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		return cmp.Compare(ia, ib)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// remap rewrites every user's candidate indices to released item indices:
// the contributed ratings of items that were not released are dropped;
// the user's own ratings keep them as −1, since the user's local fit still
// uses them for the user's bias.
func (t *trainer) remap(toModel []int32) {
	for i := range t.users {
		own := make([]int32, len(t.acol[i]))
		for p, c := range t.acol[i] {
			own[p] = toModel[c]
		}
		cols, vals := t.ccol[i], t.cval[i]
		kc := make([]int32, 0, len(cols))
		kv := make([]float64, 0, len(cols))
		for p, c := range cols {
			if m := toModel[c]; m >= 0 {
				kc = append(kc, m)
				kv = append(kv, vals[p])
			}
		}
		t.acol[i], t.ccol[i], t.cval[i] = own, kc, kv
	}
}

// localOffset is a user's own shrunk mean deviation from mu, computed from
// the user's ratings only.
func (t *trainer) localOffset(i int, mu float64) float64 {
	var s float64
	for _, v := range t.aval[i] {
		s += v - mu
	}
	return s / (float64(len(t.aval[i])) + t.opts.UserBiasLambda)
}

// biases releases the item biases: noisy sums of each user's clipped
// deviations x − μ − β_user, weighted like the counts, shrunk by the
// noisy counts.
func (t *trainer) biases(mu float64, counts []float64) (bias, sums []float64) {
	o := &t.opts
	n := len(counts)
	sum := make([]float64, n)
	wsum := make([]float64, n)
	for i := range t.users {
		c := t.ccol[i]
		if len(c) == 0 {
			continue
		}
		wi := 1 / math.Sqrt(float64(t.ncontrib[i]))
		if o.NoNoise {
			wi = 1
		}
		beta := t.localOffset(i, mu)
		for p, j := range c {
			d := t.cval[i][p] - mu - beta
			if !o.NoNoise {
				d = math.Min(math.Max(d, -o.BiasBound), o.BiasBound)
			}
			sum[j] += wi * d
			wsum[j] += wi
		}
	}
	b := make([]float64, n)
	for j := range b {
		s := sum[j]
		if o.NoNoise {
			b[j] = s / (wsum[j] + o.BiasLambda)
			continue
		}
		s += t.noise.biases * t.rand(phaseBias, 0, t.itemIDs[j]).NormFloat64()
		w := math.Max(counts[j], 0)
		shrink := t.noise.biases * t.noise.biases / (o.BiasPrior * o.BiasPrior)
		sum[j] = s
		b[j] = s * w / (w*w + o.BiasLambda*w + shrink)
		b[j] = math.Min(math.Max(b[j], -o.BiasBound), o.BiasBound)
	}
	return b, sum
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

// factors runs Iters ALS steps and returns the released V.
func (t *trainer) factors(ctx context.Context, res *Result) ([]float64, error) {
	o := &t.opts
	r := o.Rank
	n := len(res.ItemIDs)
	v := make([]float64, n*r)
	head := headItems(res.Counts, o)
	// Factor-step weights per contributed rating, normalized per user.
	wt := t.factorWeights(res.Counts, head)
	if err := t.start(ctx, res, v, head, wt); err != nil {
		return nil, err
	}
	// Item-major index of contributions: for item j, the (user, position)
	// pairs in increasing user order.
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
	ws := make([]*workspace, t.workers)
	for w := range ws {
		ws[w] = newWorkspace(r)
	}
	for step := range o.Iters {
		// Users fit their own factor and bias from V and their ratings.
		if err := t.parallel(ctx, t.users, func(w, i int) {
			ws[w].foldIn(res, v, t.acol[i], t.aval[i], u[i*r:(i+1)*r], &ub[i])
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
			normalizeRows(v, r, head)
		}
		t.progress(fmt.Sprintf("ALS step %d/%d: item release", step+1, o.Iters))
	}
	return v, nil
}

// headItems marks the items that get factors: all of them without noise;
// else the HeadItems most popular by released count among those whose
// count reaches TailCount. The rest are predicted by biases alone (their
// factor rows stay zero).
func headItems(counts []float64, o *Options) []bool {
	head := make([]bool, len(counts))
	if o.NoNoise {
		for j := range head {
			head[j] = true
		}
		return head
	}
	order := make([]int, 0, len(counts))
	for j, c := range counts {
		if c >= o.TailCount && c > 0 {
			order = append(order, j)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	for _, j := range order[:min(len(order), o.HeadItems)] {
		head[j] = true
	}
	return head
}

// factorWeights returns each user's factor-step weight per contributed
// rating: 0 for tail items, else a_j/‖a‖₂ over the user's head items with
// a_j = 1 (uniform) or max(n̂_j, 1)^(−β) (adaptive); all 1 without noise.
func (t *trainer) factorWeights(counts []float64, head []bool) [][]float64 {
	o := &t.opts
	wt := make([][]float64, t.users)
	for i := range t.users {
		c := t.ccol[i]
		w := make([]float64, len(c))
		var ss float64
		for p, j := range c {
			if !head[j] {
				continue
			}
			a := 1.0
			if o.Weights == WeightsAdaptive {
				a = math.Pow(math.Max(counts[j], 1), -o.AdaptivePower)
			}
			w[p] = a
			ss += a * a
		}
		if ss > 0 && !o.NoNoise {
			inv := 1 / math.Sqrt(ss)
			for p := range w {
				w[p] *= inv
			}
		} else if o.NoNoise {
			for p, j := range c {
				if head[j] {
					w[p] = 1
				}
			}
		}
		wt[i] = w
	}
	return wt
}

// itemStep computes item j's Gram matrix and right-hand side from its
// raters' clipped factors and residuals, adds the noise, and solves.
// Without noise it refits the item's bias jointly with its factor (a
// plain non-private ALS step with features [u; 1]).
func (t *trainer) itemStep(ws *workspace, step, j int, res *Result, v, u, ub []float64, wt [][]float64, users, pos []int32) {
	o := &t.opts
	if o.NoNoise {
		t.itemStepExact(ws, j, res, v, u, ub, users, pos)
		return
	}
	r := o.Rank
	g, h, uc := ws.gram, ws.rhs, ws.uc
	clear(g)
	clear(h)
	for q, i := range users {
		p := pos[q]
		w := wt[i][p]
		copy(uc, u[int(i)*r:int(i+1)*r])
		clipNorm(uc, o.ClipNorm)
		e := t.cval[i][p] - res.Mu - res.ItemBias[j] - ub[i]
		e = math.Min(math.Max(e, -o.ResidualBound), o.ResidualBound)
		dense.AddOuter(g, r, w, uc)
		dense.Axpy(h, w*e, uc)
	}
	rg := t.rand(phaseGram, step, t.itemIDs[j])
	for a := range r {
		for b := 0; b <= a; b++ {
			g[a*r+b] += t.noise.gram * rg.NormFloat64()
		}
	}
	rh := t.rand(phaseRHS, step, t.itemIDs[j])
	for a := range r {
		h[a] += t.noise.rhs * rh.NormFloat64()
	}
	lambda := o.Lambda*math.Max(res.Counts[j], 0) + t.noise.gram*math.Sqrt(float64(r)) + o.NoiseLambda*t.noise.rhs*t.noise.rhs
	ws.solveShifted(g, h, lambda, v[j*r:(j+1)*r])
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

// normalizeRows scales the head rows of v so that their root mean square
// ℓ2 norm is 1. Noise ridges shrink V at every step, and users' ridged fits
// shrink U in turn, so without this the product collapses toward zero
// over the steps; uᵀv is unchanged by moving a scale from one side to the
// other. It is post-processing of the released V.
func normalizeRows(v []float64, r int, head []bool) {
	var ss float64
	n := 0
	for j, h := range head {
		if h {
			row := v[j*r : (j+1)*r]
			ss += dense.Dot(row, row)
			n++
		}
	}
	if n == 0 || !(ss > 0) {
		return
	}
	s := 1 / math.Sqrt(ss/float64(n))
	for k := range v {
		v[k] *= s
	}
}

// clipNorm scales x to ℓ2 norm ≤ c.
func clipNorm(x []float64, c float64) {
	n := math.Sqrt(dense.Dot(x, x))
	if n > c {
		s := c / n
		for k := range x {
			x[k] *= s
		}
	}
}
