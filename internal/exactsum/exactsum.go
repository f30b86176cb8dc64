// Package exactsum adds float64 terms exactly and in any order: each
// term is truncated toward zero to a fixed grid 2^e and added as an
// integer to a 128-bit two's-complement accumulator, so the sum of a
// set of terms is the same integer whatever the order in which they are
// added and whatever the partition into partial sums that are merged
// (Merge is integer addition: associative and commutative exactly).
//
// It exists for the user-level private pipeline (package userdp and the
// Beam pipeline): a released sum must be a function of the set of users'
// terms alone — float64 addition is not associative, so a Beam combiner,
// which merges partial sums in whatever order the runner chooses, could
// not reproduce it otherwise — and its distance to the neighbour's sum
// must stay within the stated sensitivity. Truncation toward zero never
// raises a term's magnitude, so a vector of truncated terms has ℓ2 norm
// at most the original's: clipping bounds hold on the truncated terms,
// and the sensitivity of the exact sum is the sensitivity of the real
// sum, with no rounding term to add.
//
// It is hand-written because no well-kept Go library does this: exact
// float summation libraries (Shewchuk-style expansions, Kulisch
// accumulators) give an order-free value but have no compact mergeable
// state of fixed size for a combiner's coder, and math/big allocates on
// every add. The code is small: math/bits' carry and a correctly rounded
// conversion back to float64, both tested against math/big.
//
// Capacity: a term within the grid's bound (GridFor) is at most 2⁶²
// grid units, and any term below 2⁶³ units takes the fast path; so the
// 128-bit integer cannot overflow before 2⁶⁴ such terms have been added —
// far beyond any data set. A larger finite term (up to 2¹²⁶ units) is
// added exactly by a slower path; a non-finite or larger one marks the
// sum Bad. Overflow of the integer itself is detected too and marks it
// Bad: a Sum never wraps silently.
package exactsum

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Grid is the grid 2^Exp on which terms are truncated. Its zero value is
// not a grid: make one with GridFor or GridExp.
type Grid struct {
	exp   int
	scale float64 // 2^−exp: x·scale is x in grid units, exactly
}

// Limits on the exponent, so that 2^±exp and every conversion stay
// normal float64 numbers.
const (
	minExp = -960
	maxExp = 900
)

// unitBits is how many grid units the bound of GridFor spans: a term of
// magnitude ≤ bound is ≤ 2^unitBits units, half of the fast path's 2⁶³.
const unitBits = 62

// GridFor returns the grid for terms of magnitude at most bound: the
// finest power of two g with bound ≤ 2⁶²·g. It returns an error unless
// bound is finite and in [2⁻⁸⁹⁸, 2⁹⁰⁰].
func GridFor(bound float64) (Grid, error) {
	if !(bound >= math.Ldexp(1, minExp+unitBits) && bound <= math.Ldexp(1, maxExp)) {
		return Grid{}, fmt.Errorf("exactsum: term bound %v, want in [2^%d, 2^%d]", bound, minExp+unitBits, maxExp)
	}
	frac, e := math.Frexp(bound) // bound = frac·2^e, frac in [0.5, 1)
	if frac == 0.5 {
		e-- // a power of two: bound = 2^(e−1)
	}
	return GridExp(e - unitBits)
}

// GridExp returns the grid 2^exp, exp in [−960, 900].
func GridExp(exp int) (Grid, error) {
	if exp < minExp || exp > maxExp {
		return Grid{}, fmt.Errorf("exactsum: grid exponent %d, want in [%d, %d]", exp, minExp, maxExp)
	}
	return Grid{exp: exp, scale: math.Ldexp(1, -exp)}, nil
}

// Exp returns the grid's exponent e (the grid step is 2^e).
func (g Grid) Exp() int { return g.exp }

// Valid says whether g was made by GridFor or GridExp.
func (g Grid) Valid() bool { return g.scale != 0 }

