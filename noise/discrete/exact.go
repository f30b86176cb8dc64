package discrete

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
)

// u128 is an unsigned 128-bit integer hi·2⁶⁴ + lo. The samplers keep every
// quantity of their accept/reject tests in u128 on the fast path and fall
// back to math/big only where a product would overflow (far tails).
type u128 struct{ hi, lo uint64 }

func from64(v uint64) u128 { return u128{0, v} }

// mul64 returns a·b exactly.
func mul64(a, b uint64) u128 {
	hi, lo := bits.Mul64(a, b)
	return u128{hi, lo}
}

func (a u128) cmp(b u128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

func (a u128) isZero() bool { return a.hi == 0 && a.lo == 0 }

// sub returns a − b; the caller guarantees a ≥ b.
func (a u128) sub(b u128) u128 {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, borrow)
	return u128{hi, lo}
}

// add returns a + b and whether it overflowed.
func (a u128) add(b u128) (u128, bool) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, c2 := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}, c2 != 0
}

// mulSmall returns a·b and whether it overflowed.
func (a u128) mulSmall(b uint64) (u128, bool) {
	h1, l1 := bits.Mul64(a.lo, b)
	h2, l2 := bits.Mul64(a.hi, b)
	hi, c := bits.Add64(h1, l2, 0)
	return u128{hi, l1}, h2 != 0 || c != 0
}

// div64 returns ⌊a/d⌋ for d > 0.
func (a u128) div64(d uint64) u128 {
	qhi := a.hi / d
	qlo, _ := bits.Div64(a.hi%d, a.lo, d)
	return u128{qhi, qlo}
}

func (a u128) big() *big.Int {
	v := new(big.Int).SetUint64(a.hi)
	v.Lsh(v, 64)
	return v.Or(v, new(big.Int).SetUint64(a.lo))
}

// uniform returns a uniform integer in [0, n), n > 0, by rejection on the
// bit length of n (acceptance ≥ 1/2).
func uniform(r *rand.Rand, n u128) u128 {
	if n.hi == 0 {
		return u128{0, r.Uint64N(n.lo)}
	}
	mask := uint64(1)<<bits.Len64(n.hi) - 1
	for {
		v := u128{r.Uint64() & mask, r.Uint64()}
		if v.cmp(n) < 0 {
			return v
		}
	}
}

// bernoulli returns true with probability num/den exactly (num ≤ den, den > 0).
func bernoulli(r *rand.Rand, num, den u128) bool {
	return uniform(r, den).cmp(num) < 0
}

// bernExp1 returns true with probability exp(−1) exactly: Canonne, Kamath &
// Steinke (2020), Algorithm 1 at γ = 1, where the Bernoulli(γ/K) trial is a
// uniform draw in [0, K) being 0. The first trial (K = 1) always succeeds.
func bernExp1(r *rand.Rand) bool {
	k := uint64(2)
	for r.Uint64N(k) == 0 {
		k++
	}
	return k&1 == 1
}

// bernExpFrac returns true with probability exp(−num/den) exactly for
// 0 ≤ num ≤ den: CKS Algorithm 1. K counts up while Bernoulli(x/K) trials
// succeed, each one the AND of independent Bernoulli(1/K) and
// Bernoulli(x) trials; the answer is whether K ends odd, whose probability
// is Σ_k (−x)^k/k! = e^{−x}.
func bernExpFrac(r *rand.Rand, num, den u128) bool {
	if num.isZero() {
		return true
	}
	k := uint64(1)
	for {
		if k > 1 && r.Uint64N(k) != 0 {
			break
		}
		if !bernoulli(r, num, den) {
			break
		}
		k++
	}
	return k&1 == 1
}

// bernExp returns true with probability exp(−num/den) exactly, for any
// num ≥ 0 and den > 0: exp(−x) = exp(−1)^⌊x⌋ · exp(−(x − ⌊x⌋)), the integer
// part as ⌊x⌋ independent exp(−1) trials that stop at the first failure
// (so a huge x costs at most a few trials on average).
func bernExp(r *rand.Rand, num, den u128) bool {
	for num.cmp(den) >= 0 {
		if !bernExp1(r) {
			return false
		}
		num = num.sub(den)
	}
	return bernExpFrac(r, num, den)
}

// bernExpBig is bernExp for num, den given as math/big integers, for the
// rare draws whose acceptance exponent does not fit in 128 bits. It does
// not modify its arguments.
func bernExpBig(r *rand.Rand, num, den *big.Int) bool {
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	for q.Sign() > 0 {
		if !bernExp1(r) {
			return false
		}
		q.Sub(q, big1)
	}
	if rem.Sign() == 0 {
		return true
	}
	k := uint64(1)
	for {
		if k > 1 && r.Uint64N(k) != 0 {
			break
		}
		if uniformBig(r, den).Cmp(rem) >= 0 {
			break
		}
		k++
	}
	return k&1 == 1
}

var big1 = big.NewInt(1)

// uniformBig returns a uniform integer in [0, n), n > 0.
func uniformBig(r *rand.Rand, n *big.Int) *big.Int {
	nb := n.BitLen()
	words := make([]big.Word, (nb+bits.UintSize-1)/bits.UintSize)
	v := new(big.Int)
	for {
		for i := range words {
			words[i] = big.Word(r.Uint64())
		}
		if rem := nb % bits.UintSize; rem != 0 {
			words[len(words)-1] &= 1<<rem - 1
		}
		v.SetBits(words)
		if v.Cmp(n) < 0 {
			return new(big.Int).Set(v)
		}
	}
}

// BernoulliExp returns true with probability exp(−num/den) exactly, using
// only uniform integers drawn from r (Canonne, Kamath & Steinke 2020,
// Algorithm 1, with the integer part split off). It panics if den is 0;
// num may be any value.
func BernoulliExp(r *rand.Rand, num, den uint64) bool {
	if den == 0 {
		panic("discrete: BernoulliExp with den = 0")
	}
	return bernExp(r, from64(num), from64(den))
}

// maxInt is the largest noise magnitude the integer samplers return (see
// the package comment on truncation).
const maxInt = 1 << 62

// laplaceInt returns one draw of the discrete Laplace distribution on ℤ
// with P(y) ∝ exp(−|y|·den/num), num, den > 0: CKS Algorithm 2. U uniform
// on [0, num) accepted with probability exp(−U/num) and V geometric
// (exp(−1) trials) make X = U + num·V geometric with ratio exp(−1/num);
// Y = ⌊X/den⌋ is then geometric with ratio exp(−den/num), and a fair sign
// with the draw (−, 0) rejected makes it two-sided. Draws with |Y| ≥ 2⁶²
// are redrawn.
func laplaceInt(r *rand.Rand, num u128, den uint64) int64 {
	for {
		u := uniform(r, num)
		if !bernExpFrac(r, u, num) {
			continue
		}
		v := uint64(0)
		for bernExp1(r) {
			v++
		}
		x, o1 := num.mulSmall(v)
		x, o2 := x.add(u)
		if o1 || o2 {
			continue
		}
		y := x.div64(den)
		if y.hi != 0 || y.lo >= maxInt {
			continue
		}
		neg := r.Uint64()&1 == 1
		if neg && y.lo == 0 {
			continue
		}
		if neg {
			return -int64(y.lo)
		}
		return int64(y.lo)
	}
}

func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
