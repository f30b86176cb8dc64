package ratings

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestNewSmall(t *testing.T) {
	// 3 users × 4 items, given out of order.
	in := []Triple{
		{2, 3, 1.5}, {0, 2, 4}, {1, 0, 2}, {0, 0, 5}, {2, 0, 3}, {0, 3, 1},
	}
	m, err := New(3, 4, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyMatrix(m); err != nil {
		t.Fatal(err)
	}
	if m.Rows() != 3 || m.Cols() != 4 || m.Len() != 6 || m.Min() != 1 || m.Max() != 5 {
		t.Fatalf("Rows, Cols, Len, Min, Max = %d, %d, %d, %v, %v", m.Rows(), m.Cols(), m.Len(), m.Min(), m.Max())
	}
	rowTests := []struct {
		i      int
		items  []int32
		values []float64
	}{
		{0, []int32{0, 2, 3}, []float64{5, 4, 1}},
		{1, []int32{0}, []float64{2}},
		{2, []int32{0, 3}, []float64{3, 1.5}},
	}
	for _, tt := range rowTests {
		items, values := m.Row(tt.i)
		if !slices.Equal(items, tt.items) || !slices.Equal(floats(values), tt.values) {
			t.Errorf("Row(%d) = %v, %v; want %v, %v", tt.i, items, values, tt.items, tt.values)
		}
	}
	colTests := []struct {
		j      int
		users  []int32
		values []float64
	}{
		{0, []int32{0, 1, 2}, []float64{5, 2, 3}},
		{1, []int32{}, []float64{}},
		{2, []int32{0}, []float64{4}},
		{3, []int32{0, 2}, []float64{1, 1.5}},
	}
	for _, tt := range colTests {
		users, values := m.Col(tt.j)
		if !slices.Equal(users, tt.users) || !slices.Equal(floats(values), tt.values) {
			t.Errorf("Col(%d) = %v, %v; want %v, %v", tt.j, users, values, tt.users, tt.values)
		}
	}
	for _, tt := range []struct {
		i, j int
		v    float64
		ok   bool
	}{{0, 2, 4, true}, {0, 1, 0, false}, {2, 3, 1.5, true}, {-1, 0, 0, false}, {3, 0, 0, false}, {0, 4, 0, false}} {
		if v, ok := m.Get(tt.i, tt.j); v != tt.v || ok != tt.ok {
			t.Errorf("Get(%d, %d) = %v, %v; want %v, %v", tt.i, tt.j, v, ok, tt.v, tt.ok)
		}
	}
	// Row and Col return capped subslices: appending must not clobber.
	items, _ := m.Row(1)
	_ = append(items, 99)
	if items, _ := m.Row(2); items[0] != 0 {
		t.Errorf("append to Row(1) changed Row(2): %v", items)
	}
	// The input is not modified.
	if in[0] != (Triple{2, 3, 1.5}) {
		t.Errorf("New modified its input: %v", in)
	}
}

func TestNewEmpty(t *testing.T) {
	for _, sz := range [][2]int{{0, 0}, {3, 0}, {0, 3}, {2, 5}} {
		m, err := New(sz[0], sz[1], nil)
		if err != nil {
			t.Fatalf("New(%d, %d, nil): %v", sz[0], sz[1], err)
		}
		if err := verifyMatrix(m); err != nil {
			t.Fatal(err)
		}
		if m.Len() != 0 || m.Min() != 0 || m.Max() != 0 {
			t.Errorf("empty matrix: Len %d Min %v Max %v", m.Len(), m.Min(), m.Max())
		}
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name    string
		m, n    int
		triples []Triple
	}{
		{"negative rows", -1, 2, nil},
		{"too many cols", 1, math.MaxInt32 + 1, nil},
		{"user too big", 2, 2, []Triple{{2, 0, 1}}},
		{"negative user", 2, 2, []Triple{{-1, 0, 1}}},
		{"item too big", 2, 2, []Triple{{0, 2, 1}}},
		{"NaN", 2, 2, []Triple{{0, 0, math.NaN()}}},
		{"+Inf", 2, 2, []Triple{{0, 0, math.Inf(1)}}},
		{"-Inf", 2, 2, []Triple{{0, 0, math.Inf(-1)}}},
		{"duplicate", 2, 2, []Triple{{0, 0, 1}, {1, 1, 1}, {0, 0, 1}}},
	}
	for _, tt := range tests {
		if _, err := New(tt.m, tt.n, tt.triples); err == nil {
			t.Errorf("%s: New succeeded", tt.name)
		}
	}
	if _, _, err := Build(1, 1, nil, Duplicates(7)); err == nil {
		t.Error("Build with an unknown policy succeeded")
	}
}

func TestDuplicates(t *testing.T) {
	in := []Triple{{1, 1, 2}, {0, 0, 1}, {1, 1, 3}, {0, 1, 5}, {1, 1, 5}, {0, 0, 2}}
	_, err := New(2, 2, in)
	var de *DuplicateError
	if !errors.As(err, &de) || !errors.Is(err, ErrDuplicate) {
		t.Fatalf("New: err = %v, want a *DuplicateError", err)
	}
	// (0, 0) sorts before (1, 1); its first two positions are 1 and 5.
	if *de != (DuplicateError{User: 0, Item: 0, First: 1, Second: 5}) {
		t.Errorf("DuplicateError = %+v", *de)
	}

	m, averaged, err := Build(2, 2, in, DuplicatesAverage)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyMatrix(m); err != nil {
		t.Fatal(err)
	}
	want := []Triple{{0, 0, 1.5}, {0, 1, 5}, {1, 1, 10.0 / 3}}
	if got := m.Triples(); !slices.Equal(got, want) || averaged != 2 {
		t.Errorf("averaged: %v, %d pairs; want %v, 2", got, averaged, want)
	}

	// Huge values: the sum overflows, the mean does not.
	big := math.MaxFloat64
	m, _, err = Build(1, 1, []Triple{{0, 0, big}, {0, 0, big}}, DuplicatesAverage)
	if err != nil || m.Max() != big {
		t.Errorf("mean of two MaxFloat64: %v, %v", m.Max(), err)
	}
}

func TestDuplicatesString(t *testing.T) {
	for _, d := range []Duplicates{DuplicatesDefault, DuplicatesError, DuplicatesAverage} {
		got, err := ParseDuplicates(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDuplicates(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := ParseDuplicates("sum"); err == nil {
		t.Error(`ParseDuplicates("sum") succeeded`)
	}
}

func TestBuildRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		m, n := r.IntN(20), r.IntN(20)
		var in []Triple
		if m > 0 && n > 0 {
			for range r.IntN(200) {
				in = append(in, Triple{int32(r.IntN(m)), int32(r.IntN(n)), float64(r.IntN(9)) / 2})
			}
		}
		mat, averaged, err := Build(m, n, in, DuplicatesAverage)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyMatrix(mat); err != nil {
			t.Fatal(err)
		}
		// Compare with a map-based reference.
		type key struct{ u, i int32 }
		sum, cnt := map[key]float64{}, map[key]int{}
		for _, tr := range in {
			sum[key{tr.User, tr.Item}] += tr.Value
			cnt[key{tr.User, tr.Item}]++
		}
		wantAveraged := 0
		for _, c := range cnt {
			if c > 1 {
				wantAveraged++
			}
		}
		if mat.Len() != len(cnt) || averaged != wantAveraged {
			t.Fatalf("Len %d averaged %d; want %d, %d", mat.Len(), averaged, len(cnt), wantAveraged)
		}
		for tr := range mat.All() {
			k := key{tr.User, tr.Item}
			if want := sum[k] / float64(cnt[k]); math.Abs(tr.Value-want) > 1e-12 {
				t.Fatalf("%v: want %v", tr, want)
			}
		}
	}
}

func TestAllStops(t *testing.T) {
	m, err := New(2, 2, []Triple{{0, 0, 1}, {0, 1, 2}, {1, 0, 3}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range m.All() {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("break after 2 gave %d", n)
	}
}

func TestIDs(t *testing.T) {
	x, err := NewIDs([]string{"b", "a", "10"})
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != 3 || x.ID(0) != "b" || x.ID(2) != "10" {
		t.Errorf("IDs: Len %d, %q, %q", x.Len(), x.ID(0), x.ID(2))
	}
	if i, ok := x.Index("a"); !ok || i != 1 {
		t.Errorf("Index(a) = %d, %v", i, ok)
	}
	if _, ok := x.Index("010"); ok {
		t.Error(`Index("010") found; IDs are strings`)
	}
	if _, err := NewIDs([]string{"a", "a"}); err == nil {
		t.Error("NewIDs with a repeat succeeded")
	}
}

func TestNumberedIDs(t *testing.T) {
	x := NumberedIDs(3, 1)
	if x.Len() != 3 || x.ID(0) != "1" || x.ID(2) != "3" {
		t.Errorf("NumberedIDs(3, 1) = %v", x.list())
	}
	if i, ok := x.Index("2"); !ok || i != 1 {
		t.Errorf(`Index("2") = %d, %v`, i, ok)
	}
	if NumberedIDs(0, 0).Len() != 0 {
		t.Error("NumberedIDs(0, 0) is not empty")
	}
}

// floats returns a copy of v as a []float64.
func floats(v Values) []float64 { return v.CopyTo(make([]float64, v.Len())) }

// TestValuesStorage checks that a matrix keeps float32 values when every
// value is exactly one, float64 otherwise (a value such as 0.1, or a mean
// of duplicates such as 4/3), and returns every value exactly either way.
func TestValuesStorage(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    []Triple
		dup   Duplicates
		bytes int // per rating, both views
	}{
		{"integers and halves", []Triple{{0, 0, 5}, {0, 1, 3.5}, {1, 0, -1}}, DuplicatesError, 16},
		{"float32 extremes", []Triple{{0, 0, math.MaxFloat32}, {1, 1, math.SmallestNonzeroFloat32}}, DuplicatesError, 16},
		{"0.1", []Triple{{0, 0, 5}, {0, 1, 0.1}, {1, 0, 2}}, DuplicatesError, 24},
		{"MaxFloat64", []Triple{{1, 1, math.MaxFloat64}, {0, 0, 1}}, DuplicatesError, 24},
		{"mean 4/3", []Triple{{0, 0, 1}, {0, 0, 1}, {0, 0, 2}, {1, 1, 3}}, DuplicatesAverage, 24},
		{"mean 1.5", []Triple{{0, 0, 1}, {0, 0, 2}, {1, 1, 3}}, DuplicatesAverage, 16},
	} {
		m, _, err := Build(2, 2, tt.in, tt.dup)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if err := verifyMatrix(m); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got, want := m.Bytes(), tt.bytes*m.Len()+(m.Rows()+m.Cols()+2)*4; got != want {
			t.Errorf("%s: Bytes() = %d, want %d (%d per rating)", tt.name, got, want, tt.bytes)
		}
		// Every value read back is the value (or exact mean) given.
		sums := map[[2]int32][]float64{}
		for _, tr := range tt.in {
			k := [2]int32{tr.User, tr.Item}
			sums[k] = append(sums[k], tr.Value)
		}
		for k, vs := range sums {
			want := vs[0]
			if len(vs) > 1 {
				want = 0
				for _, v := range vs {
					want += v
				}
				want /= float64(len(vs))
			}
			if got, ok := m.Get(int(k[0]), int(k[1])); !ok || got != want {
				t.Errorf("%s: Get%v = %v, %v; want %v exactly", tt.name, k, got, ok, want)
			}
		}
	}
}

// TestBuilder checks that a Builder given row-major ratings makes the
// matrix Build makes, and refuses bad ratings and any use after Matrix.
func TestBuilder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, frac := range []bool{false, true} {
		var in []Triple
		for i := range 30 {
			for j := range 20 {
				if r.IntN(4) == 0 {
					v := float64(1 + r.IntN(5))
					if frac {
						v += r.Float64()
					}
					in = append(in, Triple{int32(i), int32(j), v})
				}
			}
		}
		b, err := NewBuilder(30, 20, len(in)/2)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range in {
			if err := b.Add(int(tr.User), int(tr.Item), tr.Value); err != nil {
				t.Fatal(err)
			}
		}
		got := b.Matrix()
		want, err := New(30, 20, in)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyMatrix(got); err != nil {
			t.Error(err)
		}
		if !slices.Equal(got.Triples(), want.Triples()) || got.Bytes() != want.Bytes() || got.Min() != want.Min() || got.Max() != want.Max() {
			t.Errorf("fractional %v: Builder and Build differ", frac)
		}
		if err := b.Add(29, 19, 1); err == nil || b.Matrix() != nil {
			t.Error("Builder usable after Matrix")
		}
	}
	for _, tt := range []struct {
		i, j int
		v    float64
		want string
	}{
		{2, 0, 1, "out of range"},
		{0, -1, 1, "out of range"},
		{1, 1, math.NaN(), "not finite"},
		{1, 1, math.Inf(-1), "not finite"},
		{1, 2, 1, "does not come after"}, // the pair before
		{1, 3, 1, "does not come after"}, // the same pair
		{0, 4, 1, "does not come after"}, // an earlier row
	} {
		b, _ := NewBuilder(2, 5, 0)
		if err := b.Add(1, 3, 4); err != nil {
			t.Fatal(err)
		}
		err := b.Add(tt.i, tt.j, tt.v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Add(%d, %d, %v) = %v, want an error with %q", tt.i, tt.j, tt.v, err, tt.want)
		}
		if b.Add(1, 4, 1) == nil || b.Matrix() != nil {
			t.Errorf("Add(%d, %d, %v): Builder usable after an error", tt.i, tt.j, tt.v)
		}
	}
	if _, err := NewBuilder(-1, 2, 0); err == nil {
		t.Error("NewBuilder(-1, 2, 0): no error")
	}
}

func TestMaxRowLen(t *testing.T) {
	for _, tc := range []struct {
		triples []Triple
		want    int
	}{
		{nil, 0},
		{[]Triple{{0, 0, 1}}, 1},
		{[]Triple{{0, 0, 1}, {1, 0, 2}, {1, 1, 3}, {2, 2, 4}}, 2},
	} {
		m, err := New(3, 3, tc.triples)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.MaxRowLen(); got != tc.want {
			t.Errorf("%v: MaxRowLen = %d, want %d", tc.triples, got, tc.want)
		}
	}
}

// TestLoadedValuesStorage checks the storage a loaded file's matrix gets:
// a byte per value (10 bytes per rating, both views, and the table) while
// the file has at most 256 distinct values; beyond that float32 if every
// value is exactly one, else float64. Every value reads back exactly,
// through At, CopyTo and Slice, in both views.
func TestLoadedValuesStorage(t *testing.T) {
	lines := func(n int, value func(k int) string) string {
		var b strings.Builder
		for k := range n {
			fmt.Fprintf(&b, "%d\t%d\t%s\n", k%37+1, k/37+1, value(k))
		}
		return b.String()
	}
	for _, tt := range []struct {
		name  string
		in    string
		bytes int // per rating, both views
		table bool
	}{
		{"stars", lines(500, func(k int) string { return fmt.Sprint(k%5 + 1) }), 10, true},
		{"halves and negatives", lines(300, func(k int) string { return fmt.Sprint(float64(k%9)/2 - 2) }), 10, true},
		{"256 distinct", lines(600, func(k int) string { return fmt.Sprint(k%256 + 1) }), 10, true},
		{"257 distinct", lines(600, func(k int) string { return fmt.Sprint(k%257 + 1) }), 16, false},
		{"tenths", lines(200, func(k int) string { return fmt.Sprint(k%3, ".1") }), 10, true},
		{"257 distinct, not float32", lines(600, func(k int) string { return fmt.Sprint(k%257+1, ".1") }), 24, false},
	} {
		d, err := Read(strings.NewReader(tt.in), tt.name, Options{Format: FormatTSV, Min: -10, Max: 1000})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		m := d.Ratings
		if err := verifyMatrix(m); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got := m.rowVal.table != nil && m.colVal.table == m.rowVal.table; got != tt.table {
			t.Errorf("%s: coded values %v, want %v", tt.name, got, tt.table)
		}
		want := tt.bytes*m.Len() + (m.Rows()+m.Cols()+2)*4
		if tt.table {
			want += 256 * 8
		}
		if got := m.Bytes(); got != want {
			t.Errorf("%s: Bytes() = %d, want %d (%d per rating)", tt.name, got, want, tt.bytes)
		}
		// The values, from the text, in every view and every way of reading.
		byCell := map[[2]int]float64{}
		for _, line := range strings.Split(strings.TrimSpace(tt.in), "\n") {
			var u, i string
			var v float64
			if _, err := fmt.Sscan(line, &u, &i, &v); err != nil {
				t.Fatal(err)
			}
			ui, _ := d.Users.Index(u)
			ii, _ := d.Items.Index(i)
			byCell[[2]int{ui, ii}] = v
		}
		for u := range m.Rows() {
			items, vals := m.Row(u)
			all := floats(vals)
			for p, i := range items {
				want := byCell[[2]int{u, int(i)}]
				if vals.At(p) != want || all[p] != want || vals.Slice(p, p+1).At(0) != want || vals.Slice(p, len(items)).Len() != len(items)-p {
					t.Fatalf("%s: row %d item %d reads %v, %v, %v; want %v", tt.name, u, i, vals.At(p), all[p], vals.Slice(p, p+1).At(0), want)
				}
			}
		}
		for i := range m.Cols() {
			users, vals := m.Col(i)
			all := floats(vals)
			for p, u := range users {
				if want := byCell[[2]int{int(u), i}]; vals.At(p) != want || all[p] != want {
					t.Fatalf("%s: column %d user %d reads %v, %v; want %v", tt.name, i, u, vals.At(p), all[p], want)
				}
			}
		}
	}
}

// Overlap counts the pairs present in both matrices, whatever their
// values, and is symmetric.
func TestOverlap(t *testing.T) {
	mk := func(rows, cols int, tr []Triple) *Matrix {
		m, err := New(rows, cols, tr)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := mk(3, 4, []Triple{{0, 0, 1}, {0, 2, 2}, {1, 1, 3}, {2, 3, 4}})
	for _, c := range []struct {
		name string
		b    *Matrix
		want int
	}{
		{"disjoint", mk(3, 4, []Triple{{0, 1, 1}, {1, 0, 2}, {2, 2, 5}}), 0},
		{"two shared, other values", mk(3, 4, []Triple{{0, 2, 5}, {2, 3, 1}, {1, 3, 1}}), 2},
		{"itself", a, 4},
		{"fewer rows", mk(1, 4, []Triple{{0, 0, 3}}), 1},
		{"empty", mk(3, 4, nil), 0},
	} {
		if got := Overlap(a, c.b); got != c.want {
			t.Errorf("%s: Overlap = %d, want %d", c.name, got, c.want)
		}
		if got := Overlap(c.b, a); got != c.want {
			t.Errorf("%s: Overlap(b, a) = %d, want %d", c.name, got, c.want)
		}
	}
}
