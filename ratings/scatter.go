package ratings

import (
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"unsafe"
)

// buildScatter is build for the common case of a loaded file: items and
// values packed in is, the values as indices into table (see
// codedValues), and no repeated (user, item) pair. It reports false,
// having changed nothing, if a pair repeats; build then gives the error
// or the averages; so it does for a value beyond float32's range. Its
// result reads as build's does, bit for bit.
//
// The matrix keeps the codes (one byte a value) and the table, not the
// values (the table's rounded to float32, as every Matrix's): 10 bytes per rating for both views. Besides the records (8
// bytes each) it needs 5 bytes per record (the records by column, user
// and code) and, once is is freed, one (the row view's codes): 13 bytes
// per record at the peak. The row view takes over the memory of us and
// the column view that of the records by column. It takes the records
// from rec and, once no pair repeats, drops rec's references, so that is
// (4 bytes a record) can be collected before the rows' codes are
// allocated; if it reports false, rec holds the records unchanged.
// See scatter for the sorts.
func buildScatter(m, n int, rec *heldRecords, table []float64, workers int) (*Matrix, bool) {
	if slices.ContainsFunc(table, func(v float64) bool { return !fits32(v) }) {
		return nil, false // build gives the error
	}
	us, is := rec.us, rec.is
	workers = max(workers, 1)
	returnFreed(len(us))
	recParts := partsOf(len(us), workers)
	sc := newScatter[uint8](m, n, workers)
	inParallel(recParts, func(p int, lo, hi int32) {
		rc, cc := sc.rowCnt[p], sc.colCnt[p]
		for k := lo; k < hi; k++ {
			j, _ := unpacked(is[k])
			rc[us[k]]++
			cc[j]++
		}
	})
	sc.byColumn(len(us), func(p int, lo, hi int32, cu []int32, cv []uint8) {
		next := sc.colCnt[p]
		for k := lo; k < hi; k++ {
			j, code := unpacked(is[k])
			q := next[j]
			cu[q], cv[q] = us[k], code
			next[j]++
		}
	})
	if sc.repeats() {
		return nil, false
	}
	// is is done with: let it go before the rows' codes are allocated.
	rec.us, rec.is, is = nil, nil, nil
	returnFreed(len(us))
	rowIdx, rowVal, colIdx, colVal := sc.views(us, make([]uint8, len(us)))
	values := new([256]float64) // rounded to float32, as every value of a Matrix
	for k, v := range table {
		values[k] = round32(v)
	}
	lo, hi := rangeOf(values[:len(table)]) // every value of table is some record's
	return &Matrix{
		rows: m, cols: n,
		rowPtr: narrow(sc.rowPtr), rowIdx: rowIdx, rowVal: Values{codes: rowVal, table: values},
		colPtr: narrow(sc.colPtr), colIdx: colIdx, colVal: Values{codes: colVal, table: values},
		min: lo, max: hi,
	}, true
}

