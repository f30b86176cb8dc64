package ratings

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
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
// Indices are int32. Values are float32: 16 bytes per rating for both
// views; a matrix that a loader built from a file of at most 256 distinct
// values keeps a byte per value, a code into a shared table of the values:
// 10 bytes per rating; from a file of at most 65 536 distinct values (a
// scale in steps of 1e-4, say), two bytes, a code into a shared table of
// float32s: 12 bytes per rating. Values hides which.
//
// Every stored value is the rating given rounded to the nearest float32
// (ties to even; a zero as +0), the table's values included: exact for
// integers, half
// stars and any value with at most 24 significant bits, and otherwise
// within 2⁻²⁴ ≈ 6e-8 of it relative to its magnitude (for |v| ≥ 2⁻¹²⁶ ≈
// 1.2e-38; below that within 2⁻¹⁵⁰ ≈ 7e-46 absolute), far below the step
// of any real rating scale (a 4-decimal rating of 1–5 moves by 1e-4 at
// least, 3 orders of magnitude above its rounding). Rounding is monotone,
// so a value within a range whose bounds are float32s (1–5, 0.5–5, −10–10)
// stays within it, and so does a mean of duplicates. A rating whose
// float32 rounding is infinite (|v| ≥ about 3.4e38) is refused. (A value
// not exactly a float32 used to be kept as float64, twice: 24 bytes per
// rating.)
//
// A Matrix is safe for concurrent reads. The zero Matrix is not valid: use
// New, Build or a Builder.
type Matrix struct {
	rows, cols int

	// The pointers are int32: a matrix holds at most math.MaxInt32
	// ratings (Builder and the loaders refuse more).
	rowPtr []int32 // len rows+1; row i is rowIdx[rowPtr[i]:rowPtr[i+1]]
	rowIdx []int32
	rowVal Values

	colPtr []int32 // len cols+1; column j is colIdx[colPtr[j]:colPtr[j+1]]
	colIdx []int32
	colVal Values

	min, max float64
}

// Values is a read-only run of ratings, as Row and Col return them: the
// matrix's own storage, read through At or copied out by CopyTo, exactly
// the values stored either way. A matrix's storage is one of three: a
// byte per value, the code of one of at most 256 distinct values (what a
// loaded ratings file of whole or half stars gets), two bytes, the code of
// one of at most 65 536 (a loaded file of values on a finer grid, such as
// 4 decimals of a 1–5 scale: 40 001 values), or float32; ValuesOf's is
// the caller's float64s. The zero Values is empty.
type Values struct {
	f32   []float32
	f64   []float64     // non-nil only from ValuesOf: a Matrix never holds float64 values
	codes []uint8       // with table: value k is table[codes[k]]
	table *[256]float64 // non-nil for coded values
	c16   []uint16      // with t16: value k is t16[c16[k]]
	t16   []float32     // non-nil for two-byte codes
}

// ValuesOf returns Values that read x, sharing it: for code that passes
// values of its own where a matrix's are expected.
func ValuesOf(x []float64) Values { return Values{f64: x} }

// Len returns the number of values.
func (v Values) Len() int {
	switch {
	case v.f64 != nil:
		return len(v.f64)
	case v.table != nil:
		return len(v.codes)
	case v.t16 != nil:
		return len(v.c16)
	}
	return len(v.f32)
}

// At returns value k, in rating units. It panics if k is not in
// [0, Len()), like a slice index.
func (v Values) At(k int) float64 {
	switch {
	case v.f64 != nil:
		return v.f64[k]
	case v.table != nil:
		return v.table[v.codes[k]]
	case v.t16 != nil:
		return float64(v.t16[v.c16[k]])
	}
	return float64(v.f32[k])
}

// CopyTo copies the values into dst[:Len()] as float64 and returns that
// slice. It panics if dst is shorter than Len().
func (v Values) CopyTo(dst []float64) []float64 {
	switch {
	case v.f64 != nil:
		return dst[:copy(dst[:len(v.f64)], v.f64)]
	case v.table != nil:
		t := v.table
		dst = dst[:len(v.codes)]
		for k, c := range v.codes {
			dst[k] = t[c]
		}
		return dst
	case v.t16 != nil:
		t := v.t16
		dst = dst[:len(v.c16)]
		for k, c := range v.c16 {
			dst[k] = float64(t[c])
		}
		return dst
	}
	dst = dst[:len(v.f32)]
	for k, x := range v.f32 {
		dst[k] = float64(x)
	}
	return dst
}

