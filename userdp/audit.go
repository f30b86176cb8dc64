package userdp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dpmc/dpmc/ratings"
)

// AuditFit returns a training function for audit.Train (its TrainFunc):
// one seeded, single-threaded run of Train on x with opts and a public
// catalogue of all of x's columns (so both neighbours release the same
// items), returning the release as an n × (r+2) matrix whose row j is
// [v_j, b_j, W̃_j]: the r learned item factors (Result.LearnedRank; the
// feature columns, functions of W̃_j, b_j and b_tail, are left out), the
// item bias and the noisy count. The auditor's statistics of that matrix (inner products
// and cosines between rows) then see every per-item release; the global
// mean and the number of users are not audited.
func AuditFit(opts Options) func(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
	return func(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
		d := &ratings.Dataset{Ratings: x, Users: ratings.NumberedIDs(x.Rows(), 0), Items: ratings.NumberedIDs(x.Cols(), 0), Min: opts.Min, Max: opts.Max}
		o := opts
		if o.Items == nil {
			o.Items = make([]string, x.Cols())
			for k := range o.Items {
				o.Items[k] = strconv.Itoa(k)
			}
		}
		o.Seeded, o.Seed, o.Workers, o.Progress = true, seed, 1, nil
		res, err := Train(ctx, d, o)
		if err != nil {
			return nil, err
		}
		n, r, cols := len(res.ItemIDs), res.LearnedRank(), res.Rank
		if n != x.Cols() {
			return nil, fmt.Errorf("userdp: audit: %d items released, want %d", n, x.Cols())
		}
		out := make([]float64, 0, n*(r+2))
		for j := range n {
			out = append(out, res.V[j*cols:j*cols+r]...)
			out = append(out, res.ItemBias[j], res.Counts[j])
		}
		return out, nil
	}
}
