package ratings

import (
	"math"
	"slices"
	"sync"
	"unsafe"
)

// buildScatter is build for the common case of a loaded file: items and
// values packed in is, the values as indices into table (see
// codedValues), and no repeated (user, item) pair. It reports false, having changed nothing, if a pair
// repeats; build then gives the error or the averages. Its result is the
// one build gives, bit for bit.
//
// It sorts the records by item and then by user with two stable counting
// sorts, and the rows into columns with a third, and builds the matrix in
// the records' own storage: besides the records (8 bytes each) it needs 8
// bytes per record (the records by column) and the row and column
// pointers, 16 bytes per record at the peak, those of the matrix. The
// row view takes over the memory of us and is, the column view those 8
// bytes.
func buildScatter(m, n int, us, is []int32, table []float32, workers int) (*Matrix, bool) {
	nt := len(us)
	rowPtr, colPtr := make([]int, m+1), make([]int, n+1)
	for k := range nt {
		j, _ := unpacked(is[k])
		rowPtr[us[k]+1]++
		colPtr[j+1]++
	}
	for i := 1; i <= m; i++ {
		rowPtr[i] += rowPtr[i-1]
	}
	for j := 1; j <= n; j++ {
		colPtr[j] += colPtr[j-1]
	}
	// Each pass writes to one range of rows or columns per goroutine,
	// reading all of its input: the writes, to scattered places, cost
	// more than the reads.
	rowParts, colParts := ranges(rowPtr, workers), ranges(colPtr, workers)
	next := make([]int, max(m, n))

	// The records by item, in file order within an item.
	cu, cv := make([]int32, nt), make([]float32, nt)
	copy(next, colPtr[:n])
	inParallel(colParts, func(lo, hi int32) {
		for k, x := range is[:nt] {
			if j, code := unpacked(x); lo <= j && j < hi {
				p := next[j]
				cu[p], cv[p] = us[k], table[code]
				next[j]++
			}
		}
	})
	// A user twice in a column is a repeated pair.
	mark := make([]int32, m) // mark[u] = j+1: user u seen in column j
	for j := range n {
		for _, u := range cu[colPtr[j]:colPtr[j+1]] {
			if mark[u] == int32(j)+1 {
				return nil, false
			}
			mark[u] = int32(j) + 1
		}
	}
	mark = nil
	// The rows, visiting the columns in order, so that each row's items
	// come out increasing; then the columns, visiting the rows in order.
	rowIdx, rowVal := us[:nt], float32sOf(is[:nt]) // is is done with
	copy(next, rowPtr[:m])
	inParallel(rowParts, func(lo, hi int32) {
		for j := range n {
			for p := colPtr[j]; p < colPtr[j+1]; p++ {
				if u := cu[p]; lo <= u && u < hi {
					q := next[u]
					rowIdx[q], rowVal[q] = int32(j), cv[p]
					next[u]++
				}
			}
		}
	})
	colIdx, colVal := cu, cv
	copy(next, colPtr[:n])
	inParallel(colParts, func(lo, hi int32) {
		for i := range m {
			for p := rowPtr[i]; p < rowPtr[i+1]; p++ {
				if j := rowIdx[p]; lo <= j && j < hi {
					q := next[j]
					colIdx[q], colVal[q] = int32(i), rowVal[p]
					next[j]++
				}
			}
		}
	})
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range table { // every value of table is some record's
		lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
	}
	if nt == 0 {
		lo, hi = 0, 0
	}
	return &Matrix{
		rows: m, cols: n,
		rowPtr: rowPtr, rowIdx: rowIdx, rowVal: Values{f32: rowVal},
		colPtr: colPtr, colIdx: colIdx, colVal: Values{f32: colVal},
		min: lo, max: hi,
	}, true
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

// inParallel calls f on each range of bounds b, on a goroutine each if
// there are several, and returns when all have returned.
func inParallel(b []int32, f func(lo, hi int32)) {
	if len(b) <= 2 {
		f(b[0], b[len(b)-1])
		return
	}
	var wg sync.WaitGroup
	for k := range len(b) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(b[k], b[k+1])
		}()
	}
	wg.Wait()
}

// codedValues codes ratings in one byte, an index into a table of at
// most 256 distinct values, each exactly a float32, and packs the code
// with the item index in the top byte of an int32 (items below 2²⁴):
// ratings files use a handful of values (whole or half stars), and the
// records then take 8 bytes instead of 12.
type codedValues struct {
	table []float32
	half  [64]uint8         // half[2v] = 1 + the code of v, for v = 0, 0.5, …, 31.5
	other map[float64]uint8 // the codes of the other values
}

// itemBits is the number of bits of an item index in a packed record;
// the code takes the others.
const itemBits = 24

// pack returns item i and the code of v packed, or false if i or v
// cannot be: i is 2²⁴ or more, v is not exactly a float32 or would be
// the 257th distinct value.
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
	if len(c.table) == 256 || !exact32(v) {
		return 0, false
	}
	k := uint8(len(c.table))
	c.table = append(c.table, float32(v))
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
// returns their values, as float32 Values with is's capacity.
func (c *codedValues) unpack(is []int32) Values {
	f := make([]float32, len(is), cap(is))
	for k, x := range is {
		i, code := unpacked(x)
		is[k], f[k] = i, c.table[code]
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
