package userdp

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/dpmc/dpmc/internal/dense"
	"github.com/dpmc/dpmc/internal/eigen"
	"github.com/dpmc/dpmc/internal/exactsum"
)

// This file holds the pipeline's building blocks, shared by Train and the
// Beam pipeline (module github.com/dpmc/dpmc/beam). Per-user blocks see
// one user's data only; per-item and global blocks see released or
// summed statistics. See Plan for the ordering rules that make any
// partitioning give Train's numbers bit for bit.

// Subset returns the positions, ascending, of the n ratings (in the
// canonical order of their item IDs) that user id contributes: all of
// them (nil) when n ≤ MaxItemsPerUser or without noise, else a uniform
// random MaxItemsPerUser-subset drawn from the stream of the user's ID.
func (p *Plan) Subset(id string, n int) []int { return p.subset(id, n, nil, nil) }

// subset is Subset drawing from s's generators (nil: Plan.rand's) into
// buf's storage when it holds n entries: Train reuses both for every
// user.
func (p *Plan) subset(id string, n int, s *streams, buf []int) []int {
	k := p.opts.MaxItemsPerUser
	if p.opts.NoNoise || n <= k {
		return nil
	}
	// Sorted, so that the user's list stays ordered.
	return drawSubset(s.get(p, phaseSubset, 0, id), n, k, buf)
}

// Sum is an exact sum of users' terms (package exactsum): each term is
// truncated toward zero to its release's grid (fixed by the options) and
// added as a 128-bit integer, so a sum is the same whatever the order of
// its terms and whatever the partition into partial sums merged with
// Merge. The zero Sum is empty. Every released sum is one.
type Sum = exactsum.Sum

// MeanSums are the exact sums behind the global mean: Sum of the users'
// mean contributed ratings minus the scale's midpoint, Users the number
// of users with a contributed rating, Total and Ratings the sum and
// number of their contributed ratings (used without noise only).
type MeanSums struct {
	Sum, Users, Total, Ratings Sum
}

// Add adds t to s, exactly: any order and partition of the users' terms
// gives the same sums.
func (s *MeanSums) Add(t MeanSums) {
	s.Sum.Merge(t.Sum)
	s.Users.Merge(t.Users)
	s.Total.Merge(t.Total)
	s.Ratings.Merge(t.Ratings)
}

// UserMean returns one user's terms of the global mean from the user's
// contributed ratings (zero for none), on their grids.
func (p *Plan) UserMean(contributed []float64) MeanSums {
	var m MeanSums
	if len(contributed) == 0 {
		return m
	}
	var s float64
	for _, v := range contributed {
		s += v
	}
	n := float64(len(contributed))
	g := &p.grids
	m.Sum.Add(g.mean, s/n-(p.opts.Min+p.opts.Max)/2)
	m.Users.AddUnits(1)
	m.Total.Add(g.total, s)
	m.Ratings.AddUnits(int64(len(contributed)))
	return m
}

// sumFloat is s's value on grid g, correctly rounded (no noise).
func sumFloat(s Sum, g exactsum.Grid) (float64, error) {
	x, err := s.Float64(g)
	if err != nil {
		return 0, fmt.Errorf("userdp: %w", err)
	}
	return x, nil
}

// noisy releases s (on grid g) with z's noise drawn from r.
func noisy(z noiser, s Sum, g exactsum.Grid, r *rand.Rand) (float64, error) {
	x, err := z.addSum(s, g, r)
	if err != nil {
		return 0, fmt.Errorf("userdp: %w", err)
	}
	return x, nil
}

