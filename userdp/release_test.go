package userdp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
)

// This file checks every release of Report.Releases against its stated
// ℓ2 sensitivity, by construction: the observer of observe.go sees every
// noised coordinate of every release, named by the release and its noise
// stream, so a release added later is checked here without new code.

// observed is one noised coordinate of one run: the exact statistic, the
// value released and the noise's σ and grid as the noiser drew them.
type observed struct {
	exact, released, sigma, grid float64
}

// recorder is an observer that records every coordinate. With replay set
// it releases replay's value of each coordinate it knows instead of its
// own draw, so that a run on a neighbour sees exactly the releases of the
// run on D: the statistics it computes are then those of adaptive
// composition, each conditioned on the same released history. fault, if
// set, changes what is released (tests of the checks themselves).
type recorder struct {
	mu     sync.Mutex
	got    map[coord]observed
	dups   []coord
	replay map[coord]observed
	fault  func(c coord, exact, released float64) float64
}

func (r *recorder) observe(c coord, sigma, grid, exact, noisy float64) float64 {
	out := noisy
	if v, ok := r.replay[c]; ok {
		out = v.released
	}
	if r.fault != nil {
		out = r.fault(c, exact, out)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.got[c]; dup {
		r.dups = append(r.dups, c)
	}
	r.got[c] = observed{exact: exact, released: out, sigma: sigma, grid: grid}
	return out
}

// observedTrain trains d with o, seeded with seed on one worker, and
// returns the result and every noised coordinate. It fails the test if a
// coordinate is drawn twice under one name or comes from a stream the
// observer cannot name.
func observedTrain(t *testing.T, d *ratings.Dataset, o Options, seed uint64, rec *recorder) (*Result, map[coord]observed) {
	t.Helper()
	if rec == nil {
		rec = &recorder{}
	}
	rec.got = map[coord]observed{}
	o.Seeded, o.Seed, o.Workers = true, seed, 1
	remove := installObserver(rec)
	res, err := Train(context.Background(), d, o)
	remove()
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.dups) > 0 {
		t.Fatalf("coordinates noised twice under one name (one stream position reused): %v", rec.dups[:min(3, len(rec.dups))])
	}
	for c := range rec.got {
		if c.phase < 0 {
			t.Fatalf("release %q drew noise from a stream not named by (phase, step, ID)", c.release)
		}
	}
	return res, rec.got
}

// releaseOf returns the report's entry named name.
func releaseOf(t *testing.T, r *Report, name string) Release {
	t.Helper()
	for _, rel := range r.Releases {
		if rel.Name == name {
			return rel
		}
	}
	t.Fatalf("noise drawn for %q, which the report does not list (it lists %d releases)", name, len(r.Releases))
	return Release{}
}

// familyRows is a small data set on the scale [1, 5] with users at every
// clip and cap: background users rating items i0–i7 moderately, and
//
//   - "cap": more ratings than MaxItemsPerUser (6), all at the maximum;
//   - "high" / "low": a few ratings, all at the maximum / minimum;
//   - "mixed": alternating 5 and 1, so the user's own offset is about 0
//     and every deviation clips in both directions;
//   - "single": one rating, at the maximum (the start's bound B_r² is
//     attained by one head item);
//   - "lonely": every popular item at 5 and item "solo", which nobody
//     else rates (under selection it is not released: the tail);
//   - "only": rates only items nobody else rates, at the minimum.
//
// variant changes the background's ratings (another data set of the
// family).
func familyRows(variant uint64) [][3]string {
	var rows [][3]string
	g := rng.Seeded(100 + variant)
	items := []string{"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7"}
	for u := range 22 {
		for k, it := range items {
			if (u+k)%4 == 0 || (variant == 1 && (u*k)%5 == 1) {
				continue
			}
			rows = append(rows, [3]string{"u" + strconv.Itoa(u), it, strconv.Itoa(2 + g.IntN(3))})
		}
	}
	add := func(user string, vals map[string]float64) {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range vals {
				if !yield(k) {
					return
				}
			}
		})
		for _, it := range keys {
			rows = append(rows, [3]string{user, it, strconv.FormatFloat(vals[it], 'g', -1, 64)})
		}
	}
	all := map[string]float64{}
	for _, it := range items {
		all[it] = 5
	}
	all["x1"], all["x2"], all["x3"], all["x4"] = 5, 5, 5, 5 // "cap" rates 12 items
	add("cap", all)
	add("high", map[string]float64{"i0": 5, "i2": 5, "i5": 5})
	add("low", map[string]float64{"i1": 1, "i3": 1, "i4": 1, "i6": 1})
	add("mixed", map[string]float64{"i0": 5, "i1": 1, "i2": 5, "i3": 1, "i4": 5, "i5": 1})
	add("single", map[string]float64{"i3": 5})
	add("lonely", map[string]float64{"i0": 5, "i1": 5, "i2": 5, "i3": 5, "i4": 5, "i5": 5, "solo": 5})
	add("only", map[string]float64{"only1": 1, "only2": 1})
	// x1–x4 also have background raters, so that they are popular enough
	// to be released under selection.
	for u := range 10 {
		for _, it := range []string{"x1", "x2", "x3", "x4"} {
			rows = append(rows, [3]string{"u" + strconv.Itoa(u), it, "3"})
		}
	}
	return rows
}