// CopyTo32 copies the values into dst[:Len()] as float32 and returns that
// slice: exactly, as a Matrix stores every value as a float32 (ValuesOf's
// float64s are rounded to the nearest float32). It panics if dst is
// shorter than Len().
func (v Values) CopyTo32(dst []float32) []float32 {
	switch {
	case v.f64 != nil:
		dst = dst[:len(v.f64)]
		for k, x := range v.f64 {
			dst[k] = float32(x)
		}
		return dst
	case v.table != nil:
		t := v.table
		dst = dst[:len(v.codes)]
		for k, c := range v.codes {
			dst[k] = float32(t[c])
		}
		return dst
	case v.t16 != nil:
		t := v.t16
		dst = dst[:len(v.c16)]
		for k, c := range v.c16 {
			dst[k] = t[c]
		}
		return dst
	}
	return dst[:copy(dst[:len(v.f32)], v.f32)]
}

// Slice returns values [lo, hi), sharing v's storage. It panics if
// 0 ≤ lo ≤ hi ≤ Len() does not hold, like a slice expression.
func (v Values) Slice(lo, hi int) Values {
	switch {
	case v.f64 != nil:
		return Values{f64: v.f64[lo:hi:hi]}
	case v.table != nil:
		return Values{codes: v.codes[lo:hi:hi], table: v.table}
	case v.t16 != nil:
		return Values{c16: v.c16[lo:hi:hi], t16: v.t16}
	}
	return Values{f32: v.f32[lo:hi:hi]}
}

// bytesPerValue returns the bytes v's storage takes per value.
func (v Values) bytesPerValue() int {
	switch {
	case v.f64 != nil:
		return 8
	case v.table != nil:
		return 1
	case v.t16 != nil:
		return 2
	}
	return 4
}

// to32 returns x rounded to the nearest float32 (ties to even), as a
// Matrix stores it: a zero, or a value that rounds to one, as +0.
func to32(x float64) float32 {
	if f := float32(x); f != 0 {
		return f
	}
	return 0
}

// round32 returns to32(x) as a float64.
func round32(x float64) float64 { return float64(to32(x)) }

// fits32 reports whether x's float32 rounding is finite: whether a Matrix
// can store it.
func fits32(x float64) bool { return !math.IsInf(round32(x), 0) }

// errNot32 is the error for a finite value beyond float32's range.
func errNot32(what string, k int, x float64) error {
	return fmt.Errorf("ratings: %s %d: value %v is beyond the float32 range (±%g) a Matrix stores", what, k, x, math.MaxFloat32)
}

// appendValue appends x to v, rounded to the nearest float32 (an x beyond
// float32's range becomes ±Inf, which build refuses).
func appendValue(v *Values, x float64) {
	v.f32 = append(v.f32, to32(x))
}

// New builds an m × n Matrix from triples, which it does not keep or
// modify. It returns an error if m or n is negative or above math.MaxInt32,
// if an index is out of range, if a value is NaN or ±Inf or beyond
// float32's range (see Matrix for the rounding), if there are more
// than math.MaxInt32 triples, or, as a *DuplicateError, if a (user, item)
// pair occurs twice.
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
// ±Inf or beyond float32's range. A mean is computed in float64 from the
// values given and then rounded to float32 like any value. It runs in
// O(m + n + len(triples)·log d) time, d the most ratings of a user, and
// needs, besides the row view of the matrix, 16 bytes per triple while it
// works, half of which the column view then takes over.
func Build(m, n int, triples []Triple, dup Duplicates) (mat *Matrix, averaged int, err error) {
	if m < 0 || n < 0 || m > math.MaxInt32 || n > math.MaxInt32 {
		return nil, 0, fmt.Errorf("ratings: matrix size %d × %d out of range [0, %d]", m, n, math.MaxInt32)
	}
	if dup != DuplicatesDefault && dup != DuplicatesError && dup != DuplicatesAverage {
		return nil, 0, fmt.Errorf("ratings: unknown duplicates policy %d", int(dup))
	}
	if len(triples) > math.MaxInt32 {
		return nil, 0, fmt.Errorf("ratings: %d triples, want at most %d", len(triples), math.MaxInt32)
	}
	for k, t := range triples {
		switch {
		case t.User < 0 || int(t.User) >= m:
			return nil, 0, fmt.Errorf("ratings: triple %d: user index %d out of range [0, %d)", k, t.User, m)
		case t.Item < 0 || int(t.Item) >= n:
			return nil, 0, fmt.Errorf("ratings: triple %d: item index %d out of range [0, %d)", k, t.Item, n)
		case math.IsNaN(t.Value) || math.IsInf(t.Value, 0):
			return nil, 0, fmt.Errorf("ratings: triple %d: value %v is not finite", k, t.Value)
		case !fits32(t.Value):
			return nil, 0, errNot32("triple", k, t.Value)
		}
	}

	us, is := make([]int32, len(triples)), make([]int32, len(triples))
	vs := Values{f32: make([]float32, 0, len(triples))}
	var ws []float64 // the values as given, for the means of duplicates
	if dup == DuplicatesAverage {
		ws = make([]float64, len(triples))
	}
	for k, t := range triples {
		us[k], is[k] = t.User, t.Item
		appendValue(&vs, t.Value)
		if ws != nil {
			ws[k] = t.Value
		}
	}
	return buildMeans(m, n, us, is, vs, ws, dup)
}

