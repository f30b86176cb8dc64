package userdp

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// rankPlan is the ranking objective's part of a Plan, set at Decide.
type rankPlan struct {
	counts, gram noiser
	// countShare is the share of the rest (after the number of users)
	// that the counts got; 1 in the fallback.
	countShare float64
	fallback   bool
}

// phase tags of the ranking objective's streams (see Plan.rand); far from
// the rating pipeline's so that either can grow.
const (
	phaseRankGram = 101 + iota // noise of one head row of the Gram, keyed by the row's item
	phaseRankCap               // a user's subset of MaxHeadPositives head positives
)

// ReleaseUsers returns the released number of users of the ranking
// objective from the exact number n of users with a contributed positive
// (n itself without noise). It draws from the stream of ReleaseMean's
// count, (phaseMean, 0, ""), so it must be the plan's only release of the
// number of users.
func (p *Plan) ReleaseUsers(n float64) float64 {
	if p.opts.NoNoise {
		p.report.Center = "none (ranking objective: no rating part)"
		return n
	}
	p.report.Center = "none (ranking objective: no rating part); the number of users is released for the head-size rule"
	return p.noise.meanCount.add(n, p.rand(phaseMean, 0, ""))
}

// planRanking is Decide for the ranking objective: it splits the rest of
// the budget between the positive counts and the head Gram (or gives it
// all to the counts in the fallback), calibrates both and finishes the
// report. users is the released number of users.
func (p *Plan) planRanking(users float64) error {
	o := &p.opts
	r := p.report
	ro := o.Ranking
	r.Factors = "none (ranking objective)"
	if o.NoNoise {
		r.Ranking = fmt.Sprintf("the top %d eigenvectors of the exact positives Gram over the (at most %d) most popular items, no noise", ro.Components, ro.MaxHead)
		return nil
	}
	cs := ro.CountShare
	if cs == 0 {
		cs = 0.5
		if o.Items != nil {
			cs = 0.2
		}
	}
	rest := 1 - o.Shares.Mean
	if cs < 1 && o.Items == nil {
		sigG := 1 / math.Sqrt((1-cs)*rest*p.mu*p.mu)
		if users/sigG < ro.FallbackRatio {
			p.rank.fallback = true
			r.Ranking = fmt.Sprintf("noisy popularity only (fallback): released users / σ_G = %.0f / %.3g = %.0f < %g, so the whole budget went to the positive counts and no Gram was released", users, sigG, users/sigG, ro.FallbackRatio)
			cs = 1
		}
	}
	p.rank.countShare = cs
	var err error
	if p.rank.counts, err = p.calibrate("positive item counts (weights 1/√n per user over the user's n contributed positives)", 1, o.MaxItemsPerUser, cs*rest, 1); err != nil {
		return err
	}
	p.noise.counts = p.rank.counts // the selection threshold and Selected read it
	if cs < 1 {
		m := min(ro.MaxHeadPositives, ro.MaxHead)
		name := fmt.Sprintf("head Gram: upper triangle of Σ_u ω_u·x_u·x_uᵀ over the (at most %d) head items, ω_u = √(2/(m_u(m_u+1)))", ro.MaxHead)
		if p.rank.gram, err = p.calibrate(name, 1, m*(m+1)/2, (1-cs)*rest, 1); err != nil {
			return err
		}
		if r.Ranking == "" {
			r.Ranking = fmt.Sprintf("the leading eigenvectors (at most %d, above the noise edge 2σ_G√M) of the noisy positives Gram over the M most popular released items; M from released users / σ_G", ro.Components)
		}
	}
	if o.Items == nil {
		r.Threshold = SelectionThreshold(p.rank.counts.sigma, o.MaxItemsPerUser, r.SelectionDelta)
		if d := p.rank.counts.d; d != nil {
			r.Threshold += 2 * d.Granularity() // as in planRest
		}
	}
	r.finish()
	what := "item list, number of users, noisy positive counts"
	if cs < 1 {
		what += ", eigenvectors of the noisy head Gram"
	}
	r.Guarantee = "user-level (ε, δ)-DP of everything released: " + what + " (billboard model: each user's ranking is computed from the release and the user's own history, so it is joint-DP)"
	if o.Seeded {
		r.Guarantee = "NONE in this run: the noise is seeded (reproducible), so anyone with the seed can remove it; unseeded runs give " + r.Guarantee
	}
	return nil
}

// rankHeadSize returns the number M of head items for n released items
// and the released number of users: the rule of RankingOptions, at most
// n.
func (p *Plan) rankHeadSize(users float64, n int) int {
	ro := p.opts.Ranking
	m := ro.MaxHead
	if s := p.rank.gram.sigma; s > 0 {
		x := ro.HeadScale * math.Pow(math.Max(users, 0)/s, ro.HeadPower)
		if x < float64(ro.MaxHead) {
			m = max(ro.MinHead, int(math.Round(x)))
		}
	}
	return min(m, n)
}

// The ranking objective's building blocks (Train's trainRanking is a
// sequence of calls to them, and the Beam pipeline calls the same ones;
// see "Building blocks" in the package documentation). Per user:
// Subset over the user's positives (in the canonical order of the item
// IDs; a rating ≥ Options.Positive of a candidate item), RankUserTerm,
// AddPositive, HeadPositives; per item, per head row or global:
// ReleaseRankUsers, Decide, ReleaseCount, Selected, NewRanking,
// AddGramRow, ReleaseGramRow, RankComponents. Every sum over users is
// exact (Sum), so any order and partition gives the same release.

