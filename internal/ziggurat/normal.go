package ziggurat

import (
	"math"
	"math/rand/v2"
)

const (
	// Layers is the number of layers; the layer of a word u is
	// (u >> 32) & (Layers − 1).
	Layers = 128
	// Scale is 2³¹: the position int32(u) of a word u in its layer runs
	// over [−Scale, Scale).
	Scale = 1 << 31
)

// ziggurat holds the layers: a draw of position j (|j| < 2³¹) in layer i is
// j·w[i]; it is inside the density when |j| < k[i], and f[i] is
// exp(−x_i²/2) at the layer's right edge x_i. Layer 0 is the base: a
// rectangle of width r and height f(r) followed by the normal tail beyond
// r, of the same total area v as every other layer.
type ziggurat struct {
	r, v float64
	k    [Layers]uint32
	w    [Layers]float64
	f    [Layers]float64
}

// zig is computed once and never written afterwards.
var zig = newZiggurat()

// TailStart returns r, where the base layer's rectangle ends and the
// normal tail begins (3.44262 to 6 digits).
func TailStart() float64 { return zig.r }

// LayerArea returns v, the area under exp(−x²/2) of every layer.
func LayerArea() float64 { return zig.v }

// Width returns the width w_i/2³¹ of layer i's rectangle per unit of
// position: a draw in layer i at position j is float64(j)·Width(i). For
// i ≥ 1, Width(i)·Scale is the layer's right edge x_i. It panics unless
// 0 ≤ i < Layers.
func Width(i int) float64 { return zig.w[i] }

// Inside returns the value of word u's position in its layer,
// float64(int32(u))·Width(layer), and whether it lies inside the layer's
// rectangle, where Normal returns it at once; it reads only u's low 39
// bits. It is small enough to inline.
func Inside(u uint64) (float64, bool) {
	j, l := int32(u), (u>>32)&(Layers-1)
	return float64(j) * zig.w[l], absInt32(j) < zig.k[l]
}

// Limit is one layer's entry of Limits: the layer's width W = Width(i),
// and the bound L on a position's magnitude in the form Off = L − 1,
// Span = 2L − 1 (both 0 when L = 0), so that for every int32 j,
// uint32(j) + Off < Span (in uint32 arithmetic, wrapping) exactly when
// |j| < L: −L < j < L is 0 ≤ j + L − 1 < 2L − 1, and for L ≤ 2³¹ no j
// outside wraps into that range. One layer's entry is 16 bytes, found
// with one index computation.
type Limit struct {
	W         float64
	Off, Span uint32
}

// Bound returns the limit's bound L.
func (l Limit) Bound() uint32 {
	if l.Span == 0 {
		return 0
	}
	return l.Off + 1
}

// limitOf returns the Limit of layer i for bound L (L ≤ 2³¹).
func limitOf(i int, L uint32) Limit {
	if L == 0 {
		return Limit{W: zig.w[i]}
	}
	return Limit{W: zig.w[i], Off: L - 1, Span: 2*L - 1}
}

