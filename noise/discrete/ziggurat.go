package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// An exact ziggurat for the one-sided law P(Y = y) ∝ F(y) = C·exp(−e(y)/D)
// on y = 0, 1, 2, …, with e(y) an integer, convex and increasing in y, D a
// positive integer and C an integer. The package comment ("A ziggurat on
// the grid") gives the construction and why it is exact; in short:
//
//   - the region under F is covered by zigStrips horizontal strips, strip k
//     spanning y ∈ [0, c_k] and heights (h_k, h_{k−1}] with integer heights
//     h_0 = C > h_1 ≥ … ≥ h_N and F(c_k + 1) < h_k, plus a base: the
//     rectangle [0, c_N] × (0, h_N] and a tail envelope beyond c_N of area
//     2L·h_N;
//   - a region is chosen with probability exactly proportional to its
//     integer area, by an alias table whose 256 columns each hold 2^q of
//     weight (a padding region, always rejected, makes the total 2^(q+8));
//   - a point is drawn uniformly in the region and accepted if it lies
//     under F: for y ≤ s_{k−1}, where F(s_{k−1}) ≥ h_{k−1}, it does; at a
//     strip's edge the height is compared with F(y) by a float64 bracket
//     whose error bound is proved below, and in the rare ambiguous case by
//     math/big with every rounding directed outwards (expNegBounds).
//
// Accepted points are uniform under F, so y has the law F exactly.

const (
	zigStrips = 254 // strips; with the base and the padding, 256 regions
	zigKeep   = 55  // threshold bits compared from the first random word
)

type zigItem struct {
	width  uint64  // y is drawn uniformly in [0, width); 0 marks the padding
	sure   uint64  // y < sure lies under F for every height of the region
	lo, hi float64 // the strip's heights (h_k, h_{k−1}], exact integers
	tail   bool    // the base: y ≥ sure continues in the tail envelope
}

type zigCol struct {
	thrHi, thrLo uint64 // item j if v < thr = thrHi·2^loBits + thrLo
	alias        uint8
}

// zigTable is built by newZigTable and is immutable afterwards.
type zigTable struct {
	items  [256]zigItem
	cols   [256]zigCol
	loBits uint // bits of v beyond the zigKeep compared first

	c    float64  // C, an integer
	cBig *big.Int // C
	den  *big.Int // D
	dF   float64  // D, rounded
	dMax u128     // D·2²⁰: tail points with e(y) ≥ dMax are rejected
	e    func(y uint64) u128

	cN uint64  // the last strip's cover bound c_N; the tail starts beyond
	l  uint64  // tail block length L
	hN float64 // h_N

	// exactOnly makes every edge test take the math/big path; tests use
	// it to check that path's law.
	exactOnly bool
}

// errZigTable reports a table that cannot be built for the parameters
// (the caller then uses another exact sampler).
var errZigTable = errors.New("discrete: no ziggurat table for these parameters")

// huberExpo returns the numerator e(y) of the Huber exponent ρ_{a/τ}(y/τ)
// = e(y)/(2τ²): y² for y ≤ a and a(2y − a) beyond; y < 2⁶², a < 2⁵⁷.
func huberExpo(a uint64) func(y uint64) u128 {
	return func(y uint64) u128 {
		if y <= a {
			return mul64(y, y)
		}
		return mul64(a, 2*y-a)
	}
}

// newHuberZig returns the ziggurat table of P(y) ∝ exp(−ρ_{a/τ}(y/τ)),
// y ≥ 0, for 1 ≤ a < 2⁵⁷ and 1 ≤ τ < 2⁴².
func newHuberZig(tau, a uint64) (*zigTable, error) {
	tf, af := float64(tau), float64(a)
	energy := func(y float64) float64 {
		if y <= af {
			return y * y / (2 * tf * tf)
		}
		return (float64(2*af*y) - float64(af*af)) / (2 * tf * tf)
	}
	inverse := func(v float64) float64 {
		if v <= af*af/(2*tf*tf) {
			return tf * math.Sqrt(2*v)
		}
		return (float64(2*tf*tf*v) + float64(af*af)) / (2 * af)
	}
	den := new(big.Int).SetUint64(tau)
	den.Mul(den, den)
	den.Lsh(den, 1)
	d, _ := new(big.Float).SetInt(den).Float64()
	g, gx, l, ok := zigDesign(a, energy, inverse, d)
	if !ok {
		return nil, errZigTable
	}
	return newZigTable(den, huberExpo(a), a, g, gx, l)
}

