package ratings

import (
	"math"
	"slices"
	"sync"
	"unsafe"
)

// buildScatter is build for the common case of a loaded file: values
// coded as indices into table (see codedValues) and no repeated (user,
// item) pair. It reports false, having changed nothing, if a pair
// repeats; build then gives the error or the averages. Its result is the
// one build gives, bit for bit.
//
// It sorts the records by item and then by user with two stable counting
// sorts, and the rows into columns with a third, and builds the matrix in
// the records' own storage: besides the records (9 bytes each) it needs 8
// bytes per record (the records by column) and the row and column
// pointers, 17 bytes per record at the peak for a matrix of 16. The row
// view takes over the memory of us and is, the column view those 8
// bytes; codes is left over.
func buildScatter(m, n int, us, is []int32, codes []uint8, table []float32, workers int) (*Matrix, bool) {
	nt := len(us)
	rowPtr, colPtr := make([]int, m+1), make([]int, n+1)
	for k := range nt {
		rowPtr[us[k]+1]++
		colPtr[is[k]+1]++
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
		for k, j := range is[:nt] {
			if lo <= j && j < hi {
				p := next[j]
				cu[p], cv[p] = us[k], table[codes[k]]
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

// codedValues holds ratings as one-byte codes into a table of at most 256
// distinct values, each exactly a float32: ratings files use a handful of
// values (whole or half stars), and a code takes a quarter of a float32.
type codedValues struct {
	codes []uint8
	table []float32
	half  [64]uint8         // half[2v] = 1 + the code of v, for v = 0, 0.5, …, 31.5
	other map[float64]uint8 // the codes of the other values
}

// add appends the code of v and reports true, or reports false and
// appends nothing if v is not exactly a float32 or would be the 257th
// distinct value.
func (c *codedValues) add(v float64) bool {
	h := 2 * v
	small := h >= 0 && h < float64(len(c.half)) && h == math.Trunc(h)
	if small {
		if k := c.half[int(h)]; k > 0 {
			c.codes = append(c.codes, k-1)
			return true
		}
	} else if k, ok := c.other[v]; ok {
		c.codes = append(c.codes, k)
		return true
	}
	if len(c.table) == 256 || !exact32(v) {
		return false
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
	c.codes = append(c.codes, k)
	return true
}

// values returns the values coded, as float32 Values with the codes'
// capacity.
func (c *codedValues) values() Values {
	f := make([]float32, len(c.codes), cap(c.codes))
	for k, code := range c.codes {
		f[k] = c.table[code]
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