// ReleaseMean releases the number of users and the global centre from
// the summed terms: a public centre, the exact mean without noise, or a
// noisy mean of the users' mean ratings. It returns the centre, in
// rating units, and the released number of users, which Decide takes. It
// records the centre's origin in the report. Without noise it also sets
// the user ridge from the ratings per user (Options.RidgeScale). It
// returns an error only for a sum marked Bad (exactsum).
func (p *Plan) ReleaseMean(s MeanSums) (mu, users float64, err error) {
	o := &p.opts
	g := &p.grids
	mid := (o.Min + o.Max) / 2
	if o.NoNoise {
		n, err := sumFloat(s.Users, g.ints)
		if err != nil {
			return 0, 0, err
		}
		nr, err := sumFloat(s.Ratings, g.ints)
		if err != nil {
			return 0, 0, err
		}
		p.setUserRidge(n, nr)
		p.report.Center = "mean rating of the training data (no noise)"
		if !math.IsNaN(o.Center) {
			p.report.Center = fmt.Sprintf("public centre %g (--center)", o.Center)
			return o.Center, n, nil
		}
		total, err := sumFloat(s.Total, g.total)
		if err != nil {
			return 0, 0, err
		}
		return total / math.Max(nr, 1), n, nil
	}
	r := p.rand(phaseMean, 0, "")
	n, err := noisy(p.noise.meanCount, s.Users, g.ints, r)
	if err != nil {
		return 0, 0, err
	}
	if !math.IsNaN(o.Center) {
		p.report.Center = fmt.Sprintf("public centre %g (--center)", o.Center)
		return o.Center, n, nil
	}
	sum, err := noisy(p.noise.meanSum, s.Sum, g.mean, r)
	if err != nil {
		return 0, 0, err
	}
	p.report.Center = "noisy mean of the users' mean ratings"
	mu = mid + sum/math.Max(n, 1)
	return math.Min(math.Max(mu, o.Min), o.Max), n, nil
}

// CountWeight is the weight a user with n contributed ratings adds to
// the count of each: 1/√n (1 without noise), so the user's count vector
// has ℓ2 norm 1.
func (p *Plan) CountWeight(n int) float64 {
	if p.opts.NoNoise {
		return 1
	}
	return 1 / math.Sqrt(float64(n))
}

// AddCount adds a user's CountWeight w to an item's count sum.
func (p *Plan) AddCount(sum *Sum, w float64) { sum.Add(p.grids.unit, w) }

// ReleaseCount returns the released weighted count of item id from the
// exact sum of its users' CountWeights (AddCount; the sum itself without
// noise).
func (p *Plan) ReleaseCount(id string, sum Sum) (float64, error) {
	return p.releaseCount(id, sum, nil)
}

// releaseCount is ReleaseCount drawing from s's generators (nil: Plan.rand's).
func (p *Plan) releaseCount(id string, sum Sum, s *streams) (float64, error) {
	if p.opts.NoNoise {
		return sumFloat(sum, p.grids.unit)
	}
	return noisy(p.noise.counts, sum, p.grids.unit, s.get(p, phaseCounts, 0, id))
}

// Selected says whether an item with the released count is released:
// every catalogue item; else only an item some contributed rating reaches
// (present) whose count clears the selection threshold (every present
// item without noise). An item that exists only through uncontributed
// ratings has count 0, not the 1/√n that δ_sel's bound covers.
func (p *Plan) Selected(count float64, present bool) bool {
	switch {
	case p.opts.Items != nil:
		return true
	case !present:
		return false
	case !p.opts.NoNoise && count < p.report.Threshold:
		return false
	}
	return true
}

// SplitReleased splits a user's contributed ratings (items as candidate
// labels, vals) by the released index toModel gives each item (−1: not
// released): the released ones, relabelled, and the values of the rest,
// which feed the tail bias.
func SplitReleased(items []int32, vals []float64, toModel func(int32) int32) (kept []int32, kv, tail []float64) {
	kept = make([]int32, 0, len(items))
	kv = make([]float64, 0, len(items))
	for p, c := range items {
		if m := toModel(c); m >= 0 {
			kept = append(kept, m)
			kv = append(kv, vals[p])
		} else {
			tail = append(tail, vals[p])
		}
	}
	return kept, kv, tail
}

// UserOffset is a user's own shrunk mean deviation from mu, from all the
// user's ratings of candidate items (own).
func (p *Plan) UserOffset(own []float64, mu float64) float64 {
	var s float64
	for _, v := range own {
		s += v - mu
	}
	return s / (float64(len(own)) + p.opts.UserBiasLambda)
}

