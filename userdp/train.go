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

	"github.com/dpmc/dpmc/discrete"
	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/mechanism"
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
	phaseTail
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
	eval    Evaluation
	noise   noiseScales

	users int
	// contributed ratings per user, candidate-indexed: cand[i] (index into
	// the candidate item space) and cval[i].
	ccol [][]int32
	cval [][]float64
	// all of each user's ratings on candidate items (for local fits).
	acol [][]int32
	aval [][]float64
	// tval[i] holds user i's contributed ratings of candidate items that
	// were not released (private selection only): they feed the tail bias.
	tval [][]float64

	candIDs []string     // candidate item IDs
	itemIDs []string     // released item IDs, once selected
	userIDs *ratings.IDs // the users' external IDs
	// ncontrib[i] is the size of user i's contribution set over candidate
	// items, which fixes the user's count and bias weights 1/√n.
	ncontrib []int
}

// noiseScales are the σ of every release, 0 without noise.
type noiseScales struct {
	meanSum, meanCount, counts, biases, gram, rhs, pca noiser
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
	t.progress(fmt.Sprintf("prepared %d users over %d candidate items (exact counts of the data: evaluation only, not released)", t.users, len(t.candIDs)))

	mu, nusers := t.mean()
	t.decideFactors(nusers)
	if err := t.planRest(); err != nil {
		return nil, err
	}
	counts, present := t.counts()
	model, mcounts := t.selectItems(counts, present)
	t.progress(fmt.Sprintf("released %d items", len(model)))
	res := &Result{
		Rank: t.opts.Rank, Mu: mu, Min: opts.Min, Max: opts.Max,
		UserLambda: opts.UserLambda, UserBiasLambda: opts.UserBiasLambda,
		UserLambdaPerRating: opts.UserLambdaPerRating,
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
	r := &Report{Unit: "user", Mode: "user", NoNoise: o.NoNoise, Epsilon: o.Epsilon, Delta: o.Delta, Sampler: o.Sampler.String()}
	t.report = r
	if o.Items != nil {
		r.Items = fmt.Sprintf("public catalogue of %d items (--items)", len(o.Items))
	} else {
		r.Items = "private selection: an item is released only if its noisy weighted count clears the threshold"
	}
	if o.NoNoise {
		r.Guarantee = "none: the pipeline ran without noise (a non-private baseline)"
		r.Factors = fmt.Sprintf("rank %d", o.Rank)
		r.Sampler = ""
		return nil
	}
	deltaGDP := o.Delta
	if o.Items == nil {
		r.SelectionDelta = o.Delta * o.SelectionDelta
		deltaGDP = o.Delta - selectionCost(r.SelectionDelta)
	}
	if o.Sampler == SamplerDiscrete {
		// Every release is ρᵢ-zCDP with ρᵢ = μᵢ²/2, μᵢ = Δ₂′/σ: shares of
		// μ² are shares of ρ, so μ = √(2ρ) plays the part of the GDP μ.
		rho, err := RhoFor(o.Epsilon, deltaGDP)
		if err != nil {
			return err
		}
		t.mu = math.Sqrt(2 * rho)
	} else {
		mu, err := MuFor(o.Epsilon, deltaGDP)
		if err != nil {
			return err
		}
		t.mu = mu
	}
	B0 := (o.Max - o.Min) / 2
	s := o.Shares
	var err error
	if math.IsNaN(o.Center) {
		if t.noise.meanSum, err = t.calibrate("global mean: sum of users' mean ratings minus the scale's midpoint", B0, 1, s.Mean/2, 1); err != nil {
			return err
		}
		t.noise.meanCount, err = t.calibrate("number of users", 1, 1, s.Mean/2, 1)
	} else {
		t.noise.meanCount, err = t.calibrate("number of users", 1, 1, s.Mean, 1)
	}
	return err
}

// noiser draws the noise of one release: σ·N(0, 1) in floating point, or
// the statistic rounded to the grid γℤ plus γ times an exact discrete
// Gaussian integer.
type noiser struct {
	sigma float64            // the noise standard deviation, statistic units
	d     *discrete.Gaussian // nil: the float sampler
}

// add returns x plus one draw of the noise from r.
func (z noiser) add(x float64, r *rand.Rand) float64 {
	if z.d == nil {
		return x + z.sigma*r.NormFloat64()
	}
	return z.d.AddTo(x, r)
}

// calibrate sets the noise of a release of ℓ2 sensitivity l2 over at most
// coords coordinates that one user can change, made times times with the
// given share of μ² (times·(Δ₂/σ)² = share·μ²), and lists it in the
// report. With the discrete sampler the statistic is rounded to the grid
// γℤ, which can move each changed coordinate by up to γ more, so the
// release is calibrated and reported at Δ₂′ = Δ₂ + γ·√coords
// (discrete.RoundedSensitivity); γ is about 2⁻²⁸σ, so Δ₂′/Δ₂ − 1 is
// negligible, but it is accounted.
func (t *trainer) calibrate(name string, l2 float64, coords int, share float64, times int) (noiser, error) {
	sigmaFor := func(l2 float64) float64 { return l2 * math.Sqrt(float64(times)/(share*t.mu*t.mu)) }
	sigma := sigmaFor(l2)
	if t.opts.Sampler == SamplerFloat {
		t.report.Releases = append(t.report.Releases, Release{Name: name, L2: l2, Sigma: sigma, Times: times})
		return noiser{sigma: sigma}, nil
	}
	// γ depends on σ and σ on Δ₂′: raise σ until its grid's rounding cost
	// is covered (γ only grows with σ, so this settles at once).
	l2r := l2
	for range 8 {
		d, err := discrete.NewGaussian(sigma)
		if err != nil {
			return noiser{}, fmt.Errorf("userdp: %s: %w", name, err)
		}
		sens, err := discrete.RoundedSensitivity(mechanism.Sensitivity{L2: l2}, coords, d.Granularity())
		if err != nil {
			return noiser{}, fmt.Errorf("userdp: %s: %w", name, err)
		}
		if sens.L2 <= l2r && d.Sigma() >= sigmaFor(l2r) {
			t.report.Releases = append(t.report.Releases, Release{Name: name, L2: l2r, Sigma: d.Sigma(), Times: times, Grid: d.Granularity()})
			return noiser{sigma: d.Sigma(), d: d}, nil
		}
		l2r = sens.L2
		sigma = sigmaFor(l2r)
	}
	return noiser{}, fmt.Errorf("userdp: %s: the discrete noise's grid did not settle", name)
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
	o.Rank = 0
	// Under private selection part of it (Defaults: half) goes to the
	// counts: with few users, how many items clear the threshold limits
	// the model more than the noise of their biases.
	c := o.Shares.CountsWithoutFactors
	switch c {
	case 0:
		r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item biases", users, o.Epsilon, o.AutoFactorThreshold)
	case 0.5:
		r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item counts and biases (half each)", users, o.Epsilon, o.AutoFactorThreshold)
	default:
		r.Factors = fmt.Sprintf("none: released users × ε = %.0f × %g < %g, so the factor share went to the item counts (%.3g of it) and biases", users, o.Epsilon, o.AutoFactorThreshold, c)
	}
	o.Shares.Counts += c * o.Shares.Factors
	o.Shares.Biases += (1 - c) * o.Shares.Factors
	o.Shares.Factors = 0
}

// planRest calibrates the releases after the number of users.
func (t *trainer) planRest() error {
	o := &t.opts
	r := t.report
	if o.NoNoise {
		return nil
	}
	s := o.Shares
	k := o.MaxItemsPerUser
	var err error
	if t.noise.counts, err = t.calibrate("item counts (weights 1/√n per user)", 1, k, s.Counts, 1); err != nil {
		return err
	}
	biasName, biasCoords := "item bias sums", k
	if o.Items == nil && !o.NoTail {
		biasName, biasCoords = "item bias sums, and the tail's (items not released) sum and weight", k+2
	}
	if t.noise.biases, err = t.calibrate(biasName, o.BiasBound, biasCoords, s.Biases, 1); err != nil {
		return err
	}
	// A user changes at most min(k, HeadItems) head items' entries.
	h := min(k, o.HeadItems)
	if o.Rank > 0 && s.PCA > 0 {
		name := fmt.Sprintf("start: second-moment matrix of weighted residuals over the (at most %d) head items", o.HeadItems)
		if t.noise.pca, err = t.calibrate(name, o.ResidualBound*o.ResidualBound, h*(h+1)/2, s.Factors*s.PCA, 1); err != nil {
			return err
		}
	}
	if o.Rank > 0 && o.Iters > 0 {
		c := o.ClipNorm
		als := s.Factors * (1 - s.PCA)
		rk := o.Rank
		if t.noise.gram, err = t.calibrate("item Gram matrices Σ w·ũũᵀ, per ALS step", c*c, h*rk*(rk+1)/2, als*s.Gram, o.Iters); err != nil {
			return err
		}
		if t.noise.rhs, err = t.calibrate("item right-hand sides Σ w·r̃·ũ, per ALS step", o.ResidualBound*c, h*rk, als*(1-s.Gram), o.Iters); err != nil {
			return err
		}
	}
	if o.Items == nil {
		r.Threshold = SelectionThreshold(t.noise.counts.sigma, o.MaxItemsPerUser, r.SelectionDelta)
		if d := t.noise.counts.d; d != nil {
			// A lone user's count 1/√n rounds up by at most γ/2, and a
			// discrete Gaussian's tail P[K ≥ m] is at most the normal's
			// P[N(0, σ_K²) ≥ m − 1] (Poisson summation), so raising the
			// threshold by 2γ keeps δ_sel.
			r.Threshold += 2 * d.Granularity()
		}
	}
	r.finish()
	what := "item list, global mean, number of users, noisy item counts, item biases"
	if o.Items == nil && !o.NoTail {
		what += ", tail bias"
	}
	if o.Rank > 0 {
		what += ", item factors"
	}
	r.Guarantee = "user-level (ε, δ)-DP of everything released: " + what + " (billboard model: each user's bias, factor and predictions are computed from the release and the user's own ratings, so they are joint-DP)"
	if o.Seeded {
		r.Guarantee = "NONE in this run: the noise is seeded (reproducible), so anyone with the seed can remove it; unseeded runs give " + r.Guarantee
	}
	return nil
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
		t.eval.DroppedOutsideCatalogue = dropped
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
	n = t.noise.meanCount.add(n, r)
	if !math.IsNaN(o.Center) {
		t.report.Center = fmt.Sprintf("public centre %g (--center)", o.Center)
		return o.Center, n
	}
	sum = t.noise.meanSum.add(sum, r)
	t.report.Center = "noisy mean of the users' mean ratings"
	mu = mid + sum/math.Max(n, 1)
	return math.Min(math.Max(mu, o.Min), o.Max), n
}

// counts returns the (noisy) weighted count of every candidate item: each
// user adds 1/√n to each of the n items the user contributes. present[j]
// says that some contributed rating reaches item j: without a catalogue
// only such items may be selected, since an item that exists only through
// one user's uncontributed ratings (outside the user's subset, or only in
// a held-out split) has count 0, not the 1/√n that δ_sel's bound covers.
func (t *trainer) counts() (w []float64, present []bool) {
	w = make([]float64, len(t.candIDs))
	present = make([]bool, len(t.candIDs))
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
			present[j] = true
		}
	}
	if !t.opts.NoNoise {
		for j := range w {
			w[j] = t.noise.counts.add(w[j], t.rand(phaseCounts, 0, t.candIDs[j]))
		}
	}
	return w, present
}

