package ratings

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteTSV writes d's ratings to w in the tsv format, one rating a line,
// "user<TAB>item<TAB>rating\n", users in row order and each user's items
// in increasing column order. Users and items are written by their
// external IDs (numbered from 1 where d has no IDs), and each rating as
// the shortest decimal that reads back as the same float64, so Load of
// the output (FormatTSV, d's range) gives the same ratings bit for bit,
// with the same users and items; only the item indices may differ, since
// a loader numbers items in order of first appearance.
//
// It returns an error, before writing anything, if d has no ratings
// matrix or an ID would not survive the format (empty, or holding a tab,
// newline or carriage return), and any error of w, wrapped.
func (d *Dataset) WriteTSV(w io.Writer) error {
	if d == nil || d.Ratings == nil {
		return errors.New("ratings: WriteTSV of a Dataset without ratings")
	}
	m := d.Ratings
	id := func(x *IDs, i int) string {
		if x == nil {
			return strconv.Itoa(i + 1)
		}
		return x.ID(i)
	}
	for _, side := range []struct {
		name string
		ids  *IDs
		n    int
	}{{"user", d.Users, m.Rows()}, {"item", d.Items, m.Cols()}} {
		if side.ids != nil && side.ids.Len() < side.n {
			return fmt.Errorf("ratings: WriteTSV: %d %s IDs for %d %ss", side.ids.Len(), side.name, side.n, side.name)
		}
		for i := range side.n {
			if s := id(side.ids, i); s == "" || strings.ContainsAny(s, "\t\n\r") {
				return fmt.Errorf("ratings: WriteTSV: %s ID %q cannot be written as tsv (empty, or a tab or line break in it)", side.name, s)
			}
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for i := range m.Rows() {
		user := id(d.Users, i)
		items, vals := m.Row(i)
		for p, j := range items {
			line = append(line[:0], user...)
			line = append(line, '\t')
			line = append(line, id(d.Items, int(j))...)
			line = append(line, '\t')
			line = strconv.AppendFloat(line, vals.At(p), 'g', -1, 64)
			line = append(line, '\n')
			if _, err := bw.Write(line); err != nil {
				return fmt.Errorf("ratings: WriteTSV: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ratings: WriteTSV: %w", err)
	}
	return nil
}
