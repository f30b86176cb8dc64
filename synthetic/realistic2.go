package synthetic

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// Streams of version 2: one for the items, one per user.
const (
	streamItemsV2 = 1 << 40
	streamUsersV2 = 1 << 41
	// streamSlopesV2 draws the users' popularity slopes, in user order,
	// apart from the users' own streams (PopularitySlope 0 draws none and
	// leaves the data as before it existed).
	streamSlopesV2 = 1 << 42
	// streamScalesV2 draws the users' scales on the item biases, in user
	// order (BiasScale 0 draws none).
	streamScalesV2 = 1 << 43
)

// generateV2 draws the version 2 data set:
//
//   - item j has a log popularity weight ItemSpread·z_j (z_j the standard
//     normal quantiles at (k+½)/Items, k = 0, …, Items−1, in a random
//     order: log-normal popularity), a bias ItemBiasSD·(ρ_p z_j +
//     √(1−ρ_p²) Z) with ρ_p = ItemBiasCorr, a taste vector v_j ~ N(0,
//     diag(s_a²)), s_a² ∝ (a+1)^(−SpectrumDecay), scaled so that uᵀv has
//     SD FactorSD, and an exposure vector q_j ~ N(0, I/√ExposureRank);
//   - user i rates n_i = MinPerUser + round(UserMedian·exp(UserSpread·z_i))
//     items (capped at Items/2), has a bias UserBiasSD·(ρ_u z_i +
//     √(1−ρ_u²) Z) with ρ_u = UserBiasCorr (activity and rating level
//     correlate), a noise SD NoiseSD·exp(NoiseSpread·Z − NoiseSpread²/2),
//     a taste u_i and an exposure p_i drawn like v_j and q_j;
//   - user i's items are the n_i items of largest ItemSpread·z_j +
//     Taste·u_iᵀv_j/FactorSD + Exposure·p_iᵀq_j + Gumbel noise: a draw
//     without replacement with probability ∝ exp of the rest (the
//     Gumbel-top-k trick), so users rate more often what they like
//     (missing not at random) and what users like them rate;
//   - the latent rating is b_i + (1 + ζ_i)·b_j + u_iᵀv_j + γ_i·z_j +
//     noise, γ_i ~ N(0, PopularitySlope²) the user's own slope on
//     popularity and ζ_i ~ N(0, BiasScale²) the user's own scale on the
//     item biases (each from its own stream), cut into stars at
//     the quantiles of the latent ratings (of the first 2²⁰ drawn) that
//     give the histogram Hist; with Hist zero, Mean + latent rounded and
//     clamped to [1, 5].
//
// Drawing every user's keys costs O(Users·Items·(Rank + ExposureRank)).
func (o Realistic) generateV2() (*ratings.Dataset, error) {
	switch {
	case o.Users < 1 || o.Users > 1e7:
		return nil, fmt.Errorf("synthetic: realistic users = %d, want in [1, 1e7]", o.Users)
	case o.Items < 2 || o.Items > 1e6:
		return nil, fmt.Errorf("synthetic: realistic items = %d, want in [2, 1e6]", o.Items)
	case o.Rank < 0 || o.Rank > o.Items:
		return nil, fmt.Errorf("synthetic: realistic rank = %d, want in [0, items]", o.Rank)
	case o.ExposureRank < 0 || o.ExposureRank > o.Items:
		return nil, fmt.Errorf("synthetic: realistic exposure rank = %d, want in [0, items]", o.ExposureRank)
	case o.MinPerUser < 1 || o.MinPerUser > o.Items/2:
		return nil, fmt.Errorf("synthetic: realistic min per user = %d, want in [1, items/2 = %d]", o.MinPerUser, o.Items/2)
	case !(o.ItemBiasCorr >= -1 && o.ItemBiasCorr <= 1), !(o.UserBiasCorr >= -1 && o.UserBiasCorr <= 1):
		return nil, fmt.Errorf("synthetic: realistic bias correlations must be in [-1, 1]")
	case !nonNegative(o.UserMedian, o.UserSpread, o.ItemSpread, o.UserBiasSD, o.ItemBiasSD, o.FactorSD, o.NoiseSD, o.NoiseSpread, o.SpectrumDecay, o.Taste, o.Exposure, o.PopularitySlope, o.BiasScale), math.IsNaN(o.Mean) || math.IsInf(o.Mean, 0):
		return nil, fmt.Errorf("synthetic: realistic: median, spreads, standard deviations, decay, taste, exposure, popularity slope and bias scale must be ≥ 0 and finite")
	}
	var histSum float64
	for _, h := range o.Hist {
		if !(h >= 0) || math.IsInf(h, 0) {
			return nil, fmt.Errorf("synthetic: realistic histogram %v: want fractions ≥ 0", o.Hist)
		}
		histSum += h
	}

	r, re := o.Rank, o.ExposureRank
	fs := spectrum(r, o.SpectrumDecay, o.FactorSD)
	es := spectrum(re, 0, 1)
	taste := 0.0
	if o.FactorSD > 0 {
		taste = o.Taste / o.FactorSD
	}
	g := rng.Stream(o.Seed, streamItemsV2)
	logw := make([]float64, o.Items)
	zs := make([]float64, o.Items)
	ib := make([]float64, o.Items)
	v := make([]float64, o.Items*r)
	q := make([]float64, o.Items*re)
	cp := math.Sqrt(1 - o.ItemBiasCorr*o.ItemBiasCorr)
	// z_j are the normal quantiles at (k+½)/Items in a random order, not
	// random draws: the popularity law's head is then the same for every
	// seed (random draws made NDCG@10 of popularity vary by ±0.06).
	perm := g.Perm(o.Items)
	for j := range o.Items {
		z := math.Sqrt2 * math.Erfinv(2*(float64(perm[j])+0.5)/float64(o.Items)-1)
		logw[j] = o.ItemSpread * z
		zs[j] = z
		ib[j] = o.ItemBiasSD * (o.ItemBiasCorr*z + cp*g.NormFloat64())
		for a := range r {
			v[j*r+a] = fs[a] * g.NormFloat64()
		}
		for a := range re {
			q[j*re+a] = o.Exposure * es[a] * g.NormFloat64()
		}
	}

	maxPer := o.Items / 2
	cu := math.Sqrt(1 - o.UserBiasCorr*o.UserBiasCorr)
	u := make([]float64, r)
	p := make([]float64, re)
	key := make([]float64, o.Items)
	idx := make([]int32, o.Items)
	var triples []ratings.Triple
	gs, gz := rng.Stream(o.Seed, streamSlopesV2), rng.Stream(o.Seed, streamScalesV2)
	for i := range o.Users {
		slope, scale := 0.0, 1.0
		if o.PopularitySlope > 0 {
			slope = o.PopularitySlope * gs.NormFloat64()
		}
		if o.BiasScale > 0 {
			scale += o.BiasScale * gz.NormFloat64()
		}
		gi := rng.Stream(o.Seed, streamUsersV2+uint64(i))
		z := gi.NormFloat64()
		n := o.MinPerUser + int(math.Round(o.UserMedian*math.Exp(o.UserSpread*z)))
		n = min(max(n, o.MinPerUser), maxPer)
		ub := o.UserBiasSD * (o.UserBiasCorr*z + cu*gi.NormFloat64())
		noise := o.NoiseSD * math.Exp(o.NoiseSpread*gi.NormFloat64()-o.NoiseSpread*o.NoiseSpread/2)
		for a := range u {
			u[a] = fs[a] * gi.NormFloat64()
		}
		for a := range p {
			p[a] = es[a] * gi.NormFloat64()
		}
		for j := range o.Items {
			var t, e float64
			vj := v[j*r : j*r+r]
			for a, x := range u {
				t += x * vj[a]
			}
			qj := q[j*re : j*re+re]
			for a, x := range p {
				e += x * qj[a]
			}
			key[j] = logw[j] + taste*t + e + gumbel(gi.Float64())
			idx[j] = int32(j)
		}
		slices.SortFunc(idx, func(a, b int32) int { return cmp.Compare(key[b], key[a]) })
		chosen := idx[:n]
		slices.Sort(chosen)
		for _, j := range chosen {
			x := ub + scale*ib[j] + noise*gi.NormFloat64() + slope*zs[j]
			vj := v[int(j)*r : int(j)*r+r]
			for a, y := range u {
				x += y * vj[a]
			}
			triples = append(triples, ratings.Triple{User: int32(i), Item: j, Value: x})
		}
	}
	if histSum > 0 {
		cuts := cutsFor(o.Hist, histSum, triples)
		for k := range triples {
			s := 1.0
			for _, c := range cuts {
				if triples[k].Value >= c {
					s++
				}
			}
			triples[k].Value = s
		}
	} else {
		for k := range triples {
			triples[k].Value = math.Min(math.Max(math.Round(o.Mean+triples[k].Value), 1), 5)
		}
	}
	m, err := ratings.New(o.Users, o.Items, triples)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	return &ratings.Dataset{
		Ratings: m, Users: ratings.NumberedIDs(o.Users, 1), Items: ratings.NumberedIDs(o.Items, 1),
		Min: 1, Max: 5, Source: fmt.Sprintf("synthetic realistic v2 %d users × %d items, rank %d, seed %d", o.Users, o.Items, o.Rank, o.Seed),
		Format: ratings.FormatCSV, FormatReason: "generated",
	}, nil
}

