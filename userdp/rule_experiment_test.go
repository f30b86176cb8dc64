package userdp

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/solver"
	"github.com/dpmc/dpmc/synthetic"
)

// The experiments behind Defaults' rule (docs/private-models.md): seeded
// runs (the float sampler, seeds 100–102; experiments, not releases) of
// Train on the generator's 80/20 split at DPMC_USERS users (default
// 6 040; data seed 1, split seed 2, as dpmc utility) and on MovieLens 100k
// u1 (when ../shared/data has it), at the total ε of DPMC_EPSILONS
// (default 1,5,10,20; "Inf" for no noise), with the rule changed as
// DPMC_VARIANT says (comma-separated key=value, keys in ruleVariant).
// Each line prints the median test RMSE of the three seeds:
//
//	DPMC_RULE_EXPERIMENT=1 DPMC_VARIANT=clip=1 go test ./userdp -run TestRuleExperiment -v
//
// They are skipped unless DPMC_RULE_EXPERIMENT is set.
func TestRuleExperiment(t *testing.T) {
	if os.Getenv("DPMC_RULE_EXPERIMENT") == "" {
		t.Skip("an experiment: set DPMC_RULE_EXPERIMENT=1 to run it")
	}
	type set struct {
		name   string
		tr, te *ratings.Dataset
	}
	var sets []set
	if os.Getenv("DPMC_GENERATOR") != "0" {
		tr, te := generatorSplit(t)
		sets = append(sets, set{"generator", tr, te})
	}
	if os.Getenv("DPMC_U1") != "0" {
		tr, te := movieLensU1(t)
		sets = append(sets, set{"MovieLens 100k u1", tr, te})
	}
	eps := []float64{1, 5, 10, 20}
	if s := os.Getenv("DPMC_EPSILONS"); s != "" {
		eps = eps[:0]
		for _, f := range strings.Split(s, ",") {
			e, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("DPMC_EPSILONS: %v", err)
			}
			eps = append(eps, e)
		}
	}
	variant := os.Getenv("DPMC_VARIANT")
	for _, st := range sets {
		for _, e := range eps {
			var rs []float64
			for s := range 3 {
				o := Defaults(e, 1e-6, st.tr.Min, st.tr.Max)
				o.Seeded, o.Seed, o.Sampler = true, uint64(100+s), SamplerFloat
				if err := ruleVariant(&o, variant); err != nil {
					t.Fatal(err)
				}
				if slices.Contains(strings.Split(variant, ","), "catalogue=1") {
					items := make([]string, st.tr.Items.Len())
					for j := range items {
						items[j] = st.tr.Items.ID(j)
					}
					o = o.WithCatalogue(items)
				}
				res, err := Train(context.Background(), st.tr, o)
				if err != nil {
					t.Fatal(err)
				}
				r, _ := res.FoldInAll(st.tr).Errors(st.te.Ratings)
				rs = append(rs, r)
				if s == 0 {
					head := 0
					for j := range res.ItemIDs {
						for _, x := range res.V[j*res.Rank : j*res.Rank+res.LearnedRank()] {
							if x != 0 {
								head++
								break
							}
						}
					}
					t.Logf("%s, ε = %g: %d of %d items released, %d with rank-%d factors", st.name, e, len(res.ItemIDs), st.tr.Items.Len(), head, res.LearnedRank())
				}
				if o.NoNoise {
					break
				}
			}
			sort.Float64s(rs)
			t.Logf("%s, ε = %g, variant %q: test RMSE median %.4f of %.4f", st.name, e, variant, rs[len(rs)/2], rs)
		}
	}
}

// generatorSplit is dpmc utility's synthetic split at DPMC_USERS users.
func generatorSplit(t *testing.T) (tr, te *ratings.Dataset) {
	users := 6040
	if s := os.Getenv("DPMC_USERS"); s != "" {
		var err error
		if users, err = strconv.Atoi(s); err != nil {
			t.Fatalf("DPMC_USERS: %v", err)
		}
	}
	d, err := synthetic.DefaultRealistic(users, 1).Generate()
	if err != nil {
		t.Fatal(err)
	}
	if tr, te, err = ratings.Split(d, 0.2, rng.Seeded(2)); err != nil {
		t.Fatal(err)
	}
	return tr, te
}

