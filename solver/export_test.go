package solver

// userLevelStats is userLevelStatsWith on fresh scratch space, for the
// tests.
func (t *trainer) userLevelStats(j int, theta, gram, rhs []float64) {
	t.userLevelStatsWith(newScratch(t.opts.Rank, blockRows(t.x)), j, theta, gram, rhs)
}