// RankUserTerm returns the term of one user with at least one
// contributed positive in the ranking objective's number of users (1 in
// MeanSums.Users, the other sums empty): ReleaseRankUsers releases their
// exact sum.
func (p *Plan) RankUserTerm() MeanSums {
	var s MeanSums
	s.Users.Add(p.grids.ints, 1)
	return s
}

// ReleaseRankUsers is ReleaseUsers on the users' summed RankUserTerms.
// It returns an error only for a sum marked Bad (exactsum).
func (p *Plan) ReleaseRankUsers(s MeanSums) (float64, error) {
	n, err := sumFloat(s.Users, p.grids.ints)
	if err != nil {
		return 0, err
	}
	return p.ReleaseUsers(n), nil
}

// positiveUnits is the weight 1/√n, in units of the counts' grid, that a
// user with n contributed positives adds to each of their counts (≤ 1:
// always an int64).
func (p *Plan) positiveUnits(n int) int64 {
	w, _ := p.grids.unit.Units(1 / math.Sqrt(float64(n)))
	return w
}

// AddPositive adds to an item's exact positive count the weight 1/√n
// (truncated to the counts' grid) of a user with n contributed
// positives, one of them the item's. ReleaseCount releases the sum after
// Decide.
func (p *Plan) AddPositive(sum *Sum, n int) { sum.AddUnits(p.positiveUnits(n)) }

// NewRanking returns the ranking model's frame for the released items'
// noisy positive counts (canonical order) and the released number of
// users: Counts, Fallback, Positive, and HeadRow, each released item's
// row of the head Gram (−1 off the head; head rows follow the released
// order). m is the number M of head items: the M items of largest noisy
// count (ties in canonical order), by the head-size rule; m = 0 (and no
// head row) when no Gram is released: the fallback, a Gram share of 0,
// or fewer than 2 head items. It is post-processing of the release.
func (p *Plan) NewRanking(counts []float64, users float64) (rk *Ranking, m int) {
	o := &p.opts
	rk = &Ranking{Counts: counts, HeadRow: make([]int32, len(counts)), Fallback: p.rank.fallback, Positive: o.Positive}
	for j := range rk.HeadRow {
		rk.HeadRow[j] = -1
	}
	if p.rank.fallback || (!o.NoNoise && p.rank.gram.sigma == 0) {
		return rk, 0
	}
	m = p.rankHeadSize(users, len(counts))
	if m < 2 {
		return rk, 0
	}
	order := make([]int, len(counts))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	head := order[:m]
	slices.Sort(head)
	for r, j := range head {
		rk.HeadRow[j] = int32(r)
	}
	return rk, m
}

// HeadPositives caps user id's contributed positives in the head — their
// head rows, ascending, in rows — at MaxHeadPositives (a uniform random
// subset beyond, drawn from the user's stream, kept ascending, in place;
// no cap without noise) and returns them with the user's Gram weight
// ω_u = √(2/(m_u(m_u+1))) in units of the Gram's grid (0 for no row).
// buf is scratch (may be nil). The user's term of head row l[a] is ω_u
// at the columns l[a:] (AddGramRow).
func (p *Plan) HeadPositives(id string, rows []int32, buf []int) (kept []int32, omega int64) {
	kept, omega, _ = p.headPositives(nil, id, rows, buf)
	return kept, omega
}

// headPositives is HeadPositives drawing from s's generators (nil:
// Plan.rand's); it also returns buf's storage, grown, for the next user.
func (p *Plan) headPositives(s *streams, id string, l []int32, buf []int) ([]int32, int64, []int) {
	o := &p.opts
	if n := len(l); n > o.Ranking.MaxHeadPositives && !o.NoNoise {
		perm := drawSubset(s.get(p, phaseRankCap, 0, id), n, o.Ranking.MaxHeadPositives, buf)
		buf = perm
		for q, k := range perm {
			l[q] = l[k] // perm ascending, k ≥ q: in place
		}
		l = l[:o.Ranking.MaxHeadPositives]
	}
	var om int64
	if n := float64(len(l)); n > 0 {
		om, _ = p.grids.unit.Units(math.Sqrt(2 / (n * (n + 1)))) // ≤ 1: an int64
	}
	return l, om, buf
}

// AddGramRow adds a user's weight omega (HeadPositives) at the columns
// cols of an exact Gram row (indexed by column; grown to reach every
// column) and returns the row.
func AddGramRow(row []Sum, cols []int32, omega int64) []Sum {
	if n := int(slices.Max(cols)) + 1; n > len(row) {
		row = slices.Grow(row, n-len(row))[:n]
	}
	for _, c := range cols {
		row[c].AddUnits(omega)
	}
	return row
}

// ReleaseGramRow writes into dst[r:] (len(dst) = M) head row r's noisy
// Gram entries from its exact sums row (indexed by column, columns r…M−1;
// columns beyond len(row) are zero), drawn from the stream of the row's
// head item id in column order; without noise the exact sums.
func (p *Plan) ReleaseGramRow(id string, r int, row []Sum, dst []float64) error {
	return p.releaseGramRow(nil, id, r, row, dst)
}

func (p *Plan) releaseGramRow(s *streams, id string, r int, row []Sum, dst []float64) error {
	grid := p.grids.unit
	var rnd *rand.Rand
	if !p.opts.NoNoise {
		rnd = s.get(p, phaseRankGram, 0, id)
	}
	for b := r; b < len(dst); b++ {
		var x Sum
		if b < len(row) {
			x = row[b]
		}
		var err error
		if p.opts.NoNoise {
			dst[b], err = sumFloat(x, grid)
		} else {
			dst[b], err = noisy(p.rank.gram, x, grid, rnd)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
