package synthetic

import (
	"fmt"
	"math"
	"slices"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// Realistic describes a ratings data set that looks like real
// recommender data rather than the paper's uniform low-rank matrix. It
// has two versions.
//
// Version 2 (DefaultRealistic; fitted to MovieLens 100k, docs/generator.md)
// is described at generateV2 below and in docs/generator.md: log-normal
// activity and popularity, ratings from biases, a low-rank taste and
// per-user noise mapped to stars through a target histogram, and which
// items a user rates drawn from popularity, that same taste and a
// low-rank exposure (missing not at random).
//
// Version 1 (0 means 1; LegacyRealistic), the generator up to issue 26:
//
//   - user activity and item popularity follow power laws: user i rates
//     n_i = MinPerUser + round(UserMedian·exp(UserSpread·Z)) items (Z
//     standard normal: a shifted log-normal law, capped at Items/2), and each
//     user's items are drawn without replacement with probability
//     ∝ (k+1)^(−ItemExponent), k the item's popularity rank;
//   - ratings are Mean + b_user + b_item + uᵀv + noise, rounded to whole
//     stars and clamped to [1, 5]: b_user ~ N(0, UserBiasSD²), b_item ~
//     N(0, ItemBiasSD²) shifted up by 0.1 per standard deviation of log
//     popularity (popular items are rated higher, as in MovieLens),
//     u, v ~ N(0, diag(s_a²)) with s_a² ∝ 1/(a+1) (a decaying spectrum)
//     and uᵀv of standard deviation FactorSD, noise
//     N(0, NoiseSD²).
//
// Version 1 ignores the fields marked "version 2". The zero value is not
// useful. Everything is deterministic for a given Seed: experimental
// data, not private data.
type Realistic struct {
	// Version selects the model: 2, or 1 (also 0).
	Version            int
	Users, Items, Rank int
	MinPerUser         int
	UserMedian         float64
	UserSpread         float64
	ItemExponent       float64 // version 1 only
	Mean               float64 // version 1 only
	UserBiasSD         float64
	ItemBiasSD         float64
	FactorSD           float64
	NoiseSD            float64
	Seed               uint64

	// ItemSpread is the SD of an item's log popularity weight (version 2).
	ItemSpread float64
	// ItemBiasCorr is the correlation of an item's bias with its log
	// popularity weight; UserBiasCorr that of a user's bias with the
	// normal draw of its activity (version 2).
	ItemBiasCorr, UserBiasCorr float64
	// SpectrumDecay: the taste's a-th coordinate has variance ∝
	// (a+1)^(−SpectrumDecay) (version 2; version 1 uses 1).
	SpectrumDecay float64
	// NoiseSpread is the SD of the log of a user's noise SD, which is
	// NoiseSD·exp(NoiseSpread·Z − NoiseSpread²/2) (version 2).
	NoiseSpread float64
	// Taste is how much a user's taste for an item (uᵀv in units of its
	// SD) raises the log-odds that the user rates it; Exposure the same
	// for a separate low-rank exposure pᵀq of unit SD and rank
	// ExposureRank, which shapes what users rate together but not how
	// they rate it (version 2).
	Taste, Exposure float64
	ExposureRank    int
	// PopularitySlope is the SD of a user's own slope on item popularity:
	// user i's latent ratings gain γ_i·z_j, γ_i ~ N(0, PopularitySlope²)
	// and z_j the item's standard normal popularity draw, so users differ
	// in how much more than their bias they like popular items
	// (Stats.PopularitySlopeSD; version 2, 0: none).
	PopularitySlope float64
	// BiasScale is the SD of a user's own scale on the item biases: user
	// i's latent ratings use (1 + ζ_i)·b_j, ζ_i ~ N(0, BiasScale²), so
	// users differ in how closely they follow the crowd's view of an item
	// (Stats.BiasSlopeSD; version 2, 0: none).
	BiasScale float64
	// Hist is the target fraction of 1, 2, …, 5 star ratings: latent
	// values are cut at their own quantiles to match it (version 2).
	Hist [5]float64
}

// DefaultRealistic returns the fitted generator (version 2) at the given
// number of users: at 943 users the shape of MovieLens 100k (1 682 items,
// about 100 000 ratings), at 6 040 users that of MovieLens 1M (3 706
// items, about 1 M ratings): items scale as users^0.425 and the median
// activity above the minimum of 20 as users^0.28, power laws through
// both. The other
// parameters were fitted at 943 users to MovieLens 100k's statistics
// (docs/generator.md, TestFitSideBySide).
func DefaultRealistic(users int, seed uint64) Realistic {
	// Power laws through (943, 1 682) and (6 040, 3 706) for items and
	// through (943, 45) and (6 040, 76) for the median activity above 20.
	scale, span := float64(users)/943, math.Log(6040.0/943)
	items := int(math.Round(1682 * math.Pow(scale, math.Log(3706.0/1682)/span)))
	return Realistic{
		Version: 2,
		Users:   users, Items: max(items, 50), Rank: 10,
		MinPerUser: 20, UserMedian: 45 * math.Pow(scale, math.Log(76.0/45)/span), UserSpread: 1.14,
		ItemSpread: 2.0, ItemBiasSD: 0.65, ItemBiasCorr: 0.75,
		UserBiasSD: 0.5, UserBiasCorr: 0.08,
		FactorSD: 0.5, SpectrumDecay: 1, NoiseSD: 0.95, NoiseSpread: 0.25,
		Taste: 0.6, Exposure: 2.2, ExposureRank: 10, PopularitySlope: 0.1, BiasScale: 0.4,
		Hist: [5]float64{0.061, 0.114, 0.271, 0.342, 0.212},
		Seed: seed,
	}
}

// LegacyRealistic returns the version 1 generator of issues up to 25, a
// MovieLens-1M-like shape at 6 040 users: 3 706 items at 6 040 users
// (items scale with users^0.6), at least 20 ratings per user, median 96
// and mean about 160 (UserMedian 76, UserSpread 1.1), Zipf exponent 0.9
// over items, rank 10, mean 3.6 and standard deviations 0.45 (users),
// 0.45 (items), 0.45 (factors), 0.85 (noise). Its figures are those
// quoted before issue 26; which items a user rates depends on
// popularity alone, so it is useless for ranking.
func LegacyRealistic(users int, seed uint64) Realistic {
	items := int(math.Round(3706 * math.Pow(float64(users)/6040, 0.6)))
	return Realistic{
		Version: 1,
		Users:   users, Items: max(items, 50), Rank: 10,
		MinPerUser: 20, UserMedian: 76, UserSpread: 1.1, ItemExponent: 0.9,
		Mean: 3.6, UserBiasSD: 0.45, ItemBiasSD: 0.45, FactorSD: 0.45, NoiseSD: 0.85,
		Seed: seed,
	}
}

// Generate draws the data set. Users and items are named "1", "2", …;
// items are numbered in a random order, not by popularity. It returns an
// error naming the field if a size or parameter is out of range.
func (o Realistic) Generate() (*ratings.Dataset, error) {
	if o.Version == 2 {
		return o.generateV2()
	}
	if o.Version != 0 && o.Version != 1 {
		return nil, fmt.Errorf("synthetic: realistic version = %d, want 1 or 2", o.Version)
	}
	switch {
	case o.Users < 1 || o.Users > 1e7:
		return nil, fmt.Errorf("synthetic: realistic users = %d, want in [1, 1e7]", o.Users)
	case o.Items < 2 || o.Items > 1e7:
		return nil, fmt.Errorf("synthetic: realistic items = %d, want in [2, 1e7]", o.Items)
	case o.Rank < 0 || o.Rank > o.Items:
		return nil, fmt.Errorf("synthetic: realistic rank = %d, want in [0, items]", o.Rank)
	case o.MinPerUser < 1 || o.MinPerUser > o.Items/2:
		return nil, fmt.Errorf("synthetic: realistic min per user = %d, want in [1, items/2 = %d]", o.MinPerUser, o.Items/2)
	case !(o.UserMedian >= 0), !(o.UserSpread >= 0), !(o.ItemExponent >= 0), !(o.UserBiasSD >= 0), !(o.ItemBiasSD >= 0), !(o.FactorSD >= 0), !(o.NoiseSD >= 0), math.IsNaN(o.Mean):
		return nil, fmt.Errorf("synthetic: realistic: user median and spread, exponent and standard deviations must be ≥ 0 and finite")
	}
	r := o.Rank
	g := rng.Stream(o.Seed, 100)
	// Item k in popularity order is item perm[k].
	perm := g.Perm(o.Items)
	weight := make([]float64, o.Items) // by popularity rank
	var logMean, logSq float64
	for k := range weight {
		weight[k] = math.Pow(float64(k+1), -o.ItemExponent)
		l := math.Log(weight[k])
		logMean += l
		logSq += l * l
	}
	logMean /= float64(o.Items)
	logSD := math.Sqrt(math.Max(logSq/float64(o.Items)-logMean*logMean, 1e-12))
	ib := make([]float64, o.Items)
	v := make([]float64, o.Items*r)
	// Coordinate a of u and of v is N(0, s_a²) with s_a² ∝ 1/(a+1), a
	// decaying spectrum as in real ratings, and Σ s_a⁴ = FactorSD², so
	// uᵀv has standard deviation FactorSD.
	fs := make([]float64, r)
	var norm float64
	for a := range fs {
		fs[a] = 1 / float64(a+1)
		norm += fs[a] * fs[a]
	}
	for a := range fs {
		fs[a] = math.Sqrt(fs[a] * o.FactorSD / math.Sqrt(norm))
	}
	for k := range o.Items {
		j := perm[k]
		ib[j] = o.ItemBiasSD*g.NormFloat64() + 0.1*(math.Log(weight[k])-logMean)/logSD
		for a := range r {
			v[j*r+a] = fs[a] * g.NormFloat64()
		}
	}
	// Cumulative weights for inverse-CDF sampling of popularity ranks.
	cum := make([]float64, o.Items)
	var s float64
	for k, w := range weight {
		s += w
		cum[k] = s
	}
	maxPer := o.Items / 2
	var triples []ratings.Triple
	u := make([]float64, r)
	seen := make(map[int]struct{})
	for i := range o.Users {
		gi := rng.Stream(o.Seed, 200+uint64(i))
		n := o.MinPerUser + int(math.Round(o.UserMedian*math.Exp(o.UserSpread*gi.NormFloat64())))
		n = min(max(n, o.MinPerUser), maxPer)
		ub := o.UserBiasSD * gi.NormFloat64()
		for a := range u {
			u[a] = fs[a] * gi.NormFloat64()
		}
		clear(seen)
		for len(seen) < n {
			k, _ := slices.BinarySearch(cum, gi.Float64()*s)
			k = min(k, o.Items-1)
			j := perm[k]
			if _, dup := seen[j]; dup {
				continue
			}
			seen[j] = struct{}{}
			x := o.Mean + ub + ib[j] + o.NoiseSD*gi.NormFloat64()
			for a := range r {
				x += u[a] * v[j*r+a]
			}
			x = math.Min(math.Max(math.Round(x), 1), 5)
			triples = append(triples, ratings.Triple{User: int32(i), Item: int32(j), Value: x})
		}
	}
	m, err := ratings.New(o.Users, o.Items, triples)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	return &ratings.Dataset{
		Ratings: m, Users: ratings.NumberedIDs(o.Users, 1), Items: ratings.NumberedIDs(o.Items, 1),
		Min: 1, Max: 5, Source: fmt.Sprintf("synthetic realistic %d users × %d items, rank %d, seed %d", o.Users, o.Items, o.Rank, o.Seed),
		Format: ratings.FormatCSV, FormatReason: "generated",
	}, nil
}
