package userdp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dpmc/dpmc/rng"
)

// This file checks the noise that was added to every release against the
// σ the report states: with the data fixed and the noise seeded, the
// standardized noise z = (released − exact)/σ of every coordinate of
// every release over many runs must look like i.i.d. N(0, 1).

// noiseFalseAlarm is the probability that checkNoise flags correct
// noise: the family-wise rate over all of its tests on one set of runs
// (each test at noiseFalseAlarm/m for m tests: Bonferroni). The
// correlation tests use the normal approximation of a sample
// correlation, √n·r ≈ N(0, 1), which is accurate to far below this rate
// at the hundreds of pairs they see.
const noiseFalseAlarm = 1e-4

// noiseSample is one standardized noise draw: run rep's coordinate c.
type noiseSample struct {
	c   coord
	rep int
	z   float64
}

// noiseTest is one test of checkNoise with its two-sided p-value.
type noiseTest struct {
	name string
	p    float64
}

// coordLess orders coordinates canonically within a release: by step,
// phase, ID (CompareIDs) and draw.
func coordCmp(a, b coord) int {
	return cmp.Or(cmp.Compare(a.step, b.step), cmp.Compare(a.phase, b.phase), CompareIDs(a.id, b.id), cmp.Compare(a.index, b.index))
}

// chi2P is the two-sided p-value of s under χ² with k degrees of freedom.
func chi2P(s float64, k int) float64 {
	d := distuv.ChiSquared{K: float64(k)}
	return math.Min(1, 2*math.Min(d.CDF(s), d.Survival(s)))
}

// normP is the two-sided p-value of a standard normal z.
func normP(z float64) float64 { return math.Erfc(math.Abs(z) / math.Sqrt2) }

// corrTest returns the test of zero correlation between paired standard
// normal draws: √n·Σxy/√(Σx²Σy²) against N(0, 1).
func corrTest(name string, x, y []float64) noiseTest {
	var sxy, sxx, syy float64
	for k := range x {
		sxy += x[k] * y[k]
		sxx += x[k] * x[k]
		syy += y[k] * y[k]
	}
	if sxx == 0 || syy == 0 {
		return noiseTest{name, 0} // no noise at all on one side
	}
	return noiseTest{name, normP(math.Sqrt(float64(len(x))) * sxy / math.Sqrt(sxx*syy))}
}

// minPairs is the least number of pairs a correlation test is made on.
const minPairs = 20

