package userdp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/dpmc/dpmc/internal/eigen"
	"github.com/dpmc/dpmc/internal/exactsum"
	"github.com/dpmc/dpmc/ratings"
)

// rankTrainer holds one ranking run's state. Users are in the canonical
// order of their IDs, candidate items in the canonical order of theirs,
// and each user's positives in the order of the items, so every sum runs
// in an order fixed by the IDs alone (see Plan).
type rankTrainer struct {
	*trainer
	userIDs []string
	// off and pos hold each user's contributed positives: user i's are
	// the candidate indices pos[off[i]:off[i+1]], ascending.
	off []int
	pos []int32
}

// trainRanking is Train for the ranking objective (Options.Objective).
func trainRanking(ctx context.Context, t *trainer, d *ratings.Dataset) (*Result, error) {
	rt := &rankTrainer{trainer: t}
	rt.prepare(d)
	t.progress(fmt.Sprintf("prepared %d users' %d contributed positives over %d candidate items (exact counts: evaluation only, not released)", t.users, len(rt.pos), len(t.candIDs)))

	// (0) the number of users with a contributed positive, Δ₂ = 1.
	n := 0
	for i := range t.users {
		if rt.off[i+1] > rt.off[i] {
			n++
		}
	}
	users := t.ReleaseUsers(float64(n))
	if err := t.Decide(users); err != nil {
		return nil, err
	}
	// (1) positive counts c_j = Σ_u x_uj/√n_u, Δ₂ = 1; private selection.
	counts, present := rt.positiveSums()
	rs := t.newStreams()
	released := make([]float64, len(counts))
	for c := range counts {
		var err error
		if released[c], err = t.releaseCount(t.candIDs[c], counts[c], rs); err != nil {
			return nil, err
		}
	}
	model, mcounts := t.selectItems(released, present)
	t.progress(fmt.Sprintf("released %d items", len(model)))
	o := t.opts
	res := &Result{
		Mu: (o.Min + o.Max) / 2, Min: o.Min, Max: o.Max,
		UserLambda: o.UserLambda, UserBiasLambda: o.UserBiasLambda,
		UserLambdaPerRating: o.UserLambdaPerRating,
		Report:              t.report,
		Evaluation:          t.eval,
		ItemIDs:             make([]string, len(model)),
		ItemBias:            make([]float64, len(model)),
		Counts:              mcounts,
	}
	for j, c := range model {
		res.ItemIDs[j] = t.candIDs[c]
	}
	rk, m := t.NewRanking(mcounts, users)
	res.Ranking = rk
	if m == 0 {
		return res, ctx.Err()
	}
	// (2) the Gram over the M head items, Δ₂ = 1.
	headIDs := make([]string, m)
	for j, r := range rk.HeadRow {
		if r >= 0 {
			headIDs[r] = res.ItemIDs[j]
		}
	}
	toRow := make([]int32, len(t.candIDs))
	for c := range toRow {
		toRow[c] = -1
	}
	for j, c := range model {
		toRow[c] = rk.HeadRow[j]
	}
	gs, err := rt.gramSums(ctx, toRow, m)
	if err != nil {
		return nil, err
	}
	t.progress(fmt.Sprintf("summed the positives Gram over %d head items", m))
	g, err := rt.releaseGram(ctx, gs, m, headIDs)
	if err != nil {
		return nil, err
	}
	if err := t.RankComponents(rk, g, m); err != nil {
		return nil, err
	}
	t.progress(fmt.Sprintf("released the ranking: M = %d head items, k = %d components", m, rk.K))
	return res, ctx.Err()
}

