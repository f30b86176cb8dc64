package ratings

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"sort"
)

// Triple is one rating: user (row) index, item (column) index, both dense
// from 0, and value in rating units.
type Triple struct {
	User, Item int32
	Value      float64
}

// Duplicates says what to do when the same (user, item) pair is rated more
// than once.
type Duplicates int

const (
	// DuplicatesDefault is the format's own policy: SweetRS averages, every
	// other format rejects duplicates. Build and New treat it as
	// DuplicatesError.
	DuplicatesDefault Duplicates = iota
	// DuplicatesError rejects a repeated pair with an error.
	DuplicatesError
	// DuplicatesAverage keeps one rating per pair: the mean of its values.
	DuplicatesAverage
)

// String returns "default", "error" or "average".
func (d Duplicates) String() string {
	switch d {
	case DuplicatesDefault:
		return "default"
	case DuplicatesError:
		return "error"
	case DuplicatesAverage:
		return "average"
	}
	return fmt.Sprintf("Duplicates(%d)", int(d))
}

// ParseDuplicates parses "default", "error" or "average" (as printed by
// String). Any other string is an error.
func ParseDuplicates(s string) (Duplicates, error) {
	for _, d := range []Duplicates{DuplicatesDefault, DuplicatesError, DuplicatesAverage} {
		if s == d.String() {
			return d, nil
		}
	}
	return 0, fmt.Errorf("ratings: unknown duplicates policy %q (want default, error or average)", s)
}

// DuplicateError reports a (user, item) pair rated more than once when
// duplicates are not allowed. First and Second are the positions in the
// triples slice of the first two ratings of the pair, First < Second.
// errors.Is(err, ErrDuplicate) is true for it.
type DuplicateError struct {
	User, Item    int32
	First, Second int
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("ratings: duplicate rating for user %d, item %d (triples %d and %d)",
		e.User, e.Item, e.First, e.Second)
}

// Is reports whether target is ErrDuplicate.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// Matrix is an immutable sparse users × items ratings matrix. It stores the
// same ratings twice, as compressed rows (CSR: per user, item indices and
// values) and compressed columns (CSC: per item, user indices and values),
// so that solvers can sweep either way without copying. Within a row the
// items are in increasing order, within a column the users are.
//
// A Matrix is safe for concurrent reads. The zero Matrix is not valid: use
// New or Build.
type Matrix struct {
	rows, cols int

	rowPtr []int // len rows+1; row i is rowIdx[rowPtr[i]:rowPtr[i+1]]
	rowIdx []int32
	rowVal []float64

	colPtr []int // len cols+1; column j is colIdx[colPtr[j]:colPtr[j+1]]
	colIdx []int32
	colVal []float64

	min, max float64
}

// New builds an m × n Matrix from triples, which it does not keep or
// modify. It returns an error if m or n is negative or above math.MaxInt32,
// if an index is out of range, if a value is NaN or ±Inf, or, as a
// *DuplicateError, if a (user, item) pair occurs twice.
func New(m, n int, triples []Triple) (*Matrix, error) {
	mat, _, err := Build(m, n, triples, DuplicatesError)
	return mat, err
}

