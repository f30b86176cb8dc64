package discrete

import (
	"crypto/sha256"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/rng"
)

// zigCase is a table to test: Huber on the coarse grids of
// TestHuberExactPMF, where the pmf is far from continuous, and on
// production grids (τ in [2⁴⁰, 2⁴¹]) at the extremes of α; Laplace and
// Gaussian likewise.
type zigCase struct {
	name  string
	build func() (*zigTable, error)
	slope uint64 // the slopeMin the table was built with
}

func zigCases() []zigCase {
	var cs []zigCase
	for _, c := range []struct{ tau, a uint64 }{
		{20, 1}, {4, 1}, {10, 5}, {4, 4}, {3, 12}, {1, 40}, {8, 320}, {1, 1},
		{1 << 40, 1 << 32},     // α = MinHuberAlpha
		{1 << 40, 1 << 40},     // α = 1
		{3 << 39, 1<<41 + 7},   // α ≈ 1.33, τ not a power of two
		{1 << 40, 40 << 40},    // α = 40
		{1<<41 - 1, 1<<57 - 1}, // α = MaxHuberAlpha, the largest τ
	} {
		cs = append(cs, zigCase{fmt.Sprintf("huber τ=%d a=%d", c.tau, c.a), func() (*zigTable, error) { return newHuberZig(c.tau, c.a) }, c.a})
	}
	for _, t := range []uint64{1, 3, 1 << 40, 1<<41 - 1} {
		cs = append(cs, zigCase{fmt.Sprintf("laplace t=%d", t), func() (*zigTable, error) { return newLaplaceZig(t) }, 1})
	}
	for _, s := range []uint64{1, 2, 1000, 1 << 56, 1<<58 - 1} {
		cs = append(cs, zigCase{fmt.Sprintf("gaussian S=%d", s), func() (*zigTable, error) { return newGaussianZig(s) }, maxInt})
	}
	return cs
}

