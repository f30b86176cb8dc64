package ratings

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// SplitUsers: no user is in both training and held out; every training
// user keeps every rating; every held-out rating is in exactly one of
// history and test, with ⌊0.2 n⌋ of a user's n in test; items are shared.
func TestSplitUsers(t *testing.T) {
	d := splitFixture(t)
	for _, c := range []struct {
		name string
		o    UserSplit
		held int
	}{
		{"count", UserSplit{Users: 7}, 7},
		{"fraction", UserSplit{Fraction: 0.25}, 8}, // round(7.5)
		{"one", UserSplit{Users: 1, Test: 0.5}, 1},
		{"all but one", UserSplit{Users: 29}, 29},
	} {
		h, err := SplitUsers(d, c.o, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h.History.Ratings.Rows() != c.held || h.Test.Ratings.Rows() != c.held || h.History.Users.Len() != c.held || h.Test.Users != h.History.Users {
			t.Fatalf("%s: %d history and %d test rows, want %d sharing IDs", c.name, h.History.Ratings.Rows(), h.Test.Ratings.Rows(), c.held)
		}
		if h.Train.Ratings.Rows()+c.held != 30 || h.Train.Users.Len() != h.Train.Ratings.Rows() {
			t.Fatalf("%s: %d training users + %d held out ≠ 30", c.name, h.Train.Ratings.Rows(), c.held)
		}
		for _, s := range []*Dataset{h.Train, h.History, h.Test} {
			if s.Items != d.Items || s.Ratings.Cols() != 20 || s.Min != 1 || s.Max != 5 || s.Source != "fixture" {
				t.Errorf("%s: a part does not share d's items, shape or range", c.name)
			}
		}
		test := c.o.Test
		if test == 0 {
			test = DefaultHeldOutTest
		}
		seen := map[string]bool{}
		for i := range h.Train.Ratings.Rows() {
			id := h.Train.Users.ID(i)
			seen[id] = true
			u, _ := d.Users.Index(id)
			a, av := d.Ratings.Row(u)
			b, bv := h.Train.Ratings.Row(i)
			if len(a) != len(b) {
				t.Fatalf("%s: training user %s has %d ratings, had %d", c.name, id, len(b), len(a))
			}
			for p := range a {
				if a[p] != b[p] || av.At(p) != bv.At(p) {
					t.Fatalf("%s: training user %s's ratings changed", c.name, id)
				}
			}
		}
		total := h.Train.Ratings.Len()
		for i := range c.held {
			id := h.History.Users.ID(i)
			if seen[id] {
				t.Fatalf("%s: user %s is in training and held out", c.name, id)
			}
			seen[id] = true
			u, _ := d.Users.Index(id)
			items, vs := d.Ratings.Row(u)
			hi, _ := h.History.Ratings.Row(i)
			ti, _ := h.Test.Ratings.Row(i)
			if want := int(test * float64(len(items))); len(ti) != want || len(hi)+len(ti) != len(items) {
				t.Errorf("%s: user %s: %d history + %d test of %d ratings, want %d test", c.name, id, len(hi), len(ti), len(items), want)
			}
			for p, j := range items {
				hv, inH := h.History.Ratings.Get(i, int(j))
				tv, inT := h.Test.Ratings.Get(i, int(j))
				if inH == inT || (inH && hv != vs.At(p)) || (inT && tv != vs.At(p)) {
					t.Fatalf("%s: user %s item %d: in history %v (%v), in test %v (%v), rating %v", c.name, id, j, inH, hv, inT, tv, vs.At(p))
				}
			}
			total += len(items)
		}
		if len(seen) != 30 || total != d.Ratings.Len() {
			t.Errorf("%s: %d users and %d ratings accounted for, want 30 and %d", c.name, len(seen), total, d.Ratings.Len())
		}
		if h.History.Ratings.Len()+h.Test.Ratings.Len()+h.Train.Ratings.Len() != d.Ratings.Len() {
			t.Errorf("%s: ratings lost or added", c.name)
		}
	}
}

// The same seed gives the same split; another seed another.
func TestSplitUsersDeterministic(t *testing.T) {
	d := splitFixture(t)
	split := func(seed uint64) *HeldOut {
		h, err := SplitUsers(d, UserSplit{Users: 10}, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	same := func(a, b *HeldOut) bool {
		for _, p := range [][2]*Dataset{{a.Train, b.Train}, {a.History, b.History}, {a.Test, b.Test}} {
			x, y := p[0].Ratings.Triples(), p[1].Ratings.Triples()
			if len(x) != len(y) || p[0].Users.Len() != p[1].Users.Len() {
				return false
			}
			for k := range x {
				if x[k] != y[k] {
					return false
				}
			}
			for i := range p[0].Users.Len() {
				if p[0].Users.ID(i) != p[1].Users.ID(i) {
					return false
				}
			}
		}
		return true
	}
	if !same(split(3), split(3)) {
		t.Error("seed 3 gave two splits")
	}
	if same(split(3), split(4)) {
		t.Error("seeds 3 and 4 gave the same split")
	}
}

func TestSplitUsersRejects(t *testing.T) {
	d := splitFixture(t)
	r := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name string
		d    *Dataset
		o    UserSplit
		r    *rand.Rand
		want string
	}{
		{"nil data", nil, UserSplit{Users: 1}, r, "nil Dataset"},
		{"nil rand", d, UserSplit{Users: 1}, nil, "rand"},
		{"all users", d, UserSplit{Users: 30}, r, "fewer than all"},
		{"negative", d, UserSplit{Users: -1}, r, "at least 1"},
		{"no count or fraction", d, UserSplit{}, r, "fraction"},
		{"fraction 1", d, UserSplit{Fraction: 1}, r, "fraction"},
		{"tiny fraction", d, UserSplit{Fraction: 0.01}, r, "at least 1"},
		{"test share 1", d, UserSplit{Users: 3, Test: 1}, r, "test share"},
	} {
		if _, err := SplitUsers(c.d, c.o, c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}