// newLaplaceZig returns the ziggurat table of P(y) ∝ exp(−y/t), y ≥ 0,
// for 1 ≤ t < 2⁶²: e(y) = 2y over D = 2t, whose increments 2 are
// 2·min(y, 1) for y ≥ 1. The strips are placed by laplaceShape, scaled.
func newLaplaceZig(t uint64) (*zigTable, error) {
	den := new(big.Int).SetUint64(t)
	den.Lsh(den, 1)
	g, gx, l := laplaceShape().scaled(float64(t))
	return newZigTable(den, func(y uint64) u128 { return from64(2 * y) }, 1, g, gx, l)
}

// newGaussianZig returns the ziggurat table of P(y) ∝ exp(−y²/(2S)),
// y ≥ 0, for 1 ≤ S < 2⁶²: e(y) = y² over D = 2S, whose increments 2y + 1
// exceed 2y. The strips are placed by gaussianShape, scaled by √S.
func newGaussianZig(s uint64) (*zigTable, error) {
	den := new(big.Int).SetUint64(s)
	den.Lsh(den, 1)
	g, gx, l := gaussianShape().scaled(math.Sqrt(float64(s)))
	return newZigTable(den, func(y uint64) u128 { return mul64(y, y) }, maxInt, g, gx, l)
}

// zigShape is a placement of the strips in units of the scale: heights
// g relative to F(0), edges u and the tail block length ell. The shapes
// of Laplace and the Gaussian do not depend on the scale, so each is
// computed once, on first use, and never modified.
type zigShape struct {
	g, u []float64
	ell  float64
}

// shapeRef is the scale, in grid units, at which shapes are computed.
const shapeRef = 1 << 40

var (
	laplaceShape = sync.OnceValue(func() zigShape {
		const t = shapeRef
		g, gx, l, _ := zigDesign(1,
			func(y float64) float64 { return y / t },
			func(v float64) float64 { return v * t }, 2*t)
		return newShape(g, gx, l, t)
	})
	gaussianShape = sync.OnceValue(func() zigShape {
		const sigma = shapeRef
		g, gx, l, _ := zigDesign(maxInt,
			func(y float64) float64 { return y * y / (2 * sigma * sigma) },
			func(v float64) float64 { return sigma * math.Sqrt(2*v) }, 2*sigma*sigma)
		return newShape(g, gx, l, sigma)
	})
)

func newShape(g, gx []float64, l, scale float64) zigShape {
	u := make([]float64, len(gx))
	for i, x := range gx {
		u[i] = x / scale
	}
	return zigShape{g: g, u: u, ell: l / scale}
}

// scaled returns the shape's heights (shared: not to be modified), edges
// and tail block length for the scale (in grid units).
func (s zigShape) scaled(scale float64) (g, gx []float64, l float64) {
	gx = make([]float64, len(s.u))
	for i, u := range s.u {
		gx[i] = math.Floor(u * scale)
	}
	return s.g, gx, math.Ceil(s.ell * scale)
}

