package ratings

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unsafe"
)

// IDs maps external identifiers (user or item IDs as written in a file:
// strings; numeric IDs are strings that look like numbers, so "7" and "07"
// differ) to dense indices 0, 1, …, Len()−1 and back. Loaders assign
// indices in order of first appearance in the file. An IDs is immutable and
// safe for concurrent reads.
//
// The IDs are kept in one byte buffer with the end of each (4 bytes an
// ID), about 4 bytes an ID besides its text, where a []string and a
// map[string]int32 took about 60 (120 000 IDs of 5 bytes: 1.0 MiB instead
// of 6.9). Index finds them through a hash table of indices (4 bytes a
// slot, at most 3/4 full, so 5.4 bytes an ID more), which the IDs of a
// loaded file or of NumberedIDs build on the first call of Index: a
// training run, which only maps indices to IDs, never holds it.
type IDs struct {
	// buf holds the IDs one after another. Bytes once written are never
	// changed, so ID can return strings that share them.
	buf []byte
	// end[i] is where ID i ends in buf; it starts where ID i−1 ends (at
	// 0 for i = 0).
	end []uint32
	// slot is an open-addressing hash table with linear probing: 0 for
	// an empty slot, else 1 + the index of the ID hashed there. It is
	// nil until Index builds it (under once) if construction dropped it.
	slot []int32
	seed maphash.Seed
	once sync.Once
}

// maxIDBuffer is the most bytes of ID text an IDs holds (ends are
// uint32).
const maxIDBuffer = math.MaxUint32

// NewIDs returns the mapping that gives ids[i] the index i. It returns an
// error if an ID is repeated, there are more than math.MaxInt32 IDs or
// they total more than 4 GiB. The IDs are copied.
func NewIDs(ids []string) (*IDs, error) {
	if len(ids) > math.MaxInt32 {
		return nil, fmt.Errorf("ratings: %d IDs, more than %d", len(ids), math.MaxInt32)
	}
	size := uint64(0)
	for _, id := range ids {
		size += uint64(len(id))
	}
	if size > maxIDBuffer {
		return nil, fmt.Errorf("ratings: %w: %d bytes of IDs, more than %d", ErrTooLarge, size, uint64(maxIDBuffer))
	}
	x := newIDsSized(len(ids), int(size))
	for _, id := range ids {
		if _, ok := findID(x, id); ok {
			return nil, fmt.Errorf("ratings: duplicate ID %q", id)
		}
		if _, err := addID(x, id); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// NumberedIDs returns the mapping of the decimal IDs first, first+1, …,
// first+n−1 to the indices 0, …, n−1: the IDs of generated data, whose
// rows and columns have no names of their own. n must be at least 0 and
// the IDs' text at most 4 GiB (n up to about 4·10⁸ at first = 1); like
// make with a negative or huge size, it panics otherwise. Its hash table
// is built on the first call of Index.
func NumberedIDs(n, first int) *IDs {
	if n < 0 {
		panic(fmt.Sprintf("ratings: NumberedIDs(%d, %d): negative count", n, first))
	}
	size := uint64(0)
	var b []byte
	for k := 0; k < n; {
		// The IDs from first+k to the next power of ten share a length.
		b = strconv.AppendInt(b[:0], int64(first+k), 10)
		run := n - k
		if v := first + k; v >= 0 {
			next := 1
			for next <= v && next <= math.MaxInt/10 {
				next *= 10
			}
			if next > v {
				run = min(run, next-v)
			}
		} else {
			run = 1
		}
		size += uint64(run) * uint64(len(b))
		k += run
	}
	if size > maxIDBuffer {
		panic(fmt.Sprintf("ratings: NumberedIDs(%d, %d): %d bytes of IDs, more than %d", n, first, size, uint64(maxIDBuffer)))
	}
	x := &IDs{buf: make([]byte, 0, size), end: make([]uint32, 0, n), seed: maphash.MakeSeed()}
	for k := range n {
		x.buf = strconv.AppendInt(x.buf, int64(first+k), 10)
		x.end = append(x.end, uint32(len(x.buf)))
	}
	return x
}

// newIDs returns an empty mapping for a loader to fill with addID.
func newIDs() *IDs { return newIDsSized(0, 0) }

// newIDsSized returns an empty mapping with room for n IDs of size bytes
// in all.
func newIDsSized(n, size int) *IDs {
	x := &IDs{buf: make([]byte, 0, size), end: make([]uint32, 0, n), seed: maphash.MakeSeed()}
	x.rehash(tableSize(n))
	return x
}

// tableSize returns the number of hash slots for n IDs: the fewest that
// keep the table at most 3/4 full, and at least 8.
func tableSize(n int) int { return max(8, (4*n+2)/3) }

// hashID returns the hash of id under x's seed.
func hashID[T ~string | ~[]byte](x *IDs, id T) uint64 {
	switch v := any(id).(type) {
	case []byte:
		return maphash.Bytes(x.seed, v)
	case string:
		return maphash.String(x.seed, v)
	}
	return maphash.String(x.seed, string(id))
}

// home returns the first slot to probe for hash h.
func (x *IDs) home(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(x.slot)))
	return int(hi)
}

// rehash rebuilds the hash table with size slots (more than Len()).
func (x *IDs) rehash(size int) {
	x.slot = make([]int32, size)
	for i := range x.end {
		x.place(hashID(x, x.id(i)), int32(i))
	}
}

// place puts index i, of hash h, into the first free slot from h's home.
func (x *IDs) place(h uint64, i int32) {
	s := x.home(h)
	for x.slot[s] != 0 {
		if s++; s == len(x.slot) {
			s = 0
		}
	}
	x.slot[s] = i + 1
}