// checkNoise tests samples (every release's standardized noise over
// several runs) for N(0, 1) i.i.d. noise and returns the tests that
// fail at the family-wise false-alarm rate alpha, and how many tests
// were made. Per release: the variance over all its draws (χ²), their
// mean, each coordinate's variance over the runs (χ², lower and upper:
// a coordinate left without noise has Σz² = 0), the correlation of
// neighbouring coordinates in canonical order (items, entries), of the
// same coordinate in consecutive steps and in consecutive runs; and
// between releases, the correlation of the coordinates that share a
// step, ID and draw (an item's count and bias sum, Gram and right-hand
// side, …).
func checkNoise(samples []noiseSample, alpha float64) (failed []noiseTest, tests int) {
	byRel := map[string][]noiseSample{}
	for _, s := range samples {
		byRel[s.c.release] = append(byRel[s.c.release], s)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range byRel {
			if !yield(n) {
				return
			}
		}
	})
	var all []noiseTest
	type at struct {
		c   coord
		rep int
	}
	val := map[at]float64{}
	for _, s := range samples {
		val[at{s.c, s.rep}] = s.z
	}
	for _, name := range names {
		ss := byRel[name]
		short := name
		if len(short) > 40 {
			short = short[:40] + "…"
		}
		var s2, s1 float64
		perCoord := map[coord][]float64{}
		for _, s := range ss {
			s2 += s.z * s.z
			s1 += s.z
			perCoord[s.c] = append(perCoord[s.c], s.z)
		}
		all = append(all,
			noiseTest{fmt.Sprintf("%s: variance over %d draws (Σz² = %.1f)", short, len(ss), s2), chi2P(s2, len(ss))},
			noiseTest{fmt.Sprintf("%s: mean over %d draws (Σz = %.1f)", short, len(ss), s1), normP(s1 / math.Sqrt(float64(len(ss))))})
		coords := slices.SortedFunc(func(yield func(coord) bool) {
			for c := range perCoord {
				if !yield(c) {
					return
				}
			}
		}, coordCmp)
		for _, c := range coords {
			zs := perCoord[c]
			var s float64
			for _, z := range zs {
				s += z * z
			}
			all = append(all, noiseTest{fmt.Sprintf("%s: coordinate (phase %d, step %d, %q, draw %d) variance over %d runs (Σz² = %.3g)", short, c.phase, c.step, c.id, c.index, len(zs), s), chi2P(s, len(zs))})
		}
		// Neighbouring coordinates, the same coordinate one step later
		// and one run later.
		var lx, ly, sx, sy, rx, ry []float64
		reps := map[int]bool{}
		for _, s := range ss {
			reps[s.rep] = true
		}
		for rep := range reps {
			prev, ok := coord{}, false
			for _, c := range coords {
				z, here := val[at{c, rep}]
				if !here {
					continue
				}
				if ok {
					lx, ly = append(lx, val[at{prev, rep}]), append(ly, z)
				}
				prev, ok = c, true
				next := c
				next.step++
				if z2, there := val[at{next, rep}]; there {
					sx, sy = append(sx, z), append(sy, z2)
				}
				if z2, there := val[at{c, rep + 1}]; there {
					rx, ry = append(rx, z), append(ry, z2)
				}
			}
		}
		for _, p := range []struct {
			what string
			x, y []float64
		}{{"neighbouring coordinates", lx, ly}, {"consecutive steps", sx, sy}, {"consecutive runs", rx, ry}} {
			if len(p.x) >= minPairs {
				all = append(all, corrTest(fmt.Sprintf("%s: correlation of %s (%d pairs)", short, p.what, len(p.x)), p.x, p.y))
			}
		}
	}
	// Between releases: coordinates with the same step, ID and draw.
	type slot struct {
		step  int
		id    string
		index int
		rep   int
	}
	bySlot := map[string]map[slot]float64{}
	for _, s := range samples {
		m := bySlot[s.c.release]
		if m == nil {
			m = map[slot]float64{}
			bySlot[s.c.release] = m
		}
		m[slot{s.c.step, s.c.id, s.c.index, s.rep}] = s.z
	}
	for a := range names {
		for b := a + 1; b < len(names); b++ {
			var x, y []float64
			for k, z := range bySlot[names[a]] {
				if z2, ok := bySlot[names[b]][k]; ok {
					x, y = append(x, z), append(y, z2)
				}
			}
			if len(x) >= minPairs {
				all = append(all, corrTest(fmt.Sprintf("correlation of %.30s… and %.30s… (%d pairs)", names[a], names[b], len(x)), x, y))
			}
		}
	}
	for _, t := range all {
		if t.p < alpha/float64(len(all)) {
			failed = append(failed, t)
		}
	}
	return failed, len(all)
}

// noiseRuns trains the fixed data set runs times with seeds 1…runs and
// returns every release's standardized noise (released − exact)/σ, σ the
// report's, and the last run's report.
func noiseRuns(t *testing.T, o Options, runs int) ([]noiseSample, *Report) {
	t.Helper()
	d := dataset(t, familyRows(0), "")
	var out []noiseSample
	var rep *Report
	for r := range runs {
		res, got := observedTrain(t, d, o, uint64(r+1), nil)
		rep = res.Report
		for c, v := range got {
			rel := releaseOf(t, rep, c.release)
			out = append(out, noiseSample{c: c, rep: r, z: (v.released - v.exact) / rel.Sigma})
		}
	}
	return out, rep
}

// noiseConfigs are the configurations of the noise test: every kind of
// release, with off-diagonal Gram entries (rank 2) and two ALS steps, and
// the ranking objective's releases.
func noiseConfigs() []releaseConfig {
	cs := releaseConfigs()
	return []releaseConfig{
		{"catalogue, rank 2, start and 2 ALS steps", func() Options {
			o := cs[0].opts()
			return o.WithFactors(2, 2, 0.4)
		}},
		cs[1],
		cs[3], // the ranking objective: users, positive counts, head Gram
	}
}