// UserBias computes one user's terms of the item-bias release: for each
// contributed rating vals[p] of released item items[p], emit(items[p],
// term, weight) with the weighted clipped deviation from mu and the
// user's offset beta; and the user's two tail coordinates from the
// values of the contributed ratings of items that were not released
// (ok false when the user has no tail term). ncontrib is the user's
// number of contributed ratings before the split. Without noise the
// tail is one more item: ts is the sum of the raw deviations and tw
// their number.
//
// With tail buckets (Buckets > 0), tailBuckets[q] is the bucket of the
// item rated tail[q], and the user's m tail ratings are split between
// the tail's coordinates, weight w_t = √(a·m/(2n)) with a =
// TailAggregateShare, and their buckets: for each bucket b holding m_b
// of them, emitBucket(b, w_b·clip(mean deviation), w_b·BiasBound) with
// w_b = √((1 − a)·m_b/(2n)). The squares add up to 2·w_t² + Σ 2·w_b² =
// m/n, the tail's share without buckets, so the release's Δ₂ stays
// BiasBound. Each bucket's ratings are summed in their order in tail.
// With tail buckets tail and tailBuckets must be equally long (it panics
// otherwise: a caller's bug); tailBuckets is ignored without them.
func (p *Plan) UserBias(mu, beta float64, ncontrib int, items []int32, vals, tail []float64, tailBuckets []int32, emit func(j int32, term, weight float64), emitBucket func(b int32, term, weight float64)) (ts, tw float64, ok bool) {
	o := &p.opts
	wi := p.CountWeight(ncontrib)
	for q, j := range items {
		d := vals[q] - mu - beta
		if !o.NoNoise {
			d = math.Min(math.Max(d, -o.BiasBound), o.BiasBound)
		}
		emit(j, wi*d, wi)
	}
	if len(tail) == 0 {
		return 0, 0, false
	}
	var dm float64
	for _, v := range tail {
		dm += v - mu - beta
	}
	if o.NoNoise {
		return dm, float64(len(tail)), true
	}
	share := 1.0
	if p.Buckets() > 0 {
		if len(tailBuckets) != len(tail) {
			panic(fmt.Sprintf("userdp: UserBias: %d tail buckets for %d tail ratings", len(tailBuckets), len(tail)))
		}
		share = TailAggregateShare
		// Group the ratings by bucket: sort the keys bucket·2³² + q
		// (distinct, so each bucket's ratings keep their order in tail).
		var buf [64]uint64
		keys := buf[:0]
		for q, b := range tailBuckets {
			keys = append(keys, uint64(b)<<32|uint64(q))
		}
		slices.Sort(keys)
		for lo := 0; lo < len(keys); {
			b := keys[lo] >> 32
			var d float64
			hi := lo
			for ; hi < len(keys) && keys[hi]>>32 == b; hi++ {
				d += tail[uint32(keys[hi])] - mu - beta
			}
			m := float64(hi - lo)
			wb := math.Sqrt((1 - TailAggregateShare) * m / (2 * float64(ncontrib)))
			emitBucket(int32(b), wb*math.Min(math.Max(d/m, -o.BiasBound), o.BiasBound), wb*o.BiasBound)
			lo = hi
		}
	}
	wt := math.Sqrt(share * float64(len(tail)) / (2 * float64(ncontrib)))
	return wt * math.Min(math.Max(dm/float64(len(tail)), -o.BiasBound), o.BiasBound), wt * o.BiasBound, true
}

// AddBias adds one (term, weight) of UserBias to an item's exact bias
// sum and weight.
func (p *Plan) AddBias(sum, weight *Sum, term, w float64) {
	sum.Add(p.grids.bias, term)
	weight.Add(p.grids.unit, w)
}

// ReleaseBias returns item id's released bias sum and bias from its
// exact summed terms and weights (UserBias, AddBias) and its released
// count: the noisy sum shrunk by the noisy count; without noise the
// exact sum and sum/(weight + BiasLambda).
func (p *Plan) ReleaseBias(id string, sum, weight Sum, count float64) (noisySum, bias float64, err error) {
	return p.releaseBias(id, sum, weight, count, nil)
}

// releaseBias is ReleaseBias drawing from rs's generators (nil: Plan.rand's).
func (p *Plan) releaseBias(id string, sum, weight Sum, count float64, rs *streams) (noisySum, bias float64, err error) {
	if p.opts.NoNoise {
		s, err := sumFloat(sum, p.grids.bias)
		if err != nil {
			return 0, 0, err
		}
		w, err := sumFloat(weight, p.grids.unit)
		return s, s / (w + p.opts.BiasLambda), err
	}
	s, err := noisy(p.noise.biases, sum, p.grids.bias, rs.get(p, phaseBias, 0, id))
	if err != nil {
		return 0, 0, err
	}
	return s, p.shrinkBias(s, count), nil
}

// WithTail says whether the bias release carries the tail coordinates:
// under private selection unless NoTail.
func (p *Plan) WithTail() bool { return p.opts.Items == nil && !p.opts.NoTail }

// AddTail adds a user's tail terms (UserBias's ts and tw) to the exact
// tail sums.
func (p *Plan) AddTail(sum, weight *Sum, ts, tw float64) {
	sum.Add(p.grids.bias, ts)
	weight.Add(p.grids.bias, tw)
}