// prepare orders the users and candidate items canonically and draws each
// user's contributed positives: the ratings ≥ Positive of candidate
// items, a uniform random MaxItemsPerUser-subset of them beyond that
// (Plan.Subset, keyed by the user's ID; all of them without noise).
func (rt *rankTrainer) prepare(d *ratings.Dataset) {
	t := rt.trainer
	x := d.Ratings
	colToCand, rows := t.candidates(d)
	rt.userIDs = make([]string, t.users)
	rt.off = make([]int, t.users+1)
	rt.pos = make([]int32, 0, x.Len())
	rs := t.newStreams()
	var buf []int
	var tmp []int32
	thr := t.opts.Positive
	for i, row := range rows {
		id := d.Users.ID(int(row))
		rt.userIDs[i] = id
		items, vals := x.Row(int(row))
		tmp = tmp[:0]
		for k, j := range items {
			if c := colToCand[j]; c >= 0 && vals.At(k) >= thr {
				tmp = append(tmp, c)
			}
		}
		slices.Sort(tmp)
		sub := t.subset(id, len(tmp), rs, buf)
		if sub == nil {
			rt.pos = append(rt.pos, tmp...)
		} else {
			buf = sub
			for _, q := range sub {
				rt.pos = append(rt.pos, tmp[q])
			}
		}
		rt.off[i+1] = len(rt.pos)
	}
}

// positiveCounts is positiveSums with the sums' values.
func (rt *rankTrainer) positiveCounts() (counts []float64, present []bool) {
	s, present := rt.positiveSums()
	return sumsFloat(s, rt.grids.unit), present
}

// sumsFloat returns the values of sums on grid g (0 for one marked Bad,
// which the release refuses).
func sumsFloat(sums []Sum, g exactsum.Grid) []float64 {
	out := make([]float64, len(sums))
	for k, s := range sums {
		out[k], _ = s.Float64(g)
	}
	return out
}

// positiveSums returns the exact positive count of every candidate
// item, c_j = Σ_u x_uj/√n_u over the users' n_u contributed positives
// (each term truncated to the counts' grid, AddCount: any order gives
// the same sums), and whether some contributed positive reaches it (see
// Plan.Selected).
func (rt *rankTrainer) positiveSums() (counts []Sum, present []bool) {
	t := rt.trainer
	counts = make([]Sum, len(t.candIDs))
	present = make([]bool, len(t.candIDs))
	for i := range t.users {
		l := rt.pos[rt.off[i]:rt.off[i+1]]
		if len(l) == 0 {
			continue
		}
		w := t.positiveUnits(len(l))
		for _, c := range l {
			counts[c].AddUnits(w)
			present[c] = true
		}
	}
	return counts, present
}

// gram is gramSums with the sums' values.
func (rt *rankTrainer) gram(ctx context.Context, toRow []int32, m int) ([]float64, error) {
	g, err := rt.gramSums(ctx, toRow, m)
	return sumsFloat(g, rt.grids.unit), err
}

// gramSums returns the exact Gram G = Σ_u ω_u·x_u·x_uᵀ over the m head items
// (ω_u truncated to the grid of the counts, added exactly)
// (toRow maps a candidate item to its head row, −1 off the head), upper
// triangle of an m × m row-major array: x_u is user u's 0/1 vector of
// contributed positives in the head, capped at MaxHeadPositives (a
// uniform random subset beyond, drawn from the user's stream; no cap
// without noise), m_u their number and ω_u = √(2/(m_u(m_u+1))).
//
// Workers own the rows r with r mod workers = w and add only to their
// rows; the sums are exact, so the result depends on neither the order
// nor the number of workers; no user's work allocates.
func (rt *rankTrainer) gramSums(ctx context.Context, toRow []int32, m int) ([]Sum, error) {
	t := rt.trainer
	off := make([]int, t.users+1)
	rows := make([]int32, 0, len(rt.pos))
	omega := make([]int64, t.users) // ω_u in grid units
	rs := t.newStreams()
	var perm []int
	for i := range t.users {
		start := len(rows)
		for _, c := range rt.pos[rt.off[i]:rt.off[i+1]] {
			if r := toRow[c]; r >= 0 {
				rows = append(rows, r) // ascending: head rows follow candidate order
			}
		}
		var l []int32
		l, omega[i], perm = t.headPositives(rs, rt.userIDs[i], rows[start:], perm)
		rows = rows[:start+len(l)]
		off[i+1] = len(rows)
	}
	g := make([]Sum, m*m)
	workers := max(1, min(t.workers, m))
	err := t.parallelN(ctx, workers, func(w int) {
		for i := range t.users {
			l := rows[off[i]:off[i+1]]
			om := omega[i]
			for a, ra := range l {
				if int(ra)%workers != w {
					continue
				}
				row := g[int(ra)*m : int(ra+1)*m]
				for _, rb := range l[a:] {
					row[rb].AddUnits(om)
				}
			}
		}
	})
	return g, err
}

