package discrete

import (
	"math/big"
)

// expNegBounds returns lo ≤ exp(−num/den) ≤ hi, rigorously, with
// hi − lo ≤ 2^−prec·exp(−num/den) about; num ≥ 0, den > 0. It is the exact
// arithmetic behind the ziggurat's rare slow path and its table checks: no
// float64 operation is involved, every rounding of math/big is directed
// outwards.
//
// With 2^s > num/den, t = num/(den·2^s) lies in [0, 1), where the terms
// t^k/k! of the series of e^{−t} decrease, so every odd partial sum is a
// lower bound and every even one an upper bound (Leibniz). The partial
// sums are computed in interval arithmetic at a working precision with 64
// guard bits, and e^{−x} = (e^{−t})^{2^s} by s squarings, rounding the
// lower bound down and the upper bound up.
func expNegBounds(num, den *big.Int, prec uint) (lo, hi *big.Float) {
	if num.Sign() == 0 {
		lo = new(big.Float).SetPrec(prec).SetMode(big.ToNegativeInf).SetInt64(1)
		hi = new(big.Float).SetPrec(prec).SetMode(big.ToPositiveInf).SetInt64(1)
		return lo, hi
	}
	// s = bit length of ⌈num/den⌉, so num/den < 2^s.
	q := new(big.Int).Add(num, den)
	q.Sub(q, big1)
	q.Quo(q, den)
	s := uint(q.BitLen())
	wp := prec + s + 64
	d := new(big.Int).Lsh(den, s)
	var t ival
	t.init(wp)
	t.lo.SetMode(big.ToNegativeInf)
	t.hi.SetMode(big.ToPositiveInf)
	fn := new(big.Float).SetInt(num) // exact: prec set from the value
	fd := new(big.Float).SetInt(d)
	t.lo.Quo(fn, fd)
	t.hi.Quo(fn, fd)

	// term = t^k/k!, sum = Σ_{j≤k} (−t)^j/j!; stop after an odd k whose
	// term's upper bound is below 2^−(prec+s+8): e^{−t} ≥ e^{−1} > 2⁻²,
	// so the bracket's relative width is below 2^−(prec+s+5) before the
	// squarings, each of which at most doubles it (plus rounding).
	var term, sum, even ival
	term.init(wp)
	sum.init(wp)
	even.init(wp)
	term.setOne()
	sum.setOne()
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec+s+8))
	for k := uint64(1); ; k++ {
		term.mulPos(&term, &t)
		term.divUint(&term, k)
		if k%2 == 1 {
			even.set(&sum) // S_{k−1}, an upper bound
			sum.sub(&sum, &term)
			if term.hi.Cmp(eps) < 0 {
				break
			}
		} else {
			sum.add(&sum, &term)
		}
	}
	lo = new(big.Float).SetPrec(wp).SetMode(big.ToNegativeInf)
	hi = new(big.Float).SetPrec(wp).SetMode(big.ToPositiveInf)
	lo.Set(&sum.lo) // S_k, k odd: a lower bound
	if lo.Sign() < 0 {
		lo.SetInt64(0)
	}
	hi.Set(&even.hi)
	for range s {
		lo.Mul(lo, lo)
		hi.Mul(hi, hi)
	}
	return lo, hi
}

// ival is a closed interval [lo, hi] of big.Float, lo rounded towards −∞
// and hi towards +∞ by every operation.
type ival struct{ lo, hi big.Float }

func (v *ival) init(prec uint) {
	v.lo.SetPrec(prec).SetMode(big.ToNegativeInf)
	v.hi.SetPrec(prec).SetMode(big.ToPositiveInf)
}

func (v *ival) setOne() {
	v.lo.SetInt64(1)
	v.hi.SetInt64(1)
}

func (v *ival) set(a *ival) {
	v.lo.Set(&a.lo)
	v.hi.Set(&a.hi)
}

// mulPos sets v = a·b for intervals of non-negative numbers.
func (v *ival) mulPos(a, b *ival) {
	v.lo.Mul(&a.lo, &b.lo)
	v.hi.Mul(&a.hi, &b.hi)
}

// divUint sets v = a/k for an interval of non-negative numbers, k > 0.
func (v *ival) divUint(a *ival, k uint64) {
	var f big.Float
	f.SetUint64(k)
	v.lo.Quo(&a.lo, &f)
	v.hi.Quo(&a.hi, &f)
}

func (v *ival) add(a, b *ival) {
	v.lo.Add(&a.lo, &b.lo)
	v.hi.Add(&a.hi, &b.hi)
}

// sub sets v = a − b. The bounds are computed into temporaries first, so
// v may alias a or b.
func (v *ival) sub(a, b *ival) {
	var lo, hi big.Float
	lo.SetPrec(v.lo.Prec()).SetMode(big.ToNegativeInf)
	hi.SetPrec(v.hi.Prec()).SetMode(big.ToPositiveInf)
	lo.Sub(&a.lo, &b.hi)
	hi.Sub(&a.hi, &b.lo)
	v.lo.Set(&lo)
	v.hi.Set(&hi)
}