// ReleaseTail releases the tail from the users' exact summed tail terms
// (AddTail): the two noisy coordinates and the tail bias.
func (p *Plan) ReleaseTail(sum, weight Sum) (noisyS, noisyW, bias float64, err error) {
	o := &p.opts
	g := p.grids.bias
	if o.NoNoise {
		ts, err := sumFloat(sum, g)
		if err != nil {
			return 0, 0, 0, err
		}
		tw, err := sumFloat(weight, g)
		return ts, tw, ts / (tw + o.BiasLambda), err
	}
	r := p.rand(phaseTail, 0, "")
	ts, err := noisy(p.noise.biases, sum, g, r)
	if err != nil {
		return 0, 0, 0, err
	}
	tw, err := noisy(p.noise.biases, weight, g, r)
	if err != nil {
		return 0, 0, 0, err
	}
	return ts, tw, p.shrinkBias(ts, tw/o.BiasBound), nil
}

// FitBiasTrend replaces the released item biases (ReleaseBias's, under a
// N(0, τ_b²) prior) by those under a prior N(m_j, τ_b²) whose mean follows
// the item's released count n̂_j, m_j = b₀ + b₁·ln max(n̂_j, 1): on real
// data popular items are rated above niche ones, so a zero mean pulls a
// noisy niche item's bias the wrong way. b₀ and b₁ are fitted to the
// noisy sums S̃_j ≈ n̂_j·m_j by least squares weighted by
// 1/(σ_S² + n̂_j²·τ_b²), the variance of S̃_j under the prior (empirical
// Bayes); then b_j = m_j plus the shrunk remainder S̃_j − n̂_j·m_j,
// clipped to ±BiasBound. sums and counts are the released noisy sums
// and counts of the released items (the tail's coordinates excluded),
// bias their released biases, overwritten. It reads only those and
// public options (post-processing), in item order, so every caller
// with the same release gets the same biases bit for bit. Without
// noise, with NoBiasTrend, with slices of different lengths or with
// fewer than MinTrendItems items of positive count it does nothing: a
// line through a few noisy items can be worse than the zero mean (a
// simulation at ε = 2, counts 10–300, 500 draws: without a true trend
// the biases' squared error grew by 36 % at 10 items, 12 % at 30 and
// 7 % at 50; with a true slope of 0.2 it fell by 3 %, 21 % and 24 %).
func (p *Plan) FitBiasTrend(sums, counts, bias []float64) {
	o := &p.opts
	if o.NoNoise || o.NoBiasTrend || len(counts) != len(sums) || len(bias) != len(sums) {
		return
	}
	positive := 0
	for _, c := range counts {
		if c > 0 {
			positive++
		}
	}
	if positive < MinTrendItems {
		return
	}
	sig, tau := p.noise.biases.sigma, o.BiasPrior
	x := func(j int) float64 { return math.Log(math.Max(counts[j], 1)) }
	// The normal equations of Σ_j w_j·(S̃_j − c_j·(b₀ + b₁·x_j))².
	var a00, a01, a11, r0, r1 float64
	for j, s := range sums {
		c := math.Max(counts[j], 0)
		w := 1 / (sig*sig + c*c*tau*tau)
		f0, f1 := c, c*x(j)
		a00 += w * f0 * f0
		a01 += w * f0 * f1
		a11 += w * f1 * f1
		r0 += w * f0 * s
		r1 += w * f1 * s
	}
	det := a00*a11 - a01*a01
	if !(det > 1e-12*a00*a11) {
		return // all counts alike (or none positive): no line to fit
	}
	b0, b1 := (a11*r0-a01*r1)/det, (a00*r1-a01*r0)/det
	for j, s := range sums {
		c := math.Max(counts[j], 0)
		m := b0 + b1*x(j)
		b := m + p.shrinkBias(s-c*m, c)
		bias[j] = math.Min(math.Max(b, -o.BiasBound), o.BiasBound)
	}
}

// MinTrendItems is the fewest released items with a positive count that
// FitBiasTrend fits its line to.
const MinTrendItems = 50