// newZigTable builds the table for F(y) = C·exp(−e(y)/den), C chosen
// here. slopeMin is a lower bound of the increments e(y+1) − e(y) divided
// by 2 for y beyond any strip: the increments must be at least
// 2·min(y, slopeMin) (true of the Huber numerator, whose increments are
// 2y + 1 up to a and 2a beyond). g (relative heights, g_0 = 1), gx (edges
// in grid units) and l (the tail block length) place the strips, from
// zigDesign; they only affect speed: any placement is exact. g is only
// read.
func newZigTable(den *big.Int, e func(uint64) u128, slopeMin uint64, g, gx []float64, l float64) (*zigTable, error) {
	// C makes the total area S just below a power of two, 2^p, so that
	// the padding region is small. S is about C·sf; sf comes from the
	// float design first, then from the exact areas of the previous try.
	sf := 0.0
	for k := 1; k <= zigStrips; k++ {
		sf += float64((gx[k] + 1) * (g[k-1] - g[k]))
	}
	sf += float64((gx[zigStrips] + 1 + float64(2*l)) * g[zigStrips])
	z := &zigTable{den: den, e: e}
	z.dF, _ = new(big.Float).SetInt(den).Float64()
	dm := new(big.Int).Lsh(den, 20)
	if dm.BitLen() > 127 {
		return nil, fmt.Errorf("%w: D = %v", errZigTable, den)
	}
	z.dMax = u128{new(big.Int).Rsh(dm, 64).Uint64(), new(big.Int).And(dm, new(big.Int).SetUint64(math.MaxUint64)).Uint64()}
	var w [256]u128
	var p int
	for try := 0; ; try++ {
		var cf float64
		cf, p = scaleFor(sf)
		z.c = cf
		var total u128
		var err error
		if total, err = z.fill(g, gx, slopeMin, &w); err != nil {
			return nil, err
		}
		// Done when 2^p·(1 − 2⁻⁹) < S ≤ 2^p: the padding is below 0.2 %.
		n := total.bitLen()
		if n > 126 {
			return nil, fmt.Errorf("%w: total area 2^%d", errZigTable, n)
		}
		lim := pow2(uint(p)).sub(pow2(uint(p - 9)))
		if n <= p && total.cmp(lim) > 0 || try == 3 {
			p = max(p, n) // exact in any case
			w[zigStrips+1] = pow2(uint(p)).sub(total)
			break
		}
		sf = total.float() / cf
	}
	z.cBig, _ = big.NewFloat(z.c).Int(nil)
	z.items[zigStrips+1] = zigItem{} // padding: always rejected
	q := p - 8
	if q < zigKeep {
		for i := range w {
			w[i] = w[i].shl(uint(zigKeep - q))
		}
		q = zigKeep
	}
	if q-zigKeep > 64 {
		return nil, fmt.Errorf("%w: total area 2^%d", errZigTable, p)
	}
	z.loBits = uint(q - zigKeep)
	z.buildAlias(&w, uint(q))
	return z, nil
}

// fill places the strips for the current C (z.c): heights, sure and
// cover bounds, the tail's block length, and the items. It returns the
// regions' integer areas in w (all but the padding's) and their total.
func (z *zigTable) fill(g, gx []float64, slopeMin uint64, w *[256]u128) (u128, error) {
	// Heights h_0 = C, h_k = round(C·g_k), and for each a sure bound s_k
	// with F(s_k) ≥ h_k and a cover bound c_k with F(c_k + 1) < h_k, both
	// certified by the rigorous float64 bounds of fBounds (a few units
	// either side of the float64 guess; TestZigTable re-checks them in
	// exact arithmetic). c is made non-decreasing, which only lowers
	// F(c_k + 1).
	h := make([]float64, zigStrips+1)
	sb := make([]uint64, zigStrips+1)
	cb := make([]uint64, zigStrips+1)
	h[0] = z.c
	for k := 1; k <= zigStrips; k++ {
		h[k] = math.Round(z.c * g[k])
		if h[k] < 1 || h[k] > h[k-1] {
			return u128{}, fmt.Errorf("%w: height %d = %g", errZigTable, k, h[k])
		}
		s, c, err := z.bounds(h[k], gx[k])
		if err != nil {
			return u128{}, err
		}
		sb[k], cb[k] = s, max(c, cb[k-1])
	}
	cN := cb[zigStrips]
	if cN == 0 || cN >= maxInt {
		return u128{}, fmt.Errorf("%w: c_N = %d", errZigTable, cN)
	}
	// L = ⌈D/m⌉, m = min(c_N, slopeMin): beyond c_N the increments of e
	// are at least 2m, so block b of the tail envelope starts where
	// F ≤ F(c_N + 1)·e^{−2m(2^b − 1)L/D} ≤ h_N·e^{−2(2^b − 1)} ≤ h_N·4^{−b}.
	m := min(cN, slopeMin)
	lb := new(big.Int).Add(z.den, new(big.Int).SetUint64(m-1))
	lb.Quo(lb, new(big.Int).SetUint64(m))
	if !lb.IsUint64() || lb.Uint64() >= maxInt || cN+1+2*lb.Uint64() >= 1<<63 {
		return u128{}, fmt.Errorf("%w: tail block length %v", errZigTable, lb)
	}
	z.cN, z.l, z.hN = cN, lb.Uint64(), h[zigStrips]

	// Areas, exactly: heights are integers below 2⁶³, widths below 2⁶³.
	var total u128
	var over bool
	for k := 1; k <= zigStrips; k++ {
		w[k-1] = mul64(uint64(h[k-1])-uint64(h[k]), cb[k]+1)
		var o bool
		total, o = total.add(w[k-1])
		over = over || o
		sure := uint64(0)
		if k > 1 {
			sure = sb[k-1] + 1
		}
		z.items[k-1] = zigItem{width: cb[k] + 1, sure: sure, lo: h[k], hi: h[k-1]}
	}
	baseW := cN + 1 + 2*z.l
	w[zigStrips] = mul64(uint64(h[zigStrips]), baseW)
	total, o := total.add(w[zigStrips])
	if over || o {
		return u128{}, fmt.Errorf("%w: total area beyond 2^128", errZigTable)
	}
	z.items[zigStrips] = zigItem{width: baseW, sure: sb[zigStrips] + 1, lo: 0, hi: h[zigStrips], tail: true}
	return total, nil
}