// releaseConfig is one configuration of the pipeline whose every release
// the tests check.
type releaseConfig struct {
	name string
	opts func() Options
}

// releaseConfigs cover every kind of release: the noisy mean and number
// of users, counts, bias sums (with and without the tail), the PCA start
// and ALS steps (rank 1, where Gram and right-hand side bounds are
// attained; rank 2, with off-diagonal Gram entries), under a catalogue and
// under private selection. The clips are small so that every user clips
// (the bounds are reached): factors to C = 0.01, residuals to B_r = 0.05,
// bias deviations to B_b = 0.5; a user contributes at most 6 ratings, and
// one configuration starts from fewer items than its head (StartItems).
func releaseConfigs() []releaseConfig {
	clips := func(o Options) Options {
		o.BiasBound, o.ResidualBound, o.ClipNorm = 0.5, 0.05, 0.01
		o.MaxItemsPerUser, o.HeadItems, o.TailCount = 6, 6, 0
		o.TailBuckets = 1    // one: a user's unreleased items (only1, only2) share it
		o.HeadNoiseRatio = 0 // every item in the head: these check the bounds, not the head rule
		return o
	}
	catalogue := []string{"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "x1", "x2", "x3", "x4", "solo", "only1", "only2", "unrated"}
	return []releaseConfig{
		{"catalogue, rank 1, start and 2 ALS steps", func() Options {
			return clips(Defaults(8, 1e-6, 1, 5).WithFactors(1, 2, 0.4).WithCatalogue(catalogue))
		}},
		{"selection with tail, rank 2, start over 3 of the head and 1 ALS step", func() Options {
			o := clips(Defaults(50, 1e-6, 1, 5).WithFactors(2, 1, 0.4))
			o.StartItems = 3 // the start's own weights, renormalized over its items
			return o
		}},
		{"selection, biases only", func() Options {
			return clips(Defaults(20, 1e-6, 1, 5).WithFactors(0, 0, 0))
		}},
		{"catalogue, ranking objective", func() Options {
			o := clips(Defaults(8, 1e-6, 1, 5).WithCatalogue(catalogue))
			o.Objective = ObjectiveRanking
			return o
		}},
		{"selection, ranking objective", func() Options {
			o := clips(Defaults(50, 1e-6, 1, 5))
			o.Objective = ObjectiveRanking
			o.Ranking.FallbackRatio = 0 // the Gram even with few users
			return o
		}},
	}
}

// groupKey is one vector release: a release's coordinates of one step
// (a release made Times times has Δ₂ per step).
type groupKey struct {
	release string
	step    int
}

// movement returns, per (release, step), the ℓ2 distance between two
// runs' exact statistics; a coordinate that one run lacks (an item
// present only with the removed user) counts as 0 there.
func movement(a, b map[coord]observed) map[groupKey]float64 {
	ss := map[groupKey]float64{}
	for c, va := range a {
		vb := b[c] // zero if absent
		d := va.exact - vb.exact
		ss[groupKey{c.release, c.step}] += d * d
	}
	for c, vb := range b {
		if _, ok := a[c]; !ok {
			ss[groupKey{c.release, c.step}] += vb.exact * vb.exact
		}
	}
	for k, v := range ss {
		ss[k] = math.Sqrt(v)
	}
	return ss
}

// sameRelease says how two results' released numbers differ ("" if they
// are identical): item list, counts, biases, tail bias, centre, factors.
func sameRelease(a, b *Result) string {
	switch {
	case !slices.Equal(a.ItemIDs, b.ItemIDs):
		return fmt.Sprintf("items %v vs %v", a.ItemIDs, b.ItemIDs)
	case !slices.Equal(a.Counts, b.Counts):
		return "counts"
	case !slices.Equal(a.ItemBias, b.ItemBias):
		return "item biases"
	case a.TailBias != b.TailBias:
		return "tail bias"
	case a.Mu != b.Mu:
		return "centre"
	case !slices.Equal(a.V, b.V):
		return "item factors"
	case !slices.Equal(a.BucketBias, b.BucketBias) || !slices.Equal(a.BucketCounts, b.BucketCounts) || !slices.Equal(a.BucketV, b.BucketV):
		return "tail buckets"
	case (a.Ranking == nil) != (b.Ranking == nil):
		return "ranking part present in one only"
	case a.Ranking != nil && (!slices.Equal(a.Ranking.Counts, b.Ranking.Counts) || !slices.Equal(a.Ranking.HeadRow, b.Ranking.HeadRow) ||
		a.Ranking.K != b.Ranking.K || !slices.Equal(a.Ranking.V, b.Ranking.V) || !slices.Equal(a.Ranking.Weights, b.Ranking.Weights)):
		return "ranking part"
	}
	return ""
}

// Every release's exact statistic moves, when one user is removed, by at
// most the Δ₂ the report states for it, and by at least half of it for
// some user of the family: the bound holds and is not vacuous. The
// neighbour is run with the releases of the run on D replayed (adaptive
// composition: every step's bound is for the same released history), so
// the only difference between the runs' statistics is the removed user.
// The walk is over Report.Releases: a release the report lists but that
// draws no noise, or noise drawn for a release it does not list, fails.
// And with every noised coordinate replayed, the neighbour's whole
// release must equal D's: a number released without noise (a coordinate
// that bypasses the noiser) makes them differ.
func TestEveryReleaseSensitivity(t *testing.T) {
	if raceEnabled {
		t.Skip("numerical: runs without -race")
	}
	for _, cfg := range releaseConfigs() {
		for _, sampler := range []Sampler{SamplerDiscrete, SamplerFloat} {
			for _, variant := range []uint64{0, 1} {
				name := fmt.Sprintf("%s/%v/data %d", cfg.name, sampler, variant)
				t.Run(name, func(t *testing.T) {
					o := cfg.opts()
					o.Sampler = sampler
					rows := familyRows(variant)
					full := dataset(t, rows, "")
					res, base := observedTrain(t, full, o, 7, nil)
					listed := map[string]bool{}
					for _, rel := range res.Report.Releases {
						listed[rel.Name] = false
					}
					for c := range base {
						releaseOf(t, res.Report, c.release)
						listed[c.release] = true
					}
					for n, seen := range listed {
						if !seen {
							t.Errorf("release %q is listed but no noised coordinate of it was observed", n)
						}
					}
					most := map[string]float64{}
					who := map[string]string{}
					for u := range full.Users.Len() {
						id := full.Users.ID(u)
						nres, nb := observedTrain(t, dataset(t, rows, id), o, 7, &recorder{replay: base})
						if msg := sameRelease(res, nres); msg != "" {
							t.Errorf("without user %s, with every noised coordinate replayed, the release differs (%s): something released is not a function of the noised releases", id, msg)
						}
						for k, m := range movement(base, nb) {
							if m > most[k.release] {
								most[k.release], who[k.release] = m, id
							}
						}
					}
					for _, rel := range res.Report.Releases {
						m := most[rel.Name]
						t.Logf("%-70.70s Δ₂ %-10.4g largest movement %.4g (%.3f Δ₂, user %s)", rel.Name, rel.L2, m, m/rel.L2, who[rel.Name])
						if m > rel.L2*(1+1e-9)+1e-12 {
							t.Errorf("%q: removing user %s moves the statistic by %.6g, above its stated Δ₂ %.6g", rel.Name, who[rel.Name], m, rel.L2)
						}
						if m < rel.L2/2 {
							t.Errorf("%q: no user moves the statistic by half its stated Δ₂ %.6g (most: %.6g): the bound is not shown tight", rel.Name, rel.L2, m)
						}
					}
				})
			}
		}
	}
}

// The head is every released item whose count reaches HeadNoiseRatio·σ_G/C²
// (at most HeadItems, the most popular), and the start covers the
// StartItems most popular of the head, ties in canonical order.
func TestHeadRule(t *testing.T) {
	o := Defaults(10, 1e-6, 1, 5).WithFactors(4, 1, 0.4)
	o.HeadItems, o.StartItems = 4, 2
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Decide(5000); err != nil {
		t.Fatal(err)
	}
	floor := o.HeadNoiseRatio * p.noise.gram.sigma / (o.ClipNorm * o.ClipNorm)
	if !(floor > o.TailCount) {
		t.Fatalf("floor %g: want it above TailCount %g for this test", floor, o.TailCount)
	}
	counts := []float64{floor * 3, floor * 0.99, floor, floor * 2, floor * 5, floor * 2, floor * 4, -1}
	// Above the floor: 0 (3), 2 (1), 3 (2), 4 (5), 5 (2), 6 (4); the 4 most
	// popular are 4, 6, 0 and the first of the tied 3 and 5.
	wantHead := []bool{true, false, false, true, true, false, true, false}
	head := p.Head(counts)
	if !slices.Equal(head, wantHead) {
		t.Errorf("head %v, want %v (floor %g)", head, wantHead, floor)
	}
	wantStart := []bool{false, false, false, false, true, false, true, false}
	if start := p.StartHead(counts, head); !slices.Equal(start, wantStart) {
		t.Errorf("start head %v, want %v", start, wantStart)
	}
	o.StartItems = 0 // the whole head
	p2, _ := NewPlan(o)
	if err := p2.Decide(5000); err != nil {
		t.Fatal(err)
	}
	if start := p2.StartHead(counts, head); !slices.Equal(start, head) {
		t.Errorf("StartItems 0: start head %v, want the head %v", start, head)
	}
}

// The report names the start the factors grew from.
func TestReportNamesTheStart(t *testing.T) {
	for _, c := range []struct {
		pca  float64
		want string
	}{{0.5, "after the PCA start"}, {0, "after a random start (no PCA share)"}} {
		o := Defaults(5, 1e-6, 1, 5).WithFactors(2, 1, 0.4)
		o.Shares.PCA = c.pca
		p, err := NewPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Decide(1000); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.report.Factors, c.want) {
			t.Errorf("PCA share %g: factors %q, want %q", c.pca, p.report.Factors, c.want)
		}
	}
}

