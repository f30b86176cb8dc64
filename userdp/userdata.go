package userdp

import (
	"math"
	"slices"

	"github.com/dpmc/dpmc/ratings"
)

// userData is every user's ratings of candidate items as Train reads
// them, without a copy of a value: for user i (canonical order), the
// ratings are the flat positions off[i] ≤ p < off[i+1], in the canonical
// order of their items' IDs, and position p is the rating at position
// perm(p) of the user's row of the training matrix, whose values are
// read in place (Values.At) and clipped to the rating range on each read.
// That is 2 bytes per rating (4 when some user has more than 65 536
// ratings) and a bit for the contributed subset, where per-user slices of
// int32 indices and float64 values took 12 (24 with a subset, and again
// while they were remapped to the released items).
//
// view rebuilds one user's lists into scratch exactly as they were held
// before: same values, same order, so every sum runs as before and the
// release does not change bit for bit.
type userData struct {
	x      *ratings.Matrix
	lo, hi float64 // the rating range values are clipped to
	rows   []int32 // canonical user i → matrix row
	off    []int   // user i's ratings: flat positions off[i] ≤ p < off[i+1]
	perm16 []uint16
	perm32 []int32 // flat position → position in the user's matrix row (one of the two is set)
	// colCand maps a matrix column to its candidate item (−1: outside the
	// catalogue; those ratings are not in the flat positions at all);
	// colModel, once the items are selected, to its released item (−1:
	// not released).
	colCand, colModel []int32
	// colBucket maps a matrix column to its tail bucket, once the items
	// are selected with tail buckets (nil otherwise).
	colBucket []int32
	// contrib has bit p set when flat position p is in its user's
	// contributed subset; nil when every rating is contributed.
	contrib []uint64
}

// userView is one user's lists, rebuilt by userData.view into reused
// scratch (one per worker, grown to the largest row). Before selection
// the item indices are candidate indices; after, released indices.
type userView struct {
	// acol, aval: all the user's ratings of candidate items (after
	// selection acol is −1 for an item that was not released).
	acol []int32
	aval []float64
	// ccol, cval: the contributed ratings (after selection: of released
	// items only); cpos[q] is the position in acol of ccol[q].
	ccol []int32
	cval []float64
	cpos []int32
	// tval: after selection, with a tail, the values of the contributed
	// ratings of items that were not released; tbkt their tail buckets
	// (with tail buckets).
	tval []float64
	tbkt []int32
}

// newUserView returns scratch for rows of up to n ratings.
func newUserView(n int) *userView {
	return &userView{
		acol: make([]int32, 0, n), aval: make([]float64, 0, n),
		ccol: make([]int32, 0, n), cval: make([]float64, 0, n), cpos: make([]int32, 0, n),
		tval: make([]float64, 0, n), tbkt: make([]int32, 0, n),
	}
}

// newUserData orders each user's ratings of candidate items (colCand)
// canonically; rows lists the users in canonical order. The contributed
// subsets are set afterwards (setContributed).
func newUserData(x *ratings.Matrix, rows []int32, colCand []int32, lo, hi float64) *userData {
	d := &userData{x: x, lo: lo, hi: hi, rows: rows, colCand: colCand, off: make([]int, len(rows)+1)}
	for i, row := range rows {
		items, _ := x.Row(int(row))
		n := 0
		for _, j := range items {
			if colCand[j] >= 0 {
				n++
			}
		}
		d.off[i+1] = d.off[i] + n
	}
	total := d.off[len(rows)]
	wide := x.MaxRowLen() > 1<<16
	if wide {
		d.perm32 = make([]int32, total)
	} else {
		d.perm16 = make([]uint16, total)
	}
	buf := make([]int32, 0, x.MaxRowLen())
	for i, row := range rows {
		items, _ := x.Row(int(row))
		buf = buf[:0]
		for q, j := range items {
			if colCand[j] >= 0 {
				buf = append(buf, int32(q))
			}
		}
		// Candidate indices are distinct within a row, so the order is
		// unique.
		slices.SortFunc(buf, func(a, b int32) int { return int(colCand[items[a]]) - int(colCand[items[b]]) })
		p := d.off[i]
		for k, q := range buf {
			if wide {
				d.perm32[p+k] = q
			} else {
				d.perm16[p+k] = uint16(q)
			}
		}
	}
	return d
}

