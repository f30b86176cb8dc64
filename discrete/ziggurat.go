package discrete

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
)

// An exact ziggurat for the one-sided law P(Y = y) ∝ F(y) = C·exp(−e(y)/D)
// on y = 0, 1, 2, …, with e(y) an integer, convex and increasing in y, D a
// positive integer and C an integer. The package comment ("A ziggurat on
// the grid") gives the construction and why it is exact; in short:
//
//   - the region under F is covered by zigStrips horizontal strips, strip k
//     spanning y ∈ [0, x_k] and heights (h_k, h_{k−1}] with integer heights
//     h_0 = C > h_1 ≥ … ≥ h_N and x_k = max{y : F(y) ≥ h_k} decided in
//     exact arithmetic, plus a base: the rectangle [0, x_N] × (0, h_N] and
//     a tail envelope beyond x_N of area 2L·h_N;
//   - a region is chosen with probability exactly proportional to its
//     integer area, by an alias table whose 256 columns each hold 2^q of
//     weight (a padding region, always rejected, makes the total 2^(q+8));
//   - a point is drawn uniformly in the region and accepted if it lies
//     under F: for y ≤ x_{k−1} it does (F(y) ≥ F(x_{k−1}) ≥ h_{k−1}); at a
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

	xN uint64  // last strip's x
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
		return (2*af*y - af*af) / (2 * tf * tf)
	}
	inverse := func(v float64) float64 {
		if v <= af*af/(2*tf*tf) {
			return tf * math.Sqrt(2*v)
		}
		return (2*tf*tf*v + af*af) / (2 * af)
	}
	den := new(big.Int).SetUint64(tau)
	den.Mul(den, den)
	den.Lsh(den, 1)
	return newZigTable(den, huberExpo(a), a, energy, inverse)
}

// newLaplaceZig returns the ziggurat table of P(y) ∝ exp(−y/t), y ≥ 0,
// for 1 ≤ t < 2⁶²: e(y) = 2y over D = 2t, whose increments 2 are
// 2·min(y, 1) for y ≥ 1.
func newLaplaceZig(t uint64) (*zigTable, error) {
	tf := float64(t)
	den := new(big.Int).SetUint64(t)
	den.Lsh(den, 1)
	return newZigTable(den, func(y uint64) u128 { return from64(2 * y) }, 1,
		func(y float64) float64 { return y / tf },
		func(v float64) float64 { return v * tf })
}

// newGaussianZig returns the ziggurat table of P(y) ∝ exp(−y²/(2S)),
// y ≥ 0, for 1 ≤ S < 2⁶²: e(y) = y² over D = 2S, whose increments 2y + 1
// exceed 2y.
func newGaussianZig(s uint64) (*zigTable, error) {
	sf := float64(s)
	den := new(big.Int).SetUint64(s)
	den.Lsh(den, 1)
	return newZigTable(den, func(y uint64) u128 { return mul64(y, y) }, maxInt,
		func(y float64) float64 { return y * y / (2 * sf) },
		func(v float64) float64 { return math.Sqrt(2 * sf * v) })
}