// Build is New with a duplicates policy. With DuplicatesAverage a pair rated
// k > 1 times is stored once with the mean of its k values, and averaged
// counts such pairs; the matrix then has len(triples) − Len() fewer ratings
// than triples. The mean is computed without overflow and lies between the
// least and greatest of the k values, so every stored value is finite.
// Build returns an error, before building anything, if a value is NaN or
// ±Inf. It runs in O(m + n + len(triples)) time.
func Build(m, n int, triples []Triple, dup Duplicates) (mat *Matrix, averaged int, err error) {
	if m < 0 || n < 0 || m > math.MaxInt32 || n > math.MaxInt32 {
		return nil, 0, fmt.Errorf("ratings: matrix size %d × %d out of range [0, %d]", m, n, math.MaxInt32)
	}
	if dup != DuplicatesDefault && dup != DuplicatesError && dup != DuplicatesAverage {
		return nil, 0, fmt.Errorf("ratings: unknown duplicates policy %d", int(dup))
	}
	for k, t := range triples {
		switch {
		case t.User < 0 || int(t.User) >= m:
			return nil, 0, fmt.Errorf("ratings: triple %d: user index %d out of range [0, %d)", k, t.User, m)
		case t.Item < 0 || int(t.Item) >= n:
			return nil, 0, fmt.Errorf("ratings: triple %d: item index %d out of range [0, %d)", k, t.Item, n)
		case math.IsNaN(t.Value) || math.IsInf(t.Value, 0):
			return nil, 0, fmt.Errorf("ratings: triple %d: value %v is not finite", k, t.Value)
		}
	}

	// Two stable counting sorts, by item then by user, order the triples by
	// (user, item, position): duplicates become adjacent, first one first.
	nt := len(triples)
	byItem := make([]int, nt)
	next := make([]int, max(m, n)+1)
	for _, t := range triples {
		next[t.Item+1]++
	}
	for j := 1; j <= n; j++ {
		next[j] += next[j-1]
	}
	for k, t := range triples {
		byItem[next[t.Item]] = k
		next[t.Item]++
	}
	clear(next)
	for _, t := range triples {
		next[t.User+1]++
	}
	for i := 1; i <= m; i++ {
		next[i] += next[i-1]
	}
	order := make([]int, nt)
	for _, k := range byItem {
		u := triples[k].User
		order[next[u]] = k
		next[u]++
	}
	byItem = nil

	mat = &Matrix{
		rows:   m,
		cols:   n,
		rowPtr: make([]int, m+1),
		rowIdx: make([]int32, 0, nt),
		rowVal: make([]float64, 0, nt),
		min:    math.Inf(1),
		max:    math.Inf(-1),
	}
	for p := 0; p < nt; {
		t := triples[order[p]]
		v := t.Value
		q := p + 1
		for ; q < nt; q++ {
			u := triples[order[q]]
			if u.User != t.User || u.Item != t.Item {
				break
			}
			if dup != DuplicatesAverage {
				return nil, 0, &DuplicateError{User: t.User, Item: t.Item, First: order[p], Second: order[q]}
			}
		}
		if q-p > 1 {
			averaged++
			v = mean(triples, order[p:q])
		}
		mat.rowIdx = append(mat.rowIdx, t.Item)
		mat.rowVal = append(mat.rowVal, v)
		mat.rowPtr[t.User+1]++
		mat.min, mat.max = math.Min(mat.min, v), math.Max(mat.max, v)
		p = q
	}
	if len(mat.rowVal) == 0 {
		mat.min, mat.max = 0, 0
	}
	for i := 1; i <= m; i++ {
		mat.rowPtr[i] += mat.rowPtr[i-1]
	}

	// CSC from CSR by one more counting sort; rows are visited in order, so
	// each column comes out sorted by user.
	nnz := len(mat.rowIdx)
	mat.colPtr = make([]int, n+1)
	mat.colIdx = make([]int32, nnz)
	mat.colVal = make([]float64, nnz)
	for _, j := range mat.rowIdx {
		mat.colPtr[j+1]++
	}
	for j := 1; j <= n; j++ {
		mat.colPtr[j] += mat.colPtr[j-1]
	}
	copy(next, mat.colPtr[:n])
	for i := 0; i < m; i++ {
		for p := mat.rowPtr[i]; p < mat.rowPtr[i+1]; p++ {
			j := mat.rowIdx[p]
			mat.colIdx[next[j]] = int32(i)
			mat.colVal[next[j]] = mat.rowVal[p]
			next[j]++
		}
	}
	return mat, averaged, nil
}

