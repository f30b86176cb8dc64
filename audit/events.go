package audit

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
)

// event is one event to try: a union of intervals of values, or a
// bit pattern, with its counts among the estimation values.
type event struct {
	family Family
	desc   string
	ivs    []interval // the value set (Thresholds, Histogram)
	bits   bitPattern // the bit pattern (Bits)
	ka, kb int        // hits among the estimation values of A and B
}

// interval is a set of values between lo and hi, each end open or closed.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

// count sets ka and kb from the sorted estimation values.
func (e *event) count(a, b []float64) {
	e.ka, e.kb = 0, 0
	for _, iv := range e.ivs {
		e.ka += iv.count(a)
		e.kb += iv.count(b)
	}
}

// count returns how many of the sorted values x lie in iv, by binary search.
func (iv interval) count(x []float64) int {
	return below(x, iv.hi, !iv.hiOpen) - below(x, iv.lo, iv.loOpen)
}

// below returns #{v in x: v < t}, or #{v ≤ t} if inclusive; x is sorted.
func below(x []float64, t float64, inclusive bool) int {
	if inclusive {
		return sort.Search(len(x), func(i int) bool { return x[i] > t })
	}
	return sort.Search(len(x), func(i int) bool { return x[i] >= t })
}

// quantile returns the element of the sorted x at level p in [0, 1].
func quantile(x []float64, p float64) float64 {
	i := int(math.Round(p * float64(len(x)-1)))
	return x[min(max(i, 0), len(x)-1)]
}

// tailLevel is the smallest quantile level the thresholds and the
// histogram range reach: about 10 pooled selection values lie beyond it.
func tailLevel(n int) float64 { return min(0.25, 10/float64(n)) }

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// thresholdEvents returns {s ≥ t} and {s ≤ t} for up to n distinct t: the
// pooled selection quantiles at levels spaced evenly on the logit scale
// between tailLevel and 1 − tailLevel, so that both tails are well covered.
func thresholdEvents(pooled []float64, n int, sym string) []event {
	pmin := tailLevel(len(pooled))
	lo, hi := logit(pmin), logit(1-pmin)
	var ts []float64
	for j := range n {
		l := lo
		if n > 1 {
			l = lo + (hi-lo)*float64(j)/float64(n-1)
		}
		ts = append(ts, quantile(pooled, 1/(1+math.Exp(-l))))
	}
	ts = slices.Compact(ts) // sorted already: quantiles at increasing levels
	evs := make([]event, 0, 2*len(ts))
	for _, t := range ts {
		evs = append(evs,
			event{family: Thresholds, desc: sym + " ≥ " + num(t), ivs: []interval{{lo: t, hi: math.Inf(1)}}},
			event{family: Thresholds, desc: sym + " ≤ " + num(t), ivs: []interval{{lo: math.Inf(-1), hi: t}}},
		)
	}
	return evs
}

func logit(p float64) float64 { return math.Log(p / (1 - p)) }

// histogramBins returns the bins: (−∞, lo), equal-width bins [eᵢ, eᵢ₊₁)
// covering [lo, hi), and [hi, +∞), where lo and hi are pooled selection
// quantiles at tailLevel. The width follows the Freedman–Diaconis rule
// 2·IQR/∛n, as Google's stochastic tester does, with at most maxBins bins.
// A degenerate range gives (−∞, lo), [lo, lo] and (lo, +∞).
func histogramBins(pooled []float64, maxBins int, sym string) []event {
	pmin := tailLevel(len(pooled))
	lo, hi := quantile(pooled, pmin), quantile(pooled, 1-pmin)
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []event{
			{family: Histogram, desc: sym + " < " + num(lo), ivs: []interval{{lo: math.Inf(-1), hi: lo, hiOpen: true}}},
			{family: Histogram, desc: sym + " = " + num(lo), ivs: []interval{{lo: lo, hi: lo}}},
			{family: Histogram, desc: sym + " > " + num(lo), ivs: []interval{{lo: lo, hi: math.Inf(1), loOpen: true}}},
		}
	}
	nb := maxBins
	if iqr := quantile(pooled, 0.75) - quantile(pooled, 0.25); iqr > 0 {
		w := 2 * iqr / math.Cbrt(float64(len(pooled)))
		nb = min(maxBins, max(1, int(math.Ceil((hi-lo)/w))))
	}
	evs := []event{{family: Histogram, desc: sym + " < " + num(lo), ivs: []interval{{lo: math.Inf(-1), hi: lo, hiOpen: true}}}}
	prev := lo
	for i := 1; i <= nb; i++ {
		next := lo + (hi-lo)*float64(i)/float64(nb)
		if i == nb {
			next = hi
		}
		if next > prev {
			evs = append(evs, event{family: Histogram, desc: sym + " ∈ [" + num(prev) + ", " + num(next) + ")",
				ivs: []interval{{lo: prev, hi: next, hiOpen: true}}})
		}
		prev = next
	}
	return append(evs, event{family: Histogram, desc: sym + " ≥ " + num(hi), ivs: []interval{{lo: hi, hi: math.Inf(1)}}})
}

// deltaSets returns the two unions of bins on which one side's selection
// frequency exceeds expEps times the other's: the sets S that maximize
// P₁(S) − e^ε P₂(S) over unions of bins, as estimated on the selection
// values (empty ones are left out). Their probabilities are then estimated
// on fresh values, so that their bounds are valid despite the choice.
func deltaSets(bins []event, selA, selB []float64, expEps float64, sym string) []event {
	a, b := slices.Sorted(slices.Values(selA)), slices.Sorted(slices.Values(selB))
	na, nb := float64(len(a)), float64(len(b))
	var overA, overB []interval // bins where A (resp. B) is too likely
	for _, bin := range bins {
		iv := bin.ivs[0]
		pa, pb := float64(iv.count(a))/na, float64(iv.count(b))/nb
		switch {
		case pa > expEps*pb:
			overA = appendMerged(overA, iv)
		case pb > expEps*pa:
			overB = appendMerged(overB, iv)
		}
	}
	var evs []event
	for _, s := range []struct {
		ivs      []interval
		num, den string
	}{{overA, "A", "B"}, {overB, "B", "A"}} {
		if len(s.ivs) == 0 {
			continue
		}
		where := fmt.Sprintf("%s in %d intervals within [%s, %s]", sym, len(s.ivs), num(s.ivs[0].lo), num(s.ivs[len(s.ivs)-1].hi))
		if len(s.ivs) == 1 {
			where = sym + " ∈ " + s.ivs[0].String()
		}
		evs = append(evs, event{family: Histogram, ivs: s.ivs,
			desc: fmt.Sprintf("δ-set %s > e^ε·%s: %s", s.num, s.den, where)})
	}
	return evs
}

// String formats iv as "[lo, hi)" and the like.
func (iv interval) String() string {
	l, r := "[", "]"
	if iv.loOpen {
		l = "("
	}
	if iv.hiOpen {
		r = ")"
	}
	return l + num(iv.lo) + ", " + num(iv.hi) + r
}

// appendMerged appends iv to the sorted, disjoint ivs, merging it with the
// last one when they touch.
func appendMerged(ivs []interval, iv interval) []interval {
	if n := len(ivs); n > 0 && ivs[n-1].hi == iv.lo && ivs[n-1].hiOpen != iv.loOpen {
		ivs[n-1].hi, ivs[n-1].hiOpen = iv.hi, iv.hiOpen
		return ivs
	}
	return append(ivs, iv)
}
