package ratings

import (
	"fmt"
	"math"
	"slices"
)

// verifyMatrix checks that m's CSR and CSC views hold the same triples,
// each sorted by index without repeats, and that Min, Max, Len and Get
// agree with them.
func verifyMatrix(m *Matrix) error {
	rows, cols := m.Rows(), m.Cols()
	var csr []Triple
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range rows {
		items, values := m.Row(i)
		if len(items) != values.Len() {
			return fmt.Errorf("row %d: %d items, %d values", i, len(items), values.Len())
		}
		for p, j := range items {
			if j < 0 || int(j) >= cols {
				return fmt.Errorf("row %d: item %d out of range", i, j)
			}
			if p > 0 && items[p-1] >= j {
				return fmt.Errorf("row %d: items not strictly increasing: %v", i, items)
			}
			v := values.At(p)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("row %d item %d: value %v", i, j, v)
			}
			if got, ok := m.Get(i, int(j)); !ok || got != v {
				return fmt.Errorf("Get(%d, %d) = %v, %v; want %v", i, j, got, ok, v)
			}
			lo, hi = min(lo, v), max(hi, v)
			csr = append(csr, Triple{User: int32(i), Item: j, Value: v})
		}
	}
	if len(csr) != m.Len() {
		return fmt.Errorf("rows hold %d ratings, Len() = %d", len(csr), m.Len())
	}
	if len(csr) == 0 {
		lo, hi = 0, 0
	}
	if m.Min() != lo || m.Max() != hi {
		return fmt.Errorf("Min, Max = %v, %v; ratings span [%v, %v]", m.Min(), m.Max(), lo, hi)
	}
	var csc []Triple
	for j := range cols {
		users, values := m.Col(j)
		if len(users) != values.Len() {
			return fmt.Errorf("col %d: %d users, %d values", j, len(users), values.Len())
		}
		for p, i := range users {
			if i < 0 || int(i) >= rows {
				return fmt.Errorf("col %d: user %d out of range", j, i)
			}
			if p > 0 && users[p-1] >= i {
				return fmt.Errorf("col %d: users not strictly increasing: %v", j, users)
			}
			csc = append(csc, Triple{User: i, Item: int32(j), Value: values.At(p)})
		}
	}
	slices.SortFunc(csc, func(a, b Triple) int {
		if a.User != b.User {
			return int(a.User) - int(b.User)
		}
		return int(a.Item) - int(b.Item)
	})
	if !slices.Equal(csr, csc) {
		return fmt.Errorf("CSR and CSC views differ")
	}
	if all := m.Triples(); !slices.Equal(all, csr) {
		return fmt.Errorf("Triples() differs from the rows")
	}
	return nil
}

// verifyDataset checks verifyMatrix, the ID mappings, the declared range
// and the Stats identity.
func verifyDataset(d *Dataset) error {
	if err := verifyMatrix(d.Ratings); err != nil {
		return err
	}
	if d.Ratings.Rows() != d.Users.Len() || d.Ratings.Cols() != d.Items.Len() {
		return fmt.Errorf("matrix %d × %d, %d users, %d items", d.Ratings.Rows(), d.Ratings.Cols(), d.Users.Len(), d.Items.Len())
	}
	for _, ids := range []*IDs{d.Users, d.Items} {
		for i := range ids.Len() {
			if k, ok := ids.Index(ids.ID(i)); !ok || k != i {
				return fmt.Errorf("ID %q: Index = %d, %v; want %d", ids.ID(i), k, ok, i)
			}
		}
	}
	if d.Ratings.Len() == 0 {
		return fmt.Errorf("a loaded dataset with no ratings")
	}
	if d.Ratings.Min() < d.Min || d.Ratings.Max() > d.Max {
		return fmt.Errorf("ratings span [%v, %v], outside declared [%v, %v]", d.Ratings.Min(), d.Ratings.Max(), d.Min, d.Max)
	}
	s := d.Stats
	if s.Records != d.Ratings.Len()+s.Zeros+s.Cold+s.Merged {
		return fmt.Errorf("stats %+v do not add up to %d ratings", s, d.Ratings.Len())
	}
	if s.Records > s.Lines || s.Header > s.Lines || s.Merged < s.Averaged || (s.Averaged == 0) != (s.Merged == 0) {
		return fmt.Errorf("inconsistent stats %+v", s)
	}
	if d.Format == FormatAuto || d.FormatReason == "" {
		return fmt.Errorf("format %v, reason %q", d.Format, d.FormatReason)
	}
	return nil
}
