package userdp

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmc/dpmc/metrics"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

// dataset builds a Dataset from (user, item, rating) triples with string
// IDs, dropping the ratings of user drop ("" keeps all).
func dataset(t *testing.T, rows [][3]string, drop string) *ratings.Dataset {
	t.Helper()
	var uids, iids []string
	uidx, iidx := map[string]int32{}, map[string]int32{}
	var triples []ratings.Triple
	for _, r := range rows {
		if r[0] == drop {
			continue
		}
		u, ok := uidx[r[0]]
		if !ok {
			u = int32(len(uids))
			uidx[r[0]] = u
			uids = append(uids, r[0])
		}
		i, ok := iidx[r[1]]
		if !ok {
			i = int32(len(iids))
			iidx[r[1]] = i
			iids = append(iids, r[1])
		}
		v, err := strconv.ParseFloat(r[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		triples = append(triples, ratings.Triple{User: u, Item: i, Value: v})
	}
	m, err := ratings.New(len(uids), len(iids), triples)
	if err != nil {
		t.Fatal(err)
	}
	users, _ := ratings.NewIDs(uids)
	items, _ := ratings.NewIDs(iids)
	return &ratings.Dataset{Ratings: m, Users: users, Items: items, Min: 1, Max: 5}
}

// small is 30 users over items a–f; user "lonely" is the only rater of
// item "z" and also rates every other item.
func small(t *testing.T, drop string) *ratings.Dataset {
	var rows [][3]string
	items := []string{"a", "b", "c", "d", "e", "f"}
	g := rng.Seeded(11)
	for u := range 30 {
		for k, it := range items {
			if (u+k)%3 == 0 {
				continue
			}
			rows = append(rows, [3]string{strconv.Itoa(u), it, strconv.Itoa(1 + g.IntN(5))})
		}
	}
	for _, it := range append(items, "z") {
		rows = append(rows, [3]string{"lonely", it, "5"})
	}
	return dataset(t, rows, drop)
}

func train(t *testing.T, d *ratings.Dataset, o Options) *Result {
	t.Helper()
	o.Seeded, o.Seed = true, 42
	res, err := Train(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// With a catalogue the released item list is the catalogue, whatever the
// data: removing the only rater of an item changes nothing about it.
func TestCatalogueItemListIsPublic(t *testing.T) {
	catalogue := []string{"z", "b", "a", "c", "d", "e", "f", "unrated"}
	for _, rank := range []int{0, 2} {
		o := Defaults(2, 1e-6, 1, 5).WithFactors(rank, 1, 0.3)
		o = o.WithCatalogue(catalogue)
		o.HeadItems = 5
		full := train(t, small(t, ""), o)
		without := train(t, small(t, "lonely"), o)
		if !slices.Equal(full.ItemIDs, without.ItemIDs) {
			t.Errorf("rank %d: item lists differ: %v vs %v", rank, full.ItemIDs, without.ItemIDs)
		}
		want := []string{"a", "b", "c", "d", "e", "f", "unrated", "z"}
		if !slices.Equal(full.ItemIDs, want) {
			t.Errorf("rank %d: items %v, want the catalogue in canonical order %v", rank, full.ItemIDs, want)
		}
		if len(full.ItemBias) != len(want) || full.Rank != rank+len(full.Features) || len(full.Features) != 2 || without.Rank != full.Rank || len(full.V) != len(want)*full.Rank || len(without.V) != len(full.V) {
			t.Errorf("rank %d: release sizes depend on the data", rank)
		}
	}
}

// Without a catalogue an item rated by one user only is not released, even
// at a large ε, while items with many raters are.
func TestSelectionDropsSingleRaterItem(t *testing.T) {
	for _, eps := range []float64{1, 10, 100} {
		res := train(t, small(t, ""), Defaults(eps, 1e-6, 1, 5))
		if slices.Contains(res.ItemIDs, "z") {
			t.Errorf("ε = %g: item z (one rater) was released: %v", eps, res.ItemIDs)
		}
		if eps == 100 && len(res.ItemIDs) != 6 {
			t.Errorf("ε = %g: released %v, want the 6 popular items", eps, res.ItemIDs)
		}
	}
}

// l2dist is the ℓ2 distance between two equally long vectors.
func l2dist(a, b []float64) float64 {
	var s float64
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}

// checkMoved checks that a release moved by the nominal sensitivity l2
// between neighbours: exactly with float noise (the seeded noise cancels);
// with discrete noise within γ√n of it, n the release's coordinates (each
// rounding to the grid moves a coordinate by less than γ), and never more
// than the release's reported, rounding-inclusive sensitivity.
func checkMoved(t *testing.T, res *Result, prefix string, d, l2 float64, n int) {
	t.Helper()
	var rel *Release
	for k := range res.Report.Releases {
		if strings.HasPrefix(res.Report.Releases[k].Name, prefix) {
			rel = &res.Report.Releases[k]
		}
	}
	if rel == nil {
		t.Fatalf("no release named %q in the report", prefix)
	}
	slack := 1e-9
	if rel.Grid > 0 {
		slack = rel.Grid * math.Sqrt(float64(n))
	}
	if math.Abs(d-l2) > slack {
		t.Errorf("%s (%s noise) moved by %.12g, want the sensitivity %g (± %.3g)", prefix, res.Report.Sampler, d, l2, slack)
	}
	// The upper bound is checked here on the discrete sampler's releases,
	// whose grid arithmetic is exact. With float noise the released values
	// are x + σN rounded to float64, so their difference also carries an
	// ulp of the noisy values: the float releases' bound is checked on the
	// exact statistics, before the noise, by TestEveryReleaseSensitivity.
	if rel.Grid > 0 && d > rel.L2 {
		t.Errorf("%s (%s noise) moved by %.12g, above the reported Δ₂ %.12g", prefix, res.Report.Sampler, d, rel.L2)
	}
}

// The count and bias-sum releases move by at most their stated ℓ2
// sensitivity when one user is removed, and the bound is attained by a
// user who contributes to every released item with a clipped deviation.
// Both runs use the same seed, so per-item noise cancels (up to the grid
// rounding with discrete noise).
func TestSensitivityBoundsAttained(t *testing.T) {
	for _, sampler := range []Sampler{SamplerDiscrete, SamplerFloat} {
		o := Defaults(5, 1e-6, 1, 5).WithCenter(1)
		o = o.WithCatalogue([]string{"a", "b", "c", "d", "e", "f", "z"})
		o.BiasBound = 0.5 // every deviation of the lonely user (5 − 1 − β) clips
		o.Sampler = sampler
		full := train(t, small(t, ""), o)
		without := train(t, small(t, "lonely"), o)
		checkMoved(t, full, "item counts", l2dist(full.Counts, without.Counts), 1, 7)
		checkMoved(t, full, "item bias sums", l2dist(full.biasSums, without.biasSums), o.BiasBound, 7)
	}
}

// Under private selection the bias release also carries the tail (the
// mean deviation of a user's ratings of items that were not released, and
// the user's tail weight). The lonely user rates the six released items
// and the unreleased z: removing that user moves the whole bias release —
// item sums and both tail coordinates — by exactly BiasBound, the stated
// sensitivity, and the counts of the released items by √(6/7) ≤ 1.
func TestTailSensitivityAttained(t *testing.T) {
	for _, sampler := range []Sampler{SamplerDiscrete, SamplerFloat} {
		o := Defaults(100, 1e-6, 1, 5).WithCenter(1)
		o.BiasBound = 0.5 // every deviation of the lonely user (5 − 1 − β) clips
		o.Sampler = sampler
		o.TailBuckets = 0 // the tail's two coordinates alone (TestTailBucketSensitivityAttained)
		full := train(t, small(t, ""), o)
		without := train(t, small(t, "lonely"), o)
		if !slices.Equal(full.ItemIDs, without.ItemIDs) || len(full.ItemIDs) != 6 {
			t.Fatalf("released %v and %v, want the same 6 items", full.ItemIDs, without.ItemIDs)
		}
		if len(full.biasSums) != 8 {
			t.Fatalf("bias release has %d coordinates, want 6 items + 2 tail", len(full.biasSums))
		}
		checkMoved(t, full, "item bias sums", l2dist(full.biasSums, without.biasSums), o.BiasBound, 8)
		if d := l2dist(full.biasSums[6:], without.biasSums[6:]); !(d > 0.1) {
			t.Errorf("tail coordinates moved by %g: the lonely user's tail rating is not counted", d)
		}
		checkMoved(t, full, "item counts", l2dist(full.Counts, without.Counts), math.Sqrt(6.0/7), 6)
	}
}

// With tail buckets the bias release also carries two coordinates per
// bucket, and the lonely user's unreleased item z moves the tail's and
// its bucket's: the whole release — item sums, the tail and every bucket —
// still moves by exactly BiasBound, with one bucket or several.
func TestTailBucketSensitivityAttained(t *testing.T) {
	for _, buckets := range []int{1, 3, 64} {
		for _, sampler := range []Sampler{SamplerDiscrete, SamplerFloat} {
			o := Defaults(100, 1e-6, 1, 5).WithCenter(1)
			o.BiasBound = 0.5
			o.Sampler = sampler
			o.TailBuckets = buckets
			full := train(t, small(t, ""), o)
			without := train(t, small(t, "lonely"), o)
			if len(full.ItemIDs) != 6 || len(full.bucketSums) != 2*buckets || len(full.BucketBias) != buckets {
				t.Fatalf("%d buckets: %d items, %d bucket coordinates, %d bucket biases", buckets, len(full.ItemIDs), len(full.bucketSums), len(full.BucketBias))
			}
			a := append(slices.Clone(full.biasSums), full.bucketSums...)
			b := append(slices.Clone(without.biasSums), without.bucketSums...)
			checkMoved(t, full, "item bias sums, the tail's (items not released) sum and weight, and each of "+strconv.Itoa(buckets)+" tail buckets", l2dist(a, b), o.BiasBound, len(a))
			if o.Sampler == SamplerDiscrete {
				// Δ₂′ pays the rounding of every coordinate a user can
				// change: k items, the tail's 2 and 2 per bucket of at
				// most k.
				for _, rel := range full.Report.Releases {
					if strings.HasPrefix(rel.Name, "item bias sums") {
						if want := o.BiasBound + rel.Grid*math.Sqrt(float64(2*o.MaxItemsPerUser+2)); math.Abs(rel.L2-want) > 1e-12 {
							t.Errorf("%d buckets: bias release Δ₂′ = %.15g, want B_b + γ·√(2k+2) = %.15g", buckets, rel.L2, want)
						}
					}
				}
			}
			z := TailBucket("z", buckets)
			if d := l2dist(full.bucketSums[2*z:2*z+2], without.bucketSums[2*z:2*z+2]); !(d > 0.1) {
				t.Errorf("%d buckets: z's bucket moved by %g: the lonely user's rating of z is not in it", buckets, d)
			}
		}
	}
}

// With tail buckets, Evaluate's errors use every item's prediction (its
// bucket's for an unreleased item) while its ranking scores unreleased
// items at the tail's prediction, as a model file's recommendations (its
// released items only) and utility's rating ranker do.
func TestEvaluateWithTailBuckets(t *testing.T) {
	full, err := synthetic.DefaultRealistic(300, 1).Generate()
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := ratings.Split(full, 0.2, rng.Seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	o := Defaults(2, 1e-6, tr.Min, tr.Max)
	o.TailBuckets = 1 << 10
	res := train(t, tr, o)
	if len(res.ItemIDs) == 0 || len(res.ItemIDs) == tr.Items.Len() {
		t.Fatalf("%d of %d items released: the test needs both kinds", len(res.ItemIDs), tr.Items.Len())
	}
	us := res.FoldInAll(tr)
	m := us.Evaluate(tr.Ratings, te.Ratings, metrics.Options{})
	if rmse, mae := us.Errors(te.Ratings); m.RMSE != rmse || m.MAE != mae {
		t.Errorf("Evaluate's errors %g, %g, want Errors' %g, %g", m.RMSE, m.MAE, rmse, mae)
	}
	opts := metrics.Options{Ranking: true, Clip: true, ClipMin: tr.Min, ClipMax: tr.Max}
	released := map[string]bool{}
	for _, id := range res.ItemIDs {
		released[id] = true
	}
	tail := metrics.Evaluate(tr.Ratings, te.Ratings, metrics.ScorerFunc(func(i, j int) float64 {
		if !released[tr.Items.ID(j)] {
			return res.Mu + res.TailBias + us.Bias[i]
		}
		return us.Score(i, j)
	}), opts)
	bucket := metrics.Evaluate(tr.Ratings, te.Ratings, metrics.ScorerFunc(us.Score), opts)
	if m.NDCG != tail.NDCG || m.Recall != tail.Recall {
		t.Errorf("Evaluate ranks with NDCG %g, recall %g; with unreleased items at the tail's score %g, %g", m.NDCG, m.Recall, tail.NDCG, tail.Recall)
	}
	if bucket.NDCG == tail.NDCG {
		t.Errorf("ranking by the buckets' scores gives the same NDCG %g: the test cannot tell the two apart", bucket.NDCG)
	}
}

// Every tail bucket is released with noise, occupied or not: two runs on
// the same data with different seeds differ in every bucket's two
// coordinates, and in its bias and count (a bucket released without noise,
// or an empty one left out, would repeat). This is the check that sees a
// coordinate whose noise is never drawn, which the tapped noise tests
// (TestEveryReleaseNoise) cannot.
func TestTailBucketsAllNoised(t *testing.T) {
	d := small(t, "")
	const nb = 64 // most of them hold no item
	var runs [2]*Result
	for k := range runs {
		o := Defaults(100, 1e-6, 1, 5)
		o.TailBuckets, o.Seeded, o.Seed = nb, true, uint64(11+k)
		res, err := Train(context.Background(), d, o)
		if err != nil {
			t.Fatal(err)
		}
		runs[k] = res
	}
	a, b := runs[0], runs[1]
	if len(a.bucketSums) != 2*nb || len(b.bucketSums) != 2*nb {
		t.Fatalf("%d and %d bucket coordinates, want %d", len(a.bucketSums), len(b.bucketSums), 2*nb)
	}
	for k := range 2 * nb {
		if a.bucketSums[k] == b.bucketSums[k] {
			t.Errorf("bucket %d's coordinate %d is %v in both runs: released without noise", k/2, k%2, a.bucketSums[k])
		}
	}
	for k := range nb {
		if a.BucketCounts[k] == b.BucketCounts[k] {
			t.Errorf("bucket %d's count is %v in both runs", k, a.BucketCounts[k])
		}
	}
}

// Items outside the release are predicted with the released tail bias, in
// the fold-in and in predictions (without tail buckets).
func TestTailBiasUsed(t *testing.T) {
	d := small(t, "")
	o := Defaults(100, 1e-6, 1, 5)
	o.TailBuckets = 0
	res := train(t, d, o)
	res.TailBias = 0
	us0 := res.FoldInAll(d)
	res.TailBias = -0.75
	us := res.FoldInAll(d)
	z := -1
	for j := range d.Items.Len() {
		if d.Items.ID(j) == "z" {
			z = j
		}
	}
	u := -1
	for i := range d.Users.Len() {
		if d.Users.ID(i) == "lonely" {
			u = i
		}
	}
	// The lonely user's rating 5 of z is explained partly by a lower tail
	// bias, so the user's own bias rises.
	if !(us.Bias[u] > us0.Bias[u]) {
		t.Errorf("fold-in ignores the tail bias: user bias %g with tail −0.75, %g with 0", us.Bias[u], us0.Bias[u])
	}
	want := math.Min(math.Max(res.Mu+res.TailBias+us.Bias[u], 1), 5)
	if got := us.Predict(u, z); got != want {
		t.Errorf("prediction of an unreleased item %g, want μ + b_user + tail = %g", got, want)
	}
}

// With tail buckets an item outside the release is predicted with its
// bucket's bias and feature columns, in the fold-in and in predictions;
// the tail bias alone no longer enters.
func TestTailBucketUsed(t *testing.T) {
	d := small(t, "")
	o := Defaults(100, 1e-6, 1, 5)
	o.TailBuckets = 8
	res := train(t, d, o)
	if len(res.BucketBias) != 8 || len(res.BucketV) != 8*len(res.Features) || len(res.Features) == 0 {
		t.Fatalf("%d bucket biases, %d bucket feature entries for features %v", len(res.BucketBias), len(res.BucketV), res.Features)
	}
	z, u := -1, -1
	for j := range d.Items.Len() {
		if d.Items.ID(j) == "z" {
			z = j
		}
	}
	for i := range d.Users.Len() {
		if d.Users.ID(i) == "lonely" {
			u = i
		}
	}
	if slices.Contains(res.ItemIDs, "z") {
		t.Fatal("z was released")
	}
	b := TailBucket("z", 8)
	if got := res.TailIndex("z"); got != int32(-2-b) {
		t.Fatalf("TailIndex(z) = %d, want %d", got, -2-b)
	}
	us0 := res.FoldInAll(d)
	res.BucketBias[b] -= 0.75
	us := res.FoldInAll(d)
	if !(us.Bias[u] > us0.Bias[u]) {
		t.Errorf("fold-in ignores z's bucket: user bias %g with its bias lowered, %g before", us.Bias[u], us0.Bias[u])
	}
	res.TailBias += 0.5
	if us2 := res.FoldInAll(d); us2.Bias[u] != us.Bias[u] {
		t.Errorf("fold-in reads the tail bias for a bucketed item: user bias %g, want %g", us2.Bias[u], us.Bias[u])
	}
	r, f := res.Rank, len(res.Features)
	want := res.Mu + res.BucketBias[b] + us.Bias[u]
	for c := range f {
		want += us.U[u*r+r-f+c] * res.BucketV[b*f+c]
	}
	want = math.Min(math.Max(want, 1), 5)
	if got := us.Predict(u, z); math.Abs(got-want) > 1e-12 {
		t.Errorf("prediction of an unreleased item %g, want μ + its bucket's bias + b_user + features = %g", got, want)
	}
	// Index −1 is the tail alone, buckets or not: a fold-in that passes it
	// (the ALS steps do, before the buckets join the release) reads no
	// bucket.
	f0, b0 := res.FoldIn([]int32{-1, -1}, []float64{5, 4})
	for k := range res.BucketBias {
		res.BucketBias[k] += 1
	}
	if f1, b1 := res.FoldIn([]int32{-1, -1}, []float64{5, 4}); b1 != b0 || !slices.Equal(f1, f0) {
		t.Errorf("a fold-in with index −1 reads the buckets: bias %g, then %g", b0, b1)
	}
	if got, want := res.ScoreTail(-1, us.U[u*r:(u+1)*r], us.Bias[u]), res.Mu+res.TailBias+us.Bias[u]; got != want {
		t.Errorf("ScoreTail(−1) = %g, want μ + b_tail + b_user = %g", got, want)
	}
}

// One user's whole contribution to an ALS step — the lower triangles of
// Σ_j w_j·ũũᵀ and the vectors Σ_j w_j·e_j·ũ over the user's head items —
// has ℓ2 norm at most C² and B_r·C, because the user's weights (uniform or
// adaptive) have ‖w‖₂ = 1, ‖ũ‖ ≤ C and |e| ≤ B_r. With rank 1 (the lower
// triangle is all of ũũᵀ) and bounds small enough that every factor and
// residual clips, both bounds are attained.
func TestFactorStepSensitivityAttained(t *testing.T) {
	d, err := synthetic.DefaultRealistic(300, 5).Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		weights  Weights
		rank     int
		attained bool
	}{{WeightsAdaptive, 1, true}, {WeightsUniform, 1, true}, {WeightsAdaptive, 3, false}} {
		o := Defaults(5, 1e-6, 1, 5).WithFactors(tc.rank, 2, 0.4)
		o.Weights = tc.weights
		o.ClipNorm, o.ResidualBound = 1e-3, 1e-3
		o.HeadNoiseRatio = 0 // every item in the head: this checks the bounds, not the head rule
		o.Workers = 1
		gram := map[[2]int]float64{} // (step, user) → squared ℓ2 norm
		rhs := map[[2]int]float64{}
		o.observe = func(step, _, user int, w float64, uc []float64, e float64) {
			k := [2]int{step, user}
			for a := range uc {
				for b := 0; b <= a; b++ {
					gram[k] += (w * uc[a] * uc[b]) * (w * uc[a] * uc[b])
				}
				rhs[k] += (w * e * uc[a]) * (w * e * uc[a])
			}
		}
		train(t, d, o)
		if len(gram) == 0 {
			t.Fatalf("%v rank %d: no factor step observed", tc.weights, tc.rank)
		}
		check := func(name string, m map[[2]int]float64, bound float64) {
			var most float64
			for _, v := range m {
				most = math.Max(most, math.Sqrt(v))
			}
			if most > bound*(1+1e-9) {
				t.Errorf("%v rank %d: a user moves the %s release by %g, above the sensitivity %g", tc.weights, tc.rank, name, most, bound)
			}
			if tc.attained && most < bound*(1-1e-9) {
				t.Errorf("%v rank %d: largest %s contribution %g, want the bound %g attained", tc.weights, tc.rank, name, most, bound)
			}
		}
		check("Gram", gram, o.ClipNorm*o.ClipNorm)
		check("right-hand side", rhs, o.ResidualBound*o.ClipNorm)
	}
}

// The report's total meets the target, and every release is listed.
func TestReportMeetsTarget(t *testing.T) {
	for _, tc := range []struct {
		eps       float64
		rank      int
		catalogue bool
	}{{1, 0, false}, {100, 2, false}, {20, 2, true}} {
		o := Defaults(tc.eps, 1e-6, 1, 5).WithFactors(tc.rank, 2, 0.3)
		o.HeadItems = 5
		if tc.catalogue {
			o = o.WithCatalogue([]string{"a", "b", "c", "d", "e", "f"})
		}
		r := train(t, small(t, ""), o).Report
		if r.TotalEpsilon > tc.eps*(1+1e-9) || r.TotalDelta > 1e-6*(1+1e-6) {
			t.Errorf("%+v: total (%g, %g) exceeds the target", tc, r.TotalEpsilon, r.TotalDelta)
		}
		if r.TotalEpsilon < tc.eps*0.999 {
			t.Errorf("%+v: total ε %g wastes budget", tc, r.TotalEpsilon)
		}
		want := 3 // mean ×2, counts, biases
		want++
		if tc.rank > 0 {
			want += 3
		}
		if len(r.Releases) != want {
			t.Errorf("%+v: %d releases listed, want %d", tc, len(r.Releases), want)
		}
		if tc.catalogue != (r.SelectionDelta == 0) {
			t.Errorf("%+v: selection δ %g", tc, r.SelectionDelta)
		}
	}
}

func TestMuForRoundTrip(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 5, 20} {
		mu, err := MuFor(eps, 1e-6)
		if err != nil {
			t.Fatal(err)
		}
		if d := GDPDelta(mu, eps); d > 1e-6 || d < 0.999e-6 {
			t.Errorf("ε = %g: δ(μ = %g) = %g, want 1e-6", eps, mu, d)
		}
	}
	if _, err := MuFor(0, 1e-6); !errors.Is(err, ErrParam) {
		t.Errorf("MuFor(0): %v, want ErrParam", err)
	}
}

func TestSelectionThreshold(t *testing.T) {
	tau := SelectionThreshold(3, 100, 1e-7)
	if d := SelectionDelta(tau, 3, 100); d > 1e-7 {
		t.Errorf("δ_sel(τ) = %g > 1e-7", d)
	}
	if d := SelectionDelta(tau*0.99, 3, 100); d <= 1e-7 {
		t.Errorf("τ %g is not the least threshold", tau)
	}
}

func TestBadOptions(t *testing.T) {
	d := small(t, "")
	for name, f := range map[string]func(o *Options){
		"epsilon":   func(o *Options) { o.Epsilon = math.NaN() },
		"delta":     func(o *Options) { o.Delta = 1 },
		"range":     func(o *Options) { o.Min = 5 },
		"center":    func(o *Options) { *o = o.WithCenter(100) },
		"shares":    func(o *Options) { o.Shares.Biases = 0.5 },
		"catalogue": func(o *Options) { o.Items = []string{"a", "a"} },
		"rank":      func(o *Options) { o.Rank = -1 },
		"clip":      func(o *Options) { o.ClipNorm = 0 },
	} {
		o := Defaults(1, 1e-6, 1, 5)
		f(&o)
		if _, err := Train(context.Background(), d, o); !errors.Is(err, ErrParam) {
			t.Errorf("%s: %v, want ErrParam", name, err)
		}
	}
}

// On the MovieLens-1M-shaped generator, at a seed, the private model beats
// predicting the mean and the non-private pipeline beats the private one.
func TestUtilityOnGenerator(t *testing.T) {
	d, err := synthetic.DefaultRealistic(1000, 3).Generate()
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := ratings.Split(d, 0.2, rng.Seeded(4))
	if err != nil {
		t.Fatal(err)
	}
	meanRMSE := rmseOfConstant(tr.Ratings, te.Ratings)
	private := train(t, tr, Defaults(5, 1e-6, 1, 5))
	pr, _ := private.FoldInAll(tr).Errors(te.Ratings)
	exact := train(t, tr, Defaults(math.Inf(1), 0, 1, 5).WithFactors(8, 4, 0))
	er, _ := exact.FoldInAll(tr).Errors(te.Ratings)
	t.Logf("mean %.4f, private ε=5 %.4f, non-private %.4f", meanRMSE, pr, er)
	if !(pr < meanRMSE-0.1) {
		t.Errorf("private RMSE %.4f does not beat the mean predictor %.4f by 0.1", pr, meanRMSE)
	}
	if !(er < pr) {
		t.Errorf("non-private RMSE %.4f not below private %.4f", er, pr)
	}
}

func rmseOfConstant(train, test *ratings.Matrix) float64 {
	var s float64
	for tr := range train.All() {
		s += tr.Value
	}
	mean := s / float64(train.Len())
	var se float64
	for tr := range test.All() {
		se += (tr.Value - mean) * (tr.Value - mean)
	}
	return math.Sqrt(se / float64(test.Len()))
}

// The non-private pipeline is a strong baseline on MovieLens 100k u1.
func TestNoNoiseMovieLens(t *testing.T) {
	if raceEnabled {
		t.Skip("numbers only; runs in the plain pass, not under the race detector")
	}
	dir := "../../shared/data/movielens-100k"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("MovieLens 100k not present:", err)
	}
	tr, te, err := ratings.LoadPair(dir+"/u1.base", dir+"/u1.test", ratings.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := train(t, tr, Defaults(math.Inf(1), 0, 1, 5))
	rmse, _ := res.FoldInAll(tr).Errors(te.Ratings)
	if rmse > 0.93 {
		t.Errorf("non-private test RMSE %.4f, want ≤ 0.93", rmse)
	}
}

// The summary keeps released and evaluation-only figures apart, in text
// and in JSON, and encodes the non-private pipeline's ε = +Inf.
func TestSummaryLabelsEvaluationOnly(t *testing.T) {
	d := small(t, "")
	for _, eps := range []float64{2, math.Inf(1)} {
		o := Defaults(eps, 1e-6, 1, 5)
		res := train(t, d, o)
		s := Summarize(res, o, d, nil, "small", 0.1)
		var text, js strings.Builder
		if err := s.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "evaluation only, NOT released") {
			t.Errorf("ε = %g: text lacks the evaluation-only label:\n%s", eps, text.String())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(js.String()), &m); err != nil {
			t.Fatalf("ε = %g: %v", eps, err)
		}
		ev, ok := m["evaluation_only_not_released"].(map[string]any)
		if !ok || ev["train_ratings"] == nil {
			t.Errorf("ε = %g: JSON lacks the evaluation-only section: %s", eps, js.String())
		}
		if _, ok := m["release"]; !ok {
			t.Errorf("ε = %g: JSON lacks the release", eps)
		}
	}
}

// The non-private baseline's report says that nothing is private: no
// "private selection" of items, a model line, and a "NOT private" item
// list, with and without a catalogue; a private run still says
// "private selection".
func TestNoNoiseReportClaimsNothingPrivate(t *testing.T) {
	d := small(t, "")
	cat := []string{"a", "b", "c", "d", "e", "f", "z"}
	for _, c := range []struct {
		name        string
		o           Options
		want, avoid []string
	}{
		{"none", Defaults(math.Inf(1), 1e-6, 1, 5),
			[]string{"model:      NON-PRIVATE baseline", "privacy:    NONE", "the item list is NOT private", "nothing it releases is private"},
			[]string{"private selection", "noisy"}},
		{"none+catalogue", Defaults(math.Inf(1), 1e-6, 1, 5).WithCatalogue(cat),
			[]string{"model:      NON-PRIVATE baseline", "public catalogue of 7 items", "nothing released is private"},
			[]string{"private selection", "noisy"}},
		{"private, seeded", Defaults(2, 1e-6, 1, 5),
			[]string{"model:      user-level private", "private selection", "NONE in this run", "total if unseeded (NOT this run's"},
			[]string{"the item list is NOT private", "NON-PRIVATE", "total: ε"}},
		{"private, unseeded", Defaults(2, 1e-6, 1, 5),
			[]string{"model:      user-level private", "private selection", "total: ε = 2"},
			[]string{"the item list is NOT private", "NON-PRIVATE", "NONE", "if unseeded"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res *Result
			if strings.HasSuffix(c.name, "unseeded") {
				var err error
				if res, err = Train(context.Background(), d, c.o); err != nil {
					t.Fatal(err)
				}
			} else {
				res = train(t, d, c.o)
			}
			var text strings.Builder
			if err := Summarize(res, c.o, d, nil, "small", 0.1).WriteText(&text); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(res.Report)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(js, &m); err != nil {
				t.Fatal(err)
			}
			// A total is a guarantee only for an unseeded run with noise;
			// a seeded run's sits under not_a_guarantee, and reads back.
			seeded := res.Report.Seeded
			if nothing := c.o.NoNoise || seeded; (m["total_epsilon"] == nil) != nothing || (m["total_delta"] == nil) != nothing {
				t.Errorf("JSON total ε %v, δ %v: want null exactly when nothing is private", m["total_epsilon"], m["total_delta"])
			}
			nag, _ := m["not_a_guarantee"].(map[string]any)
			if (nag != nil) != (seeded && !c.o.NoNoise) {
				t.Errorf("not_a_guarantee %v with seeded %v, no noise %v", nag, seeded, c.o.NoNoise)
			}
			if nag != nil && nag["total_epsilon_if_unseeded"] != res.Report.TotalEpsilon {
				t.Errorf("not_a_guarantee total ε %v, want %v", nag["total_epsilon_if_unseeded"], res.Report.TotalEpsilon)
			}
			var back Report
			if err := json.Unmarshal(js, &back); err != nil || back.TotalEpsilon != res.Report.TotalEpsilon || back.TotalDelta != res.Report.TotalDelta || back.Seeded != seeded {
				t.Errorf("JSON round trip: %v, total (%v, %v) seeded %v, want (%v, %v) %v", err, back.TotalEpsilon, back.TotalDelta, back.Seeded, res.Report.TotalEpsilon, res.Report.TotalDelta, seeded)
			}
			// Only the release part: the evaluation section says "NOT private" by design.
			rel, _, _ := strings.Cut(text.String(), "evaluation (")
			for _, w := range c.want {
				if !strings.Contains(rel, w) {
					t.Errorf("report lacks %q:\n%s", w, rel)
				}
			}
			for _, a := range c.avoid {
				if strings.Contains(rel, a) {
					t.Errorf("report says %q:\n%s", a, rel)
				}
			}
		})
	}
}

// A release with no item carries a warning that names the cause and the
// remedies; a release with items carries none.
func TestWarningsNoItems(t *testing.T) {
	d := small(t, "")
	for _, c := range []struct {
		name  string
		o     Options
		items int // -1: some
	}{
		{"private selection, ε = 2", Defaults(2, 1e-6, 1, 5), 0},
		{"catalogue", Defaults(2, 1e-6, 1, 5).WithCatalogue([]string{"a", "b"}), 2},
		{"no noise", Defaults(math.Inf(1), 1e-6, 1, 5), 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := train(t, d, c.o)
			if len(res.ItemIDs) != c.items {
				t.Fatalf("%d items released, want %d (the test's premise)", len(res.ItemIDs), c.items)
			}
			w := Summarize(res, c.o, d, nil, "small", 0).Warnings()
			if c.items > 0 {
				if len(w) != 0 {
					t.Errorf("warnings %q for a release of %d items", w, c.items)
				}
				return
			}
			if len(w) != 1 {
				t.Fatalf("warnings %q, want one", w)
			}
			for _, want := range []string{"no item was released", "selection threshold", "ε = 2", "--epsilon", "--items"} {
				if !strings.Contains(w[0], want) {
					t.Errorf("warning %q lacks %q", w[0], want)
				}
			}
		})
	}
}

// RhoFor inverts discrete.ZCDPEpsilon, and its ρ is never more generous
// than the exact curve of the Gaussian mechanism with μ = √(2ρ), which is
// ρ-zCDP (a budget above that curve would be an invalid conversion).
func TestRhoFor(t *testing.T) {
	for _, eps := range []float64{0.5, 1, 5, 20} {
		for _, delta := range []float64{1e-9, 1e-6} {
			rho, err := RhoFor(eps, delta)
			if err != nil {
				t.Fatal(err)
			}
			got, err := discrete.ZCDPEpsilon(rho, delta)
			if err != nil {
				t.Fatal(err)
			}
			if got > eps || got < eps*(1-1e-6) {
				t.Errorf("RhoFor(%g, %g) = %g gives back ε %g", eps, delta, rho, got)
			}
			exact, err := GDPEpsilon(math.Sqrt(2*rho), delta)
			if err != nil {
				t.Fatal(err)
			}
			if exact > eps*(1+1e-9) {
				t.Errorf("ε %g δ %g: the Gaussian curve at μ = √(2ρ) gives ε %g > target: the conversion is invalid", eps, delta, exact)
			}
		}
	}
	if _, err := RhoFor(0, 1e-6); err == nil {
		t.Error("RhoFor(0, δ) gave no error")
	}
}

// With the default, discrete sampler every released noisy statistic is an
// exact integer multiple of its release's grid step (so no floating-point
// pattern of the noise reaches the output), the report accounts by zCDP,
// and the float sampler is refused outside seeded runs.
func TestDiscreteReleasesOnGrid(t *testing.T) {
	d := small(t, "")
	res := train(t, d, Defaults(50, 1e-6, 1, 5))
	grid := map[string]float64{}
	for _, rel := range res.Report.Releases {
		if !(rel.Grid > 0) {
			t.Fatalf("release %q has no grid", rel.Name)
		}
		grid[strings.SplitN(rel.Name, " ", 3)[1]] = rel.Grid
	}
	on := func(name string, xs []float64, g float64) {
		for k, x := range xs {
			if q := x / g; q != math.Trunc(q) {
				t.Errorf("%s[%d] = %v is not a multiple of γ = %g", name, k, x, g)
			}
		}
	}
	on("counts", res.Counts, grid["counts"])
	on("bias sums", res.biasSums, grid["bias"])
	if res.Report.Rho <= 0 || res.Report.Mu != 0 || !strings.Contains(res.Report.Accountant, "zCDP") {
		t.Errorf("report: ρ %v, μ %v, accountant %q; want zCDP", res.Report.Rho, res.Report.Mu, res.Report.Accountant)
	}
	o := Defaults(5, 1e-6, 1, 5)
	o.Sampler = SamplerFloat
	if _, err := Train(context.Background(), d, o); !errors.Is(err, ErrParam) {
		t.Errorf("unseeded float sampler: error %v, want ErrParam", err)
	}
}

// Overrides replace exactly what they name, and refuse a factor share
// that cannot be given.
func TestOverrides(t *testing.T) {
	ptr := func(v int) *int { return &v }
	fptr := func(v float64) *float64 { return &v }
	base := Defaults(5, 1e-6, 1, 5)
	for _, tc := range []struct {
		name string
		v    Overrides
		ok   bool
		want func(o Options) bool
	}{
		{"nothing", Overrides{}, true, func(o Options) bool { return o.AutoFactors && o.Rank == base.Rank }},
		{"rank", Overrides{Rank: ptr(8)}, true, func(o Options) bool {
			return !o.AutoFactors && o.Rank == 8 && o.Iters == base.Iters && math.Abs(o.Shares.Factors-DefaultFactorShare) < 1e-12
		}},
		{"rank and share", Overrides{Iters: ptr(3), FactorShare: fptr(0.2)}, true, func(o Options) bool {
			return !o.AutoFactors && o.Iters == 3 && o.Shares.Factors == 0.2
		}},
		{"clip and cap", Overrides{ClipNorm: fptr(2), MaxItemsPerUser: ptr(50), HeadItems: ptr(10)}, true, func(o Options) bool {
			return o.ClipNorm == 2 && o.MaxItemsPerUser == 50 && o.HeadItems == 10 && o.AutoFactors
		}},
		{"share without rank", Overrides{FactorShare: fptr(0.2)}, false, nil},
		{"share too large", Overrides{Rank: ptr(2), FactorShare: fptr(0.9)}, false, nil},
	} {
		o, err := base.With(tc.v)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrParam)) {
			t.Errorf("%s: error %v, want ok = %v", tc.name, err, tc.ok)
			continue
		}
		if tc.ok && !tc.want(o) {
			t.Errorf("%s: options %+v", tc.name, o)
		}
	}
}

