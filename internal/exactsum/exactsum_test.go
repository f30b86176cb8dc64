package exactsum

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exact returns the exact value of the terms truncated toward zero to g,
// in math/big.
func exact(g Grid, xs []float64) *big.Float {
	s := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		u := new(big.Float).SetPrec(4096).SetFloat64(x)
		u.SetMantExp(u, -g.exp) // x in grid units
		i, _ := u.Int(nil)      // truncated toward zero
		u.SetInt(i).SetMantExp(u, g.exp)
		s.Add(s, u)
	}
	return s
}

func value(g Grid, s Sum) *big.Float {
	hi, lo, neg := s.abs()
	v := new(big.Int).SetUint64(hi)
	v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(lo))
	if neg {
		v.Neg(v)
	}
	f := new(big.Float).SetPrec(4096).SetInt(v)
	return f.SetMantExp(f, g.exp)
}

// terms draws n terms of magnitude up to bound, of mixed scales and
// signs, some exactly on the grid's midpoints and some tiny.
func terms(r *rand.Rand, n int, bound float64) []float64 {
	xs := make([]float64, n)
	for k := range xs {
		x := bound * r.Float64() * math.Pow(2, -float64(r.IntN(80)))
		if r.IntN(2) == 0 {
			x = -x
		}
		xs[k] = x
	}
	return xs
}

// The sum of a set of terms is the same Sum whatever the order of the
// adds and whatever the partition into partial sums, merged in any
// order; and it is the exact sum of the truncated terms.
func TestOrderAndPartitionFree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		bound := math.Ldexp(1+r.Float64(), r.IntN(40)-20)
		g, err := GridFor(bound)
		if err != nil {
			t.Fatal(err)
		}
		xs := terms(r, 1+r.IntN(300), bound)
		var want Sum
		for _, x := range xs {
			want.Add(g, x)
		}
		if value(g, want).Cmp(exact(g, xs)) != 0 {
			t.Fatalf("trial %d: the sum is not the exact sum of the truncated terms", trial)
		}
		for range 5 {
			perm := r.Perm(len(xs))
			parts := make([]Sum, 1+r.IntN(8))
			for _, k := range perm {
				parts[r.IntN(len(parts))].Add(g, xs[k])
			}
			// merge in a random tree: repeatedly merge two random parts
			for len(parts) > 1 {
				a, b := r.IntN(len(parts)), r.IntN(len(parts)-1)
				if b >= a {
					b++
				}
				parts[a].Merge(parts[b])
				parts[b] = parts[len(parts)-1]
				parts = parts[:len(parts)-1]
			}
			if parts[0] != want {
				t.Fatalf("trial %d: a partition and order gave %+v, the sequential sum %+v", trial, parts[0], want)
			}
		}
	}
}

// Truncation toward zero never raises a term's magnitude, so the ℓ2 norm
// of a vector of truncated terms is at most the vector's.
func TestTruncationShrinks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g, _ := GridFor(1)
	for range 100000 {
		x := (2*r.Float64() - 1) * math.Pow(2, -float64(r.IntN(70)))
		var s Sum
		s.Add(g, x)
		f, err := s.Float64(g)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(f) > math.Abs(x) || math.Abs(f-x) >= math.Ldexp(1, g.Exp()) || (f != 0 && math.Signbit(f) != math.Signbit(x)) {
			t.Fatalf("term %v truncated to %v on the grid 2^%d", x, f, g.Exp())
		}
	}
}