// buildScatter32 is buildScatter for records whose values are float32,
// vs[k] that of record k, is plain item indices: 16 bytes per rating for
// both views, and 16 at the peak, the records' 12 and 4 more. The users
// by column come first, into new memory, and settle whether a pair
// repeats while the records are still intact (the caller then falls back
// to build, which needs them in file order; so it does for a value
// beyond float32's range, ±Inf in vs). From then on only the
// records' memory is needed, not their contents: the values by column go
// into the memory of us, and the row view into that of is and vs.
//
// Values among at most 65 536 distinct ones (grid16) are kept as two-byte
// codes instead, 12 bytes per rating: with at most 65 536 items entirely
// in the records' memory, 12 bytes at the peak too (inPlace16); with more,
// 16 at the peak (views16).
func buildScatter32(m, n int, us, is []int32, vs []float32, workers int) (*Matrix, bool) {
	workers = max(workers, 1)
	returnFreed(len(us))
	recParts := partsOf(len(us), workers)
	sc := newScatter[float32](m, n, workers)
	inParallel(recParts, func(p int, lo, hi int32) {
		rc, cc := sc.rowCnt[p], sc.colCnt[p]
		for k := lo; k < hi; k++ {
			rc[us[k]]++
			cc[is[k]]++
		}
	})
	sc.rowPtr, sc.colPtr = sumCounts(sc.rowCnt), sumCounts(sc.colCnt)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
	}
	if len(vs) == 0 {
		lo, hi = 0, 0
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, false // a value beyond float32's range: build gives the error
	}
	t16, coded := grid16(vs)
	if coded && n <= 1<<16 {
		return inPlace16(sc, us, is, vs, t16, recParts, lo, hi)
	}
	cu := make([]int32, len(us))
	startAt(sc.colPtr, sc.colCnt)
	scatterByColumn(cu, us, is, recParts, sc.colCnt)
	sc.byColUser = cu
	if sc.repeats() {
		return nil, false
	}
	if coded {
		return sc.views16(us, is, vs, t16, recParts, lo, hi), true
	}
	// The same scatter for the values, each part from where it started.
	cv := float32sOf(us)
	rewind(sc.colPtr, sc.colCnt)
	scatterByColumn(cv, vs, is, recParts, sc.colCnt)
	sc.byColVal = cv
	rowIdx, rowVal, colIdx, colVal := sc.views(is, vs)
	return &Matrix{
		rows: m, cols: n,
		rowPtr: narrow(sc.rowPtr), rowIdx: rowIdx, rowVal: Values{f32: rowVal},
		colPtr: narrow(sc.colPtr), colIdx: colIdx, colVal: Values{f32: colVal},
		min: lo, max: hi,
	}, true
}

// heldRecords are a loader's records, handed to buildScatter, which may
// take them over (and then sets both to nil, so that what it no longer
// needs can be collected).
type heldRecords struct {
	us, is []int32
}

// views16 finishes buildScatter32 for values that are among the at most
// 65 536 of t16 (grid16): 12 bytes per rating for both views (the indices'
// 8 and two 2-byte codes) instead of 16, in the records' memory, and 16
// at the peak as before. From the records by column's users (sc.byColUser,
// made): each record's code goes into the memory of us (its first half),
// the codes by column into the second half of that of vs, the row view
// into is (items) and the first half of vs (codes), and the column view
// back into sc.byColUser and the second half of vs. So the matrix holds
// is, vs and sc.byColUser, and us is free when the loader returns.
func (sc *scatter[V]) views16(us, is []int32, vs []float32, t16 []float32, recParts []int32, lo, hi float64) *Matrix {
	nt := len(us)
	codes := uint16sOf(us)[:nt]
	codeValues(codes, vs, t16)
	half := uint16sOf(float32sAsInt32(vs))
	rowVal, colVal := half[:nt:nt], half[nt:2*nt:2*nt]
	s16 := &scatter[uint16]{m: sc.m, n: sc.n, workers: sc.workers, rowCnt: sc.rowCnt, colCnt: sc.colCnt, rowPtr: sc.rowPtr, colPtr: sc.colPtr, byColUser: sc.byColUser}
	rewind(s16.colPtr, s16.colCnt)
	scatterByColumn(colVal, codes, is, recParts, s16.colCnt)
	return matrix16(s16, is, rowVal, colVal, t16, lo, hi)
}