// TestZigTable checks, in exact arithmetic, every property the
// ziggurat's exactness rests on (see the package comment): each strip's
// bounds F(s_k) ≥ h_k > F(c_k + 1), non-decreasing c_k, non-increasing
// heights under h_0 = C,
// the tail envelope's block length, and an alias table that picks every
// region with probability exactly proportional to its area.
func TestZigTable(t *testing.T) {
	for _, c := range zigCases() {
		z, err := c.build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		F := func(y uint64, h float64) int { // sign of F(y) − h
			return cmpExp(z.cBig, z.e(y).big(), z.den, bigOfFloat(h), big1)
		}
		// Strip k (items[k−1]) spans [0, c_k] and (h_k, h_{k−1}]; its
		// sure bound is s_{k−1} + 1. The base's is s_N + 1, its rectangle
		// spans [0, c_N] and (0, h_N].
		base := z.items[zigStrips]
		if z.items[0].sure != 0 {
			t.Errorf("%s: top strip: sure = %d, want 0", c.name, z.items[0].sure)
		}
		prevHi, prevC := z.c, uint64(0)
		for k := range zigStrips {
			it := z.items[k]
			ck := it.width - 1
			next := base
			if k+1 < zigStrips {
				next = z.items[k+1]
			}
			if next.sure == 0 {
				t.Fatalf("%s: strip %d: no sure bound below", c.name, k+2)
			}
			sk := next.sure - 1
			if it.hi != prevHi || it.lo > it.hi || it.lo < 1 || it.lo != math.Trunc(it.lo) {
				t.Fatalf("%s: strip %d heights (%g, %g] after %g", c.name, k+1, it.lo, it.hi, prevHi)
			}
			if ck < prevC || sk > ck || it.sure > it.width {
				t.Fatalf("%s: strip %d: c = %d after %d, s = %d, sure %d of width %d", c.name, k+1, ck, prevC, sk, it.sure, it.width)
			}
			prevHi, prevC = it.lo, ck
			if F(sk, it.lo) < 0 || F(ck+1, it.lo) >= 0 {
				t.Fatalf("%s: strip %d: not F(s = %d) ≥ %g > F(c + 1 = %d)", c.name, k+1, sk, it.lo, ck+1)
			}
		}
		if !base.tail || base.width != z.cN+1+2*z.l || z.cN != prevC || z.hN != prevHi || base.lo != 0 || base.hi != z.hN {
			t.Fatalf("%s: base %+v inconsistent with c_N = %d, L = %d, h_N = %g", c.name, base, z.cN, z.l, z.hN)
		}
		// L·min(c_N, slope) ≥ D makes the envelope dominate (package comment).
		lm := new(big.Int).Mul(new(big.Int).SetUint64(z.l), new(big.Int).SetUint64(min(z.cN, c.slope)))
		if lm.Cmp(z.den) < 0 {
			t.Errorf("%s: L·min(c_N, slope) = %v < D = %v", c.name, lm, z.den)
		}
		// Alias: reconstruct each region's weight.
		q := z.loBits + zigKeep
		capacity := new(big.Int).Lsh(big1, q)
		w := make([]*big.Int, 256)
		for i := range w {
			w[i] = new(big.Int)
		}
		for j, col := range z.cols {
			thr := new(big.Int).Lsh(new(big.Int).SetUint64(col.thrHi), z.loBits)
			thr.Add(thr, new(big.Int).SetUint64(col.thrLo))
			if thr.Cmp(capacity) > 0 {
				t.Fatalf("column %d: threshold above 2^q", j)
			}
			w[j].Add(w[j], thr)
			w[col.alias].Add(w[col.alias], new(big.Int).Sub(capacity, thr))
		}
		area := func(i int) *big.Int {
			it := z.items[i]
			d := new(big.Int).Sub(bigOfFloat(it.hi), bigOfFloat(it.lo))
			return d.Mul(d, new(big.Int).SetUint64(it.width))
		}
		a0 := area(0)
		for i := 1; i <= zigStrips; i++ {
			l := new(big.Int).Mul(w[i], a0)
			r := new(big.Int).Mul(w[0], area(i))
			if l.Cmp(r) != 0 {
				t.Fatalf("%s: region %d's weight %v is not proportional to its area %v", c.name, i, w[i], area(i))
			}
		}
		// The padding region (always rejected) costs < 0.2 % of draws.
		if pad := new(big.Int).Lsh(w[zigStrips+1], 9); pad.Cmp(new(big.Int).Lsh(big1, q+8)) >= 0 {
			t.Errorf("%s: padding %v of 2^%d", c.name, w[zigStrips+1], q+8)
		}
	}
}

// TestZigExactPath runs the law test of TestHuberExactPMF with every strip
// edge and tail test decided by the math/big path.
func TestZigExactPath(t *testing.T) {
	for i, c := range []struct{ tau, a uint64 }{{20, 1}, {4, 4}, {3, 12}, {8, 320}} {
		r := rng.Seeded(uint64(700 + i))
		m := newHuberGrid(1, c.tau, c.a)
		m.zigOnce.Do(func() {
			z, err := newHuberZig(c.tau, c.a)
			if err != nil {
				t.Fatal(err)
			}
			z.exactOnly = true
			m.zig = z
		})
		alpha := float64(c.a) / float64(c.tau)
		kmax := int64(float64(c.tau)*(40/min(alpha, 1)+2)) + 2
		chiSquare(t, "huber exact path", 100000, kmax,
			func(k int64) float64 { return -huber.Loss(alpha, float64(k)/float64(c.tau)) },
			func() int64 { return m.Int(r) })
	}
}

