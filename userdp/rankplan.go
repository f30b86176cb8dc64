package userdp

import (
	"fmt"
	"math"
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