// ruleVariant changes o as v says: comma-separated key=value pairs. The
// keys are those of floats and ints (an option each), the shares
// (factor-share and count-share take from or give to the item biases),
// oracle (releases joined by +, whose noise is divided by 1 000; see
// Options.oracle) and catalogue=1 (TestRuleExperiment: every training
// item as a public catalogue).
func ruleVariant(o *Options, v string) error {
	if v == "" {
		return nil
	}
	floats := map[string]*float64{
		"bias-bound": &o.BiasBound, "bias-prior": &o.BiasPrior, "bias-lambda": &o.BiasLambda,
		"head-noise-ratio": &o.HeadNoiseRatio, "residual": &o.ResidualBound, "clip": &o.ClipNorm,
		"threshold":      &o.AutoFactorThreshold, // users × ε from which factors are on
		"start-rated":    &o.StartRatedWeight,    // the start's rated term a
		"adaptive-power": &o.AdaptivePower, "user-bias-lambda": &o.UserBiasLambda,
		"user-lambda": &o.UserLambda, "lambda": &o.Lambda, "noise-lambda": &o.NoiseLambda,
		"pca-share":       &o.Shares.PCA,
		"popularity":      &o.PopularityScale, // the popularity column's scale (0: none)
		"bias-column":     &o.BiasColumnScale, // the item-bias column's scale (0: none)
		"selection-delta": &o.SelectionDelta,  // δ_sel as a share of δ
	}
	ints := map[string]*int{"tail-buckets": &o.TailBuckets, "rank": &o.Rank, "iters": &o.Iters, "head": &o.HeadItems, "start": &o.StartItems, "max-items": &o.MaxItemsPerUser}
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(kv, "=")
		if k == "oracle" {
			o.oracle = strings.Split(val, "+")
			continue
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("DPMC_VARIANT %q: %v", kv, err)
		}
		switch {
		case floats[k] != nil:
			*floats[k] = f
		case ints[k] != nil:
			*ints[k] = int(f)
		case k == "factor-share":
			o.Shares.Biases += o.Shares.Factors - f
			o.Shares.Factors = f
		case k == "count-share":
			o.Shares.Biases += o.Shares.Counts - f
			o.Shares.Counts = f
		case k == "bias-trend": // 0: the items' bias prior has mean 0
			o.NoBiasTrend = f == 0
		case k == "catalogue": // handled by TestRuleExperiment
		default:
			return fmt.Errorf("DPMC_VARIANT: unknown key %q", k)
		}
	}
	return nil
}

// Paper-mode ALS-WR on the generator's split over a grid of rank and λ,
// the bar for the no-noise pipeline (DPMC_EPSILONS=Inf above):
//
//	DPMC_RULE_EXPERIMENT=1 go test ./userdp -run TestALSWRGridGenerator -v
func TestALSWRGridGenerator(t *testing.T) {
	if os.Getenv("DPMC_RULE_EXPERIMENT") == "" {
		t.Skip("an experiment: set DPMC_RULE_EXPERIMENT=1 to run it")
	}
	tr, te := generatorSplit(t)
	best := math.Inf(1)
	for _, rank := range []int{8, 16, 32} {
		for _, lam := range []float64{0.04, 0.06, 0.08, 0.1, 0.13} {
			m, err := solver.Train(context.Background(), tr.Ratings, solver.Options{
				Algorithm: solver.ALS, Rank: rank, Lambda: lam, LambdaScale: solver.LambdaCount,
				Iters: 15, Seed: 1, Seeded: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := m.Errors(te.Ratings, solver.Clip{Min: tr.Min, Max: tr.Max, On: true})
			best = math.Min(best, r)
			t.Logf("ALS-WR rank %d, λ = %g: test RMSE %.4f", rank, lam, r)
		}
	}
	t.Logf("best %.4f", best)
}
