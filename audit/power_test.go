package audit_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/dpmc/dpmc/audit"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/userdp"
)

// A training audit with power: the audits of the whole pipeline against
// its total (TestAuditTrueAndFalseClaims, TestTrainUserLevelPasses) find
// ε ≥ 0 on the correct pipeline and on one with half the noise alike —
// the total's ε is far beyond what a few hundred runs can show. This
// audit isolates one release, the item counts, and tests its own claim:
//
//   - each run trains userdp on the built-in data (TinyTrainData: the
//     target user rates all 6 items, so removing the user moves each
//     count by 1/√6 and the count vector by exactly Δ₂ = 1) with a public
//     catalogue and a budget share that makes the counts release
//     μ = Δ₂/σ ≈ 1 (ρ = ½ zCDP);
//   - the run's output is S = Σⱼ W̃ⱼ/√6, the counts projected on the
//     direction the target moves them (a 1-D Gaussian: shift 1, noise σ,
//     the most powerful statistic), handed to audit.Train as the 1 × 1
//     factor of item 0, √exp(S), whose Gram entry exp(S) is monotone in
//     S (the other items' factors are constant);
//   - the claim is the counts release's own guarantee as the report
//     states it, (ε, δ) from ρ = μ²/2 at δ = 0.2 (ε ≈ 1.18), where the
//     curve of a halved σ (μ = 2) is far from the claim's.
//
// False alarms: at Confidence 0.999 a correct claim is flagged with
// probability at most 10⁻³ per audit (seeded: deterministic). Power: with
// 1000 audited runs per side, the halved noise was flagged in 40 of 40
// seeds and the correct pipeline in 0 of 40 (DPMC_AUDIT_POWER=40, one
// minute on 2 loaded cores; see powerSeeds): the power is at least 0.93
// at 95 % confidence (Clopper–Pearson, 40 of 40). CI cost: two audits of
// 2 × 1200 runs, about a second.

// powerConfidence is the audits' joint confidence: false-alarm rate 10⁻³.
const powerConfidence = 0.999

// powerClaimDelta is the δ at which the release's curve is tested.
const powerClaimDelta = 0.2

// powerEpsilon is the run's total ε at δ = 10⁻⁶: large enough that the
// counts' share for μ = 1, quadrupled, still fits in the budget.
const powerEpsilon = 30

// countsName is the report's name of the counts release.
const countsName = "item counts (weights 1/√n per user)"

// countsOptions returns userdp options on the tiny data whose counts
// release has the budget share countShare of μ² (the rest to the biases
// and 2 % to the mean), with a public catalogue of its items.
func countsOptions(sampler userdp.Sampler, countShare float64) userdp.Options {
	items := make([]string, audit.TinyItems)
	for k := range items {
		items[k] = strconv.Itoa(k)
	}
	o := userdp.Defaults(powerEpsilon, 1e-6, audit.TinyMin, audit.TinyMax).WithFactors(0, 0, 0).WithCatalogue(items)
	o.Shares = userdp.Shares{Mean: 0.02, Counts: countShare, Biases: 0.98 - countShare}
	o.Sampler = sampler
	return o
}

// countsFit trains with o and returns √exp(S), S the noisy counts
// projected on the target's direction.
func countsFit(o userdp.Options) audit.TrainFunc {
	return func(ctx context.Context, x *ratings.Matrix, seed uint64) ([]float64, error) {
		d := &ratings.Dataset{Ratings: x, Users: ratings.NumberedIDs(x.Rows(), 0), Items: ratings.NumberedIDs(x.Cols(), 0), Min: o.Min, Max: o.Max}
		o := o
		o.Seeded, o.Seed, o.Workers = true, seed, 1
		res, err := userdp.Train(ctx, d, o)
		if err != nil {
			return nil, err
		}
		var s float64
		for _, c := range res.Counts {
			s += c
		}
		// V is items × 1: the statistic in row 0, the other rows constant.
		v := make([]float64, len(res.Counts))
		for k := range v {
			v[k] = 1
		}
		v[0] = math.Exp(s / math.Sqrt(float64(len(res.Counts))) / 2)
		return v, nil
	}
}