// Sum is an exact sum of terms on a grid the caller keeps: the value is
// (Hi·2⁶⁴ + Lo)·2^e, Hi and Lo the two's-complement halves. Bad is
// sticky: a term was not finite or too large, or the integer overflowed.
// The zero Sum is the empty sum on every grid. Fields are exported for
// coders (a Beam accumulator).
type Sum struct {
	Hi  int64
	Lo  uint64
	Bad bool
}

// ErrBad is returned for a Sum marked Bad.
var ErrBad = errors.New("exactsum: a term was not finite or beyond 2^126 grid units, or the sum overflowed 128 bits")

// Units returns x in units of g truncated toward zero, and whether that
// fits an int64 (|x| < 2⁶³ units and x finite). A term converted once
// can be added to many sums with AddUnits.
func (g Grid) Units(x float64) (int64, bool) {
	y := x * g.scale
	if y < 0x1p63 && y > -0x1p63 {
		return int64(y), true // truncates toward zero
	}
	return 0, false
}

// Add adds x, truncated toward zero to g, to s.
func (s *Sum) Add(g Grid, x float64) {
	if u, ok := g.Units(x); ok {
		s.AddUnits(u)
		return
	}
	s.addLarge(x * g.scale)
}

// AddUnits adds u grid units to s (a term from Grid.Units).
func (s *Sum) AddUnits(u int64) {
	lo, c := bits.Add64(s.Lo, uint64(u), 0)
	d := u>>63 + int64(c) // −1, 0 or 1: the sign extension plus the carry
	hi := s.Hi + d
	if (d > 0 && hi < s.Hi) || (d < 0 && hi > s.Hi) {
		s.Bad = true
	}
	s.Hi, s.Lo = hi, lo
}

// addLarge adds y grid units (not an int64: |y| ≥ 2⁶³, or not finite),
// an integer since float64s that large have no fractional bits.
func (s *Sum) addLarge(y float64) {
	a := math.Abs(y)
	if !(a < 0x1p126) { // also NaN
		s.Bad = true
		return
	}
	hi := uint64(a / 0x1p64) // exact scaling; truncation drops the low part
	lo := uint64(a - float64(hi)*0x1p64)
	t := Sum{Hi: int64(hi), Lo: lo}
	if y < 0 {
		t = t.neg()
	}
	s.Merge(t)
}

// neg returns −s (s not the most negative value).
func (s Sum) neg() Sum {
	lo, b := bits.Sub64(0, s.Lo, 0)
	return Sum{Hi: -s.Hi - int64(b), Lo: lo, Bad: s.Bad}
}

// Merge adds t to s exactly: the partial sums of any partition of a set
// of terms, merged in any order, give the same Sum.
func (s *Sum) Merge(t Sum) {
	lo, c := bits.Add64(s.Lo, t.Lo, 0)
	hi := s.Hi + t.Hi + int64(c)
	// Signed overflow of the 128-bit addition: both operands of one sign
	// (the sign of Hi), the result of the other.
	if (s.Hi >= 0) == (t.Hi >= 0) && (hi >= 0) != (s.Hi >= 0) {
		s.Bad = true
	}
	s.Hi, s.Lo = hi, lo
	s.Bad = s.Bad || t.Bad
}

// IsZero says whether s is the empty sum (or sums to exactly zero).
func (s Sum) IsZero() bool { return s.Hi == 0 && s.Lo == 0 && !s.Bad }

// abs returns |s| as an unsigned 128-bit integer (hi, lo) and the sign.
func (s Sum) abs() (hi, lo uint64, neg bool) {
	if s.Hi < 0 {
		t := s.neg()
		return uint64(t.Hi), t.Lo, true
	}
	return uint64(s.Hi), s.Lo, false
}