// release makes every view index the released items: toModel maps a
// candidate index to its released index (−1: not released). With
// bucket non-nil, the views also give the tail bucket (bucket(column))
// of each rating of an unreleased item.
func (d *userData) release(toModel []int32, bucket func(col int) int32) {
	if bucket != nil {
		d.colBucket = make([]int32, len(d.colCand))
		for j := range d.colBucket {
			d.colBucket[j] = bucket(j)
		}
	}
	d.colModel = make([]int32, len(d.colCand))
	for j, c := range d.colCand {
		d.colModel[j] = -1
		if c >= 0 {
			d.colModel[j] = toModel[c]
		}
	}
}

// n returns user i's number of ratings of candidate items.
func (d *userData) n(i int) int { return d.off[i+1] - d.off[i] }

// pos returns the position in its matrix row of flat position p.
func (d *userData) pos(p int) int {
	if d.perm16 != nil {
		return int(d.perm16[p])
	}
	return int(d.perm32[p])
}

// setContributed marks user i's contributed subset: the positions (into
// the user's n ratings, ascending; Plan.Subset) or, for nil, all of them.
func (d *userData) setContributed(i int, pos []int) {
	if pos == nil {
		if d.contrib != nil {
			d.setAll(i)
		}
		return
	}
	if d.contrib == nil {
		d.contrib = make([]uint64, (d.off[len(d.rows)]+63)/64)
		for k := range i {
			d.setAll(k)
		}
	}
	for _, q := range pos {
		p := d.off[i] + q
		d.contrib[p>>6] |= 1 << (p & 63)
	}
}

func (d *userData) setAll(i int) {
	for p := d.off[i]; p < d.off[i+1]; p++ {
		d.contrib[p>>6] |= 1 << (p & 63)
	}
}

// contributed says whether flat position p is in its user's subset.
func (d *userData) contributed(p int) bool {
	return d.contrib == nil || d.contrib[p>>6]&(1<<(p&63)) != 0
}

// value returns the clipped value of user i's rating at position k (of
// the user's n ratings, canonical order).
func (d *userData) value(i, k int) float64 {
	_, vals := d.x.Row(int(d.rows[i]))
	return d.clip(vals.At(d.pos(d.off[i] + k)))
}

// clip returns math.Min(math.Max(v, lo), hi), bit for bit, without the
// calls for a value strictly inside the range (the common case).
func (d *userData) clip(v float64) float64 {
	if d.lo < v && v < d.hi {
		return v
	}
	return math.Min(math.Max(v, d.lo), d.hi)
}

// view fills s with user i's lists (see userView). withTail keeps the
// values of contributed ratings of items that were not released.
func (d *userData) view(i int, withTail bool, s *userView) {
	items, vals := d.x.Row(int(d.rows[i]))
	m := d.colCand
	if d.colModel != nil {
		m = d.colModel
	}
	s.acol, s.aval = s.acol[:0], s.aval[:0]
	s.ccol, s.cval, s.cpos, s.tval, s.tbkt = s.ccol[:0], s.cval[:0], s.cpos[:0], s.tval[:0], s.tbkt[:0]
	lo := d.off[i]
	for p := lo; p < d.off[i+1]; p++ {
		q := d.pos(p)
		c := m[items[q]]
		v := d.clip(vals.At(q))
		s.acol = append(s.acol, c)
		s.aval = append(s.aval, v)
		if !d.contributed(p) {
			continue
		}
		if c >= 0 {
			s.ccol = append(s.ccol, c)
			s.cval = append(s.cval, v)
			s.cpos = append(s.cpos, int32(p-lo))
		} else if withTail {
			s.tval = append(s.tval, v)
			if d.colBucket != nil {
				s.tbkt = append(s.tbkt, d.colBucket[items[q]])
			}
		}
	}
}