// Without a catalogue only items that some contributed rating reaches can
// be selected. A user who rates 2000 items nobody else rates but
// contributes only one of them (MaxItemsPerUser = 1) adds 1999 items of
// count 0: if they were candidates, noise alone would release some of them
// at this low threshold (δ_sel = 0.5·δ with δ = 0.005, as large as the
// refusal of δ ≥ 1/users allows), which δ_sel does not
// cover. At most the one contributed item may appear.
func TestSelectionOnlyContributedItems(t *testing.T) {
	var rows [][3]string
	for u := range 30 {
		for _, it := range []string{"a", "b", "c", "d"} {
			rows = append(rows, [3]string{strconv.Itoa(u), it, strconv.Itoa(1 + (u % 5))})
		}
	}
	for k := range 2000 {
		rows = append(rows, [3]string{"hoarder", "h" + strconv.Itoa(k), "5"})
	}
	d := dataset(t, rows, "")
	o := Defaults(1, 0.005, 1, 5)
	o.SelectionDelta = 0.5
	o.MaxItemsPerUser = 1
	res := train(t, d, o)
	// Were the 1999 count-0 items candidates, noise alone would release
	// this many of them on average.
	sigma := res.Report.Releases[2].Sigma
	if e := 1999 * 0.5 * math.Erfc(res.Report.Threshold/sigma/math.Sqrt2); e < 2 {
		t.Fatalf("the test tests nothing: %.2g of the count-0 items would clear the threshold %.3g (σ %.3g)", e, res.Report.Threshold, sigma)
	}
	n := 0
	for _, id := range res.ItemIDs {
		if strings.HasPrefix(id, "h") {
			n++
		}
	}
	if n > 1 {
		t.Errorf("%d items rated only outside the hoarder's contribution were released (threshold %.3g)", n, res.Report.Threshold)
	}
}

// The privacy report travels with the release (it is in the model file),
// so it holds no exact figure of the data: the ratings dropped outside a
// catalogue are in Result.Evaluation only.
func TestReportHoldsNoExactFigure(t *testing.T) {
	d := small(t, "")
	o := Defaults(5, 1e-6, 1, 5).WithCatalogue([]string{"a", "b"})
	res := train(t, d, o)
	if res.Evaluation.DroppedOutsideCatalogue == 0 {
		t.Fatal("nothing was dropped outside the catalogue: the test tests nothing")
	}
	b, err := json.Marshal(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "dropped") || strings.Contains(string(b), strconv.Itoa(res.Evaluation.DroppedOutsideCatalogue)) {
		t.Errorf("the report carries the exact dropped count %d: %s", res.Evaluation.DroppedOutsideCatalogue, b)
	}
}
