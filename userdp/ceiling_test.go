package userdp

import (
	"context"
	"math"
	"testing"

	"github.com/dpmc/dpmc/solver"
)

// paperALSWRBestU1 is the best test RMSE of paper-mode ALS-WR (dpmc
// train --algo als --mechanism none --lambda-scale count --iters 15
// --seed 1) on MovieLens 100k u1 over rank 4, 8, 16, 32 and λ = 0.05,
// 0.08, 0.1, 0.11, 0.12, 0.13, 0.15, 0.2, 0.3: rank 8, λ = 0.13.
const paperALSWRBestU1 = 0.9255

// The no-noise pipeline is the ceiling of the private one, and a real
// ALS: on MovieLens 100k u1 it reaches at least what the best paper-mode
// ALS-WR of a grid reaches (issue 26, item 3).
func TestNoNoiseReachesTunedALSWR(t *testing.T) {
	if raceEnabled {
		t.Skip("numbers only; runs in the plain pass, not under the race detector")
	}
	tr, te := movieLensU1(t)
	// The grid's best, retrained, so that the bar moves with the solver.
	m, err := solver.Train(context.Background(), tr.Ratings, solver.Options{
		Algorithm: solver.ALS, Rank: 8, Lambda: 0.13, LambdaScale: solver.LambdaCount,
		Iters: 15, Seed: 1, Seeded: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	als, _ := m.Errors(te.Ratings, solver.Clip{Min: tr.Min, Max: tr.Max, On: true})
	if math.Abs(als-paperALSWRBestU1) > 0.003 {
		t.Logf("paper-mode ALS-WR (rank 8, λ = 0.13) now %.4f, measured %.4f", als, paperALSWRBestU1)
	}
	o := Defaults(math.Inf(1), 0, tr.Min, tr.Max)
	o.Seeded, o.Seed = true, 1
	res := train(t, tr, o)
	rmse, _ := res.FoldInAll(tr).Errors(te.Ratings)
	t.Logf("no-noise pipeline %.4f, paper-mode ALS-WR best %.4f (measured %.4f)", rmse, als, paperALSWRBestU1)
	if bar := math.Min(als, paperALSWRBestU1); rmse > bar {
		t.Errorf("no-noise test RMSE %.4f, want ≤ %.4f (tuned paper-mode ALS-WR)", rmse, bar)
	}
}