// shrinkBias turns a noisy bias sum s and a noisy weight w into the
// released bias: the Bayes estimate s·w / (w² + λ_b·w + σ_S²/τ_b²) under
// a N(0, τ_b²) prior, clipped to ±BiasBound.
func (p *Plan) shrinkBias(s, w float64) float64 {
	o := &p.opts
	w = math.Max(w, 0)
	shrink := p.noise.biases.sigma * p.noise.biases.sigma / (o.BiasPrior * o.BiasPrior)
	b := s * w / (w*w + o.BiasLambda*w + shrink)
	if math.IsNaN(b) { // 0/0: w = 0 with no shrinkage
		return 0
	}
	return math.Min(math.Max(b, -o.BiasBound), o.BiasBound)
}

// Head marks the released items (by their released counts, in canonical
// order) that get factors: all of them without noise; else the HeadItems
// most popular by released count among those whose count reaches
// TailCount and HeadNoiseRatio·σ_G, ties in canonical order. The rest
// are predicted by biases alone (their factor rows stay zero). Without
// noise it also sets the item ridge from the ratings per item
// (Options.RidgeScale).
func (p *Plan) Head(counts []float64) []bool {
	o := &p.opts
	head := make([]bool, len(counts))
	if o.NoNoise {
		p.setItemRidge(counts)
		for j := range head {
			head[j] = true
		}
		return head
	}
	floor := math.Max(o.TailCount, o.HeadNoiseRatio*p.noise.gram.sigma/(o.ClipNorm*o.ClipNorm))
	order := make([]int, 0, len(counts))
	for j, c := range counts {
		if c >= floor && c > 0 {
			order = append(order, j)
		}
	}
	return topByCount(order, counts, o.HeadItems, len(counts))
}

// topByCount marks, among the released items listed in order, the k with
// the highest counts, ties in canonical order (order's); n is the number
// of released items.
func topByCount(order []int, counts []float64, k, n int) []bool {
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	top := make([]bool, n)
	for _, j := range order[:min(len(order), k)] {
		top[j] = true
	}
	return top
}

// startItems is the most items the PCA start covers: StartItems, or
// HeadItems when that is 0 or smaller.
func (p *Plan) startItems() int {
	if s := p.opts.StartItems; s > 0 && s < p.opts.HeadItems {
		return s
	}
	return p.opts.HeadItems
}

// StartHead marks the head items (Head's result) that the PCA start
// covers: the StartItems most popular by released count, ties in
// canonical order, or the whole head when it has no more. Users' start
// weights are FactorWeights over this start head, so each user's start
// vector keeps ℓ2 norm ≤ 1 over the items it covers.
func (p *Plan) StartHead(counts []float64, head []bool) []bool {
	var order []int
	for j, h := range head {
		if h {
			order = append(order, j)
		}
	}
	if len(order) <= p.startItems() {
		return head
	}
	return topByCount(order, counts, p.startItems(), len(head))
}

// FactorWeights returns a user's factor-step weight per contributed
// released rating (items index counts and head): 0 for tail items, else
// a_j/‖a‖₂ over the user's head items with a_j = 1 (uniform) or
// max(n̂_j, 1)^(−β) (adaptive); all 1 without noise.
func (p *Plan) FactorWeights(items []int32, counts []float64, head []bool) []float64 {
	o := &p.opts
	w := make([]float64, len(items))
	if o.NoNoise {
		for q, j := range items {
			if head[j] {
				w[q] = 1
			}
		}
		return w
	}
	var ss float64
	for q, j := range items {
		if !head[j] {
			continue
		}
		a := 1.0
		if o.Weights == WeightsAdaptive {
			a = math.Pow(math.Max(counts[j], 1), -o.AdaptivePower)
		}
		w[q] = a
		ss += a * a
	}
	if ss > 0 {
		inv := 1 / math.Sqrt(ss)
		for q := range w {
			w[q] *= inv
		}
	}
	return w
}

// factorAlphas returns the unnormalized factor-step weight a_j of every
// released item (FactorWeights): 0 off the head, else 1 (uniform weights,
// or no noise) or max(n̂_j, 1)^(−β) (adaptive). A user's weight of item j
// is factorAlphas[j]·factorScale, bit for bit FactorWeights' entry.
func (p *Plan) factorAlphas(counts []float64, head []bool) []float64 {
	o := &p.opts
	a := make([]float64, len(counts))
	for j := range a {
		switch {
		case !head[j]:
		case o.NoNoise || o.Weights != WeightsAdaptive:
			a[j] = 1
		default:
			a[j] = math.Pow(math.Max(counts[j], 1), -o.AdaptivePower)
		}
	}
	return a
}

