package ratings

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// splitFixture is a 30 × 20 dataset with 300 ratings.
func splitFixture(t *testing.T) *Dataset {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	var in []Triple
	for k := range 600 {
		in = append(in, Triple{int32(k % 30), int32(r.IntN(20)), float64(1 + r.IntN(5))})
	}
	m, _, err := Build(30, 20, in, DuplicatesAverage)
	if err != nil {
		t.Fatal(err)
	}
	users, items := make([]string, 30), make([]string, 20)
	for i := range users {
		users[i] = string(rune('A'+i%26)) + string(rune('a'+i/26))
	}
	for j := range items {
		items[j] = string(rune('a' + j))
	}
	u, err := NewIDs(users)
	if err != nil {
		t.Fatal(err)
	}
	it, err := NewIDs(items)
	if err != nil {
		t.Fatal(err)
	}
	return &Dataset{Ratings: m, Users: u, Items: it, Min: 1, Max: 5, Source: "fixture", Format: FormatCSV, FormatReason: "requested"}
}

func TestSplit(t *testing.T) {
	d := splitFixture(t)
	n := d.Ratings.Len()
	for _, frac := range []float64{0, 0.1, 0.2, 0.5, 0.999, 1} {
		train, test, err := Split(d, frac, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*Dataset{train, test} {
			if err := verifyMatrix(s.Ratings); err != nil {
				t.Fatal(err)
			}
			if s.Users != d.Users || s.Items != d.Items || s.Ratings.Rows() != 30 || s.Ratings.Cols() != 20 {
				t.Fatal("split does not share the ID maps and shape")
			}
			if s.Stats != (Stats{}) || s.Min != 1 || s.Max != 5 || s.Source != "fixture" {
				t.Errorf("split metadata: %+v", s)
			}
		}
		wantTest := int(frac*float64(n) + 0.5)
		if test.Ratings.Len() != wantTest || train.Ratings.Len() != n-wantTest {
			t.Errorf("frac %v: %d train + %d test, want %d + %d", frac, train.Ratings.Len(), test.Ratings.Len(), n-wantTest, wantTest)
		}
		// Disjoint, and together the original.
		for tr := range test.Ratings.All() {
			if _, ok := train.Ratings.Get(int(tr.User), int(tr.Item)); ok {
				t.Fatalf("frac %v: %v in both sets", frac, tr)
			}
		}
		union := append(train.Ratings.Triples(), test.Ratings.Triples()...)
		m, err := New(30, 20, union)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Triples(), d.Ratings.Triples()) {
			t.Fatalf("frac %v: train ∪ test differs from the original", frac)
		}
	}
}

func TestSplitDeterministic(t *testing.T) {
	d := splitFixture(t)
	split := func(seed uint64) []Triple {
		_, test, err := Split(d, 0.2, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return test.Ratings.Triples()
	}
	a, b, c := split(1), split(1), split(2)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave different splits")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds gave the same split")
	}
}

func TestSplitRejects(t *testing.T) {
	d := splitFixture(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, frac := range []float64{-0.1, 1.1, math.NaN()} {
		if _, _, err := Split(d, frac, r); err == nil {
			t.Errorf("Split with fraction %v succeeded", frac)
		}
	}
	if _, _, err := Split(nil, 0.5, r); err == nil {
		t.Error("Split(nil) succeeded")
	}
	if _, _, err := Split(d, 0.5, nil); err == nil {
		t.Error("Split with a nil *rand.Rand succeeded")
	}
}