// inPlace16 finishes buildScatter32 for at most 65 536 items and values
// among the at most 65 536 of t16 (grid16), in the records' memory alone:
// 12 bytes per rating at the peak and in the matrix. Each record's code
// goes into the top half of its item (is[k] = item | code<<16), which
// frees vs's memory for the users by column; if a pair repeats, the
// records are put back as they were (the codes' values are vs's exactly)
// and it reports false. Then the codes by column go into the first half
// of us's memory, the row view into is (items) and the second half of us
// (codes), and the column view back into vs's memory and the first half
// of us. The matrix holds is, us and vs.
func inPlace16(sc *scatter[float32], us, is []int32, vs []float32, t16 []float32, recParts []int32, lo, hi float64) (*Matrix, bool) {
	nt := len(us)
	var g valueGrid
	g.init()
	for _, v := range t16 {
		g.code(v)
	}
	for k, v := range vs {
		c, _ := g.code(v)
		is[k] = int32(uint32(is[k]) | uint32(c)<<16)
	}
	s16 := &scatter[uint16]{m: sc.m, n: sc.n, workers: sc.workers, rowCnt: sc.rowCnt, colCnt: sc.colCnt, rowPtr: sc.rowPtr, colPtr: sc.colPtr}
	cu := float32sAsInt32(vs)
	startAt(s16.colPtr, s16.colCnt)
	inParallel(recParts, func(p int, lo, hi int32) {
		at := s16.colCnt[p]
		for k := lo; k < hi; k++ {
			j := uint32(is[k]) & 0xffff
			cu[at[j]] = us[k]
			at[j]++
		}
	})
	s16.byColUser = cu
	if s16.repeats() {
		for k, x := range is {
			vs[k], is[k] = t16[uint32(x)>>16], int32(uint32(x)&0xffff)
		}
		return nil, false
	}
	half := uint16sOf(us)
	colVal, rowVal := half[:nt:nt], half[nt:2*nt:2*nt]
	rewind(s16.colPtr, s16.colCnt)
	inParallel(recParts, func(p int, lo, hi int32) {
		at := s16.colCnt[p]
		for k := lo; k < hi; k++ {
			x := uint32(is[k])
			j := x & 0xffff
			colVal[at[j]] = uint16(x >> 16)
			at[j]++
		}
	})
	return matrix16(s16, is, rowVal, colVal, t16, lo, hi), true
}

// matrix16 finishes the two-byte-code scatter s16: with the column-ordered
// codes colVal in place it builds the row and column views (views) and
// the Matrix over them, its values the codes into t16.
func matrix16(s16 *scatter[uint16], is []int32, rowVal, colVal []uint16, t16 []float32, lo, hi float64) *Matrix {
	s16.byColVal = colVal
	rowIdx, rowVal, colIdx, colVal := s16.views(is, rowVal)
	return &Matrix{
		rows: s16.m, cols: s16.n,
		rowPtr: narrow(s16.rowPtr), rowIdx: rowIdx, rowVal: Values{c16: rowVal, t16: t16},
		colPtr: narrow(s16.colPtr), colIdx: colIdx, colVal: Values{c16: colVal, t16: t16},
		min: lo, max: hi,
	}
}

// grid16 returns the distinct values of vs, at most 65 536 of them, in
// order of first appearance, or false if there are more (or none). It
// keeps them in an open-addressing table of 2¹⁷ float32 bit patterns
// (768 KiB), which codeValues then reads.
func grid16(vs []float32) ([]float32, bool) {
	if len(vs) == 0 {
		return nil, false
	}
	var g valueGrid
	g.init()
	for _, v := range vs {
		if _, ok := g.code(v); !ok {
			return nil, false
		}
	}
	return g.values, true
}

// codeValues writes the code of each vs[k] in t16 (grid16's values, which
// include every one of vs) to codes[k].
func codeValues(codes []uint16, vs []float32, t16 []float32) {
	var g valueGrid
	g.init()
	for _, v := range t16 {
		g.code(v)
	}
	for k, v := range vs {
		c, _ := g.code(v)
		codes[k] = c
	}
}

// valueGrid numbers distinct float32 values, up to 65 536 of them, in
// order of first appearance, by their bits in an open-addressing table
// with linear probing.
type valueGrid struct {
	keys   []uint32 // bits + 1 (0: empty); a value's bits are never 2³² − 1, a NaN
	codes  []uint16
	values []float32
}

const gridSlots = 1 << 17 // twice the most values, so probes stay short

func (g *valueGrid) init() {
	g.keys, g.codes = make([]uint32, gridSlots), make([]uint16, gridSlots)
}