// Float64 returns s's value on grid g rounded to the nearest float64
// (ties to even): correctly rounded, a function of the exact sum alone.
func (s Sum) Float64(g Grid) (float64, error) {
	if s.Bad {
		return 0, ErrBad
	}
	hi, lo, neg := s.abs()
	var f float64
	if hi == 0 && lo < 1<<53 {
		f = math.Ldexp(float64(lo), g.exp) // exact
	} else {
		n := bitLen(hi, lo)
		// Keep the top 53 bits, round half to even on the rest.
		sh := uint(n - 53)
		_, m, rem, half := shiftRight(hi, lo, sh)
		if rem > 0 || (rem == 0 && half && m&1 == 1) {
			m++
		}
		f = math.Ldexp(float64(m), g.exp+int(sh)) // m ≤ 2⁵³: exact
	}
	if neg {
		f = -f
	}
	return f, nil
}

// shiftRight returns the 128-bit (hi, lo) shifted right by sh in
// [1, 127] bits, and how the dropped bits compare to half of the last
// kept one: rem > 0 above half, rem == 0 && half exactly half, rem < 0
// below.
func shiftRight(hi, lo uint64, sh uint) (mHi, mLo uint64, rem int, half bool) {
	var dropHi, dropLo uint64 // the dropped bits, as a 128-bit value
	switch {
	case sh < 64:
		mHi, mLo = hi>>sh, lo>>sh|hi<<(64-sh)
		dropLo = lo & (1<<sh - 1)
	case sh == 64:
		mLo, dropLo = hi, lo
	default:
		mLo = hi >> (sh - 64)
		dropHi, dropLo = hi&(1<<(sh-64)-1), lo
	}
	// half = 2^(sh−1) as a 128-bit value
	var hHi, hLo uint64
	if sh-1 < 64 {
		hLo = 1 << (sh - 1)
	} else {
		hHi = 1 << (sh - 1 - 64)
	}
	switch {
	case dropHi > hHi || (dropHi == hHi && dropLo > hLo):
		return mHi, mLo, 1, false
	case dropHi == hHi && dropLo == hLo:
		return mHi, mLo, 0, true
	}
	return mHi, mLo, -1, false
}

// RoundTo returns s's value on grid g rounded to the grid to (ties to
// even), as a Sum on grid to: exact when to is finer than g. It returns
// an error if s is Bad or the value leaves ±2¹²⁷ steps of to.
func (s Sum) RoundTo(g, to Grid) (Sum, error) {
	if s.Bad {
		return Sum{}, ErrBad
	}
	sh := to.exp - g.exp
	hi, lo, neg := s.abs()
	switch {
	case sh == 0:
		return s, nil
	case sh < 0: // a finer grid: shift left, exactly
		if hi == 0 && lo == 0 {
			return s, nil
		}
		l := -sh
		if bitLen(hi, lo)+l > 127 {
			return Sum{}, errRange(to.exp)
		}
		if l >= 64 {
			hi, lo = lo<<uint(l-64), 0
		} else {
			hi, lo = hi<<uint(l)|lo>>uint(64-l), lo<<uint(l)
		}
	case sh >= 128:
		hi, lo = 0, 0 // |value| < 2¹²⁷ units, below half a step
	default:
		mHi, mLo, rem, half := shiftRight(hi, lo, uint(sh))
		if rem > 0 || (rem == 0 && half && mLo&1 == 1) {
			var c uint64
			mLo, c = bits.Add64(mLo, 1, 0)
			mHi += c
		}
		hi, lo = mHi, mLo
	}
	t := Sum{Hi: int64(hi), Lo: lo}
	if neg {
		t = t.neg()
	}
	return t, nil
}

// bitLen returns the bit length of the 128-bit (hi, lo).
func bitLen(hi, lo uint64) int {
	if hi != 0 {
		return 128 - bits.LeadingZeros64(hi)
	}
	return 64 - bits.LeadingZeros64(lo)
}

func errRange(exp int) error {
	return fmt.Errorf("exactsum: the sum is 2^127 or more steps of the grid 2^%d", exp)
}