// Limits returns, for each layer i, the bound L on a word's position below
// which InsideLimit accepts it: the least |j| that is outside the layer's
// rectangle (|j| ≥ k_i) or whose value float64(|j|)·Width(i), rounded, is
// above a. So InsideLimit(u, &lim) reports true exactly when Inside(u)
// does and its value's magnitude is at most a: a sampler of the normal
// truncated to [−a, a] decides its common case with one comparison. The
// rounded product is non-decreasing in |j| and odd in j, so the values
// within a are those of |j| below the bound.
func Limits(a float64) [Layers]Limit {
	var lim [Layers]Limit
	for i := range Layers {
		w, k := zig.w[i], uint64(zig.k[i])
		over := func(j uint64) bool { return j >= k || float64(j)*w > a }
		// The least j with over(j), by bisection keeping !over(lo) and
		// over(hi); over(k) holds.
		lo, hi := uint64(0), k
		if over(0) {
			hi = 0
		}
		for hi-lo > 1 {
			if mid := lo + (hi-lo)/2; over(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		lim[i] = limitOf(i, uint32(hi))
	}
	return lim
}

// InsideLimit returns Inside's value of word u and whether its position
// is below lim's bound for its layer, lim from Limits(a): whether Inside
// accepts u and the value lies in [−a, a]. It reads only u's low 39 bits
// and is small enough to inline.
func InsideLimit(u uint64, lim *[Layers]Limit) (float64, bool) {
	j, l := int32(u), &lim[(u>>32)&(Layers-1)]
	return float64(j) * l.W, uint32(j)+l.Off < l.Span
}

// newZiggurat computes the layers. Marsaglia and Tsang give r =
// 3.442619855899 and v = 9.91256303526217e-3 to 13 digits, which leaves
// the top layer's area 1.2e-9 off the others; here r is found to float64
// precision by bisection, as the start of the tail for which the layers,
// stacked by the recurrence x_i = f⁻¹(v/x_{i+1} + f(x_{i+1})), end with a
// top layer of area v too.
func newZiggurat() ziggurat {
	lo, hi := 3.4, 3.5
	for range 100 {
		mid := (lo + hi) / 2
		if top, ok := zigTop(mid); !ok || top < zigArea(mid) {
			lo = mid // v too large: the layers overshoot the top
		} else {
			hi = mid
		}
	}
	return LayersFor(hi)
}

// zigArea is the area v of each layer for tail start r: r·f(r) plus the
// tail's area beyond r.
func zigArea(r float64) float64 {
	return r*math.Exp(-0.5*r*r) + math.Sqrt(math.Pi/2)*math.Erfc(r/math.Sqrt2)
}

// zigTop returns the area of the top layer that the recurrence leaves for
// tail start r, or false if the layers pass the top of the curve first.
func zigTop(r float64) (float64, bool) {
	v, x := zigArea(r), r
	for range Layers - 2 {
		y := v/x + math.Exp(-0.5*x*x)
		if y >= 1 {
			return 0, false
		}
		x = math.Sqrt(-2 * math.Log(y))
	}
	return x * (1 - math.Exp(-0.5*x*x)), true
}

// LayersFor computes the layers for tail start r by Marsaglia and
// Tsang's recurrence, in float64.
func LayersFor(r float64) ziggurat {
	z := ziggurat{r: r, v: zigArea(r)}
	dn, tn := r, r
	q := z.v / math.Exp(-0.5*dn*dn)
	z.k[0] = uint32(dn / q * Scale)
	z.k[1] = 0
	z.w[0] = q / Scale
	z.w[Layers-1] = dn / Scale
	z.f[0] = 1
	z.f[Layers-1] = math.Exp(-0.5 * dn * dn)
	for i := Layers - 2; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(z.v/dn+math.Exp(-0.5*dn*dn)))
		z.k[i+1] = uint32(dn / tn * Scale)
		tn = dn
		z.f[i] = math.Exp(-0.5 * dn * dn)
		z.w[i] = dn / Scale
	}
	return z
}

// Normal returns a standard normal value. u is a fresh uniform random
// word, of which only the low 39 bits are read: bits 0–31 are the signed
// position in the layer given by bits 32–38. Further words, for the <2 %
// of draws outside the layers' rectangles, come from r.
func Normal(u uint64, r *rand.Rand) float64 {
	z := &zig
	for {
		j := int32(u)
		i := (u >> 32) & (Layers - 1)
		x := float64(j) * z.w[i]
		if absInt32(j) < z.k[i] {
			return x // inside the layer's rectangle: over 98 % of draws
		}
		if i == 0 {
			// The normal tail beyond z.r (Marsaglia's method): x = E₁/z.r,
			// accepted when 2E₂ ≥ x², returned at z.r + x.
			for {
				x = -math.Log(1-r.Float64()) / z.r
				if y := -math.Log(1 - r.Float64()); y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return z.r + x
			}
			return -z.r - x
		}
		// The wedge between the rectangle and the curve: accept under
		// exp(−x²/2), a uniform height between the layer's two edges.
		if z.f[i]+r.Float64()*(z.f[i-1]-z.f[i]) < math.Exp(-0.5*x*x) {
			return x
		}
		u = r.Uint64()
	}
}

func absInt32(j int32) uint32 {
	if j < 0 {
		return uint32(-j)
	}
	return uint32(j)
}