// code returns v's code, numbering it if it is new, or false if it is new
// and 65 536 values are numbered already.
func (g *valueGrid) code(v float32) (uint16, bool) {
	b := math.Float32bits(v)
	h := (b * 0x9e3779b1) >> (32 - 17)
	for {
		switch g.keys[h] {
		case b + 1:
			return g.codes[h], true
		case 0:
			if len(g.values) == 1<<16 {
				return 0, false
			}
			g.keys[h], g.codes[h] = b+1, uint16(len(g.values))
			g.values = append(g.values, v)
			return g.codes[h], true
		}
		h = (h + 1) & (gridSlots - 1)
	}
}

// uint16sOf returns x's memory as twice as many uint16s, for x's owner to
// reuse once it is done with x (see float32sOf).
func uint16sOf(x []int32) []uint16 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(x))), 2*len(x))
}

// float32sAsInt32 returns x's memory as int32s (see float32sOf).
func float32sAsInt32(x []float32) []int32 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// scatter builds a matrix's two views from records with three stable
// counting sorts: the records by item (byColumn, file order within an
// item), the rows from those, visiting the columns in order so that each
// row's items come out increasing, and the columns from the rows, so that
// each column's users do (views). Each sort runs on up to workers
// goroutines, each taking one range of the input and writing its elements
// after those of the ranges before it, so the result does not depend on
// their number. V is how a value is stored: a code or a float32.
type scatter[V uint8 | uint16 | float32] struct {
	m, n           int
	workers        int
	rowCnt, colCnt [][]int // per part: counts, then where the next goes
	rowPtr, colPtr []int
	byColUser      []int32 // the records by column: user
	byColVal       []V     // and value
}

func newScatter[V uint8 | uint16 | float32](m, n, workers int) *scatter[V] {
	sc := &scatter[V]{m: m, n: n, workers: workers, rowCnt: make([][]int, workers), colCnt: make([][]int, workers)}
	for p := range workers {
		sc.rowCnt[p], sc.colCnt[p] = make([]int, m), make([]int, n)
	}
	return sc
}

// partsOf cuts nt records into workers ranges of about equal size.
func partsOf(nt, workers int) []int32 {
	b := make([]int32, workers+1)
	for p := range b {
		b[p] = int32(nt / workers * p)
	}
	b[workers] = int32(nt)
	return b
}

// byColumn sums the counts (which the caller has made, per part of the
// nt records) into the pointers and has put, run on each part, write the
// part's records by column.
func (sc *scatter[V]) byColumn(nt int, put func(p int, lo, hi int32, cu []int32, cv []V)) {
	sc.rowPtr, sc.colPtr = sumCounts(sc.rowCnt), sumCounts(sc.colCnt)
	cu, cv := make([]int32, nt), make([]V, nt)
	startAt(sc.colPtr, sc.colCnt)
	inParallel(partsOf(nt, sc.workers), func(p int, lo, hi int32) { put(p, lo, hi, cu, cv) })
	sc.byColUser, sc.byColVal = cu, cv
}

// repeats reports whether a user occurs twice in a column: a repeated
// pair.
func (sc *scatter[V]) repeats() bool {
	cu, colPtr := sc.byColUser, sc.colPtr
	mark := make([]int32, sc.m) // mark[u] = j+1: user u seen in column j
	for j := range sc.n {
		for _, u := range cu[colPtr[j]:colPtr[j+1]] {
			if mark[u] == int32(j)+1 {
				return true
			}
			mark[u] = int32(j) + 1
		}
	}
	return false
}

// views writes the rows into rowIdx and rowVal (as long as the records)
// from the records by column, then the columns back into the memory of
// the records by column, and returns both views.
func (sc *scatter[V]) views(rowIdx []int32, rowVal []V) ([]int32, []V, []int32, []V) {
	nt := len(sc.byColUser)
	rowIdx, rowVal = rowIdx[:nt], rowVal[:nt]
	cu, cv := sc.byColUser, sc.byColVal
	transpose(sc.colPtr, cu, cv, sc.rowPtr, rowIdx, rowVal, sc.rowCnt, sc.workers)
	transpose(sc.rowPtr, rowIdx, rowVal, sc.colPtr, cu, cv, sc.colCnt, sc.workers)
	return rowIdx, rowVal, cu, cv
}

