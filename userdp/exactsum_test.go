package userdp

import "testing"

// usersSums is the mean's sums of n users without ratings (a number of
// users to release).
func usersSums(n float64) MeanSums {
	var s MeanSums
	s.Users.AddUnits(int64(n))
	return s
}

// releaseCountOf releases one item's count whose exact sum is the single
// term sum.
func releaseCountOf(t testing.TB, p *Plan, id string, sum float64) float64 {
	t.Helper()
	var s Sum
	s.Add(p.grids.unit, sum)
	c, err := p.ReleaseCount(id, s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