// factorScale returns the factor that normalizes a user's weights over
// the user's contributed released items: 1/‖a‖₂ (1 when that is 0, or
// without noise), summed in the order of items as FactorWeights does.
func (p *Plan) factorScale(items []int32, alpha []float64) float64 {
	if p.opts.NoNoise {
		return 1
	}
	var ss float64
	for _, j := range items {
		a := alpha[j]
		ss += a * a
	}
	if ss > 0 {
		return 1 / math.Sqrt(ss)
	}
	return 1
}

// PCAStart says whether the start is released from the noisy
// second-moment matrix (StartTerms, ReleaseStart) rather than drawn at
// random (RandomStart).
func (p *Plan) PCAStart() bool { return !p.opts.NoNoise && p.noise.pca.sigma != 0 }

// RandomStart fills the head rows of v (rank r, row-major, rows in
// canonical order of ids) with data-independent starting factors,
// N(0, 1/r) per entry from each item's stream.
func (p *Plan) RandomStart(ids []string, head []bool, v []float64) {
	r := p.opts.Rank
	for j, h := range head {
		if !h {
			continue
		}
		rnd := p.rand(phaseStart, 0, ids[j])
		for k := range r {
			v[j*r+k] = rnd.NormFloat64() / math.Sqrt(float64(r))
		}
	}
}

// StartTerms appends to idx and z one user's start vector over the head
// items: for each contributed released rating vals[q] of item items[q]
// with weight w[q] > 0 and head position pos[items[q]] ≥ 0, the position
// and w·((1 − a)·clip(x − μ − b_j − β, ±B_r) + a·B_r), a the
// StartRatedWeight. The term lies in [−B_r, B_r], as the clipped residual
// alone does, so ‖z‖₂ ≤ B_r·‖w‖₂.
func (p *Plan) StartTerms(mu, beta float64, itemBias []float64, pos []int32, items []int32, vals, w []float64, idx []int32, z []float64) ([]int32, []float64) {
	o := &p.opts
	for q, j := range items {
		k := pos[j]
		if k < 0 || w[q] == 0 {
			continue
		}
		e := vals[q] - mu - itemBias[j] - beta
		e = math.Min(math.Max(e, -o.ResidualBound), o.ResidualBound)
		// Within [−B_r, B_r] in exact arithmetic; the Min keeps it there
		// after rounding.
		e = math.Min((1-o.StartRatedWeight)*e+o.StartRatedWeight*o.ResidualBound, o.ResidualBound)
		idx = append(idx, k)
		z = append(z, w[q]*e)
	}
	return idx, z
}

// AccumulateStart adds z zᵀ (positions idx, from StartTerms) to the
// exact second-moment matrix m, its lower triangle packed row by row
// (entry (a, b), b ≤ a, at a(a+1)/2 + b: the layout does not depend on
// the number of head items), each entry's term z_a·z_b truncated to the
// start's grid: any order and partition of the users gives the same m.
// It returns m, grown to hold every row idx reaches.
func (p *Plan) AccumulateStart(m []Sum, idx []int32, z []float64) []Sum {
	g := p.grids.pca
	for _, ka := range idx {
		if need := int(ka+1) * int(ka+2) / 2; need > len(m) {
			m = append(m, make([]Sum, need-len(m))...)
		}
	}
	for a, ka := range idx {
		row := m[int(ka)*int(ka+1)/2:]
		za := z[a]
		for b, kb := range idx {
			if kb <= ka {
				row[kb].Add(g, za*z[b])
			}
		}
	}
	return m
}

// MergeStart adds the packed matrix b to a (AccumulateStart) and returns
// a, grown as needed.
func MergeStart(a, b []Sum) []Sum {
	if len(b) > len(a) {
		a = append(a, make([]Sum, len(b)-len(a))...)
	}
	for k := range b {
		a[k].Merge(b[k])
	}
	return a
}

// StartPositions returns the head items (indices, ascending) and each
// released item's position among them (−1 off the head).
func StartPositions(head []bool) (cand []int, pos []int32) {
	pos = make([]int32, len(head))
	for j, h := range head {
		pos[j] = -1
		if h {
			pos[j] = int32(len(cand))
			cand = append(cand, j)
		}
	}
	return cand, pos
}