// countsClaim returns the share that gives the counts release μ = 1 and
// the claim its report states for it: (ε, powerClaimDelta) from
// ρ = (Δ₂/σ)²/2. It fails unless the stated μ is within 1 % of 1.
func countsClaim(t *testing.T, sampler userdp.Sampler) (share float64, claim noise.Guarantee) {
	t.Helper()
	rho, err := userdp.RhoFor(powerEpsilon, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	share = 1 / (2 * rho) // μ² = share·2ρ = 1
	if sampler == userdp.SamplerFloat {
		mu, err := userdp.MuFor(powerEpsilon, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		share = 1 / (mu * mu)
	}
	data := tiny(t)
	fit := countsOptions(sampler, share)
	fit.Seeded, fit.Seed, fit.Workers = true, 1, 1
	res, err := userdp.Train(context.Background(), &ratings.Dataset{Ratings: data.Data, Users: ratings.NumberedIDs(data.Data.Rows(), 0), Items: ratings.NumberedIDs(data.Data.Cols(), 0), Min: data.Min, Max: data.Max}, fit)
	if err != nil {
		t.Fatal(err)
	}
	var rel *userdp.Release
	for k := range res.Report.Releases {
		if res.Report.Releases[k].Name == countsName {
			rel = &res.Report.Releases[k]
		}
	}
	if rel == nil {
		t.Fatalf("no release %q in the report", countsName)
	}
	mu := rel.L2 / rel.Sigma
	if math.Abs(mu-1) > 0.01 {
		t.Fatalf("counts release μ = %g, want 1", mu)
	}
	eps, err := discrete.ZCDPEpsilon(mu*mu/2, powerClaimDelta)
	if err != nil {
		t.Fatal(err)
	}
	return share, noise.Guarantee{Epsilon: eps, Delta: powerClaimDelta}
}

// auditCounts audits the counts release of options o against claim.
func auditCounts(t *testing.T, o userdp.Options, claim noise.Guarantee, runs int, seed uint64) audit.TrainResult {
	t.Helper()
	data := tiny(t)
	res, err := audit.Train(context.Background(), audit.TrainOptions{
		Options: audit.Options{Claim: claim, Confidence: powerConfidence},
		Data:    data.Data, Neighbour: data.Neighbour, Fit: countsFit(o),
		Runs: runs, Seeded: true, Seed: seed, Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// powerSeeds is the number of seeds of the long version
// (DPMC_AUDIT_POWER=n): it repeats both audits n times and reports how
// often each was flagged.
func powerSeeds(t *testing.T) int {
	v := os.Getenv("DPMC_AUDIT_POWER")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("DPMC_AUDIT_POWER=%q, want a number of seeds ≥ 1", v)
	}
	return n
}

// The counts release passes the audit of its own claim, and the same
// pipeline with its counts noise halved (its share of μ² quadrupled, the
// claim unchanged: the report's σ, twice the σ drawn) is flagged.
func TestTrainAuditOneReleasePower(t *testing.T) {
	if audit.RaceEnabled {
		t.Skip("statistical: runs without -race")
	}
	const runs = 1000
	seeds := powerSeeds(t)
	for _, sampler := range []userdp.Sampler{userdp.SamplerDiscrete} {
		share, claim := countsClaim(t, sampler)
		for _, tc := range []struct {
			name      string
			share     float64
			violation bool
		}{
			{"correct", share, false},
			{"half the noise", 4 * share, true},
		} {
			t.Run(fmt.Sprintf("%v/%s", sampler, tc.name), func(t *testing.T) {
				flagged := 0
				for s := range seeds {
					res := auditCounts(t, countsOptions(sampler, tc.share), claim, runs, uint64(11+s))
					got := res.Verdict == audit.Violation
					if got {
						flagged++
					}
					if seeds == 1 && got != tc.violation {
						t.Errorf("claim (ε %.3f, δ %g): verdict %v, ε ≥ %.3f on %s; want violation = %v", claim.Epsilon, claim.Delta, res.Verdict, res.EpsilonLower, res.Statistic, tc.violation)
					}
					if seeds == 1 {
						t.Logf("claim (ε %.3f, δ %g): %v, ε ≥ %.3f (ceiling %.2f) on %s", claim.Epsilon, claim.Delta, res.Verdict, res.EpsilonLower, res.Ceiling, res.Statistic)
					}
				}
				if seeds > 1 {
					t.Logf("flagged in %d of %d seeds", flagged, seeds)
				}
			})
		}
	}
}