// Every release's noise, as the pipeline added it, is i.i.d. N(0, σ²)
// with the σ the report states: checkNoise passes at the false-alarm
// rate noiseFalseAlarm (a seeded run: deterministic). And it has power:
// the same draws with any one release's first coordinate left without
// noise, or with a release's noise halved, fail.
func TestEveryReleaseNoise(t *testing.T) {
	if raceEnabled {
		t.Skip("statistical: runs without -race")
	}
	// 120 runs: a release of one coordinate (the number of users) with
	// half its noise has Σz² ≈ 30 against χ²₁₂₀, p ≈ 1e-13.
	const runs = 120
	for _, cfg := range noiseConfigs() {
		for _, sampler := range []Sampler{SamplerDiscrete, SamplerFloat} {
			t.Run(fmt.Sprintf("%s/%v", cfg.name, sampler), func(t *testing.T) {
				o := cfg.opts()
				o.Sampler = sampler
				samples, rep := noiseRuns(t, o, runs)
				failed, n := checkNoise(samples, noiseFalseAlarm)
				for _, f := range failed {
					t.Errorf("%s: p = %.3g < %.3g", f.name, f.p, noiseFalseAlarm/float64(n))
				}
				t.Logf("%d draws, %d tests, none below p = %.2g", len(samples), n, noiseFalseAlarm/float64(n))
				for _, rel := range rep.Releases {
					first := coord{}
					found := false
					for _, s := range samples {
						if s.c.release == rel.Name && (!found || coordCmp(s.c, first) < 0) {
							first, found = s.c, true
						}
					}
					if !found {
						t.Errorf("release %q: no noise observed", rel.Name)
						continue
					}
					unnoised := slices.Clone(samples)
					halved := slices.Clone(samples)
					for k, s := range unnoised {
						if s.c == first {
							unnoised[k].z = 0
						}
						if s.c.release == rel.Name {
							halved[k].z /= 2
						}
					}
					if f, _ := checkNoise(unnoised, noiseFalseAlarm); len(f) == 0 {
						t.Errorf("release %q with coordinate %+v left without noise passes the noise check", rel.Name, first)
					}
					if f, _ := checkNoise(halved, noiseFalseAlarm); len(f) == 0 {
						t.Errorf("release %q with half its noise passes the noise check", rel.Name)
					}
				}
			})
		}
	}
}

// The checker on synthetic draws shaped like a pipeline's (releases of
// items over steps and runs): i.i.d. N(0, 1) passes; one coordinate
// without noise, a release's noise at half its scale, one noise value
// shared by every item, by two releases, by consecutive steps or by
// consecutive runs each fail.
func TestCheckNoiseSynthetic(t *testing.T) {
	const runs, items = 30, 40
	make := func(seed uint64, mutate func(c coord, rep int, z float64, g func() float64) float64) []noiseSample {
		g := rng.Seeded(seed)
		var out []noiseSample
		for rep := range runs {
			for _, rel := range []string{"counts", "sums", "gram"} {
				steps := 1
				if rel == "gram" {
					steps = 2
				}
				for step := range steps {
					for j := range items {
						c := coord{release: rel, phase: len(rel), step: step, id: fmt.Sprint(j), index: 0}
						z := g.NormFloat64()
						if mutate != nil {
							z = mutate(c, rep, z, g.NormFloat64)
						}
						out = append(out, noiseSample{c: c, rep: rep, z: z})
					}
				}
			}
		}
		return out
	}
	// shared returns the same draw for every coordinate with the same key.
	shared := func(key func(c coord, rep int) string) func(c coord, rep int, z float64, _ func() float64) float64 {
		m := map[string]float64{}
		return func(c coord, rep int, z float64, _ func() float64) float64 {
			k := key(c, rep)
			if v, ok := m[k]; ok {
				return v
			}
			m[k] = z
			return z
		}
	}
	for _, tc := range []struct {
		name   string
		mutate func(c coord, rep int, z float64, g func() float64) float64
		fail   string // a substring of a failing test's name; "" passes
	}{
		{"i.i.d. N(0, 1)", nil, ""},
		{"one coordinate without noise", func(c coord, _ int, z float64, _ func() float64) float64 {
			if c.release == "gram" && c.id == "7" && c.step == 1 {
				return 0
			}
			return z
		}, "coordinate (phase 4, step 1, \"7\""},
		{"half the noise on one release", func(c coord, _ int, z float64, _ func() float64) float64 {
			if c.release == "sums" {
				return z / 2
			}
			return z
		}, "sums: variance"},
		{"one stream for every item", shared(func(c coord, rep int) string { return fmt.Sprint(c.release, c.step, rep) }), "neighbouring coordinates"},
		{"one stream for two releases", shared(func(c coord, rep int) string {
			if c.release == "gram" {
				return fmt.Sprint(c.release, c.step, c.id, rep)
			}
			return fmt.Sprint(c.id, rep)
		}), "correlation of counts"},
		{"one stream for every step", shared(func(c coord, rep int) string { return fmt.Sprint(c.release, c.id, rep) }), "consecutive steps"},
		{"one stream for every run", shared(func(c coord, _ int) string { return fmt.Sprint(c.release, c.step, c.id) }), "consecutive runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failed, n := checkNoise(make(3, tc.mutate), noiseFalseAlarm)
			if tc.fail == "" {
				for _, f := range failed {
					t.Errorf("correct noise flagged: %s (p = %.3g, %d tests)", f.name, f.p, n)
				}
				return
			}
			if !slices.ContainsFunc(failed, func(f noiseTest) bool { return strings.Contains(f.name, tc.fail) }) {
				t.Errorf("no failing test names %q; failed: %v", tc.fail, failed)
			}
		})
	}
}
