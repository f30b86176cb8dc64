package ratings

import (
	"fmt"
	"math"
	"strconv"
)

// IDs maps external identifiers (user or item IDs as written in a file:
// strings; numeric IDs are strings that look like numbers, so "7" and "07"
// differ) to dense indices 0, 1, …, Len()−1 and back. Loaders assign
// indices in order of first appearance in the file. An IDs is immutable and
// safe for concurrent reads.
type IDs struct {
	ids   []string
	index map[string]int32
}

// NewIDs returns the mapping that gives ids[i] the index i. It returns an
// error if an ID is repeated or there are more than math.MaxInt32 IDs. The
// slice is copied.
func NewIDs(ids []string) (*IDs, error) {
	if len(ids) > math.MaxInt32 {
		return nil, fmt.Errorf("ratings: %d IDs, more than %d", len(ids), math.MaxInt32)
	}
	x := &IDs{ids: make([]string, 0, len(ids)), index: make(map[string]int32, len(ids))}
	for _, id := range ids {
		if _, ok := x.index[id]; ok {
			return nil, fmt.Errorf("ratings: duplicate ID %q", id)
		}
		x.add(id)
	}
	return x, nil
}

// NumberedIDs returns the mapping of the decimal IDs first, first+1, …,
// first+n−1 to the indices 0, …, n−1: the IDs of generated data, whose
// rows and columns have no names of their own. n must be in
// [0, math.MaxInt32].
func NumberedIDs(n, first int) *IDs {
	x := &IDs{ids: make([]string, 0, n), index: make(map[string]int32, n)}
	for k := range n {
		x.add(strconv.Itoa(first + k))
	}
	return x
}

// newIDs returns an empty mapping for a loader to fill with add.
func newIDs() *IDs { return &IDs{index: make(map[string]int32)} }

// add appends id, which must not be present, and returns its index.
func (x *IDs) add(id string) int32 {
	i := int32(len(x.ids))
	x.ids = append(x.ids, id)
	x.index[id] = i
	return i
}

// Index returns the dense index of id and whether id is known.
func (x *IDs) Index(id string) (int, bool) {
	i, ok := x.index[id]
	return int(i), ok
}

// ID returns the external ID of index i. It panics if i is not in
// [0, Len()), like a slice index.
func (x *IDs) ID(i int) string { return x.ids[i] }

// Len returns the number of IDs.
func (x *IDs) Len() int { return len(x.ids) }

// numCache maps IDs in canonical decimal form ("0" or digits without a
// leading zero, at most 9 of them) to their index by a slice indexed by
// the number, in front of an IDs' map, which a loader would otherwise
// consult twice per line. It only remembers what the map holds, so
// lookups through it give the map's answers. It grows to at most
// 4·Len() + 1024 entries of the IDs it serves; larger numbers go to the
// map.
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
	i, ok := x.index[string(id)]
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