// TestZigLaplaceGaussian checks the law of Laplace.Int and Gaussian.Int
// at coarse grids, with the fast and with the math/big edge tests.
func TestZigLaplaceGaussian(t *testing.T) {
	for i, exact := range []bool{false, true} {
		for j, tt := range []uint64{1, 3, 20} {
			r := rng.Seeded(uint64(1000 + 10*i + j))
			m := &Laplace{gamma: 1, t: tt}
			z, err := newLaplaceZig(tt)
			if err != nil {
				t.Fatal(err)
			}
			z.exactOnly = exact
			m.zigOnce.Do(func() { m.zig = z })
			chiSquare(t, fmt.Sprintf("laplace t=%d exact=%v", tt, exact), 100000, int64(40*tt)+2,
				func(k int64) float64 { return -math.Abs(float64(k)) / float64(tt) },
				func() int64 { return m.Int(r) })
		}
		for j, s := range []int64{1, 2, 50} {
			r := rng.Seeded(uint64(1100 + 10*i + j))
			m := newGaussianGrid(1, big.NewInt(s))
			z, err := newGaussianZig(uint64(s))
			if err != nil {
				t.Fatal(err)
			}
			z.exactOnly = exact
			m.zigOnce.Do(func() { m.zig = z })
			chiSquare(t, fmt.Sprintf("gaussian S=%d exact=%v", s, exact), 100000, int64(9*math.Sqrt(float64(s)))+2,
				func(k int64) float64 { return -float64(k*k) / (2 * float64(s)) },
				func() int64 { return m.Int(r) })
		}
	}
}

// TestZigTail checks the tail envelope alone: its accepted points must
// follow F restricted to y > c_N. At τ = 1, a = 1 (P(y) ∝ e^{−y+1/2}
// beyond 1) the tail starts at a small c_N and holds enough mass to test.
func TestZigTail(t *testing.T) {
	for i, c := range []struct{ tau, a uint64 }{{1, 1}, {4, 1}, {2, 40}} {
		z, err := newHuberZig(c.tau, c.a)
		if err != nil {
			t.Fatal(err)
		}
		alpha := float64(c.a) / float64(c.tau)
		r := rng.Seeded(uint64(800 + i))
		x0 := int64(z.cN) + 1
		kmax := int64(float64(c.tau)*(40/min(alpha, 1)+2)) + x0
		chiSquare(t, "huber tail", 50000, kmax,
			func(k int64) float64 {
				if k < x0 {
					return math.Inf(-1)
				}
				return -huber.Loss(alpha, float64(k)/float64(c.tau))
			},
			func() int64 {
				for {
					if y, ok := z.tail(r); ok {
						return int64(y)
					}
				}
			})
	}
}

// TestZigBelowAgrees compares the float64 bracket of below with the exact
// decision, for strip edges and random heights and for heights placed
// within a few units of the 64-bit threshold, where a wrong error bound
// would show: the fast path must either defer or decide as math/big does.
func TestZigBelowAgrees(t *testing.T) {
	for ci, c := range zigCases() {
		z, err := c.build()
		if err != nil {
			t.Fatal(err)
		}
		r := rng.Seeded(uint64(900 + ci))
		for range 80 {
			k := r.IntN(zigStrips + 1)
			it := z.items[k]
			var y uint64
			switch {
			case it.tail && r.IntN(2) == 0: // the tail envelope: (0, h_N·4^−b] over block b
				b := r.IntN(4)
				it.lo, it.hi = 0, math.Ldexp(z.hN, -2*b)
				y = z.cN + 1 + (1<<b-1)*z.l + r.Uint64N(z.l<<b)
			case it.width == it.sure:
				continue
			case it.tail: // the base rectangle's edge, (s_N, c_N]
				if z.cN+1 == it.sure {
					continue
				}
				y = it.sure + r.Uint64N(z.cN+1-it.sure)
			default:
				y = it.sure + r.Uint64N(it.width-it.sure)
			}
			// p·2⁶⁴ in exact arithmetic, to place u near it.
			lo, _ := expNegBounds(z.e(y).big(), z.den, 200)
			lo.Mul(lo, new(big.Float).SetInt(z.cBig))
			lo.Sub(lo, big.NewFloat(it.lo))
			lo.Quo(lo, big.NewFloat(it.hi-it.lo))
			lo.SetMantExp(lo, 64)
			th, _ := lo.Uint64()
			for _, u := range []uint64{r.Uint64(), th - 3, th - 1, th, th + 1, th + 2, th + 1<<11, th - 1<<11} {
				// Both see u, then the same further words: below calls
				// belowExact on them when its bracket cannot decide, so a
				// disagreement means the bracket was wrong.
				seed := r.Uint64()
				fast := z.below(constWord(u, rng.Seeded(seed)), y, it.lo, it.hi)
				exact := z.belowExact(rng.Seeded(seed), z.e(y), u, it.lo, it.hi)
				if fast != exact {
					t.Fatalf("%s, region %d, y = %d, u = %#x: fast %v, exact %v", c.name, k+1, y, u, fast, exact)
				}
			}
		}
	}
}

