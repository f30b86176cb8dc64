package ratings

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// sharedData returns the path of a file in the shared dataset folder
// (../shared/data from the repository root), skipping the test if the
// folder is absent. The project does not ship these files.
func sharedData(t testing.TB, parts ...string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared datasets not available: %v", err)
	}
	path := filepath.Join(append([]string{dir}, parts...)...)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("dataset file not available: %v", err)
	}
	return path
}

// countValues counts d's ratings by value.
func countValues(d *Dataset) map[float64]int {
	c := map[float64]int{}
	for t := range d.Ratings.All() {
		c[t.Value]++
	}
	return c
}

func TestMovieLens100k(t *testing.T) {
	d, err := Load(sharedData(t, "movielens-100k", "u.data"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyDataset(d); err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatML100k || d.FormatReason != "file name u.data" {
		t.Errorf("format %v (%s)", d.Format, d.FormatReason)
	}
	if d.Ratings.Len() != 100000 || d.Users.Len() != 943 || d.Items.Len() != 1682 {
		t.Errorf("%d ratings, %d users, %d items; want 100000, 943, 1682", d.Ratings.Len(), d.Users.Len(), d.Items.Len())
	}
	want := map[float64]int{1: 6110, 2: 11370, 3: 27145, 4: 34174, 5: 21201}
	got := countValues(d)
	for v, n := range want {
		if got[v] != n {
			t.Errorf("%d ratings of %v, want %d", got[v], v, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("rating values %v", got)
	}
	if d.Stats != (Stats{Lines: 100000, Records: 100000}) {
		t.Errorf("stats %+v", d.Stats)
	}
	// Every user rated at least 20 movies.
	for i := range d.Ratings.Rows() {
		if items, _ := d.Ratings.Row(i); len(items) < 20 {
			t.Errorf("user %s rated %d movies", d.Users.ID(i), len(items))
		}
	}

	train, test, err := Split(d, 0.2, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if train.Ratings.Len() != 80000 || test.Ratings.Len() != 20000 {
		t.Errorf("split %d + %d", train.Ratings.Len(), test.Ratings.Len())
	}
}

func TestMovieLens100kSplit1(t *testing.T) {
	base := sharedData(t, "movielens-100k", "u1.base")
	train, test, err := LoadPair(base, sharedData(t, "movielens-100k", "u1.test"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Dataset{train, test} {
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
		if d.Format != FormatML100k {
			t.Errorf("%s: format %v", d.Source, d.Format)
		}
	}
	if train.Ratings.Len() != 80000 || train.Users.Len() != 943 || train.Items.Len() != 1650 {
		t.Errorf("u1.base: %d ratings, %d users, %d items; want 80000, 943, 1650", train.Ratings.Len(), train.Users.Len(), train.Items.Len())
	}
	// u1.test has 20000 lines; 32 of them rate one of 32 movies that
	// u1.base never rates, and are dropped.
	want := Stats{Lines: 20000, Records: 20000, Cold: 32, ColdItems: 32}
	if test.Stats != want || test.Ratings.Len() != 19968 {
		t.Errorf("u1.test: %d ratings, stats %+v; want 19968, %+v", test.Ratings.Len(), test.Stats, want)
	}
	// Read on its own, u1.test keeps all 20000.
	alone, err := Load(sharedData(t, "movielens-100k", "u1.test"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if alone.Ratings.Len() != 20000 {
		t.Errorf("u1.test alone: %d ratings", alone.Ratings.Len())
	}
}

func TestSweetRS(t *testing.T) {
	d, err := Load(sharedData(t, "sweetrs", "ratings-final.csv"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyDataset(d); err != nil {
		t.Fatal(err)
	}
	if d.Format != FormatSweetRS {
		t.Errorf("format %v (%s)", d.Format, d.FormatReason)
	}
	// 44543 rows after the header; 6383 are 0 (not rated), leaving 38160
	// ratings from 1468 users of 77 products; 19 pairs occur more than
	// once (44 surplus rows), leaving 38116 distinct pairs.
	want := Stats{Lines: 44544, Header: 1, Records: 44543, Zeros: 6383, Averaged: 19, Merged: 44}
	if d.Stats != want {
		t.Errorf("stats %+v, want %+v", d.Stats, want)
	}
	if d.Ratings.Len() != 38116 || d.Users.Len() != 1468 || d.Items.Len() != 77 {
		t.Errorf("%d ratings, %d users, %d products; want 38116, 1468, 77", d.Ratings.Len(), d.Users.Len(), d.Items.Len())
	}
	if d.Ratings.Min() != 1 || d.Ratings.Max() != 5 {
		t.Errorf("ratings span [%v, %v]", d.Ratings.Min(), d.Ratings.Max())
	}
	// Duplicates are rejected on request, naming both lines.
	_, err = Load(d.Source, Options{Duplicates: DuplicatesError})
	if err == nil {
		t.Error("DuplicatesError accepted SweetRS")
	}
}
