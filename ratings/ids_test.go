package ratings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// list returns the IDs of x in index order.
func (x *IDs) list() []string {
	s := make([]string, x.Len())
	for i := range s {
		s[i] = x.ID(i)
	}
	return s
}

// checkRoundTrip checks that x holds exactly ids, in order: ID(i) is
// ids[i], Index(ids[i]) is i as a string and as bytes, and the IDs absent
// are not found.
func checkRoundTrip(t *testing.T, x *IDs, ids, absent []string) {
	t.Helper()
	if x.Len() != len(ids) {
		t.Fatalf("Len %d, want %d", x.Len(), len(ids))
	}
	for i, id := range ids {
		if got := x.ID(i); got != id {
			t.Fatalf("ID(%d) = %q, want %q", i, got, id)
		}
		if k, ok := x.Index(id); !ok || k != i {
			t.Fatalf("Index(%q) = %d, %v; want %d", id, k, ok, i)
		}
		if k, ok := findID(x, []byte(id)); !ok || int(k) != i {
			t.Fatalf("findID(%q as bytes) = %d, %v; want %d", id, k, ok, i)
		}
	}
	for _, id := range absent {
		if k, ok := x.Index(id); ok {
			t.Fatalf("Index(%q) = %d, found; want absent", id, k)
		}
	}
}

// many returns n distinct IDs of varied lengths, enough to grow the
// hash table several times.
func many(n int) []string {
	ids := make([]string, n)
	for k := range ids {
		ids[k] = strconv.Itoa(k) + strings.Repeat("x", k%7)
	}
	return ids
}

func TestIDsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name       string
		ids        []string
		absent     []string
		shouldFail string // a substring of the error; "" for none
	}{
		{name: "none", ids: nil, absent: []string{"", "1"}},
		{name: "one", ids: []string{"u"}, absent: []string{"", "uu", "U"}},
		{name: "strings not numbers", ids: []string{"7", "07", "0", "00", "a1"}, absent: []string{"007", "1", "7 "}},
		{name: "empty ID", ids: []string{"", "a"}, absent: []string{"b"}},
		{name: "prefixes", ids: []string{"a", "ab", "abc", "b"}, absent: []string{"abcd", "ba"}},
		{name: "UTF-8 and long", ids: []string{"Ünïcødé", "用户", strings.Repeat("z", MaxIDBytes)}, absent: []string{strings.Repeat("z", MaxIDBytes-1)}},
		{name: "many", ids: many(5000), absent: []string{"5000", "0x", "4999xxxxxx"}},
		{name: "repeat", ids: []string{"a", "b", "a"}, shouldFail: `duplicate ID "a"`},
		{name: "repeat after growth", ids: append(many(300), "17xxx"), shouldFail: `duplicate ID "17xxx"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, err := NewIDs(c.ids)
			if c.shouldFail != "" {
				if err == nil || !strings.Contains(err.Error(), c.shouldFail) || !strings.HasPrefix(err.Error(), "ratings: ") {
					t.Fatalf("err = %v, want one with %q", err, c.shouldFail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, x, c.ids, c.absent)
			// A loader fills an empty IDs one by one, then compacts it;
			// strings from before stay what they were.
			y := newIDs()
			var before []string
			for i, id := range c.ids {
				k, err := addID(y, []byte(id))
				if err != nil || int(k) != i {
					t.Fatalf("addID(%q) = %d, %v; want %d", id, k, err, i)
				}
				before = append(before, y.ID(i))
			}
			checkRoundTrip(t, y, c.ids, c.absent)
			y.compact()
			if len(y.buf) != cap(y.buf) || len(y.end) != cap(y.end) || y.slot != nil {
				t.Errorf("compact: buffer %d of %d, ends %d of %d, %d slots; want no room to spare and no table", len(y.buf), cap(y.buf), len(y.end), cap(y.end), len(y.slot))
			}
			f := y.finder()
			checkRoundTrip(t, f, c.ids, c.absent)
			if y.slot != nil {
				t.Error("finder built a table in the IDs it shares")
			}
			checkRoundTrip(t, y, c.ids, c.absent) // Index builds the table
			checkRoundTrip(t, y, before, nil)
			want := tableSize(len(c.ids))
			if len(c.ids) == 0 {
				want = 0 // Index answers an empty IDs without a table
			}
			if len(y.slot) != want {
				t.Errorf("Index built %d slots for %d IDs, want %d", len(y.slot), len(c.ids), want)
			}
		})
	}
}

func TestNumberedIDsRoundTrip(t *testing.T) {
	for _, c := range []struct{ n, first int }{{0, 0}, {0, 1}, {1, 0}, {3, 1}, {1000, -5}, {2000, 999_999_000}} {
		t.Run(fmt.Sprintf("n=%d,first=%d", c.n, c.first), func(t *testing.T) {
			ids := make([]string, c.n)
			for k := range ids {
				ids[k] = strconv.Itoa(c.first + k)
			}
			checkRoundTrip(t, NumberedIDs(c.n, c.first), ids, []string{strconv.Itoa(c.first - 1), strconv.Itoa(c.first + c.n), "0" + strconv.Itoa(c.first+1)})
		})
	}
}

// The hash table stays at most 3/4 full as IDs are added one by one.
func TestIDsLoad(t *testing.T) {
	x := newIDs()
	for i, id := range many(3000) {
		if _, err := addID(x, id); err != nil {
			t.Fatal(err)
		}
		if 4*(i+1) > 3*len(x.slot) {
			t.Fatalf("%d IDs in %d slots", i+1, len(x.slot))
		}
	}
}

// ID and lookups do not allocate: loaders look up two IDs a line, and
// userdp sorts users by ID.
func TestIDsAllocs(t *testing.T) {
	x, err := NewIDs(many(100))
	if err != nil {
		t.Fatal(err)
	}
	key := []byte(strings.Repeat("k", 100)) // longer than a stack buffer for a conversion
	var n int
	if a := testing.AllocsPerRun(100, func() {
		n += len(x.ID(42))
		_, ok := findID(x, key)
		_, ok2 := x.Index("42")
		if ok || !ok2 {
			n++
		}
	}); a != 0 {
		t.Errorf("ID and lookups allocate %v times", a)
	}
}

// Goroutines may call Index at once on IDs whose table is not built yet
// (the race detector checks the first build; CI runs it on this package).
func TestIDsConcurrentIndex(t *testing.T) {
	ids := many(2000)
	x := newIDs()
	for _, id := range ids {
		if _, err := addID(x, id); err != nil {
			t.Fatal(err)
		}
	}
	x.compact()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(ids); i += len(errs) {
				if k, ok := x.Index(ids[i]); !ok || k != i {
					errs[g] = fmt.Errorf("Index(%q) = %d, %v; want %d", ids[i], k, ok, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// Loading a training and a test set leaves the training IDs without a
// hash table (a training run never looks an ID up afterwards), and the
// test set's ratings are those of its own IDs.
func TestLoadKeepsNoTable(t *testing.T) {
	d, err := Read(strings.NewReader("u1\ti1\t4\nu2\ti2\t3\nu1\ti2\t5\n"), "r.tsv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	te, err := ReadTest(strings.NewReader("u2\ti1\t2\nu3\ti1\t4\n"), "t.tsv", Options{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if d.Users.slot != nil || d.Items.slot != nil {
		t.Errorf("training IDs keep %d and %d hash slots after the loads", len(d.Users.slot), len(d.Items.slot))
	}
	if te.Users != d.Users || te.Items != d.Items {
		t.Error("the test set does not share the training IDs")
	}
	if v, ok := te.Ratings.Get(1, 0); te.Ratings.Len() != 1 || te.Stats.Cold != 1 || !ok || v != 2 {
		t.Errorf("test set: %d ratings, %d cold, (u2, i1) = %v, %v; want 1, 1, 2", te.Ratings.Len(), te.Stats.Cold, v, ok)
	}
}

// FuzzIDs builds IDs from the lines of the input, through NewIDs and a
// loader's addID and compact: either a repeated line is an error, or
// every ID round-trips and the first absent line variant is not found.
func FuzzIDs(f *testing.F) {
	f.Add("a\nb\nab\n")
	f.Add("7\n07\n0\n\n00")
	f.Add("x\ny\nx")
	f.Add(strings.Join(many(40), "\n"))
	f.Fuzz(func(t *testing.T, in string) {
		ids := strings.Split(in, "\n")
		seen := map[string]bool{}
		repeat := false
		for _, id := range ids {
			repeat = repeat || seen[id]
			seen[id] = true
		}
		absent := []string{}
		for _, id := range ids {
			if a := id + "\n"; !seen[a] { // a line holds no line feed
				absent = append(absent, a)
			}
		}
		x, err := NewIDs(ids)
		if repeat {
			if err == nil {
				t.Fatalf("NewIDs(%q) accepted a repeat", ids)
			}
			return
		}
		if err != nil {
			t.Fatalf("NewIDs(%q): %v", ids, err)
		}
		checkRoundTrip(t, x, ids, absent)
		y := newIDs()
		for _, id := range ids {
			if _, err := addID(y, id); err != nil {
				t.Fatal(err)
			}
		}
		y.compact()
		checkRoundTrip(t, y, ids, absent)
	})
}

// TestIDsZeroValue: the zero IDs is an empty mapping, as it was before
// IDs had a hash table.
func TestIDsZeroValue(t *testing.T) {
	var x IDs
	if i, ok := x.Index("a"); ok || i != 0 {
		t.Errorf("zero IDs: Index(\"a\") = %d, %v, want 0, false", i, ok)
	}
	if x.Len() != 0 {
		t.Errorf("zero IDs: Len() = %d", x.Len())
	}
}

// TestNumberedIDsText checks NumberedIDs' exact text size, across powers
// of ten and from negative numbers, against formatting each ID, and that
// a count whose text passes 4 GiB panics before allocating it.
func TestNumberedIDsText(t *testing.T) {
	for _, c := range []struct{ n, first int }{
		{0, 1}, {1, 0}, {9, 1}, {10, 1}, {11, 0}, {1000, 95}, {250, -120}, {3, math.MaxInt - 2}, {5, 999_999_998},
	} {
		x := NumberedIDs(c.n, c.first)
		want := 0
		for k := range c.n {
			id := strconv.Itoa(c.first + k)
			want += len(id)
			if got := x.ID(k); got != id {
				t.Fatalf("NumberedIDs(%d, %d).ID(%d) = %q, want %q", c.n, c.first, k, got, id)
			}
			if i, ok := x.Index(id); !ok || i != k {
				t.Fatalf("NumberedIDs(%d, %d).Index(%q) = %d, %v", c.n, c.first, id, i, ok)
			}
		}
		if len(x.buf) != want || cap(x.buf) != want {
			t.Errorf("NumberedIDs(%d, %d): text %d bytes (capacity %d), want %d", c.n, c.first, len(x.buf), cap(x.buf), want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NumberedIDs(5·10⁸, 1) did not panic (its text passes 4 GiB)")
		}
	}()
	NumberedIDs(500_000_000, 1)
}
