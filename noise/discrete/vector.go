package discrete

import (
	"math/bits"
	"math/rand/v2"

	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/rng"
)

// A vector of noise at the price of the words it takes.
//
// noise.AddNoise adds a Granular mechanism's noise one AddTo call at a
// time, and each draw of the ziggurat then makes two or three calls
// through the *rand.Rand's Source interface. AddNoise below adds the same
// noise to a whole vector: it finds the ChaCha8 behind r (rng.SourceOf:
// seeded and keyed generators) and takes the words of the ziggurat's
// common case from it directly, with the table fetched once per vector.
// The words, their order and every result are exactly those of
// x[i] = AddTo(x[i], r) for i = 0, 1, …; the rare cases (an edge test, the
// tail) still draw through r, which reads the same ChaCha8, and any other
// generator, a purego build or a 32-bit platform takes the AddTo loop
// itself. The keyed generators and rng.Crypto's hold their words in a
// buffer (rng.Buffered): for them the common case reads runs of words
// from it, without a call per word, and hands any other value to draw
// through r from its first word on. TestAddNoiseMatchesAddTo holds the
// ways to the same bits.

var (
	_ noise.VectorNoiser = (*Huber)(nil)
	_ noise.VectorNoiser = (*Gaussian)(nil)
	_ noise.VectorNoiser = (*Laplace)(nil)
)

// AddNoise sets x[i] = m.AddTo(x[i], r) for every i, in order: each
// element rounded to the grid plus one noise draw, as noise.AddNoise does
// for a Granular mechanism, with the same draws, only faster.
func (m *Huber) AddNoise(x []float64, r *rand.Rand) {
	m.zigOnce.Do(func() { m.zig, _ = newHuberZig(m.tau, m.a) })
	addNoise(m, m.zig, m.gamma, x, r)
}

// AddNoise sets x[i] = m.AddTo(x[i], r) for every i, in order (see
// Huber.AddNoise).
func (m *Gaussian) AddNoise(x []float64, r *rand.Rand) {
	m.zigOnce.Do(func() { m.zig, _ = newGaussianZig(m.s) })
	addNoise(m, m.zig, m.gamma, x, r)
}

// AddNoise sets x[i] = m.AddTo(x[i], r) for every i, in order (see
// Huber.AddNoise).
func (m *Laplace) AddNoise(x []float64, r *rand.Rand) {
	m.zigOnce.Do(func() { m.zig, _ = newLaplaceZig(m.t) })
	addNoise(m, m.zig, m.gamma, x, r)
}

// is32bit is math/rand/v2's condition for drawing Uint64N differently.
const is32bit = ^uint(0)>>32 == 0

// addNoise is the AddNoise of m, whose ziggurat table is z (nil if it
// could not be built) and grid step gamma.
func addNoise(m noise.Granular, z *zigTable, gamma float64, x []float64, r *rand.Rand) {
	if z != nil && !is32bit {
		switch s := rng.SourceOf(r).(type) {
		case *rand.ChaCha8:
			z.addNoiseFrom(s, r, gamma, x)
			return
		case rng.Buffered:
			z.addNoiseWords(s, r, gamma, x)
			return
		}
	}
	for i := range x {
		x[i] = m.AddTo(x[i], r)
	}
}

// addNoiseWords is addNoise's loop for an r whose Source s buffers its
// words: addNoiseFrom's common case, with both words read from the buffer
// (the loop stops where fewer than two are left). A value that is not the
// common case is drawn by draw through r, from its first word on (the
// words the loop looked at are not marked read), which draws the same
// words as drawRest would, and so the same value.
func (z *zigTable) addNoiseWords(s rng.Buffered, r *rand.Rand, gamma float64, x []float64) {
	inv := 1 / gamma
	for i := 0; i < len(x); {
		ws := s.Words()
		k := 0
		for ; i < len(x) && k+1 < len(ws); i++ {
			w := ws[k]
			j := uint8(w)
			col := &z.cols[j]
			hi := w >> (64 - zigKeep)
			j ^= (j ^ col.alias) & above(hi, col.thrHi)
			it := &z.items[j]
			n := it.width
			if hi == col.thrHi || n&(n-1) == 0 {
				break
			}
			y, lo := bits.Mul64(ws[k+1], n)
			neg := -int64(w >> 8 & 1)
			if lo < n || y >= it.sure || (y == 0 && neg != 0) {
				break
			}
			k += 2
			d := (int64(y) ^ neg) - neg
			// addToGrid, written out (it is not inlined).
			if p := x[i] * inv; p > -0x1p62 && p < 0x1p62 && d > -(1<<53) && d < 1<<53 {
				t := int64(p)
				t += int64(2 * (p - float64(t)))
				x[i] = float64(t+d) * gamma
				continue
			}
			x[i] = addTo(x[i], gamma, d)
		}
		s.Discard(k)
		if i < len(x) {
			x[i] = addToGrid(x[i], inv, gamma, z.draw(r))
			i++
		}
	}
}

// addToGrid is addTo(v, gamma, k) for inv = 1/gamma, a power of two: in
// integers where that is exact, as addNoiseFrom explains.
func addToGrid(v, inv, gamma float64, k int64) float64 {
	if p := v * inv; p > -0x1p62 && p < 0x1p62 && k > -(1<<53) && k < 1<<53 {
		t := int64(p)
		t += int64(2 * (p - float64(t)))
		return float64(t+k) * gamma
	}
	return addTo(v, gamma, k)
}