// ReleaseStart adds the noise to the exact second-moment matrix m over
// the head items cand (StartPositions; packed lower triangle,
// AccumulateStart; rows it lacks are zero)
// and fills their rows of v with its top eigenvectors, each scaled by
// the square root of its eigenvalue (clamped at 0), then NormalizeRows.
// With fewer head items than the rank, the extra columns stay zero.
func (p *Plan) ReleaseStart(ids []string, head []bool, cand []int, m []Sum, v []float64) error {
	r := p.opts.Rank
	h := len(cand)
	if h == 0 || r == 0 {
		return nil // no item qualifies, or no factors: V stays zero, biases only
	}
	sym := make([]float64, h*h) // lower triangle, row-major
	for a := range h {
		rnd := p.rand(phasePCA, 0, ids[cand[a]])
		for b := 0; b <= a; b++ {
			var s Sum
			if k := a*(a+1)/2 + b; k < len(m) {
				s = m[k]
			}
			x, err := noisy(p.noise.pca, s, p.grids.pca, rnd)
			if err != nil {
				return err
			}
			sym[a*h+b] = x
		}
	}
	k := min(r, h)
	vals, vecs, err := eigen.Top(blas.Lower, sym, h, k)
	if err != nil {
		return fmt.Errorf("userdp: the start matrix: %w", err)
	}
	for c := range k {
		s := math.Sqrt(math.Max(vals[c], 0))
		for a, j := range cand {
			v[j*r+c] = s * vecs[a*k+c]
		}
	}
	NormalizeRows(v, r, head)
	return nil
}

// Solver is one worker's scratch space for the r × r solves; nothing in
// its methods allocates. It is not safe for concurrent use.
type Solver struct{ ws *workspace }

// NewSolver returns a Solver for the plan's rank.
func (p *Plan) NewSolver() *Solver { return &Solver{newWorkspace(p.opts.Rank)} }

// FoldIn fits a user's factor u (Rank entries) and bias bu from the model
// so far (res's Mu, ItemBias, TailBias and ridges, and the factors v) and
// the user's own ratings: items[p] the released index of the item rated
// vals[p], or −1. See Result.FoldIn.
func (s *Solver) FoldIn(res *Result, v []float64, items []int32, vals []float64, u []float64, bu *float64) {
	s.ws.foldIn(res, v, items, vals, u, bu)
}

// ItemTerm computes one (user, item) term of an item step: it writes the
// user's factor u clipped to ‖ũ‖ ≤ ClipNorm into uc and returns the
// residual x − μ − b_item − b_user clipped to ±ResidualBound. The term
// adds w·ũũᵀ to the item's Gram matrix and w·e·ũ to its right-hand side
// (AddItemTerm).
func (p *Plan) ItemTerm(u, uc []float64, x, mu, itemBias, userBias float64) (e float64) {
	copy(uc, u)
	clipNorm(uc, p.opts.ClipNorm)
	e = x - mu - itemBias - userBias
	return math.Min(math.Max(e, -p.opts.ResidualBound), p.opts.ResidualBound)
}

// AddItemTerm adds w·ũũᵀ to the r × r exact Gram matrix g (lower
// triangle; entry (a, b) adds (w·ũ_a)·ũ_b) and w·e·ũ to the exact
// right-hand side h (entry a adds (w·e)·ũ_a), each term truncated to its
// release's grid: any order and partition of the terms gives the same
// sums.
func (p *Plan) AddItemTerm(g, h []Sum, w, e float64, uc []float64) {
	gg, gh := p.grids.gram, p.grids.rhs
	r := len(uc)
	we := w * e
	for a, ua := range uc {
		wa := w * ua
		row := g[a*r : a*r+a+1]
		for b := range row {
			row[b].Add(gg, wa*uc[b])
		}
		h[a].Add(gh, we*ua)
	}
}

// ReleaseItem adds step's noise to item id's exact Gram matrix g (lower
// triangle) and right-hand side h (AddItemTerm) and solves the ridged
// system for its factor row dst, with λ from its released count.
func (p *Plan) ReleaseItem(s *Solver, step int, id string, count float64, g, h []Sum, dst []float64) error {
	o := &p.opts
	r := o.Rank
	gf, hf := s.ws.gram, s.ws.rhs
	rg := p.rand(phaseGram, step, id)
	for a := range r {
		for b := 0; b <= a; b++ {
			x, err := noisy(p.noise.gram, g[a*r+b], p.grids.gram, rg)
			if err != nil {
				return err
			}
			gf[a*r+b] = x
		}
	}
	rh := p.rand(phaseRHS, step, id)
	for a := range r {
		x, err := noisy(p.noise.rhs, h[a], p.grids.rhs, rh)
		if err != nil {
			return err
		}
		hf[a] = x
	}
	sg, sh := p.noise.gram.sigma, p.noise.rhs.sigma
	lambda := o.Lambda*math.Max(count, 0) + sg*math.Sqrt(float64(r)) + o.NoiseLambda*sh*sh
	s.ws.solveShifted(gf, hf, lambda, dst)
	return nil
}

