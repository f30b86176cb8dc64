package audit

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Bit-pattern events look at the float64 representation of a value: its
// binade (sign and 11-bit exponent, the "key") and the low 3 bits of its
// 52-bit mantissa. An output computed as x + noise in floating point is
// rounded to the grid of its binade; when the grid of one neighbour's
// outputs is coarser than the other's in some binade (Sterbenz-exact
// subtractions, or a sampler whose outputs are sparse, as in Mironov 2012),
// some low-bit patterns become impossible on one side and not on the
// other: an event with a ratio of probabilities far above e^ε.

const (
	maxBinades = 24 // binades given their own events
	lowBits    = 3  // patterns of the low 1, 2 and 3 bits
	numKeys    = 1 << 12
)

// bitPattern is the event {binade = key (any if key < 0) and
// mantissa mod 2^k = v}.
type bitPattern struct {
	key  int
	k, v int
}

// floatKey returns the binade key (sign and exponent) and the low 3
// mantissa bits of x.
func floatKey(x float64) (key, low int) {
	b := math.Float64bits(x)
	return int(b >> 52), int(b & (1<<lowBits - 1))
}

// binadeString describes the values of a binade key, such as "+[0.25, 0.5)".
func binadeString(key int) string {
	sign := "+"
	if key>>11 != 0 {
		sign = "−"
	}
	switch e := key & 0x7ff; e {
	case 0:
		return sign + "subnormal"
	case 0x7ff:
		return sign + "Inf/NaN"
	default:
		return fmt.Sprintf("%s[%s, %s)", sign, num(math.Ldexp(1, e-1023)), num(math.Ldexp(1, e-1022)))
	}
}

// bitEvents returns the bit-pattern events: for the (up to maxBinades)
// binades holding the most pooled selection values, at least 10 of them,
// and for all binades together, the events mantissa mod 2^k = v for
// k = 1, 2, 3 and every v < 2^k — 14 events per binade.
func bitEvents(pooled []float64, sym string) []event {
	counts := make([]int, numKeys)
	for _, x := range pooled {
		key, _ := floatKey(x)
		counts[key]++
	}
	var keys []int
	for key, c := range counts {
		if c >= 10 {
			keys = append(keys, key)
		}
	}
	slices.SortStableFunc(keys, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	keys = keys[:min(len(keys), maxBinades)]
	slices.Sort(keys)
	keys = append(keys, -1)
	var evs []event
	for _, key := range keys {
		where := sym + " in any binade"
		if key >= 0 {
			where = sym + " ∈ " + binadeString(key)
		}
		for k := 1; k <= lowBits; k++ {
			for v := range 1 << k {
				evs = append(evs, event{family: Bits, bits: bitPattern{key: key, k: k, v: v},
					desc: fmt.Sprintf("%s with mantissa ≡ %d (mod %d)", where, v, 1<<k)})
			}
		}
	}
	return evs
}

// countBits counts the bit-pattern events on the estimation values in one
// pass over each side.
func countBits(evs []event, a, b []float64) {
	ta, tb := newBitTable(a), newBitTable(b)
	for i := range evs {
		evs[i].ka = ta.count(evs[i].bits)
		evs[i].kb = tb.count(evs[i].bits)
	}
}

// bitTable counts values by binade key and low 3 mantissa bits.
type bitTable struct {
	n   [numKeys][1 << lowBits]int
	all [1 << lowBits]int
}

func newBitTable(x []float64) *bitTable {
	t := new(bitTable)
	for _, v := range x {
		key, low := floatKey(v)
		t.n[key][low]++
		t.all[low]++
	}
	return t
}

func (t *bitTable) count(p bitPattern) int {
	row := &t.all
	if p.key >= 0 {
		row = &t.n[p.key]
	}
	c := 0
	for low, n := range row {
		if low&(1<<p.k-1) == p.v {
			c += n
		}
	}
	return c
}