// drawSubset returns k of the positions 0…n−1, ascending, uniformly at
// random from r (a partial Fisher–Yates shuffle), in buf's storage.
func drawSubset(r interface{ IntN(int) int }, n, k int, buf []int) []int {
	pos := slices.Grow(buf[:0], n)[:n]
	for q := range pos {
		pos[q] = q
	}
	for q := range k {
		s := q + r.IntN(n-q)
		pos[q], pos[s] = pos[s], pos[q]
	}
	pos = pos[:k]
	slices.Sort(pos)
	return pos
}

// releaseGram returns the noisy Gram from the exact one gs (upper
// triangle, m × m): row r's entries drawn from the stream
// (phaseRankGram, 0, ids[r]) of the row's head item, in column order
// (Plan.ReleaseGramRow); without noise the exact Gram.
func (rt *rankTrainer) releaseGram(ctx context.Context, gs []Sum, m int, ids []string) ([]float64, error) {
	t := rt.trainer
	g := make([]float64, m*m)
	ss := make([]*streams, t.workers)
	for w := range ss {
		ss[w] = t.newStreams()
	}
	errs := make([]error, t.workers)
	err := t.parallel(ctx, m, func(w, r int) {
		if errs[w] == nil {
			errs[w] = t.releaseGramRow(ss[w], ids[r], r, gs[r*m:(r+1)*m], g[r*m:(r+1)*m])
		}
	})
	if err != nil {
		return nil, err
	}
	return g, errors.Join(errs...)
}

// RankComponents fills rk's V, K, Weights, Eigenvalues and Edge from the
// noisy Gram g (upper triangle, m × m, row-major; post-processing) and
// adds M and k to the report's ranking line: the top
// eigenvectors whose eigenvalue clears the noise's bulk edge 2σ_G√m (at
// most Components; exactly min(Components, m) without noise), each
// weighted by w = max(0, 1 − mσ_G²/θ²), θ = (λ + √(λ² − 4mσ_G²))/2 — the
// squared cosine between a spiked eigenvector and its noisy estimate
// under Wigner noise of entry variance σ_G².
func (p *Plan) RankComponents(rk *Ranking, g []float64, m int) error {
	o := &p.opts
	k := min(o.Ranking.Components, m)
	var vals, vecs []float64 // the k largest eigenvalues, descending, and their vectors
	if k > 0 {
		var err error
		if vals, vecs, err = eigen.Top(blas.Upper, g, m, k); err != nil {
			return fmt.Errorf("userdp: the ranking Gram: %w", err)
		}
	}
	kTop := k
	sigma := p.rank.gram.sigma
	if !o.NoNoise {
		rk.Edge = 2 * sigma * math.Sqrt(float64(m))
		above := 0
		for above < kTop && vals[above] > rk.Edge {
			above++
		}
		k = above
	}
	rk.K = k
	rk.V = make([]float64, m*k)
	rk.Weights = make([]float64, k)
	rk.Eigenvalues = make([]float64, k)
	ms2 := float64(m) * sigma * sigma
	for c := range k {
		l := vals[c]
		rk.Eigenvalues[c] = l
		w := 1.0
		if !o.NoNoise {
			th := (l + math.Sqrt(math.Max(l*l-4*ms2, 0))) / 2
			w = math.Max(0, 1-ms2/(th*th))
		}
		rk.Weights[c] = w
		for r := range m {
			rk.V[r*k+c] = vecs[r*kTop+c]
		}
	}
	p.report.Ranking += fmt.Sprintf(": M = %d head items, k = %d components", m, rk.K)
	return nil
}

// parallelN runs fn(w) for w in [0, workers) concurrently and waits.
func (t *trainer) parallelN(ctx context.Context, workers int, fn func(w int)) error {
	done := make(chan struct{}, workers)
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			fn(w)
		}()
	}
	for range workers {
		<-done
	}
	return ctx.Err()
}
