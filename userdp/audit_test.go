package userdp_test

import (
	"context"
	"testing"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/userdp"
)

// The empirical auditor passes the pipeline's true total and flags a false
// claim. Each verdict is at 95 % confidence: a true claim is flagged with
// probability ≤ 5 %, and the seeds are fixed, so this test is
// deterministic.
func TestAuditTrueAndFalseClaims(t *testing.T) {
	data, err := audit.TinyTrainData()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		eps       float64
		rank      int
		claim     float64
		violation bool
	}{
		{"true total, biases only", 1, 0, 1, false},
		{"true total, with factors", 2, 2, 2, false},
		{"false claim of ε = 0.25 for an ε = 200 run", 200, 0, 0.25, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := userdp.Defaults(tc.eps, 1e-6, data.Min, data.Max).WithFactors(tc.rank, 1, 0.3)
			o.HeadItems = 6
			o.TailCount = 0
			res, err := audit.Train(context.Background(), audit.TrainOptions{
				Options: audit.Options{Claim: noise.Guarantee{Epsilon: tc.claim, Delta: 1e-6}},
				Data:    data.Data, Neighbour: data.Neighbour, Fit: userdp.AuditFit(o),
				Runs: 400, Seeded: true, Seed: 5, Workers: 2,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Verdict == audit.Violation
			if got != tc.violation {
				t.Errorf("verdict %v (ε ≥ %.3g with %s), want violation = %v", res.Verdict, res.EpsilonLower, res.Statistic, tc.violation)
			}
		})
	}
}