// scaleFor returns C in [2⁶¹, 2⁶²), an integer, and p with
// C·sf ≈ 2^p·(1 − 2⁻¹⁰).
func scaleFor(sf float64) (float64, int) {
	frac, e := math.Frexp(sf) // sf = frac·2^e, frac in [0.5, 1): ⌈log₂ sf⌉
	if frac == 0.5 {
		e--
	}
	p := e + 62
	cf := math.Floor(math.Ldexp(1-1.0/1024, p) / sf)
	for cf >= 1<<62 {
		p--
		cf = math.Floor(math.Ldexp(1-1.0/1024, p) / sf)
	}
	for cf < 1<<61 {
		p++
		cf = math.Floor(math.Ldexp(1-1.0/1024, p) / sf)
	}
	return cf, p
}

// buildAlias fills the columns from the weights w (summing to 2^(q+8)) by
// Vose's method in exact integer arithmetic: column j keeps item j below
// its threshold and gives the rest of its 2^q to its alias, so item i is
// chosen with probability w_i/2^(q+8) exactly. It consumes w.
func (z *zigTable) buildAlias(w *[256]u128, q uint) {
	capacity := pow2(q)
	var small, large []int
	for i, wi := range w {
		if wi.cmp(capacity) < 0 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	var thr [256]u128
	var alias [256]int
	for len(small) > 0 && len(large) > 0 {
		s := small[len(small)-1]
		small = small[:len(small)-1]
		l := large[len(large)-1]
		thr[s], alias[s] = w[s], l
		w[l] = w[l].sub(capacity.sub(w[s])) // w_l ≥ 2^q > 2^q − w_s
		if w[l].cmp(capacity) < 0 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left holds exactly 2^q (the sums are exact).
	for _, i := range append(small, large...) {
		thr[i], alias[i] = capacity, i
	}
	for j := range z.cols {
		hi := thr[j].shr(z.loBits)
		lo := thr[j].sub(hi.shl(z.loBits))
		z.cols[j] = zigCol{thrHi: hi.lo, thrLo: lo.lo, alias: uint8(alias[j])}
	}
}

// bounds returns s ≤ c with F(s) ≥ h and F(c + 1) < h, certified by
// fBounds, searching outwards from the float64 guess of max{y : F(y) ≥ h}
// (F(0) = C ≥ h holds exactly).
func (z *zigTable) bounds(h, guess float64) (s, c uint64, err error) {
	if !(guess >= 0) || guess >= maxInt {
		return 0, 0, fmt.Errorf("%w: strip edge %g", errZigTable, guess)
	}
	g := uint64(guess)
	// s: g, g − 1, g − 2, g − 4, …, down to 0.
	for d := uint64(0); ; d = max(2*d, 1) {
		if d >= g {
			s = 0
			break
		}
		if lo, _ := z.fBounds(g - d); lo >= h {
			s = g - d
			break
		}
	}
	// c: g, g + 1, g + 2, g + 4, …
	for d := uint64(0); ; d = max(2*d, 1) {
		if g+d >= maxInt {
			return 0, 0, fmt.Errorf("%w: strip edge beyond 2^62", errZigTable)
		}
		if _, hi := z.fBounds(g + d + 1); hi < h {
			c = g + d
			break
		}
	}
	return s, c, nil
}

// fBounds returns lo ≤ F(y) ≤ hi, rigorously.
//
// x = e(y)/D is computed with relative error below 2⁻⁵⁰: each 128-bit
// conversion rounds twice (2·2⁻⁵³ with the sum) and the division once,
// 5·2⁻⁵³ in all. For x̃ < 700, expNeg(x̃) is then within a relative
// (x + 1)·2⁻⁵⁰ + 2⁻⁵¹ of e^{−x} (expNeg's error, measured at 2 ulp by
// TestExpNegError, and the product with C included); the bound used,
// F̃·(x̃ + 1)·2⁻⁴⁴, is 32 times that and more, which also absorbs the
// rounding of F̃ ± err, and its absolute term C·2⁻¹⁰⁰⁰ covers x ≥ 700,
// where e^{−x} < 2⁻¹⁰⁰⁰ (the conversion moves x by a relative 2⁻⁵⁰ only).
// TestFBounds checks the bracket against math/big.
func (z *zigTable) fBounds(y uint64) (lo, hi float64) {
	x := z.e(y).float() / z.dF
	f := z.c * expNeg(x)
	err := float64(f*((x+1)*0x1p-44)) + z.c*0x1p-1000
	return f - err, f + err
}

// zigDesign places the strips in float64: heights g_0 = 1 > g_1 > … >
// g_N relative to F(0), their x (float), and the tail block length L, for
// an equal-area ziggurat whose base includes the tail envelope. The
// result only affects speed.
func zigDesign(slopeMin uint64, energy, inverse func(float64) float64, d float64) (g, gx []float64, l float64, ok bool) {
	sm := float64(slopeMin)
	g = make([]float64, zigStrips+1)
	gx = make([]float64, zigStrips+1)
	// run fills g and gx for the base edge r (in grid units) and returns
	// h_0 (+Inf if the strips reach F(0) too early) and L.
	run := func(r float64) (float64, float64) {
		hN := expNeg(energy(r))
		ll := math.Ceil(d / math.Min(math.Floor(r), sm))
		v := (math.Floor(r) + 1 + float64(2*ll)) * hN
		g[zigStrips], gx[zigStrips] = hN, math.Floor(r)
		for k := zigStrips; k >= 1; k-- {
			hk := g[k] + v/(gx[k]+1)
			if k > 1 {
				if hk >= 1 {
					return math.Inf(1), 0
				}
				gx[k-1] = math.Floor(inverse(-logDet(hk)))
			}
			g[k-1] = hk
		}
		return g[0], ll
	}
	lo, hi := 1.0, inverse(60)
	if h0, _ := run(hi); h0 >= 1 {
		return nil, nil, 0, false
	}
	if h0, _ := run(lo); h0 < 1 {
		hi = lo
	}
	// Bisect to a relative 2⁻²⁴: placing r more finely gains nothing.
	for hi-lo > hi*0x1p-24 {
		mid := lo + (hi-lo)/2
		if h0, _ := run(mid); h0 >= 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	if _, l = run(hi); l == 0 {
		return nil, nil, 0, false
	}
	g[0] = 1
	return g, gx, l, true
}

// draw returns one draw of J = ±Y: Y from the table's law, a fair sign,
// and the pair (−, 0) redrawn, so P(J = j) ∝ F(|j|).
func (z *zigTable) draw(r *rand.Rand) int64 {
	for {
		w := r.Uint64()
		j := uint8(w)
		c := &z.cols[j]
		if v := w >> (64 - zigKeep); v >= c.thrHi {
			if v > c.thrHi || r.Uint64()>>(64-z.loBits) >= c.thrLo {
				j = c.alias
			}
		}
		it := &z.items[j]
		if it.width == 0 {
			continue // padding
		}
		y := r.Uint64N(it.width)
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
		if w&(1<<8) != 0 {
			if y == 0 {
				continue
			}
			return -int64(y)
		}
		return int64(y)
	}
}

// tail draws a point of the tail envelope: block b ≥ 0 with probability
// 2^−(b+1), y uniform on its 2^b·L integers starting at
// c_N + 1 + (2^b − 1)·L, and a height uniform below G_b = h_N·4^−b;
// it reports whether the point lies under F. Points with y ≥ 2⁶² or
// e(y)/D ≥ 2²⁰ are rejected (the truncation of the package comment; the
// second keeps F(y) within math/big's exponent range for belowExact).
func (z *zigTable) tail(r *rand.Rand) (uint64, bool) {
	b := 0
	for {
		w := r.Uint64()
		if w != 0 {
			b += bits.TrailingZeros64(w)
			break
		}
		b += 64
	}
	if b >= 62 {
		return 0, false
	}
	start, o1 := from64(z.l).mulSmall(1<<b - 1)
	start, o2 := start.add(from64(z.cN + 1))
	if o1 || o2 || start.hi != 0 || start.lo >= maxInt {
		return 0, false
	}
	length, _ := from64(z.l).mulSmall(1 << b) // < 2^124: no overflow
	off := uniform(r, length)
	y, o3 := start.add(off)
	if o3 || y.hi != 0 || y.lo >= maxInt || z.e(y.lo).cmp(z.dMax) >= 0 {
		return 0, false
	}
	return y.lo, z.below(r, y.lo, 0, math.Ldexp(z.hN, -2*b))
}

// below reports whether a height t uniform on (lo, hi) lies below F(y),
// that is whether U < p = (F(y) − lo)/(hi − lo) for U uniform on [0, 1).
// p is bracketed from fBounds; the subtraction and division that form it
// add at most (F + lo)/(hi − lo)·2⁻⁵⁰ (four roundings), and the slack is
// twice that. U's first 53 bits decide unless they fall within the
// bracket, which happens with probability about its width, below 2⁻³⁰;
// then belowExact decides in math/big.
func (z *zigTable) below(r *rand.Rand, y uint64, lo, hi float64) bool {
	fLo, fHi := z.fBounds(y)
	d := hi - lo
	slack := float64((fHi+lo)/d*0x1p-49) + 0x1p-60
	pLo := (fLo-lo)/d - slack
	pHi := (fHi-lo)/d + slack
	u := r.Uint64()
	if !z.exactOnly {
		uf := float64(u>>11) * 0x1p-53
		if uf+0x1p-53 <= pLo {
			return true
		}
		if uf >= pHi {
			return false
		}
	}
	return z.belowExact(r, z.e(y), u, lo, hi)
}

// belowExact decides U < (F(y) − lo)/(hi − lo) exactly, e = e(y), given
// the first 64 bits of U as u: while U's known bits leave the question
// open it draws 64 more and doubles the precision of the bracket of F(y).
// F(y) is irrational unless e = 0, so this ends with probability 1.
func (z *zigTable) belowExact(r *rand.Rand, e u128, u uint64, lo, hi float64) bool {
	num := e.big()
	a := new(big.Int).SetUint64(u)
	b := uint(64)
	rlo := new(big.Rat).SetFloat64(lo)
	d := new(big.Rat).SetFloat64(hi)
	d.Sub(d, rlo)
	c := new(big.Float).SetInt(z.cBig)
	for prec := uint(128); ; prec *= 2 {
		flo, fhi := expNegBounds(num, z.den, prec)
		flo.Mul(flo, c)
		fhi.Mul(fhi, c)
		// t ∈ [t0, t1): t0 = lo + a/2^b·d, t1 = lo + (a+1)/2^b·d.
		scale := new(big.Rat).SetFrac(big1, new(big.Int).Lsh(big1, b))
		t0 := new(big.Rat).Mul(new(big.Rat).SetInt(a), scale)
		t0.Mul(t0, d).Add(t0, rlo)
		t1 := new(big.Rat).Mul(scale, d)
		t1.Add(t1, t0)
		if fl, _ := flo.Rat(nil); fl.Cmp(t1) >= 0 {
			return true
		}
		if fh, _ := fhi.Rat(nil); fh.Cmp(t0) <= 0 {
			return false
		}
		a.Lsh(a, 64)
		a.Or(a, new(big.Int).SetUint64(r.Uint64()))
		b += 64
	}
}

// pow2 returns 2^n, n < 128.
func pow2(n uint) u128 { return u128{}.setBit(n) }

func (a u128) setBit(n uint) u128 {
	if n >= 64 {
		a.hi |= 1 << (n - 64)
	} else {
		a.lo |= 1 << n
	}
	return a
}

// shl returns a·2^n for n < 128 (bits shifted out are lost).
func (a u128) shl(n uint) u128 {
	switch {
	case n == 0:
		return a
	case n >= 64:
		return u128{a.lo << (n - 64), 0}
	}
	return u128{a.hi<<n | a.lo>>(64-n), a.lo << n}
}

// shr returns ⌊a/2^n⌋ for n < 128.
func (a u128) shr(n uint) u128 {
	switch {
	case n == 0:
		return a
	case n >= 64:
		return u128{0, a.hi >> (n - 64)}
	}
	return u128{a.hi >> n, a.lo>>n | a.hi<<(64-n)}
}

// bitLen returns the number of bits of a.
func (a u128) bitLen() int {
	if a.hi != 0 {
		return 64 + bits.Len64(a.hi)
	}
	return bits.Len64(a.lo)
}

// float returns the float64 nearest a, within a relative 2⁻⁵²: hi·2⁶⁴ and
// lo are each rounded once and their sum once more.
func (a u128) float() float64 {
	return float64(a.hi)*0x1p64 + float64(a.lo)
}