// PopularityFloor is n₀ of the popularity column (Options.PopularityScale),
// in weighted-count units: half the selection threshold under private
// selection with noise (about the count of an item that just missed the
// release, so that a released item's entry is positive and an
// unreleased item's 0 sits below them all), at least 1; 1 with a public
// catalogue or without noise.
func (p *Plan) PopularityFloor() float64 {
	if p.opts.Items != nil || p.opts.NoNoise {
		return 1
	}
	return math.Max(p.report.Threshold/2, 1)
}

// The feature columns (Result.Features): public functions of the
// release appended to V after the ALS steps, whose coefficients each
// user fits in the fold-in like a factor's.
const (
	// FeaturePopularity is the popularity column s·ln(max(n̂_j, n₀)/n₀)
	// of the released counts (Options.PopularityScale, PopularityFloor):
	// its coefficient is the user's own slope on item popularity.
	FeaturePopularity = "popularity"
	// FeatureItemBias is the item-bias column c·(b_j − b_tail) of the
	// released biases (Options.BiasColumnScale): its coefficient is how
	// much more (or less) than the crowd the user follows items' biases,
	// the user's own scale.
	FeatureItemBias = "item_bias"
)

// features lists the feature columns the options ask for, in order.
func (p *Plan) features() []string {
	o := &p.opts
	if o.Objective == ObjectiveRanking {
		return nil
	}
	var f []string
	if o.PopularityScale > 0 {
		f = append(f, FeaturePopularity)
	}
	if o.BiasColumnScale > 0 {
		f = append(f, FeatureItemBias)
	}
	return f
}

// AppendFeatures appends the feature columns (Options.PopularityScale,
// Options.BiasColumnScale) to res's item factors: for item j,
// s·ln(max(n̂_j, n₀)/n₀) with n̂_j = res.Counts[j] and n₀ =
// PopularityFloor, then c·(b_j − b_tail) with b_j = res.ItemBias[j] and
// b_tail = res.TailBias (so an item outside the release counted with the
// tail bias and a zero row sits at the tail's bias). Rank grows by their
// number and Features names them. It reads nothing but the released
// counts and biases and public options (post-processing), after the ALS
// steps, so the learned factors are those of a run without them. It does
// nothing for a ranking release or when res already has them. With tail
// buckets it also sets BucketV, the same columns of each bucket's
// released weight and bias.
func (p *Plan) AppendFeatures(res *Result) {
	o := &p.opts
	f := p.features()
	if len(f) == 0 || len(res.Features) > 0 || res.Ranking != nil {
		return
	}
	r, n, k := res.Rank, len(res.ItemIDs), len(f)
	n0 := p.PopularityFloor()
	// columns writes the columns of an item (or bucket) of released count
	// and bias into dst.
	columns := func(dst []float64, count, bias float64) {
		for c, name := range f {
			switch name {
			case FeaturePopularity:
				dst[c] = o.PopularityScale * math.Log(math.Max(count, n0)/n0)
			case FeatureItemBias:
				dst[c] = o.BiasColumnScale * (bias - res.TailBias)
			}
		}
	}
	v := make([]float64, n*(r+k))
	for j := range n {
		row := v[j*(r+k) : (j+1)*(r+k)]
		copy(row[:r], res.V[j*r:(j+1)*r])
		columns(row[r:], res.Counts[j], res.ItemBias[j])
	}
	res.V, res.Rank, res.Features = v, r+k, f
	if nb := len(res.BucketBias); nb > 0 {
		res.BucketV = make([]float64, nb*k)
		for b := range nb {
			columns(res.BucketV[b*k:(b+1)*k], res.BucketCounts[b], res.BucketBias[b])
		}
	}
}

// NormalizeRows scales the head rows of v (rank r) so that their root
// mean square ℓ2 norm is 1. Noise ridges shrink V at every step, and
// users' ridged fits shrink U in turn, so without this the product
// collapses toward zero over the steps; uᵀv is unchanged by moving a
// scale from one side to the other. It is post-processing of the
// released V.
func NormalizeRows(v []float64, r int, head []bool) {
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