func nonNegative(xs ...float64) bool {
	for _, x := range xs {
		if !(x >= 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// spectrum returns the SDs s_a of r coordinates with s_a² ∝
// (a+1)^(−decay), scaled so that the inner product of two independent
// such vectors has SD sd (Σ s_a⁴ = sd²).
func spectrum(r int, decay, sd float64) []float64 {
	s := make([]float64, r)
	var norm float64
	for a := range s {
		s[a] = math.Pow(float64(a+1), -decay)
		norm += s[a] * s[a]
	}
	for a := range s {
		s[a] = math.Sqrt(s[a] * sd / math.Sqrt(norm))
	}
	return s
}

// gumbel returns a standard Gumbel draw from a uniform u in [0, 1).
func gumbel(u float64) float64 {
	return -math.Log(-math.Log(math.Max(u, 1e-300)))
}

// cutsFor returns the four cut points that split the latent values of
// the first 2²⁰ triples into the fractions hist/sum.
func cutsFor(hist [5]float64, sum float64, triples []ratings.Triple) [4]float64 {
	x := make([]float64, min(len(triples), 1<<20))
	for k := range x {
		x[k] = triples[k].Value
	}
	slices.Sort(x)
	var cuts [4]float64
	var c float64
	for k := range cuts {
		c += hist[k] / sum
		if len(x) == 0 {
			continue
		}
		cuts[k] = x[min(int(c*float64(len(x))), len(x)-1)]
	}
	return cuts
}