// newZigTable builds the table for F(y) = C·exp(−e(y)/den), C chosen
// here. slopeMin is a lower bound of the increments e(y+1) − e(y) divided
// by 2 for y beyond any strip: the increments must be at least
// 2·min(y, slopeMin) (true of the Huber numerator, whose increments are
// 2y + 1 up to a and 2a beyond). energy and inverse are float64 versions
// of e(y)/den and its inverse, used only to place the strips (any
// placement is exact; a good one is fast).
func newZigTable(den *big.Int, e func(uint64) u128, slopeMin uint64, energy, inverse func(float64) float64) (*zigTable, error) {
	g, gx, l, ok := zigDesign(slopeMin, energy, inverse, new(big.Float).SetInt(den))
	if !ok {
		return nil, errZigTable
	}
	// C makes the total area just below a power of two, 2^p, so that the
	// padding region is small: S ≈ C·sf by the float design.
	sf := 0.0
	for k := 1; k <= zigStrips; k++ {
		sf += (gx[k] + 1) * (g[k-1] - g[k])
	}
	sf += (gx[zigStrips] + 1 + 2*l) * g[zigStrips]
	// C·sf = 2^p·(1 − 2⁻¹⁰) with C in [2⁶¹, 2⁶²).
	p := int(math.Ceil(math.Log2(sf))) + 62
	cf := math.Floor(math.Ldexp(1-1.0/1024, p) / sf)
	for cf >= 1<<62 {
		p--
		cf = math.Floor(math.Ldexp(1-1.0/1024, p) / sf)
	}
	for cf < 1<<61 {
		p++
		cf = math.Floor(math.Ldexp(1-1.0/1024, p) / sf)
	}
	z := &zigTable{c: cf, den: den, e: e}
	z.cBig, _ = big.NewFloat(cf).Int(nil)
	z.dF, _ = new(big.Float).SetInt(den).Float64()
	dm := new(big.Int).Lsh(den, 20)
	if dm.BitLen() > 127 {
		return nil, fmt.Errorf("%w: D = %v", errZigTable, den)
	}
	z.dMax = u128{new(big.Int).Rsh(dm, 64).Uint64(), new(big.Int).And(dm, new(big.Int).SetUint64(math.MaxUint64)).Uint64()}

	// Heights: h_0 = C, h_k = round(C·g_k); x_k = max{y : F(y) ≥ h_k}.
	h := make([]float64, zigStrips+1)
	x := make([]uint64, zigStrips+1)
	h[0] = cf
	for k := 1; k <= zigStrips; k++ {
		h[k] = math.Round(cf * g[k])
		if h[k] < 1 || h[k] > h[k-1] {
			return nil, fmt.Errorf("%w: height %d = %g", errZigTable, k, h[k])
		}
		xk, err := z.lastAtLeast(h[k], gx[k])
		if err != nil {
			return nil, err
		}
		x[k] = xk
	}
	xN := x[zigStrips]
	if xN == 0 || xN >= maxInt {
		return nil, fmt.Errorf("%w: x_N = %d", errZigTable, xN)
	}
	// L = ⌈2D/(2·min(x_N, slopeMin))⌉·… see the tail: L·min(x_N, a)·2 ≥ 2D.
	m := min(xN, slopeMin)
	lb := new(big.Int).Add(den, new(big.Int).SetUint64(m-1))
	lb.Quo(lb, new(big.Int).SetUint64(m)) // ⌈D/m⌉
	if !lb.IsUint64() || lb.Uint64() >= maxInt || xN+1+2*lb.Uint64() >= 1<<63 {
		return nil, fmt.Errorf("%w: tail block length %v", errZigTable, lb)
	}
	z.xN, z.l, z.hN = xN, lb.Uint64(), h[zigStrips]

	// Areas, exactly.
	w := make([]*big.Int, 256)
	total := new(big.Int)
	for k := 1; k <= zigStrips; k++ {
		dh := new(big.Int).Sub(bigOfFloat(h[k-1]), bigOfFloat(h[k]))
		w[k-1] = dh.Mul(dh, new(big.Int).SetUint64(x[k]+1))
		total.Add(total, w[k-1])
		sure := uint64(0)
		if k > 1 {
			sure = x[k-1] + 1
		}
		z.items[k-1] = zigItem{width: x[k] + 1, sure: sure, lo: h[k], hi: h[k-1]}
	}
	baseW := xN + 1 + 2*z.l
	w[zigStrips] = new(big.Int).Mul(bigOfFloat(h[zigStrips]), new(big.Int).SetUint64(baseW))
	total.Add(total, w[zigStrips])
	z.items[zigStrips] = zigItem{width: baseW, sure: xN + 1, tail: true}
	for total.BitLen() > p {
		p++ // not reached by the float design's margin, but exact anyway
	}
	pad := new(big.Int).Lsh(big1, uint(p))
	w[zigStrips+1] = pad.Sub(pad, total)
	z.items[zigStrips+1] = zigItem{} // padding: always rejected
	q := p - 8
	if q < zigKeep {
		for _, wi := range w {
			wi.Lsh(wi, uint(zigKeep-q))
		}
		q = zigKeep
	}
	if q-zigKeep > 64 {
		return nil, fmt.Errorf("%w: total area 2^%d", errZigTable, p)
	}
	z.loBits = uint(q - zigKeep)
	z.buildAlias(w, uint(q))
	return z, nil
}

// bigOfFloat returns the integer-valued float64 v as a big.Int.
func bigOfFloat(v float64) *big.Int {
	b, _ := big.NewFloat(v).Int(nil)
	return b
}