// build is Build for valid sizes and a valid policy, from the triples'
// users, items and values (float32 or coded), which must be valid but for
// a value beyond float32's range (±Inf once rounded: an error). The mean
// of a repeated pair is that of its stored (rounded) values.
func build(m, n int, us, is []int32, vs Values, dup Duplicates) (mat *Matrix, averaged int, err error) {
	return buildMeans(m, n, us, is, vs, nil, dup)
}

// buildMeans is build taking the means of repeated pairs from exact, the
// values as given, if it is not nil.
func buildMeans(m, n int, us, is []int32, vs Values, exact []float64, dup Duplicates) (mat *Matrix, averaged int, err error) {
	for k := range vs.Len() {
		if v := vs.At(k); math.IsInf(v, 0) {
			return nil, 0, errNot32("rating", k, v)
		}
	}
	means := vs
	if exact != nil {
		means = ValuesOf(exact)
	}
	// A stable counting sort by user puts each row's triples together in
	// their order of position; sorting each row by (item, position) then
	// makes duplicates adjacent, first one first.
	nt := len(us)
	end := make([]int, m+1) // after the sort, row i is order[end[i−1]:end[i]]
	for _, u := range us {
		end[u+1]++
	}
	for i := 1; i <= m; i++ {
		end[i] += end[i-1]
	}
	order := make([]int32, nt)
	for k, u := range us {
		order[end[u]] = int32(k)
		end[u]++
	}
	// A row's triples as keys item·2³² + position, whose order is (item,
	// position): both are non-negative int32s.
	var row []uint64
	b := newBuilder(m, n, nt)
	for i := range m {
		lo := 0
		if i > 0 {
			lo = end[i-1]
		}
		row = row[:0]
		for _, k := range order[lo:end[i]] {
			row = append(row, uint64(is[k])<<32|uint64(k))
		}
		slices.Sort(row)
		for p := 0; p < len(row); {
			j, k := int32(row[p]>>32), int32(uint32(row[p]))
			q := p + 1
			for q < len(row) && int32(row[q]>>32) == j {
				if dup != DuplicatesAverage {
					return nil, 0, &DuplicateError{User: int32(i), Item: j, First: int(k), Second: int(uint32(row[q]))}
				}
				q++
			}
			v := vs.At(int(k))
			if q-p > 1 {
				averaged++
				idx := order[lo : lo+q-p] // order is done with: reuse it for the positions
				for a, key := range row[p:q] {
					idx[a] = int32(uint32(key))
				}
				v = mean(means, idx)
			}
			b.add(int32(i), j, v)
			p = q
		}
	}
	// The column view reuses the triples' users and values, which are done
	// with, when they are the right type and size.
	var colIdx []int32
	var colVal Values
	if nnz := len(b.m.rowIdx); cap(us) >= nnz {
		colIdx = us[:nnz]
		if vs.f32 != nil && cap(vs.f32) >= nnz {
			colVal.f32 = vs.f32[:nnz]
		}
	}
	is, order, row, exact, means = nil, nil, nil, nil, Values{} // garbage before the column view
	return b.matrix(colIdx, colVal), averaged, nil
}

// A Builder builds a Matrix from ratings given in row-major order (by
// user, then by item, each pair once), as a generator that walks the cells
// in order produces them, without the 16 bytes per rating of a []Triple:
// it holds the row view as it grows (8 bytes per rating) and adds the
// column view at the end. Values are rounded to float32 as in a Matrix.
type Builder struct {
	m            *Matrix
	err          error
	lastI, lastJ int32 // the pair of the last rating added
}