// constWord returns a generator whose first word is u and whose later
// words come from r.
func constWord(u uint64, r *rand.Rand) *rand.Rand {
	return rand.New(&firstWord{u: u, r: r})
}

type firstWord struct {
	u    uint64
	used bool
	r    *rand.Rand
}

func (f *firstWord) Uint64() uint64 {
	if !f.used {
		f.used = true
		return f.u
	}
	return f.r.Uint64()
}

// TestExpNegBounds checks the math/big exponential: a bracket that holds
// math.Exp's value (to its 1 ulp), narrows as asked, and nests across
// precisions.
func TestExpNegBounds(t *testing.T) {
	for _, c := range []struct{ num, den int64 }{
		{0, 1}, {1, 1 << 62}, {1, 3}, {1, 1}, {7, 2}, {1000, 7}, {600, 1}, {1 << 40, 1 << 20},
	} {
		num, den := big.NewInt(c.num), big.NewInt(c.den)
		x := float64(c.num) / float64(c.den)
		var prevLo, prevHi *big.Float
		for _, prec := range []uint{64, 128, 512} {
			lo, hi := expNegBounds(num, den, prec)
			if lo.Cmp(hi) > 0 {
				t.Fatalf("x = %g: lo > hi", x)
			}
			w := new(big.Float).Sub(hi, lo)
			if lim := new(big.Float).SetMantExp(lo, -int(prec)+1); w.Cmp(lim) > 0 && lo.Sign() > 0 {
				t.Errorf("x = %g, prec %d: width %.3g above 2^−prec relative", x, prec, w)
			}
			if prevLo != nil && (lo.Cmp(prevHi) > 0 || hi.Cmp(prevLo) < 0) {
				t.Errorf("x = %g: brackets at two precisions do not overlap", x)
			}
			prevLo, prevHi = lo, hi
			if x < 700 {
				// x rounds to x̃ with a relative 2⁻⁵³, which moves e^{−x}
				// by a relative x·2⁻⁵³; math.Exp adds 1 ulp.
				f := math.Exp(-x)
				tol := f*x*0x1p-52 + (math.Nextafter(f, 2) - f)
				flo, _ := lo.Float64()
				fhi, _ := hi.Float64()
				if f < flo-tol || f > fhi+tol {
					t.Errorf("x = %g: math.Exp %v outside [%v, %v] by more than %g", x, f, flo, fhi, tol)
				}
			}
		}
	}
}

// TestExpNegError measures expNeg against an exact bracket, on 10⁵ points
// of [0, 745] and near 0: within 2 ulp where the result is normal (fBounds
// allows 256), and within 1 unit of 2⁻¹⁰⁷⁴ where it is subnormal.
func TestExpNegError(t *testing.T) {
	r := rng.Seeded(11)
	worst := 0.0
	for i := range 20000 {
		x := r.Float64() * 745
		if i%10 == 0 {
			x = math.Ldexp(r.Float64(), -r.IntN(60))
		}
		num, den := new(big.Int), new(big.Int).Lsh(big1, 1100)
		new(big.Float).SetMantExp(big.NewFloat(x), 1100).Int(num) // x = num/2¹¹⁰⁰ exactly
		lo, hi := expNegBounds(num, den, 80)
		flo, _ := lo.Float64()
		fhi, _ := hi.Float64()
		f := expNeg(x)
		ulp := math.Nextafter(fhi, 2) - fhi
		if fhi < 0x1p-1022 {
			ulp = 0x1p-1074
		}
		e := max(flo-f, f-fhi, 0) / ulp
		worst = max(worst, e)
		if e > 2 {
			t.Fatalf("expNeg(%v) = %v, exact in [%v, %v]: off by %.2f ulp", x, f, flo, fhi, e)
		}
	}
	t.Logf("largest error %.3f ulp", worst)
	if got := expNeg(0); got != 1 {
		t.Errorf("expNeg(0) = %v", got)
	}
	if got := expNeg(746); got != 0 {
		t.Errorf("expNeg(746) = %v", got)
	}
}