// buildAlias fills the columns from the weights w (summing to 2^(q+8)) by
// Vose's method in exact integer arithmetic: column j keeps item j below
// its threshold and gives the rest of its 2^q to its alias, so item i is
// chosen with probability w_i/2^(q+8) exactly. It consumes w.
func (z *zigTable) buildAlias(w []*big.Int, q uint) {
	capacity := new(big.Int).Lsh(big1, q)
	var small, large []int
	for i, wi := range w {
		if wi.Cmp(capacity) < 0 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	thr := make([]*big.Int, len(w))
	alias := make([]int, len(w))
	for len(small) > 0 && len(large) > 0 {
		s := small[len(small)-1]
		small = small[:len(small)-1]
		l := large[len(large)-1]
		thr[s], alias[s] = w[s], l
		// w_l −= 2^q − w_s
		w[l].Sub(w[l], new(big.Int).Sub(capacity, w[s]))
		if w[l].Cmp(capacity) < 0 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left holds exactly 2^q (the sums are exact).
	for _, i := range append(small, large...) {
		thr[i], alias[i] = capacity, i
	}
	mask := new(big.Int).Sub(new(big.Int).Lsh(big1, z.loBits), big1)
	for j := range z.cols {
		hi := new(big.Int).Rsh(thr[j], z.loBits)
		lo := new(big.Int).And(thr[j], mask)
		z.cols[j] = zigCol{thrHi: hi.Uint64(), thrLo: lo.Uint64(), alias: uint8(alias[j])}
	}
}

// lastAtLeast returns max{y : F(y) ≥ h}, for 1 ≤ h < C·… (F(0) = C ≥ h),
// starting the search at the float guess.
func (z *zigTable) lastAtLeast(h, guess float64) (uint64, error) {
	hb := bigOfFloat(h)
	atLeast := func(y uint64) bool {
		return cmpExp(z.cBig, z.e(y).big(), z.den, hb, big1) >= 0
	}
	if !(guess >= 0) || guess >= maxInt {
		return 0, fmt.Errorf("%w: strip edge %g", errZigTable, guess)
	}
	y := uint64(guess)
	if atLeast(y) {
		// Gallop up to a y with F(y) < h, then bisect.
		step := uint64(1)
		for atLeast(y + step) {
			y += step
			step *= 2
			if y+step >= maxInt {
				return 0, fmt.Errorf("%w: strip edge beyond 2^62", errZigTable)
			}
		}
		lo, hi := y, y+step // F(lo) ≥ h > F(hi)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if atLeast(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo, nil
	}
	step := uint64(1)
	for {
		if y < step {
			y = 0
			break
		}
		if atLeast(y - step) {
			y -= step
			break
		}
		y -= step
		step *= 2
	}
	lo, hi := y, y+step // F(lo) ≥ h > F(hi), or lo = 0
	if !atLeast(lo) {
		return 0, fmt.Errorf("%w: F(0) < h", errZigTable)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if atLeast(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// zigDesign places the strips in float64: heights g_0 = 1 > g_1 > … >
// g_N relative to F(0), their x (float), and the tail block length L, for
// an equal-area ziggurat whose base includes the tail envelope. The
// result only affects speed.
func zigDesign(slopeMin uint64, energy, inverse func(float64) float64, den *big.Float) (g, gx []float64, l float64, ok bool) {
	d, _ := den.Float64()
	sm := float64(slopeMin)
	run := func(r float64) (float64, []float64, []float64, float64) {
		hN := math.Exp(-energy(r))
		ll := math.Ceil(d / math.Min(math.Floor(r), sm))
		v := (math.Floor(r) + 1 + 2*ll) * hN
		g := make([]float64, zigStrips+1)
		gx := make([]float64, zigStrips+1)
		g[zigStrips], gx[zigStrips] = hN, math.Floor(r)
		for k := zigStrips; k >= 1; k-- {
			hk := g[k] + v/(gx[k]+1)
			if k > 1 {
				if hk >= 1 {
					return math.Inf(1), nil, nil, 0
				}
				gx[k-1] = math.Floor(inverse(-math.Log(hk)))
			}
			g[k-1] = hk
		}
		return g[0], g, gx, ll
	}
	lo, hi := 1.0, inverse(60)
	if h0, _, _, _ := run(hi); h0 >= 1 {
		return nil, nil, 0, false
	}
	if h0, _, _, _ := run(lo); h0 < 1 {
		hi = lo
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if h0, _, _, _ := run(mid); h0 >= 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	_, g, gx, l = run(hi)
	if g == nil {
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
			if it.tail {
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
// x_N + 1 + (2^b − 1)·L, and a height uniform below G_b = h_N·4^−b;
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
	start, o2 := start.add(from64(z.xN + 1))
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
//
// The float64 bracket: x = e(y)/D is computed with relative error below
// 2⁻⁵⁰ (each of the two 128-bit conversions and the division rounds once
// or twice, 5·2⁻⁵³ in all), so for x < 700 exp(−x̃) is within a relative
// (x + 1)·2⁻⁴⁹ of e^{−x} with math.Exp's 1-ulp error included; the bound
// used, errF = F̃·(x̃ + 1)·2⁻⁴⁴ + C·2⁻¹⁰⁰⁰, is 32 times that, and its
// absolute term covers x ≥ 700, where e^{−x} < 2⁻¹⁰⁰⁰. The subtraction and
// division that form p add at most (F̃ + errF + lo)/(hi − lo)·2⁻⁵⁰
// (four roundings), and the slack is twice that. U's first 53 bits decide
// unless they fall within the bracket, which happens with probability
// about its width, below 2⁻³⁰; then belowExact decides in math/big.
func (z *zigTable) below(r *rand.Rand, y uint64, lo, hi float64) bool {
	e := z.e(y)
	x := e.float() / z.dF
	f := z.c * math.Exp(-x)
	errF := f*((x+1)*0x1p-44) + z.c*0x1p-1000
	d := hi - lo
	slack := (f+errF+lo)/d*0x1p-49 + 0x1p-60
	pLo := (f-errF-lo)/d - slack
	pHi := (f+errF-lo)/d + slack
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
	return z.belowExact(r, e, u, lo, hi)
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

// float returns the float64 nearest a, within a relative 2⁻⁵²: hi·2⁶⁴ and
// lo are each rounded once and their sum once more.
func (a u128) float() float64 {
	return float64(a.hi)*0x1p64 + float64(a.lo)
}