// NewBuilder returns a Builder of an m × n matrix, with room for hint
// ratings (a capacity hint; 0 is fine). It returns an error if m or n is
// negative or above math.MaxInt32.
func NewBuilder(m, n, hint int) (*Builder, error) {
	if m < 0 || n < 0 || m > math.MaxInt32 || n > math.MaxInt32 {
		return nil, fmt.Errorf("ratings: matrix size %d × %d out of range [0, %d]", m, n, math.MaxInt32)
	}
	return newBuilder(m, n, max(hint, 0)), nil
}

// newBuilder is NewBuilder for valid sizes.
func newBuilder(m, n, hint int) *Builder {
	hint = min(hint, math.MaxInt32)
	return &Builder{m: &Matrix{
		rows: m, cols: n,
		rowPtr: make([]int32, m+1),
		rowIdx: make([]int32, 0, hint),
		rowVal: Values{f32: make([]float32, 0, hint)},
		min:    math.Inf(1),
		max:    math.Inf(-1),
	}, lastI: -1}
}

// Add appends the rating value of user (row) i for item (column) j. It
// returns an error, and the Builder then refuses every later call, if i or
// j is out of range, if value is NaN or ±Inf or beyond float32's range,
// if (i, j) does not come
// after the previous pair in row-major order (a repeated pair included),
// or if the matrix would hold more than math.MaxInt32 ratings.
func (b *Builder) Add(i, j int, value float64) error {
	if b.err != nil {
		return b.err
	}
	mat := b.m
	n := len(mat.rowIdx)
	switch {
	case i < 0 || i >= mat.rows:
		b.err = fmt.Errorf("ratings: rating %d: user index %d out of range [0, %d)", n, i, mat.rows)
	case j < 0 || j >= mat.cols:
		b.err = fmt.Errorf("ratings: rating %d: item index %d out of range [0, %d)", n, j, mat.cols)
	case math.IsNaN(value) || math.IsInf(value, 0):
		b.err = fmt.Errorf("ratings: rating %d: value %v is not finite", n, value)
	case !fits32(value):
		b.err = errNot32("rating", n, value)
	case n == math.MaxInt32:
		b.err = fmt.Errorf("ratings: more than %d ratings", math.MaxInt32)
	case i < int(b.lastI) || i == int(b.lastI) && j <= int(b.lastJ):
		b.err = fmt.Errorf("ratings: rating %d: (user %d, item %d) does not come after (%d, %d) in row-major order", n, i, j, b.lastI, b.lastJ)
	}
	if b.err != nil {
		return b.err
	}
	b.add(int32(i), int32(j), value)
	return nil
}

// add is Add for a valid rating in order.
func (b *Builder) add(i, j int32, v float64) {
	mat := b.m
	mat.rowIdx = append(mat.rowIdx, j)
	appendValue(&mat.rowVal, v)
	mat.rowPtr[i+1]++
	b.lastI, b.lastJ = i, j
	v = round32(v) // min and max are of the values stored
	mat.min, mat.max = math.Min(mat.min, v), math.Max(mat.max, v)
}

// Matrix returns the matrix built, after which the Builder refuses every
// call. It returns nil if Add has failed or Matrix was called before.
func (b *Builder) Matrix() *Matrix { return b.matrix(nil, Values{}) }

// matrix is Matrix, building the column view in colIdx and colVal
// (float32) if they are not nil, else in new slices. Both must then have
// the matrix's length.
func (b *Builder) matrix(colIdx []int32, colVal Values) *Matrix {
	if b.err != nil || b.m == nil {
		return nil
	}
	mat := b.m
	b.m, b.err = nil, errors.New("ratings: Builder used after Matrix")
	if len(mat.rowIdx) == 0 {
		mat.min, mat.max = 0, 0
	}
	for i := 1; i <= mat.rows; i++ {
		mat.rowPtr[i] += mat.rowPtr[i-1]
	}
	// CSC from CSR by one more counting sort; rows are visited in order, so
	// each column comes out sorted by user.
	n := mat.cols
	nnz := len(mat.rowIdx)
	mat.colPtr = make([]int32, n+1)
	for _, j := range mat.rowIdx {
		mat.colPtr[j+1]++
	}
	for j := 1; j <= n; j++ {
		mat.colPtr[j] += mat.colPtr[j-1]
	}
	next := make([]int32, n)
	copy(next, mat.colPtr[:n])
	mat.colIdx, mat.colVal = colIdx, colVal
	if mat.colIdx == nil {
		mat.colIdx = make([]int32, nnz)
	}
	if mat.colVal.f32 == nil {
		mat.colVal = Values{f32: make([]float32, nnz)}
	}
	c32, r32 := mat.colVal.f32, mat.rowVal.f32
	for i := 0; i < mat.rows; i++ {
		for p := mat.rowPtr[i]; p < mat.rowPtr[i+1]; p++ {
			j := mat.rowIdx[p]
			q := next[j]
			mat.colIdx[q] = int32(i)
			c32[q] = r32[p]
			next[j]++
		}
	}
	return mat
}

