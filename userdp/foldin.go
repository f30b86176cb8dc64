package userdp

import "math"

// FoldIn computes one user's bias and factor from the release and the
// user's own ratings, exactly as FoldInAll does for each user of a data
// set: items[p] is the index (into ItemIDs) of the item rated vals[p], or
// for an item that was not released its TailIndex: −1 counts it with item
// bias TailBias and factor 0, and with tail buckets −2 − b with bucket b's
// bias and as factor row zero learned factors and the bucket's feature
// columns. Ratings are clipped to [Min, Max] first. The returned factor
// has Rank entries; a user without ratings gets zero for both. Only res's
// released fields are read (Rank, Features, Mu, ItemBias, TailBias, V,
// BucketBias, BucketV, Min, Max and the three user ridges), so a Result
// rebuilt from a saved model gives the same answer bit for bit.
func (res *Result) FoldIn(items []int32, vals []float64) (factor []float64, bias float64) {
	clipped := make([]float64, len(vals))
	for p, x := range vals {
		clipped[p] = math.Min(math.Max(x, res.Min), res.Max)
	}
	factor = make([]float64, res.Rank)
	newWorkspace(res.Rank).foldIn(res, res.V, items, clipped, factor, &bias)
	return factor, bias
}
