package ratings

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
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
	// The mean of the values given, rounded to float32 as every value.
	want := []Triple{{0, 0, 1.5}, {0, 1, 5}, {1, 1, float64(float32(10.0 / 3))}}
	if got := m.Triples(); !slices.Equal(got, want) || averaged != 2 {
		t.Errorf("averaged: %v, %d pairs; want %v, 2", got, averaged, want)
	}

	// Huge values: the mean of the largest float32s is one; a value
	// beyond float32's range is refused (the overflow of a float64 sum is
	// mean's, tested with ValuesOf).
	big := math.MaxFloat32
	m, _, err = Build(1, 1, []Triple{{0, 0, big}, {0, 0, big}}, DuplicatesAverage)
	if err != nil || m.Max() != big {
		t.Errorf("mean of two MaxFloat32: %v, %v", m, err)
	}
	if _, _, err = Build(1, 1, []Triple{{0, 0, math.MaxFloat64}, {0, 0, math.MaxFloat64}}, DuplicatesAverage); err == nil {
		t.Error("MaxFloat64 accepted")
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
			// The mean rounded to float32, as stored.
			if want := sum[k] / float64(cnt[k]); math.Abs(tr.Value-want) > 1e-12+0x1p-24*math.Abs(want) {
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

// TestValuesStorage checks that a matrix keeps float32 values, 16 bytes
// per rating for both views, whatever they are: a value such as 0.1, or
// a mean of duplicates such as 4/3, reads back rounded to the nearest
// float32; a value beyond float32's range is refused.
func TestValuesStorage(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    []Triple
		dup   Duplicates
		bytes int // per rating, both views
	}{
		{"integers and halves", []Triple{{0, 0, 5}, {0, 1, 3.5}, {1, 0, -1}}, DuplicatesError, 16},
		{"float32 extremes", []Triple{{0, 0, math.MaxFloat32}, {1, 1, math.SmallestNonzeroFloat32}}, DuplicatesError, 16},
		{"0.1", []Triple{{0, 0, 5}, {0, 1, 0.1}, {1, 0, 2}}, DuplicatesError, 16},
		{"mean 4/3", []Triple{{0, 0, 1}, {0, 0, 1}, {0, 0, 2}, {1, 1, 3}}, DuplicatesAverage, 16},
		{"tiny and -0", []Triple{{0, 0, -1e-300}, {0, 1, math.Copysign(0, -1)}, {1, 0, 1e-40}}, DuplicatesError, 16},
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
		// Every value read back is the value (or exact mean) given, rounded
		// to the nearest float32 (a zero as +0).
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
			want = float64(float32(want))
			if want == 0 {
				want = 0
			}
			if got, ok := m.Get(int(k[0]), int(k[1])); !ok || got != want || math.Signbit(got) != math.Signbit(want) {
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
// the file has at most 256 distinct values; two bytes (12 per rating, and
// a table of float32s) up to 65 536; beyond that float32. Every value
// reads back as its float32, through At, CopyTo, CopyTo32 and Slice, in
// both views.
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
		{"257 distinct", lines(600, func(k int) string { return fmt.Sprint(k%257 + 1) }), 12, false},
		{"tenths", lines(200, func(k int) string { return fmt.Sprint(k%3, ".1") }), 10, true},
		{"257 distinct, not float32", lines(600, func(k int) string { return fmt.Sprint(k%257+1, ".1") }), 12, false},
		{"65 537 distinct", lines(70_000, func(k int) string { return fmt.Sprintf("%.3f", float64(k%65_537)/100) }), 16, false},
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
		if tt.bytes == 12 {
			want += 4 * len(m.rowVal.t16) // the two-byte codes' table
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
			byCell[[2]int{ui, ii}] = float64(float32(v)) // the value rounded to float32, as stored
		}
		for u := range m.Rows() {
			items, vals := m.Row(u)
			all := floats(vals)
			all32 := vals.CopyTo32(make([]float32, vals.Len()+1))
			if len(all32) != len(items) {
				t.Fatalf("%s: row %d: CopyTo32 returned %d values, want %d", tt.name, u, len(all32), len(items))
			}
			for p, i := range items {
				want := byCell[[2]int{u, int(i)}]
				if vals.At(p) != want || all[p] != want || float64(all32[p]) != want || vals.Slice(p, p+1).At(0) != want || vals.Slice(p, len(items)).Len() != len(items)-p {
					t.Fatalf("%s: row %d item %d reads %v, %v, %v, %v; want %v", tt.name, u, i, vals.At(p), all[p], all32[p], vals.Slice(p, p+1).At(0), want)
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

// TestValuesRoundTrip checks the rounding that Matrix states: every value,
// through Build, a Builder or a loaded file, reads back as its nearest
// float32 (a zero as +0), within 2⁻²⁴ of it relative to its magnitude
// for |v| ≥ 2⁻¹²⁶ and within 2⁻¹⁵⁰ below; Min and Max are of the values
// stored, and a range with float32 bounds holds them.
func TestValuesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 40, 30
	var in []Triple
	var text strings.Builder
	for i := range rows {
		for j := range cols {
			if r.IntN(3) > 0 {
				continue
			}
			var v float64
			switch r.IntN(5) {
			case 0: // 4 decimals in [1, 5]
				v = math.Round((1+4*r.Float64())*1e4) / 1e4
			case 1: // any float64 in [1, 5], the bounds included
				v = []float64{1, 5, 1 + 4*r.Float64()}[r.IntN(3)]
			case 2: // any magnitude within float32's range
				v = math.Ldexp(r.Float64()+0.5, r.IntN(250)-125)
			case 3: // subnormal as float32
				v = math.Ldexp(r.Float64(), -127-r.IntN(30))
			default: // near float32's largest
				v = math.MaxFloat32 * (1 - r.Float64()*1e-6)
			}
			if r.IntN(2) == 0 {
				v = -v
			}
			in = append(in, Triple{int32(i), int32(j), v})
			fmt.Fprintf(&text, "%d\t%d\t%s\n", i+1, j+1, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	check := func(how string, m *Matrix, users, items func(int) int) {
		t.Helper()
		lo, hi := math.Inf(1), math.Inf(-1)
		seen := 0
		for _, tr := range in {
			got, ok := m.Get(users(int(tr.User)), items(int(tr.Item)))
			want := float64(float32(tr.Value))
			if want == 0 {
				want = 0
			}
			bound := 0x1p-24 * math.Abs(tr.Value)
			if math.Abs(tr.Value) < 0x1p-126 {
				bound = 0x1p-150
			}
			if !ok || got != want || math.Signbit(got) != math.Signbit(want) || math.Abs(got-tr.Value) > bound {
				t.Fatalf("%s: %v reads %v, %v; want %v (within %g)", how, tr, got, ok, want, bound)
			}
			lo, hi = min(lo, got), max(hi, got)
			seen++
		}
		if seen != m.Len() || m.Min() != lo || m.Max() != hi {
			t.Errorf("%s: %d ratings in [%v, %v], want %d in [%v, %v]", how, m.Len(), m.Min(), m.Max(), seen, lo, hi)
		}
		if err := verifyMatrix(m); err != nil {
			t.Errorf("%s: %v", how, err)
		}
	}
	same := func(i int) int { return i }
	m, err := New(rows, cols, in)
	if err != nil {
		t.Fatal(err)
	}
	check("New", m, same, same)
	b, _ := NewBuilder(rows, cols, 0)
	for _, tr := range in {
		if err := b.Add(int(tr.User), int(tr.Item), tr.Value); err != nil {
			t.Fatal(err)
		}
	}
	check("Builder", b.Matrix(), same, same)
	d, err := Read(strings.NewReader(text.String()), "round.tsv", Options{Format: FormatTSV, Min: -math.MaxFloat32, Max: math.MaxFloat32})
	if err != nil {
		t.Fatal(err)
	}
	index := func(x *IDs) func(int) int {
		return func(i int) int { k, _ := x.Index(strconv.Itoa(i + 1)); return k }
	}
	check("Read", d.Ratings, index(d.Users), index(d.Items))

	// The 4-decimal values of [1, 5] alone (a loaded file of them is
	// in two-byte codes of their float32s) stay within [1, 5] and within
	// 3e-7 of their value, three orders of magnitude below their step of
	// 1e-4.
	var dec strings.Builder
	for k := range 3000 {
		fmt.Fprintf(&dec, "%d\t%d\t%.4f\n", k%50+1, k/50+1, 1+4*r.Float64())
	}
	d, err = Read(strings.NewReader(dec.String()), "dec.tsv", Options{Format: FormatTSV})
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Ratings; m.Min() < 1 || m.Max() > 5 || m.rowVal.t16 == nil || m.Bytes() != 12*m.Len()+(m.Rows()+m.Cols()+2)*4+4*len(m.rowVal.t16) {
		t.Errorf("4 decimals: [%v, %v], %d bytes for %d ratings", m.Min(), m.Max(), m.Bytes(), m.Len())
	}
	for line := range strings.SplitSeq(strings.TrimSpace(dec.String()), "\n") {
		f := strings.Split(line, "\t")
		v, _ := strconv.ParseFloat(f[2], 64)
		u, _ := d.Users.Index(f[0])
		i, _ := d.Items.Index(f[1])
		if got, _ := d.Ratings.Get(u, i); math.Abs(got-v) > 3e-7 {
			t.Fatalf("4 decimals: %s reads %v", line, got)
		}
	}
}

// TestBeyondFloat32 checks that values whose float32 rounding is
// infinite are refused by Build, a Builder and the loaders.
func TestBeyondFloat32(t *testing.T) {
	for _, v := range []float64{1e39, -1e300, math.MaxFloat32 * (1 + 0x1p-23)} {
		if _, err := New(1, 1, []Triple{{0, 0, v}}); err == nil || !strings.Contains(err.Error(), "float32") {
			t.Errorf("New with %v: %v", v, err)
		}
		b, _ := NewBuilder(1, 1, 0)
		if err := b.Add(0, 0, v); err == nil || !strings.Contains(err.Error(), "float32") {
			t.Errorf("Builder with %v: %v", v, err)
		}
		for _, in := range []string{
			"1\t1\t" + strconv.FormatFloat(v, 'g', -1, 64) + "\n",            // coded
			"1\t1\t0.1\n1\t2\t" + strconv.FormatFloat(v, 'g', -1, 64) + "\n", // float32 after the table
		} {
			var many strings.Builder
			for k := range 300 { // more than 256 distinct values: float32 records
				fmt.Fprintf(&many, "2\t%d\t%d\n", k+1, k)
			}
			for _, s := range []string{in, many.String() + in} {
				if _, err := Read(strings.NewReader(s), "big.tsv", Options{Format: FormatTSV, Min: -1e307, Max: 1e307}); err == nil || !strings.Contains(err.Error(), "float32") {
					t.Errorf("Read with %v: %v", v, err)
				}
			}
		}
	}
	// The largest value that rounds to a finite float32 is stored.
	if m, err := New(1, 1, []Triple{{0, 0, math.MaxFloat32 * (1 + 0x1p-25)}}); err != nil || m.Max() != math.MaxFloat32 {
		t.Errorf("MaxFloat32 rounding: %v, %v", m, err)
	}
}

// TestCopyTo32ValuesOf checks that CopyTo32 rounds ValuesOf's float64s to
// the nearest float32.
func TestCopyTo32ValuesOf(t *testing.T) {
	x := []float64{0.1, 1.0 / 3, -2.5, 1e-40, 3}
	got := ValuesOf(x).Slice(1, 5).CopyTo32(make([]float32, 4))
	for k, v := range x[1:] {
		if got[k] != float32(v) {
			t.Errorf("CopyTo32[%d] = %v, want %v", k, got[k], float32(v))
		}
	}
}
