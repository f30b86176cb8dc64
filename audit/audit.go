package audit

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/dpmc/dpmc/internal/check"
	"github.com/dpmc/dpmc/noise"
)

// Family is a set of event families, combined with |.
type Family uint8

const (
	// Thresholds are the events {s ≥ t} and {s ≤ t} over a grid of t.
	Thresholds Family = 1 << iota
	// Histogram is the fixed-width bins, two overflow bins and the two
	// unions of bins that carry δ(ε).
	Histogram
	// Bits is the low-order mantissa-bit patterns of the float64 values.
	Bits
	// Lattice is the fixed sets of a Statistic's Sets: in Mechanism, the
	// sets of values the sampler can emit on each neighbour (see Support).
	Lattice
)

// String names the families, joined by "+", such as "thresholds+histogram".
func (f Family) String() string {
	var names []string
	for _, x := range []struct {
		f    Family
		name string
	}{{Thresholds, "thresholds"}, {Histogram, "histogram"}, {Bits, "bits"}, {Lattice, "lattice"}} {
		if f&x.f != 0 {
			names = append(names, x.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// Verdict is the outcome of an audit: Pass or Violation.
type Verdict string

const (
	// Pass: no event contradicts the claim at the stated confidence. This
	// is not a proof of privacy.
	Pass Verdict = "PASS"
	// Violation: some event contradicts the claim; with probability at
	// most 1 − Confidence this happens to a correct claim.
	Violation Verdict = "VIOLATION"
)

// Options configure an audit. The zero value audits the claim ε = 0, δ = 0
// with the defaults below; set Claim.
type Options struct {
	// Claim is the (ε, δ) guarantee under test; ε ≥ 0, δ in [0, 1].
	Claim noise.Guarantee
	// Confidence is the probability that all the reported bounds hold
	// together, in (0, 1); 0 means 0.95.
	Confidence float64
	// Bits adds the bit-pattern family to statistics that do not set
	// their own families.
	Bits bool
	// Thresholds is the number of threshold values t (each gives two
	// events); 0 means 64.
	Thresholds int
	// MaxBins caps the number of histogram bins between the overflow
	// bins; 0 means 100.
	MaxBins int
	// SelectFraction is the fraction of each side's values, taken from the
	// front, that chooses the events; the rest estimates them. In
	// [0.01, 0.5]; 0 means 0.1.
	SelectFraction float64
}

// Defaults of Options.
const (
	DefaultConfidence     = 0.95
	DefaultThresholds     = 64
	DefaultMaxBins        = 100
	DefaultSelectFraction = 0.1
)

// MinSamples is the smallest number of values per side that Audit accepts.
const MinSamples = 20

// resolveWorkers checks a Workers option: 0 means GOMAXPROCS, otherwise
// it must be in [1, 4096].
func resolveWorkers(w int) (int, error) {
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return w, check.InRange("workers", float64(w), 1, 4096)
}

// resolve checks o and fills in the defaults. All argument checks of the
// package's options are here or in MechanismOptions.resolve.
func (o Options) resolve() (Options, error) {
	if err := check.NonNegative("claimed epsilon", o.Claim.Epsilon); err != nil {
		return o, err
	}
	if err := check.InRange("claimed delta", o.Claim.Delta, 0, 1); err != nil {
		return o, err
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	if err := check.Probability("confidence", o.Confidence); err != nil {
		return o, err
	}
	if o.Thresholds == 0 {
		o.Thresholds = DefaultThresholds
	}
	if err := check.InRange("thresholds", float64(o.Thresholds), 1, 10000); err != nil {
		return o, err
	}
	if o.MaxBins == 0 {
		o.MaxBins = DefaultMaxBins
	}
	if err := check.InRange("max bins", float64(o.MaxBins), 1, 10000); err != nil {
		return o, err
	}
	if o.SelectFraction == 0 {
		o.SelectFraction = DefaultSelectFraction
	}
	if err := check.InRange("select fraction", o.SelectFraction, 0.01, 0.5); err != nil {
		return o, err
	}
	return o, nil
}

// Statistic is one pair of samples of a scalar statistic: its values on
// the two neighbouring inputs.
type Statistic struct {
	// Name labels the statistic in reports, such as "noisy count".
	Name string
	// Symbol names a value in event descriptions, such as "L(y)"; "" means
	// "s".
	Symbol string
	// A and B are i.i.d. values on the two neighbours, in sampling order
	// (the front of each chooses the events). NaN is rejected.
	A, B []float64
	// Families are the event families tried on this statistic; 0 means
	// Thresholds|Histogram, plus Bits when Options.Bits is set, plus
	// Lattice when Sets is not empty.
	Families Family
	// Sets are the events of the Lattice family. They must be fixed
	// before the values are drawn (they may depend on the inputs, never
	// on the values), so that no selection values are spent on them; they
	// are counted on the estimation values like every other event.
	Sets []Set
}

// Set is an event fixed before sampling: the values v with Contains(v).
type Set struct {
	// Description names the set in reports, such as "y₁ emitted on x".
	Description string
	// Contains reports whether v is in the set.
	Contains func(v float64) bool
}

// Event is one event tried, in one ordering, with its confidence bounds.
// P1 is the probability of the numerator side, P2 of the other.
type Event struct {
	Statistic   string // the statistic's Name
	Family      Family // the single family the event belongs to
	Description string // the event, such as "L(y) ≤ -1"
	// Numerator is "A" or "B": the side whose probability is P1.
	Numerator string
	// Count1 of N1 estimation values of the numerator side fell in the
	// event, Count2 of N2 of the other side.
	Count1, N1, Count2, N2 int
	// P1Lower and P2Upper are the Clopper–Pearson bounds (at the
	// Bonferroni-corrected level) on P1 and P2.
	P1Lower, P2Upper float64
	// EpsilonLower is log((P1Lower − δ)/P2Upper) at the claimed δ, −Inf
	// when P1Lower ≤ δ.
	EpsilonLower float64
	// DeltaLower is P1Lower − e^ε·P2Upper at the claimed ε (may be < 0).
	DeltaLower float64
}

// P1 is the point estimate Count1/N1.
func (e Event) P1() float64 { return float64(e.Count1) / float64(e.N1) }

// P2 is the point estimate Count2/N2; see P1.
func (e Event) P2() float64 { return float64(e.Count2) / float64(e.N2) }

// Part summarizes the events of one family on one statistic.
type Part struct {
	Statistic    string
	Family       Family
	Events       int     // events of this family on this statistic
	EpsilonLower float64 // best bound of the part, ≥ 0
	DeltaLower   float64 // best δ(ε) bound of the part, ≥ 0
	Best         Event   // the event giving EpsilonLower; Description "" if none
}

// Result is the outcome of an audit. All bounds hold together with
// probability at least Confidence.
type Result struct {
	Claim      noise.Guarantee // the claim audited
	Confidence float64         // joint confidence of all bounds
	// IntervalConfidence is the level of each Clopper–Pearson interval,
	// 1 − (1 − Confidence)/(2·Events).
	IntervalConfidence float64
	Events             int // events tried, over all statistics and families
	// Samples is the number of values per side of each statistic (the
	// smallest when they differ); Selection of them chose the events.
	Samples, Selection int
	// EpsilonLower is the best lower bound on ε at the claimed δ, ≥ 0.
	EpsilonLower float64
	// Best is the event giving EpsilonLower; Description "" if no event
	// gives a finite bound.
	Best Event
	// DeltaLower is a lower confidence bound on δ(ε), the smallest δ the
	// claimed ε allows, ≥ 0: the largest P1Lower − e^ε·P2Upper over all
	// events. Among them are the two δ-sets S, unions of histogram bins
	// chosen on the selection values, for which P₁(S) − e^ε P₂(S) is the
	// binned hockey-stick divergence Σ_bins max(0, p₁ − e^ε p₂) when the
	// choice is right, and never more than it or than δ(ε). Since the
	// sets are fixed before the estimation values are counted, the bound
	// is valid jointly with all the others.
	DeltaLower float64
	// DeltaEstimate is the plug-in Σ_bins max(0, P̂₁ − e^ε P̂₂) over the
	// histogram bins (both orderings, the larger), on the estimation
	// values. It is biased upwards by sampling noise and carries no
	// confidence; 0 without the Histogram family.
	DeltaEstimate float64
	// Parts has the best event per statistic and family.
	Parts   []Part
	Verdict Verdict
}

// Samples audits one pair of samples a (on one neighbour) and b (on the
// other) of a scalar statistic against opts.Claim, with the Thresholds and
// Histogram families (and Bits if opts.Bits). The values must be i.i.d.
// draws in sampling order. It returns an error naming the problem if an
// option is out of range, a side has fewer than MinSamples values or a
// value is NaN.
func Samples(a, b []float64, opts Options) (Result, error) {
	return Audit([]Statistic{{Name: "s", A: a, B: b}}, opts)
}

// Audit audits several statistics under one union bound: the confidence
// covers every event of every statistic at once. It does not modify the
// statistics' values. It returns an error naming the problem if an option
// is out of range, a statistic has fewer than MinSamples values per side or
// a value is NaN.
func Audit(stats []Statistic, opts Options) (Result, error) {
	return audit(stats, opts, false)
}

// audit is Audit; inPlace lets it sort the estimation part of each
// statistic's values in place instead of copying them.
func audit(stats []Statistic, opts Options, inPlace bool) (Result, error) {
	opts, err := opts.resolve()
	if err != nil {
		return Result{}, err
	}
	if len(stats) == 0 {
		return Result{}, fmt.Errorf("%w: no statistics to audit", check.ErrParam)
	}
	res := Result{Claim: opts.Claim, Confidence: opts.Confidence, Samples: math.MaxInt, Selection: math.MaxInt}
	var all []prepared
	for i, st := range stats {
		p, err := prepare(st, opts, inPlace)
		if err != nil {
			return Result{}, fmt.Errorf("statistic %d (%q): %w", i, st.Name, err)
		}
		all = append(all, p)
		res.Events += len(p.events)
		res.Samples = min(res.Samples, len(st.A), len(st.B))
		res.Selection = min(res.Selection, p.selA, p.selB)
	}
	if res.Events == 0 {
		return Result{}, fmt.Errorf("%w: no events to try (no statistic has an event family)", check.ErrParam)
	}
	alpha := 1 - opts.Confidence
	res.IntervalConfidence = 1 - alpha/(2*float64(res.Events))
	tail := alpha / (4 * float64(res.Events)) // each end of each interval
	bounds := newBoundCache(tail)

	eps, delta := opts.Claim.Epsilon, opts.Claim.Delta
	expEps := math.Exp(eps)
	res.EpsilonLower, res.Best.EpsilonLower = 0, math.Inf(-1)
	res.DeltaLower = 0
	for _, p := range all {
		parts := map[Family]*Part{}
		var order []Family
		for _, ev := range p.events {
			part := parts[ev.family]
			if part == nil {
				part = &Part{Statistic: p.name, Family: ev.family}
				part.Best.EpsilonLower = math.Inf(-1)
				parts[ev.family] = part
				order = append(order, ev.family)
			}
			part.Events++
			loA, hiA := bounds.get(ev.ka, p.nA)
			loB, hiB := bounds.get(ev.kb, p.nB)
			for _, o := range [2]struct {
				num            string
				k1, n1, k2, n2 int
				lo1, hi2       float64
			}{
				{"B", ev.kb, p.nB, ev.ka, p.nA, loB, hiA},
				{"A", ev.ka, p.nA, ev.kb, p.nB, loA, hiB},
			} {
				e := Event{
					Statistic: p.name, Family: ev.family, Description: ev.desc, Numerator: o.num,
					Count1: o.k1, N1: o.n1, Count2: o.k2, N2: o.n2,
					P1Lower: o.lo1, P2Upper: o.hi2,
					EpsilonLower: math.Inf(-1),
					DeltaLower:   o.lo1 - expEps*o.hi2,
				}
				if o.lo1 > delta {
					e.EpsilonLower = math.Log((o.lo1 - delta) / o.hi2)
				}
				if e.EpsilonLower > part.Best.EpsilonLower {
					part.Best = e
				}
				part.DeltaLower = max(part.DeltaLower, e.DeltaLower)
			}
		}
		for _, f := range order {
			part := parts[f]
			if part.Best.EpsilonLower > res.Best.EpsilonLower {
				res.Best = part.Best
			}
			res.DeltaLower = max(res.DeltaLower, part.DeltaLower)
			part.EpsilonLower = max(0, part.Best.EpsilonLower)
			res.Parts = append(res.Parts, *part)
		}
		res.DeltaEstimate = max(res.DeltaEstimate, p.deltaEstimate(expEps))
	}
	res.EpsilonLower = max(0, res.Best.EpsilonLower)
	res.Verdict = Pass
	if res.EpsilonLower > eps || res.DeltaLower > delta {
		res.Verdict = Violation
	}
	return res, nil
}

// boundCache memoizes Clopper–Pearson intervals: many events share counts.
type boundCache struct {
	tail float64
	m    map[[2]int][2]float64
}

func newBoundCache(tail float64) *boundCache {
	return &boundCache{tail: tail, m: map[[2]int][2]float64{}}
}

func (c *boundCache) get(k, n int) (lo, hi float64) {
	key := [2]int{k, n}
	if v, ok := c.m[key]; ok {
		return v[0], v[1]
	}
	lo, hi = cpInterval(k, n, c.tail)
	c.m[key] = [2]float64{lo, hi}
	return lo, hi
}

// prepared is one statistic with its events chosen and counted.
type prepared struct {
	name       string
	selA, selB int // selection values per side
	nA, nB     int // estimation values per side
	events     []event
	bins       []int // indices in events of the histogram bins
}

// deltaEstimate is the plug-in binned hockey-stick divergence at e^ε,
// the larger of the two orderings.
func (p *prepared) deltaEstimate(expEps float64) float64 {
	var ab, ba float64
	for _, i := range p.bins {
		pa := float64(p.events[i].ka) / float64(p.nA)
		pb := float64(p.events[i].kb) / float64(p.nB)
		ab += max(0, pa-expEps*pb)
		ba += max(0, pb-expEps*pa)
	}
	return max(ab, ba)
}

// prepare splits st into selection and estimation values, chooses the
// events on the first and counts them on the second.
func prepare(st Statistic, opts Options, inPlace bool) (prepared, error) {
	fam := st.Families
	if fam == 0 {
		fam = Thresholds | Histogram
		if opts.Bits {
			fam |= Bits
		}
		if len(st.Sets) > 0 {
			fam |= Lattice
		}
	}
	if fam&Lattice != 0 && len(st.Sets) == 0 {
		return prepared{}, fmt.Errorf("%w: the lattice family needs Sets", check.ErrParam)
	}
	sym := st.Symbol
	if sym == "" {
		sym = "s"
	}
	for _, sv := range [2]struct {
		side string
		v    []float64
	}{{"A", st.A}, {"B", st.B}} {
		side, v := sv.side, sv.v
		if len(v) < MinSamples {
			return prepared{}, fmt.Errorf("%w: %d values on side %s, want at least %d", check.ErrParam, len(v), side, MinSamples)
		}
		for i, x := range v {
			if math.IsNaN(x) {
				return prepared{}, fmt.Errorf("%w: %s[%d] is NaN", check.ErrParam, side, i)
			}
		}
	}
	split := func(v []float64) (sel, est []float64) {
		k := int(math.Ceil(opts.SelectFraction * float64(len(v))))
		sel, est = v[:k], v[k:]
		if !inPlace && fam&(Thresholds|Histogram) != 0 {
			est = slices.Clone(est)
		}
		return sel, est
	}
	selA, estA := split(st.A)
	selB, estB := split(st.B)
	p := prepared{name: st.Name, selA: len(selA), selB: len(selB), nA: len(estA), nB: len(estB)}

	pooled := make([]float64, 0, len(selA)+len(selB))
	pooled = append(append(pooled, selA...), selB...)
	slices.Sort(pooled)

	if fam&(Thresholds|Histogram) != 0 {
		slices.Sort(estA)
		slices.Sort(estB)
	}
	if fam&Thresholds != 0 {
		for _, ev := range thresholdEvents(pooled, opts.Thresholds, sym) {
			ev.count(estA, estB)
			p.events = append(p.events, ev)
		}
	}
	if fam&Histogram != 0 {
		bins := histogramBins(pooled, opts.MaxBins, sym)
		for _, ev := range bins {
			ev.count(estA, estB)
			p.bins = append(p.bins, len(p.events))
			p.events = append(p.events, ev)
		}
		for _, ev := range deltaSets(bins, selA, selB, math.Exp(opts.Claim.Epsilon), sym) {
			ev.count(estA, estB)
			p.events = append(p.events, ev)
		}
	}
	if fam&Bits != 0 {
		evs := bitEvents(pooled, sym)
		countBits(evs, estA, estB)
		p.events = append(p.events, evs...)
	}
	if fam&Lattice != 0 {
		for _, set := range st.Sets {
			ev := event{family: Lattice, desc: set.Description}
			for _, v := range estA {
				if set.Contains(v) {
					ev.ka++
				}
			}
			for _, v := range estB {
				if set.Contains(v) {
					ev.kb++
				}
			}
			p.events = append(p.events, ev)
		}
	}
	return p, nil
}