// transpose writes the compressed lines (rows or columns) srcPtr, srcIdx,
// srcVal the other way, into dstIdx and dstVal by the pointers dstPtr,
// visiting the source lines in order, so that each destination line's
// indices come out increasing. It runs on up to workers goroutines, each
// taking a range of source lines and counting its elements per
// destination line in cnt[p] first, so the result does not depend on
// their number. dst must not share memory with src.
func transpose[V uint8 | uint16 | float32](srcPtr []int, srcIdx []int32, srcVal []V, dstPtr []int, dstIdx []int32, dstVal []V, cnt [][]int, workers int) {
	parts := ranges(srcPtr, workers)
	countParts(parts, dstPtr, cnt, func(p int, lo, hi int32) {
		c := cnt[p]
		for _, k := range srcIdx[srcPtr[lo]:srcPtr[hi]] {
			c[k]++
		}
	})
	inParallel(parts, func(p int, lo, hi int32) {
		next := cnt[p]
		for i := lo; i < hi; i++ {
			for q := srcPtr[i]; q < srcPtr[i+1]; q++ {
				k := srcIdx[q]
				d := next[k]
				dstIdx[d], dstVal[d] = i, srcVal[q]
				next[k]++
			}
		}
	})
}

// rangeOf returns the least and greatest of vs, 0 and 0 if it is empty.
func rangeOf(vs []float64) (lo, hi float64) {
	if len(vs) == 0 {
		return 0, 0
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// narrow returns the pointers ptr as a Matrix keeps them, in half the
// memory: every pointer is at most the number of ratings, which is at
// most math.MaxInt32.
func narrow(ptr []int) []int32 {
	out := make([]int32, len(ptr))
	for k, p := range ptr {
		out[k] = int32(p)
	}
	return out
}

// sumCounts returns the pointers of buckets whose sizes are the sums of
// counts[p][b] over p: bucket b is [ptr[b], ptr[b+1]).
func sumCounts(counts [][]int) []int {
	ptr := make([]int, len(counts[0])+1)
	for _, c := range counts {
		for b, k := range c {
			ptr[b+1] += k
		}
	}
	for b := 1; b < len(ptr); b++ {
		ptr[b] += ptr[b-1]
	}
	return ptr
}

// startAt turns counts[p][b], the number of elements of bucket b in part
// p of the input, into where the first of them goes: after the bucket's
// elements of the parts before p.
func startAt(ptr []int, counts [][]int) {
	for b := range len(ptr) - 1 {
		at := ptr[b]
		for _, c := range counts {
			at, c[b] = at+c[b], at
		}
	}
}

// scatterByColumn writes src[k] to dst at the next place of column is[k],
// for each part of the records (parts, as partsOf cuts them) on its own
// goroutine, from where next[p] says part p's elements of each column go.
func scatterByColumn[T int32 | uint16 | float32](dst, src []T, is []int32, parts []int32, next [][]int) {
	inParallel(parts, func(p int, lo, hi int32) {
		at := next[p]
		for k := lo; k < hi; k++ {
			j := is[k]
			dst[at[j]] = src[k]
			at[j]++
		}
	})
}

// rewind turns counts[p][b] back from past the last element of bucket b
// of part p, where a pass of startAt's positions leaves it, to where the
// first went: the end of part p − 1's elements, or the bucket's start.
func rewind(ptr []int, counts [][]int) {
	for p := len(counts) - 1; p > 0; p-- {
		copy(counts[p], counts[p-1])
	}
	copy(counts[0], ptr)
}

// countParts sets counts[p][b] to where part p of the input, one of
// parts, puts its first element of bucket b of ptr, counting each part's
// elements with count, in parallel; a single part needs no count.
func countParts(parts []int32, ptr []int, counts [][]int, count func(p int, lo, hi int32)) {
	for _, c := range counts {
		clear(c)
	}
	if len(parts) == 2 {
		copy(counts[0], ptr) // counts[0] has one element fewer
		return
	}
	inParallel(parts, count)
	startAt(ptr, counts)
}

// ranges cuts the rows (or columns) of the pointers ptr, len(ptr)−1 of
// them, into at most parts ranges of about equal numbers of entries, and
// returns their bounds: range k is [b[k], b[k+1]).
func ranges(ptr []int, parts int) []int32 {
	n := len(ptr) - 1
	b := []int32{0}
	for k := 1; k < parts; k++ {
		// The first row whose entries start at or past k/parts of all.
		want := ptr[n] / parts * k
		i, _ := slices.BinarySearch(ptr, want)
		if i := int32(min(i, n)); i > b[len(b)-1] {
			b = append(b, i)
		}
	}
	if len(b) == 1 || b[len(b)-1] < int32(n) {
		b = append(b, int32(n))
	}
	return b
}

// inParallel calls f(p, b[p], b[p+1]) for each range p of bounds b, on
// a goroutine each if there are several, and returns when all have
// returned.
func inParallel(b []int32, f func(p int, lo, hi int32)) {
	if len(b) <= 2 {
		f(0, b[0], b[len(b)-1])
		return
	}
	var wg sync.WaitGroup
	for p := range len(b) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(p, b[p], b[p+1])
		}()
	}
	wg.Wait()
}