// mean returns the mean of triples[k].Value for k in idx: n = len(idx) ≥ 1
// finite values. The result is finite and lies in [lo, hi], the least and
// greatest of them.
//
// The plain sum cannot be NaN: its terms are finite, so once it overflows
// to ±Inf it stays there. If it overflows, the values are summed again
// scaled by 2^−s with 2^s ≥ 2n: scaling by a power of two is exact (bar
// subnormals, whose loss is far below the rounding of a sum this large),
// every term is at most MaxFloat64/(2n) in magnitude, so the scaled sum
// stays near or below MaxFloat64/2 and cannot overflow. Scaling back can
// still round past ±MaxFloat64 to ±Inf when the mean lies within rounding
// of it; the clamp to [lo, hi], which also removes any rounding outside
// the values' range, maps that to lo or hi.
func mean(triples []Triple, idx []int) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	var sum float64
	for _, k := range idx {
		v := triples[k].Value
		sum += v
		lo, hi = min(lo, v), max(hi, v)
	}
	n := float64(len(idx))
	m := sum / n
	if math.IsInf(sum, 0) {
		s := bits.Len(uint(len(idx))) + 1
		var scaled float64
		for _, k := range idx {
			scaled += math.Ldexp(triples[k].Value, -s)
		}
		m = math.Ldexp(scaled/n, s)
	}
	// Written so that a NaN, which cannot occur, would become lo.
	if !(m >= lo) {
		m = lo
	}
	if m > hi {
		m = hi
	}
	return m
}

// Rows returns the number of users (rows), including users with no rating.
func (m *Matrix) Rows() int { return m.rows }

// Cols returns the number of items (columns), including items with no
// rating.
func (m *Matrix) Cols() int { return m.cols }

// Len returns the number of stored ratings.
func (m *Matrix) Len() int { return len(m.rowIdx) }

// Min returns the smallest stored rating, or 0 if there is none.
func (m *Matrix) Min() float64 { return m.min }

// Max returns the largest stored rating, or 0 if there is none.
func (m *Matrix) Max() float64 { return m.max }

// Row returns user i's ratings: item indices in increasing order and the
// matching values. Both slices alias the matrix and must not be modified;
// they are empty if the user has no rating. Row panics if i is not in
// [0, Rows()), like a slice index.
func (m *Matrix) Row(i int) (items []int32, values []float64) {
	lo, hi := m.rowPtr[i], m.rowPtr[i+1]
	return m.rowIdx[lo:hi:hi], m.rowVal[lo:hi:hi]
}

// Col returns item j's ratings: user indices in increasing order and the
// matching values. Both slices alias the matrix and must not be modified.
// Col panics if j is not in [0, Cols()), like a slice index.
func (m *Matrix) Col(j int) (users []int32, values []float64) {
	lo, hi := m.colPtr[j], m.colPtr[j+1]
	return m.colIdx[lo:hi:hi], m.colVal[lo:hi:hi]
}

// Get returns the rating of user i for item j and whether there is one. It
// returns false for out-of-range indices.
func (m *Matrix) Get(i, j int) (float64, bool) {
	if i < 0 || i >= m.rows || j < 0 || j >= m.cols {
		return 0, false
	}
	items, values := m.Row(i)
	p := sort.Search(len(items), func(p int) bool { return int(items[p]) >= j })
	if p < len(items) && int(items[p]) == j {
		return values[p], true
	}
	return 0, false
}

// All yields every rating in row-major order: by user, then by item.
func (m *Matrix) All() iter.Seq[Triple] {
	return func(yield func(Triple) bool) {
		for i := 0; i < m.rows; i++ {
			for p := m.rowPtr[i]; p < m.rowPtr[i+1]; p++ {
				if !yield(Triple{User: int32(i), Item: m.rowIdx[p], Value: m.rowVal[p]}) {
					return
				}
			}
		}
	}
}

// Triples returns a new slice with every rating in row-major order.
func (m *Matrix) Triples() []Triple {
	out := make([]Triple, 0, m.Len())
	for t := range m.All() {
		out = append(out, t)
	}
	return out
}