// mean returns the mean of vs.At(k) for k in idx: n = len(idx) ≥ 1
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
func mean(vs Values, idx []int32) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	var sum float64
	for _, k := range idx {
		v := vs.At(int(k))
		sum += v
		lo, hi = min(lo, v), max(hi, v)
	}
	n := float64(len(idx))
	m := sum / n
	if math.IsInf(sum, 0) {
		s := bits.Len(uint(len(idx))) + 1
		var scaled float64
		for _, k := range idx {
			scaled += math.Ldexp(vs.At(int(k)), -s)
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

// MaxRowLen returns the largest number of ratings of one user (0 for a
// matrix without ratings).
func (m *Matrix) MaxRowLen() int {
	n := 0
	for i := range m.rows {
		n = max(n, int(m.rowPtr[i+1]-m.rowPtr[i]))
	}
	return n
}

// Cols returns the number of items (columns), including items with no
// rating.
func (m *Matrix) Cols() int { return m.cols }

// Len returns the number of stored ratings.
func (m *Matrix) Len() int { return len(m.rowIdx) }

// Bytes returns the memory the matrix holds, in bytes: both views'
// indices, values and row and column pointers.
func (m *Matrix) Bytes() int {
	const word, pointer = 8, 4
	b := 2*m.Len()*(4+m.rowVal.bytesPerValue()) + (m.rows+m.cols+2)*pointer
	if m.rowVal.table != nil {
		b += len(m.rowVal.table) * word // shared by both views
	}
	b += len(m.rowVal.t16) * 4 // the two-byte codes' table, shared
	return b
}

// Min returns the smallest stored rating, or 0 if there is none.
func (m *Matrix) Min() float64 { return m.min }

// Max returns the largest stored rating, or 0 if there is none.
func (m *Matrix) Max() float64 { return m.max }

// Row returns user i's ratings: item indices in increasing order and the
// matching values. Both alias the matrix and must not be modified; they
// are empty if the user has no rating. Row panics if i is not in
// [0, Rows()), like a slice index.
func (m *Matrix) Row(i int) (items []int32, values Values) {
	lo, hi := int(m.rowPtr[i]), int(m.rowPtr[i+1])
	return m.rowIdx[lo:hi:hi], m.rowVal.Slice(lo, hi)
}

// Col returns item j's ratings: user indices in increasing order and the
// matching values. Both alias the matrix and must not be modified. Col
// panics if j is not in [0, Cols()), like a slice index.
func (m *Matrix) Col(j int) (users []int32, values Values) {
	lo, hi := int(m.colPtr[j]), int(m.colPtr[j+1])
	return m.colIdx[lo:hi:hi], m.colVal.Slice(lo, hi)
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
		return values.At(p), true
	}
	return 0, false
}

// All yields every rating in row-major order: by user, then by item.
func (m *Matrix) All() iter.Seq[Triple] {
	return func(yield func(Triple) bool) {
		for i := 0; i < m.rows; i++ {
			for p := m.rowPtr[i]; p < m.rowPtr[i+1]; p++ {
				if !yield(Triple{User: int32(i), Item: m.rowIdx[p], Value: m.rowVal.At(int(p))}) {
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

// Overlap returns the number of (row, column) pairs that have a rating in
// both a and b, which must share row and column indices (as the training
// and test sets of LoadPair or Split do). A test set should share none
// with its training set: an overlapping pair measures the fit, not the
// prediction of a held-out rating.
func Overlap(a, b *Matrix) int {
	n := 0
	for i := range min(a.Rows(), b.Rows()) {
		x, _ := a.Row(i)
		y, _ := b.Row(i)
		for p, q := 0, 0; p < len(x) && q < len(y); {
			switch {
			case x[p] < y[q]:
				p++
			case x[p] > y[q]:
				q++
			default:
				n++
				p++
				q++
			}
		}
	}
	return n
}