// TestFBounds checks fBounds' bracket of F(y) against math/big at points
// of every table: strip edges, the base, deep in the tail (x up to 2²⁰)
// and where F underflows.
func TestFBounds(t *testing.T) {
	for ci, c := range zigCases() {
		z, err := c.build()
		if err != nil {
			t.Fatal(err)
		}
		r := rng.Seeded(uint64(1300 + ci))
		for range 150 {
			var y uint64
			switch r.IntN(3) {
			case 0:
				y = r.Uint64N(z.cN + 2)
			case 1:
				span := z.l
				for j := r.IntN(20); j > 0 && span < 1<<58; j-- {
					span <<= 1
				}
				y = z.cN + 1 + r.Uint64N(span)
			default: // anywhere below 2⁶², many far out
				y = r.Uint64N(maxInt) >> r.IntN(62)
			}
			if z.e(y).cmp(z.dMax) >= 0 {
				continue // never evaluated: the tail rejects it first
			}
			lo, hi := z.fBounds(y)
			elo, ehi := expNegBounds(z.e(y).big(), z.den, 128)
			cb := new(big.Float).SetInt(z.cBig)
			elo.Mul(elo, cb)
			ehi.Mul(ehi, cb)
			if big.NewFloat(lo).Cmp(elo) > 0 || big.NewFloat(hi).Cmp(ehi) < 0 {
				t.Fatalf("%s: y = %d: fBounds [%v, %v] does not hold F in [%.17g, %.17g]", c.name, y, lo, hi, elo, ehi)
			}
		}
	}
}

// TestTableFingerprints pins the bits of a few tables (and so the noise
// drawn from given random words): the tables must not depend on the CPU
// or the architecture (see elem.go). CI runs it with GODEBUG=cpu.fma=off
// too; docs/development.md gives the check on GOARCH=386.
func TestTableFingerprints(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func() (*zigTable, error)
		want  string
	}{
		{"huber τ=2^40 a=2^40", func() (*zigTable, error) { return newHuberZig(1<<40, 1<<40) }, "01d5f8fda7d05c7e2c9c6457"},
		{"huber τ=2^40+12345 a=3·2^40", func() (*zigTable, error) { return newHuberZig(1<<40+12345, 3<<40) }, "e263ac3399bae7142565ad8a"},
		{"huber τ=2^40 a=2^32", func() (*zigTable, error) { return newHuberZig(1<<40, 1<<32) }, "d8c8e8fd33c3c864b8bba68c"},
		{"huber τ=10 a=5", func() (*zigTable, error) { return newHuberZig(10, 5) }, "da6bb9cbe8f25a4d86416225"},
		{"laplace t=2^40+1", func() (*zigTable, error) { return newLaplaceZig(1<<40 + 1) }, "ae90f7fdd5d233d901c995a0"},
		{"gaussian S=2^56+3", func() (*zigTable, error) { return newGaussianZig(1<<56 + 3) }, "d26c83341413669bb3fa0ed6"},
		{"gaussian S=50", func() (*zigTable, error) { return newGaussianZig(50) }, "95ef0632b350b5e1fb5591ff"},
	} {
		z, err := c.build()
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		fmt.Fprint(h, z.c, z.cN, z.l, z.hN, z.loBits, z.items, z.cols)
		// The draws too: 1000 from a fixed stream.
		r := rng.Seeded(5)
		for range 1000 {
			fmt.Fprint(h, z.draw(r))
		}
		if got := fmt.Sprintf("%x", h.Sum(nil)[:12]); got != c.want {
			t.Errorf("%s: fingerprint %s, want %s", c.name, got, c.want)
		}
	}
}