// selectItems returns the released items (candidate indices, in canonical
// ID order) and their released counts: the whole catalogue, or the present
// items (see counts) whose count clears the threshold (all present items
// without noise).
func (t *trainer) selectItems(counts []float64, present []bool) ([]int, []float64) {
	var keep []int
	for c := range t.candIDs {
		switch {
		case t.opts.Items != nil:
		case !present[c]:
			continue
		case !t.opts.NoNoise && counts[c] < t.report.Threshold:
			continue
		}
		keep = append(keep, c)
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
	if t.opts.Items == nil && !t.opts.NoTail {
		t.tval = make([][]float64, t.users)
	}
	for i := range t.users {
		own := make([]int32, len(t.acol[i]))
		for p, c := range t.acol[i] {
			own[p] = toModel[c]
		}
		cols, vals := t.ccol[i], t.cval[i]
		kc := make([]int32, 0, len(cols))
		kv := make([]float64, 0, len(cols))
		var tail []float64
		for p, c := range cols {
			if m := toModel[c]; m >= 0 {
				kc = append(kc, m)
				kv = append(kv, vals[p])
			} else {
				tail = append(tail, vals[p])
			}
		}
		t.acol[i], t.ccol[i], t.cval[i] = own, kc, kv
		if t.tval != nil {
			t.tval[i] = tail
		}
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
// noisy counts. Under private selection the same release carries two
// more coordinates, the tail: each user's mean clipped deviation over
// the contributed ratings of items that were not released, and the
// user's tail weight times BiasBound, both with the tail weight
// w_t = ((n − n_rel)/(2n))^½. A user's released-item weights 1/√n use
// n_rel/n of the unit ℓ2 budget and the tail the rest, so the whole
// vector still moves by at most BiasBound (see the package
// documentation). It returns the released biases, the tail bias and the
// noisy sums (tail coordinates appended).
func (t *trainer) biases(mu float64, counts []float64) (bias []float64, tail float64, sums []float64) {
	o := &t.opts
	n := len(counts)
	withTail := t.tval != nil
	size := n
	if withTail {
		size += 2
	}
	sum := make([]float64, size)
	wsum := make([]float64, size)
	clip := func(d float64) float64 {
		if o.NoNoise {
			return d
		}
		return math.Min(math.Max(d, -o.BiasBound), o.BiasBound)
	}
	for i := range t.users {
		c := t.ccol[i]
		var tv []float64
		if withTail {
			tv = t.tval[i]
		}
		if len(c) == 0 && len(tv) == 0 {
			continue
		}
		wi := 1 / math.Sqrt(float64(t.ncontrib[i]))
		if o.NoNoise {
			wi = 1
		}
		beta := t.localOffset(i, mu)
		for p, j := range c {
			d := clip(t.cval[i][p] - mu - beta)
			sum[j] += wi * d
			wsum[j] += wi
		}
		if len(tv) == 0 {
			continue
		}
		if o.NoNoise {
			// Without noise the tail is one more item, every rating
			// weighted 1.
			for _, v := range tv {
				sum[n] += v - mu - beta
				wsum[n]++
			}
			continue
		}
		var dm float64
		for _, v := range tv {
			dm += v - mu - beta
		}
		wt := math.Sqrt(float64(len(tv)) / (2 * float64(t.ncontrib[i])))
		sum[n] += wt * clip(dm/float64(len(tv)))
		sum[n+1] += wt * o.BiasBound
	}
	b := make([]float64, n)
	for j := range b {
		s := sum[j]
		if o.NoNoise {
			b[j] = s / (wsum[j] + o.BiasLambda)
			continue
		}
		s = t.noise.biases.add(s, t.rand(phaseBias, 0, t.itemIDs[j]))
		sum[j] = s
		b[j] = t.shrinkBias(s, counts[j])
	}
	if !withTail {
		return b, 0, sum[:n]
	}
	if o.NoNoise {
		return b, sum[n] / (wsum[n] + o.BiasLambda), sum
	}
	r := t.rand(phaseTail, 0, "")
	sum[n] = t.noise.biases.add(sum[n], r)
	sum[n+1] = t.noise.biases.add(sum[n+1], r)
	return b, t.shrinkBias(sum[n], sum[n+1]/o.BiasBound), sum
}

// shrinkBias turns a noisy bias sum s and a noisy weight w into the
// released bias: the Bayes estimate s·w / (w² + λ_b·w + σ_S²/τ_b²) under
// a N(0, τ_b²) prior, clipped to ±BiasBound.
func (t *trainer) shrinkBias(s, w float64) float64 {
	o := &t.opts
	w = math.Max(w, 0)
	shrink := t.noise.biases.sigma * t.noise.biases.sigma / (o.BiasPrior * o.BiasPrior)
	b := s * w / (w*w + o.BiasLambda*w + shrink)
	if math.IsNaN(b) { // 0/0: w = 0 with no shrinkage
		return 0
	}
	return math.Min(math.Max(b, -o.BiasBound), o.BiasBound)
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
		if o.observe != nil {
			o.observe(step, j, int(i), w, uc, e)
		}
	}
	rg := t.rand(phaseGram, step, t.itemIDs[j])
	for a := range r {
		for b := 0; b <= a; b++ {
			g[a*r+b] = t.noise.gram.add(g[a*r+b], rg)
		}
	}
	rh := t.rand(phaseRHS, step, t.itemIDs[j])
	for a := range r {
		h[a] = t.noise.rhs.add(h[a], rh)
	}
	sg, sh := t.noise.gram.sigma, t.noise.rhs.sigma
	lambda := o.Lambda*math.Max(res.Counts[j], 0) + sg*math.Sqrt(float64(r)) + o.NoiseLambda*sh*sh
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