// Float64 is the correctly rounded value of the exact sum, and Round the
// exact sum rounded half to even to a coarser grid.
func TestFloat64AndRound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	g, _ := GridExp(-40)
	for trial := range 20000 {
		var s Sum
		switch trial % 4 {
		case 0: // random 128-bit values
			s = Sum{Hi: int64(r.Uint64()) >> r.IntN(64), Lo: r.Uint64()}
		case 1: // small values
			s.AddUnits(int64(r.Uint64()>>r.IntN(64)) - 1<<40)
		case 2: // exact ties of a 53-bit rounding or of a grid 2^k
			k := 1 + r.IntN(60)
			s.AddUnits(int64(r.Uint64()>>(r.IntN(10)+4))&^(1<<k-1) | 1<<(k-1))
			if r.IntN(2) == 0 {
				s = s.neg()
			}
		default: // large terms through the slow path
			s.Add(g, (2*r.Float64()-1)*math.Ldexp(1, 20+r.IntN(65)))
		}
		v := value(g, s)
		want, _ := v.Float64() // big.Float rounds half to even
		got, err := s.Float64(g)
		if err != nil || got != want {
			t.Fatalf("%+v: Float64 %v, want %v (%v)", s, got, want, err)
		}
		exp := g.Exp() + r.IntN(150) - 20
		to, _ := GridExp(exp)
		q, err := s.RoundTo(g, to)
		// the exact rounding: v / 2^exp rounded half to even
		x := new(big.Float).SetPrec(4096).SetMantExp(v, -exp)
		fl, _ := x.Int(nil) // toward zero
		fr := new(big.Float).SetPrec(4096).Sub(x, new(big.Float).SetInt(fl))
		frac, _ := fr.Float64()
		switch {
		case math.Abs(frac) > 0.5, math.Abs(frac) == 0.5 && fl.Bit(0) == 1:
			if frac > 0 {
				fl.Add(fl, big.NewInt(1))
			} else {
				fl.Sub(fl, big.NewInt(1))
			}
		}
		if fl.BitLen() > 127 {
			if err == nil {
				t.Fatalf("%+v to 2^%d: %+v, want an error (beyond 2^127)", s, exp, q)
			}
			continue
		}
		got128 := new(big.Int).SetInt64(q.Hi)
		got128.Lsh(got128, 64).Add(got128, new(big.Int).SetUint64(q.Lo))
		if err != nil || got128.Cmp(fl) != 0 {
			t.Fatalf("%+v to 2^%d: %v (%v), want %v", s, exp, got128, err, fl)
		}
	}
}

// Non-finite terms and overflow mark the sum Bad, and stay marked.
func TestBad(t *testing.T) {
	g, _ := GridFor(1)
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300} {
		var s Sum
		s.Add(g, x)
		s.Add(g, 1)
		if !s.Bad {
			t.Errorf("term %v: not marked Bad", x)
		}
		if _, err := s.Float64(g); err == nil {
			t.Errorf("term %v: Float64 without an error", x)
		}
		var u Sum
		u.Merge(s)
		if !u.Bad {
			t.Errorf("term %v: Merge dropped Bad", x)
		}
	}
	big := Sum{Hi: math.MaxInt64, Lo: math.MaxUint64}
	s := big
	s.AddUnits(1)
	if !s.Bad {
		t.Error("AddUnits past 2^127 − 1 wrapped without Bad")
	}
	s = big
	s.Merge(Sum{Lo: 1})
	if !s.Bad {
		t.Error("Merge past 2^127 − 1 wrapped without Bad")
	}
	s = Sum{Hi: math.MinInt64}
	s.AddUnits(-1)
	if !s.Bad {
		t.Error("AddUnits below −2^127 wrapped without Bad")
	}
	// the largest sums of in-bound terms are far from overflow
	var m Sum
	for range 1000 {
		m.Merge(Sum{Hi: 1 << 61}) // 2^125 each... until it must overflow
	}
	if !m.Bad {
		t.Error("1000·2^125 did not overflow")
	}
}

func TestGridFor(t *testing.T) {
	for _, c := range []struct {
		bound float64
		exp   int
	}{{1, -62}, {0.75, -62}, {1.5, -61}, {2, -61}, {0.5, -63}, {5, -59}} {
		g, err := GridFor(c.bound)
		if err != nil || g.Exp() != c.exp {
			t.Errorf("GridFor(%v) = 2^%d (%v), want 2^%d", c.bound, g.Exp(), err, c.exp)
		}
		if u, ok := g.Units(c.bound); !ok || u > 1<<62 {
			t.Errorf("GridFor(%v): the bound is %d units", c.bound, u)
		}
	}
	for _, b := range []float64{0, -1, math.NaN(), math.Inf(1), 1e300, 1e-300} {
		if _, err := GridFor(b); err == nil {
			t.Errorf("GridFor(%v) accepted", b)
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	g, _ := GridFor(1)
	xs := terms(rand.New(rand.NewPCG(1, 1)), 1024, 1)
	var s Sum
	b.ResetTimer()
	for i := range b.N {
		s.Add(g, xs[i&1023])
	}
	if s.Bad {
		b.Fatal("bad")
	}
}