// TestRejectionFallbacks keeps the law tests of the rejection samplers
// that Int falls back on if a table cannot be built.
func TestRejectionFallbacks(t *testing.T) {
	for i, s := range []int64{1, 5, 50} {
		r := rng.Seeded(uint64(1400 + i))
		m := newGaussianGrid(1, big.NewInt(s))
		chiSquare(t, fmt.Sprintf("gaussian fallback S=%d", s), 100000, int64(9*math.Sqrt(float64(s)))+2,
			func(k int64) float64 { return -float64(k*k) / (2 * float64(s)) },
			func() int64 { return m.intRejection(r) })
	}
	for i, c := range []struct{ tau, a uint64 }{{20, 1}, {4, 4}, {3, 12}} {
		r := rng.Seeded(uint64(1500 + i))
		m := newHuberGrid(1, c.tau, c.a)
		alpha := float64(c.a) / float64(c.tau)
		kmax := int64(float64(c.tau)*(40/min(alpha, 1)+2)) + 2
		chiSquare(t, fmt.Sprintf("huber fallback τ=%d a=%d", c.tau, c.a), 100000, kmax,
			func(k int64) float64 { return -huber.Loss(alpha, float64(k)/float64(c.tau)) },
			func() int64 { return m.intRejection(r) })
	}
}

// cmpExp compares c·exp(−num/den) with the rational p/q (c, q > 0, p ≥ 0)
// exactly: it returns +1 if c·exp(−num/den) > p/q and −1 if it is smaller.
// For num > 0 the two are never equal (e^x is irrational for rational
// x ≠ 0, Lindemann); for num = 0 it returns 0 on equality. It refines the
// bracket of expNegBounds until it decides, so it always terminates.
func cmpExp(c *big.Int, num, den *big.Int, p, q *big.Int) int {
	// Compare c·q·e^{−x} with p.
	cq := new(big.Float).SetInt(new(big.Int).Mul(c, q))
	fp := new(big.Float).SetInt(p)
	if num.Sign() == 0 {
		return cq.Cmp(fp)
	}
	for prec := uint(64); ; prec *= 2 {
		lo, hi := expNegBounds(num, den, prec)
		lo.Mul(lo, cq) // rounds down
		hi.Mul(hi, cq) // rounds up
		if lo.Cmp(fp) > 0 {
			return 1
		}
		if hi.Cmp(fp) < 0 {
			return -1
		}
	}
}

// TestU128Shifts checks the 128-bit helpers of the table construction
// against math/big.
func TestU128Shifts(t *testing.T) {
	r := rng.Seeded(12)
	for range 2000 {
		a := u128{r.Uint64() >> r.UintN(64), r.Uint64()}
		n := r.UintN(128)
		ab := a.big()
		mask := new(big.Int).Sub(new(big.Int).Lsh(big1, 128), big1)
		if got, want := a.shl(n).big(), new(big.Int).And(new(big.Int).Lsh(ab, n), mask); got.Cmp(want) != 0 {
			t.Fatalf("%v << %d = %v, want %v", ab, n, got, want)
		}
		if got, want := a.shr(n).big(), new(big.Int).Rsh(ab, n); got.Cmp(want) != 0 {
			t.Fatalf("%v >> %d = %v, want %v", ab, n, got, want)
		}
		if got, want := a.bitLen(), ab.BitLen(); got != want {
			t.Fatalf("bitLen(%v) = %d, want %d", ab, got, want)
		}
		if got, want := pow2(n).big(), new(big.Int).Lsh(big1, n); got.Cmp(want) != 0 {
			t.Fatalf("pow2(%d) = %v", n, got)
		}
		f, _ := new(big.Float).SetInt(ab).Float64()
		if got := a.float(); math.Abs(got-f) > f*0x1p-52 {
			t.Fatalf("float(%v) = %v, want %v within 2⁻⁵²", ab, got, f)
		}
	}
}

// bigOfFloat returns the integer-valued float64 v as a big.Int.
func bigOfFloat(v float64) *big.Int {
	b, _ := big.NewFloat(v).Int(nil)
	return b
}