// addNoiseFrom is addNoise's loop, for an r whose Source is c.
func (z *zigTable) addNoiseFrom(c *rand.ChaCha8, r *rand.Rand, gamma float64, x []float64) {
	// addTo's common case inline: γ is a power of two, so v·(1/γ) is v/γ
	// exactly (one rounding of the same real number, overflow included).
	// So is draw's common case (drawFrom has them all): a first word w
	// below its column's threshold or clearly above it, a region whose
	// width n is not a power of two, a second word whose product with n
	// leaves no doubt (lo ≥ n, math/rand/v2's Uint64N), a y under the
	// region's sure bound, and not the pair (−, 0). Anything else finishes
	// the draw in drawRest, from the words already taken.
	inv := 1 / gamma
	for i, v := range x {
		w := c.Uint64()
		j := uint8(w)
		col := &z.cols[j]
		hi := w >> (64 - zigKeep)
		j ^= (j ^ col.alias) & above(hi, col.thrHi)
		it := &z.items[j]
		n, sure := it.width, it.sure
		var k int64
		if hi == col.thrHi || n&(n-1) == 0 {
			k = z.drawRest(c, r, w, false, 0, 0)
		} else {
			y, lo := bits.Mul64(c.Uint64(), n)
			neg := -int64(w >> 8 & 1)
			if lo < n || y >= sure || (y == 0 && neg != 0) {
				k = z.drawRest(c, r, w, true, y, lo)
			} else {
				k = (int64(y) ^ neg) - neg
			}
		}
		// addTo in integers: for |p| < 2⁶² (NaN fails the test), t =
		// round(p) half away from zero is the truncation plus the
		// truncation of twice the exact fraction (0 where |p| ≥ 2⁵³, an
		// integer already), and float64(t + k)·γ is the float64 nearest
		// γ·(t + k), as addTo's q·γ + k·γ is (both round the same exact
		// sum once; a zero sum is +0 in both).
		if p := v * inv; p > -0x1p62 && p < 0x1p62 && k > -(1<<53) && k < 1<<53 {
			t := int64(p)
			t += int64(2 * (p - float64(t)))
			x[i] = float64(t+k) * gamma
			continue
		}
		x[i] = addTo(v, gamma, k)
	}
}

// drawRest finishes the draw of drawFrom whose first word was w and, if
// second, whose second word's product with the region's width n was
// (y, lo) (bits.Mul64), then draws afresh if it is rejected: the words
// and the result of drawFrom.
func (z *zigTable) drawRest(c *rand.ChaCha8, r *rand.Rand, w uint64, second bool, y, lo uint64) int64 {
	j := uint8(w)
	col := &z.cols[j]
	v := w >> (64 - zigKeep)
	if !second {
		if v == col.thrHi && c.Uint64()>>(64-z.loBits) >= col.thrLo {
			v++
		}
	}
	if v > col.thrHi {
		j = col.alias
	}
	it := &z.items[j]
	if it.width == 0 {
		return z.drawFrom(c, r) // padding
	}
	n := it.width
	if !second {
		y = uint64n(c, n)
	} else if lo < n { // the rest of uint64n
		thresh := -n % n
		for lo < thresh {
			y, lo = bits.Mul64(c.Uint64(), n)
		}
	}
	if y >= it.sure {
		ok := false
		if it.tail && y > z.cN {
			y, ok = z.tail(r)
		} else {
			ok = z.below(r, y, it.lo, it.hi)
		}
		if !ok {
			return z.drawFrom(c, r)
		}
	}
	neg := -int64(w >> 8 & 1)
	if y == 0 && neg != 0 {
		return z.drawFrom(c, r)
	}
	return (int64(y) ^ neg) - neg
}

// drawFrom is draw(r) for an r whose Source is c: the same words in the
// same order, the common case's taken from c without an interface call.
// Keep the two in step (TestDrawFromMatchesDraw).
func (z *zigTable) drawFrom(c *rand.ChaCha8, r *rand.Rand) int64 {
	for {
		w := c.Uint64()
		j := uint8(w)
		col := &z.cols[j]
		// draw's choice of the alias, without a branch that a random word
		// would mispredict (see above); v = thrHi (a second word) is rare.
		v := w >> (64 - zigKeep)
		if v == col.thrHi && c.Uint64()>>(64-z.loBits) >= col.thrLo {
			v++
		}
		j ^= (j ^ col.alias) & above(v, col.thrHi)
		it := &z.items[j]
		if it.width == 0 {
			continue // padding
		}
		y := uint64n(c, it.width)
		if y >= it.sure {
			ok := false
			if it.tail && y > z.cN {
				y, ok = z.tail(r)
			} else {
				ok = z.below(r, y, it.lo, it.hi)
			}
			if !ok {
				continue
			}
		}
		// The sign without a branch: neg = −1 or 0, (y ⊕ neg) − neg = ∓y;
		// (−, 0) is redrawn, as in draw.
		neg := -int64(w >> 8 & 1)
		if y == 0 && neg != 0 {
			continue
		}
		return (int64(y) ^ neg) - neg
	}
}

// above returns 0xff if v > thr and 0 otherwise, for v, thr < 2⁶³ (v has
// zigKeep bits, thr at most one more), without a branch: thr − v wraps
// below zero exactly when v > thr. The compiler makes a branch of
// "if v > thr { j = alias }", which random words mispredict half the time
// at the columns where both are likely.
func above(v, thr uint64) uint8 {
	return -uint8((thr - v) >> 63)
}

// uint64n is math/rand/v2's Rand.Uint64N(n), n > 0, on a 64-bit platform,
// drawing from c: the same words, the same result (Lemire's method).
func uint64n(c *rand.ChaCha8, n uint64) uint64 {
	if n&(n-1) == 0 {
		return c.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(c.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(c.Uint64(), n)
		}
	}
	return hi
}