// findID returns the index of id and whether x has it. x must have its
// hash table: under construction, from finder, or after Index.
func findID[T ~string | ~[]byte](x *IDs, id T) (int32, bool) {
	s := x.home(hashID(x, id))
	for {
		k := x.slot[s]
		if k == 0 {
			return 0, false
		}
		if x.id(int(k-1)) == string(id) {
			return k - 1, true
		}
		if s++; s == len(x.slot) {
			s = 0
		}
	}
}

// addID appends id, which must not be present, and returns its index. It
// returns an error if x would hold more than math.MaxInt32 IDs or more
// than 4 GiB of their text.
func addID[T ~string | ~[]byte](x *IDs, id T) (int32, error) {
	if len(x.end) == math.MaxInt32 {
		return 0, fmt.Errorf("%w: more than %d distinct IDs", ErrTooLarge, math.MaxInt32)
	}
	if uint64(len(x.buf))+uint64(len(id)) > maxIDBuffer {
		return 0, fmt.Errorf("%w: more than %d bytes of distinct IDs", ErrTooLarge, uint64(maxIDBuffer))
	}
	i := int32(len(x.end))
	x.buf = append(x.buf, id...)
	x.end = append(x.end, uint32(len(x.buf)))
	if 4*len(x.end) > 3*len(x.slot) {
		x.rehash(2 * len(x.slot))
	} else {
		x.place(hashID(x, id), i)
	}
	return i, nil
}

// compact returns the room that x's buffers grew into but do not use,
// and drops the hash table, which Index builds again if it is called:
// for a loader once it has added every ID, before anything else can see
// x. Strings from ID stay valid: they hold the old buffer.
func (x *IDs) compact() {
	x.buf = slices.Clip(append([]byte(nil), x.buf...))
	x.end = slices.Clip(append([]uint32(nil), x.end...))
	x.slot = nil
	x.once = sync.Once{} // Index builds the table again
}

// finder returns an IDs that shares x's IDs, with a hash table of its
// own, for findID: a loader of a test set looks its IDs up through it, so
// that x does not keep a table after the load. It only reads x's
// immutable buffers, so it is safe while other goroutines read x.
func (x *IDs) finder() *IDs {
	f := &IDs{buf: x.buf, end: x.end, seed: x.seed}
	f.rehash(tableSize(len(f.end)))
	return f
}

// id returns ID i as a string sharing x's buffer, whose bytes never
// change once written.
func (x *IDs) id(i int) string {
	lo := uint32(0)
	if i > 0 {
		lo = x.end[i-1]
	}
	hi := x.end[i]
	if hi == lo {
		return ""
	}
	return unsafe.String(&x.buf[lo], int(hi-lo))
}

// Index returns the dense index of id and whether id is known. The first
// call on a loaded IDs builds its hash table (Len()·16/3 bytes).
func (x *IDs) Index(id string) (int, bool) {
	if len(x.end) == 0 {
		return 0, false // also the zero IDs, which has no seed
	}
	x.once.Do(func() {
		if x.slot == nil {
			x.rehash(tableSize(len(x.end)))
		}
	})
	i, ok := findID(x, id)
	return int(i), ok
}

// ID returns the external ID of index i. It panics if i is not in
// [0, Len()), like a slice index. It does not allocate: the string
// shares the IDs' memory, so keeping it keeps all of the IDs' text (use
// strings.Clone to keep one ID alone).
func (x *IDs) ID(i int) string { return x.id(i) }

// Len returns the number of IDs.
func (x *IDs) Len() int { return len(x.end) }

// numCache maps IDs in canonical decimal form ("0" or digits without a
// leading zero, at most 9 of them) to their index by a slice indexed by
// the number, in front of an IDs' hash table, which a loader would
// otherwise consult twice per line. It only remembers what the table
// holds, so lookups through it give the table's answers. It grows to at
// most 4·Len() + 1024 entries of the IDs it serves; larger numbers go to
// the table.
type numCache struct {
	idx []int32 // idx[n] is 1 + the index of ID n, or 0 if not known yet
}

// number returns the value of id if it is in canonical decimal form.
func number[T ~string | ~[]byte](id T) (int, bool) {
	if len(id) == 0 || len(id) > 9 || id[0] == '0' && len(id) > 1 {
		return 0, false
	}
	n := 0
	for k := range len(id) {
		c := id[k]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return n, true
}

// cacheFind returns the index of id in x, which c serves, and whether x
// has it.
func cacheFind[T ~string | ~[]byte](c *numCache, x *IDs, id T) (int32, bool) {
	n, num := number(id)
	if num && n < len(c.idx) {
		if k := c.idx[n]; k > 0 {
			return k - 1, true
		}
	}
	i, ok := findID(x, id)
	if ok && num {
		c.grow(n, x.Len())
		if n < len(c.idx) {
			c.idx[n] = i + 1
		}
	}
	return i, ok
}

// cachePut records in c that id has index i.
func cachePut[T ~string | ~[]byte](c *numCache, id T, i int32) {
	if n, ok := number(id); ok {
		c.grow(n, int(i)+1)
		if n < len(c.idx) {
			c.idx[n] = i + 1
		}
	}
}

// grow makes room for number n if that keeps the cache within its bound
// for an IDs of size ids.
func (c *numCache) grow(n, ids int) {
	if n < len(c.idx) || n >= 4*ids+1024 {
		return
	}
	size := max(2*len(c.idx), n+1, 1024)
	size = min(size, 4*ids+1024)
	c.idx = append(c.idx, make([]int32, size-len(c.idx))...)
}