// A user's start vector mixes the clipped residual with the fact of
// rating: w·((1 − a)·clip(r, ±B_r) + a·B_r) for StartRatedWeight a, which
// stays within ±w·B_r whatever the rating, so the start's Δ₂ = B_r² holds
// for every a in [0, 1] (TestEveryReleaseSensitivity checks it on
// neighbouring data sets at the default a).
func TestStartTermsRatedWeight(t *testing.T) {
	const mu, beta = 3, 0.25
	itemBias := []float64{0.5, -0.5, 0, 0.1}
	pos := []int32{0, 1, 2, -1} // item 3 is not in the start
	items := []int32{0, 1, 2, 3}
	vals := []float64{5, 1, 3.25, 4} // residuals +1.25, −2.75, 0, (not in the start)
	w := []float64{0.5, 0.25, 0.125, 0.5}
	for _, a := range []float64{0, 0.25, 0.5, 1} {
		o := Defaults(5, 1e-6, 1, 5)
		o.StartRatedWeight = a
		p, err := NewPlan(o)
		if err != nil {
			t.Fatal(err)
		}
		b := o.ResidualBound
		idx, z := p.StartTerms(mu, beta, itemBias, pos, items, vals, w, nil, nil)
		want := []float64{
			0.5 * ((1-a)*b + a*b),     // +1.25 clipped to +B_r
			0.25 * ((1-a)*(-b) + a*b), // −2.75 clipped to −B_r
			0.125 * ((1-a)*0 + a*b),   // 0
		}
		if !slices.Equal(idx, []int32{0, 1, 2}) {
			t.Fatalf("a = %g: positions %v, want [0 1 2]", a, idx)
		}
		for k := range want {
			if math.Abs(z[k]-want[k]) > 1e-15 {
				t.Errorf("a = %g: z[%d] = %v, want %v", a, k, z[k], want[k])
			}
			if math.Abs(z[k]) > w[k]*b*(1+1e-15) {
				t.Errorf("a = %g: |z[%d]| = %v exceeds w·B_r = %v", a, k, math.Abs(z[k]), w[k]*b)
			}
		}
	}
	for _, a := range []float64{1.5, -0.1, math.NaN(), math.Inf(1)} {
		o := Defaults(5, 1e-6, 1, 5)
		o.StartRatedWeight = a
		var pe *ParamError
		if err := o.Validate(); !errors.As(err, &pe) || pe.Field != "StartRatedWeight" {
			t.Errorf("StartRatedWeight %v: %v, want a ParamError naming it", a, err)
		}
	}
}