// codedValues codes ratings in one byte, an index into a table of at
// most 256 distinct values, and packs the code with the item index in the
// top byte of an int32 (items below 2²⁴): ratings files use a handful of
// values (whole or half stars, tenths), and the records then take 8 bytes
// instead of 12 or 16.
type codedValues struct {
	table []float64
	half  [64]uint8         // half[2v] = 1 + the code of v, for v = 0, 0.5, …, 31.5
	other map[float64]uint8 // the codes of the other values
}

// itemBits is the number of bits of an item index in a packed record;
// the code takes the others.
const itemBits = 24

// pack returns item i and the code of v packed, or false if i or v
// cannot be: i is 2²⁴ or more or v would be the 257th distinct value.
func (c *codedValues) pack(i int32, v float64) (int32, bool) {
	if i >= 1<<itemBits {
		return 0, false
	}
	h := 2 * v
	small := h >= 0 && h < float64(len(c.half)) && h == math.Trunc(h)
	if small {
		if k := c.half[int(h)]; k > 0 {
			return packed(i, k-1), true
		}
	} else if k, ok := c.other[v]; ok {
		return packed(i, k), true
	}
	if len(c.table) == 256 {
		return 0, false
	}
	k := uint8(len(c.table))
	c.table = append(c.table, v)
	if small {
		c.half[int(h)] = k + 1
	} else {
		if c.other == nil {
			c.other = map[float64]uint8{}
		}
		c.other[v] = k
	}
	return packed(i, k), true
}

// packed packs item i < 2²⁴ and code k.
func packed(i int32, k uint8) int32 { return int32(uint32(i) | uint32(k)<<itemBits) }

// unpacked returns the item and code of a packed record.
func unpacked(x int32) (i int32, k uint8) {
	return int32(uint32(x) & (1<<itemBits - 1)), uint8(uint32(x) >> itemBits)
}

// unpack leaves the item indices of the packed records is in is and
// returns their values, rounded to float32, with is's capacity.
func (c *codedValues) unpack(is []int32) Values {
	f := make([]float32, len(is), cap(is))
	for k, x := range is {
		i, code := unpacked(x)
		is[k], f[k] = i, to32(c.table[code])
	}
	return Values{f32: f}
}

// float32sOf returns x's memory as float32s, for x's owner to reuse
// once it is done with x: both are 4-byte numbers without pointers, so
// the memory holds either.
func float32sOf(x []int32) []float32 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// freedThreshold is the number of records from which returnFreed returns
// freed memory to the operating system.
const freedThreshold = 1 << 20

// returnFreed hands the memory freed while reading (the chunks, the
// records' buffers outgrown) back to the operating system before the
// views are built, the load's peak, when there are nt ≥ freedThreshold
// records: the runtime would otherwise keep it mapped while new memory is
// taken for the views. A forced collection of a heap of pointer-free
// records costs milliseconds, against the seconds of reading them.
func returnFreed(nt int) {
	if nt >= freedThreshold {
		debug.FreeOSMemory()
	}
}
