package huber

import (
	"math"
	"math/rand/v2"
)

// The body of the Huber density is a standard normal truncated to
// [−α, α]; Sample draws it with a ziggurat for N(0, 1) of its own (the
// method of Marsaglia and Tsang, "The ziggurat method for generating
// random variables", 2000: 128 layers of equal area, the base layer's tail
// beyond r ≈ 3.44), in float64, and rejects draws outside [−α, α]. Its low
// 39 bits of a random word usually give one value: bits 0–31 are the
// signed position in a layer, bits 32–38 the layer, and the word's other
// bits start the uniform that picks the tail or the body (see
// Mechanism.sampleFrom). math/rand/v2's NormFloat64 draws the same way
// (with float32 tables), but would cost the mixture a word of its own.

const (
	zigLayers = 128
	zigScale  = 1 << 31 // the layer position's 31-bit magnitude
)

// ziggurat holds the layers: a draw of position j (|j| < 2³¹) in layer i is
// j·w[i]; it is inside the density when |j| < k[i], and f[i] is
// exp(−x_i²/2) at the layer's right edge x_i. Layer 0 is the base: a
// rectangle of width r and height f(r) followed by the normal tail beyond
// r, of the same total area v as every other layer.
type ziggurat struct {
	r, v float64
	k    [zigLayers]uint32
	w    [zigLayers]float64
	f    [zigLayers]float64
}

// zig is computed once and never written afterwards.
var zig = newZiggurat()

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
	return zigLayersFor(hi)
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
	for range zigLayers - 2 {
		y := v/x + math.Exp(-0.5*x*x)
		if y >= 1 {
			return 0, false
		}
		x = math.Sqrt(-2 * math.Log(y))
	}
	return x * (1 - math.Exp(-0.5*x*x)), true
}

// zigLayersFor computes the layers for tail start r by Marsaglia and
// Tsang's recurrence, in float64.
func zigLayersFor(r float64) ziggurat {
	z := ziggurat{r: r, v: zigArea(r)}
	dn, tn := r, r
	q := z.v / math.Exp(-0.5*dn*dn)
	z.k[0] = uint32(dn / q * zigScale)
	z.k[1] = 0
	z.w[0] = q / zigScale
	z.w[zigLayers-1] = dn / zigScale
	z.f[0] = 1
	z.f[zigLayers-1] = math.Exp(-0.5 * dn * dn)
	for i := zigLayers - 2; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(z.v/dn+math.Exp(-0.5*dn*dn)))
		z.k[i+1] = uint32(dn / tn * zigScale)
		tn = dn
		z.f[i] = math.Exp(-0.5 * dn * dn)
		z.w[i] = dn / zigScale
	}
	return z
}

// normal returns a standard normal value. u is a fresh random word; only
// its low 39 bits are used. Further words, if needed, come from r.
func (z *ziggurat) normal(u uint64, r *rand.Rand) float64 {
	for {
		j := int32(u)
		i := (u >> 32) & (zigLayers - 1)
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
