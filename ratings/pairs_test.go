package ratings

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestPairs reads implicit feedback, detected and declared: every pair
// is 1, a repeated pair counts once, the dataset is Implicit.
func TestPairs(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		opts       Options
		reason     string
	}{
		{"clicks.tsv", "u1\ti1\nu1\ti2\nu2\ti1\nu1\ti1\n", Options{}, "two fields"},
		{"clicks.csv", "user,item\nu1,i1\nu1,i2\nu2,i1\nu1,i1\n", Options{}, "two fields"},
		{"plays.test", "u1\ti1\r\n\r\nu1\ti2\r\nu2\ti1\r\nu1\ti1\r\n", Options{}, "two fields"},
		{"x", "userId,movieId\n\"u1\",i1\nu1,i2\nu2,i1\nu1,i1\n", Options{Format: FormatPairs}, "requested"},
		{"x", "u1\ti1\nu1\ti2\nu2\ti1\nu1\ti1\n", Options{Format: FormatPairs, Header: HeaderNo}, "requested"},
	} {
		d, err := Read(strings.NewReader(tt.data), tt.name, tt.opts)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if err := verifyDataset(d); err != nil {
			t.Fatal(err)
		}
		if d.Format != FormatPairs || !d.Implicit || !strings.HasPrefix(d.FormatReason, tt.reason) {
			t.Errorf("%s: format %v (%s), implicit %v", tt.name, d.Format, d.FormatReason, d.Implicit)
		}
		if d.Ratings.Len() != 3 || d.Stats.Merged != 1 || d.Users.Len() != 2 || d.Items.Len() != 2 {
			t.Errorf("%s: %d pairs, stats %+v", tt.name, d.Ratings.Len(), d.Stats)
		}
		for _, tr := range d.Ratings.Triples() {
			if tr.Value != 1 {
				t.Errorf("%s: value %v, want 1", tt.name, tr.Value)
			}
		}
		if d.Min != 0 || d.Max != 1 {
			t.Errorf("%s: range %v–%v, want 0–1", tt.name, d.Min, d.Max)
		}
	}
	// Rated files are not pairs.
	d, err := Read(strings.NewReader("1,2,3\n"), "r.csv", Options{})
	if err != nil || d.Implicit || d.Format != FormatCSV {
		t.Errorf("rated csv: %v, %+v", err, d)
	}
}

// TestPairsBadInput: pairs files follow the loaders' bad-input rules, and
// errors name file and line.
func TestPairsBadInput(t *testing.T) {
	for _, tt := range []struct {
		data string
		opts Options
		line int
		want error
		msg  string
	}{
		{"a\tb\nc\td\te\n", Options{}, 2, ErrSyntax, "3 fields, want 2"},
		{"a,b\nc\n", Options{}, 2, ErrSyntax, "1 fields, want 2"},
		{"a\tb\n\tb\n", Options{}, 2, ErrSyntax, "empty"},
		{"a\tb\na\tb\n", Options{Format: FormatPairs, Duplicates: DuplicatesError}, 2, ErrDuplicate, "already rated on line 1"},
		{"user,item\n", Options{}, 1, ErrNoRatings, "a header but no rating lines"},
		{"a,b\x00\n", Options{}, 1, ErrSyntax, "NUL"},
		{"a,\"b\n", Options{Format: FormatPairs}, 1, ErrSyntax, ""},
	} {
		_, err := Read(strings.NewReader(tt.data), "p.txt", tt.opts)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, tt.want) || pe.File != "p.txt" || pe.Line != tt.line || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: %v; want line %d, %v, %q", tt.data, err, tt.line, tt.want, tt.msg)
		}
	}
	if _, err := Read(strings.NewReader("a,b\n"), "p.txt", Options{Format: FormatPairs, Columns: "user,item"}); err == nil {
		t.Errorf("pairs with columns accepted")
	}
	// A caller's rating range (a model's) does not apply to pairs.
	d, err := Read(strings.NewReader("a,b\n"), "p.txt", Options{Min: 1, Max: 5})
	if err != nil || !d.Implicit || d.Min != 0 || d.Max != 1 {
		t.Errorf("pairs with a range: %v, %+v", err, d)
	}
}

// TestPairsTestSet reads a pairs test set against a pairs training set
// and Scan reads a pairs file as records without ratings.
func TestPairsTestSet(t *testing.T) {
	train, err := Read(strings.NewReader("a\tx\nb\ty\n"), "train.tsv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := ReadTest(strings.NewReader("a\ty\nc\tx\n"), "test.tsv", Options{}, train)
	if err != nil || test.Ratings.Len() != 1 || test.Stats.Cold != 1 || !test.Implicit {
		t.Fatalf("test: %v %+v", err, test)
	}
	n := 0
	info, err := Scan(context.Background(), strings.NewReader("user,item\na,x\na,y\n"), "h.csv", Options{}, func(r Record) error {
		if !math.IsNaN(r.Rating) {
			t.Errorf("record %+v has a rating", r)
		}
		n++
		return nil
	})
	if err != nil || info.Rated || info.Format != FormatPairs || n != 2 {
		t.Errorf("Scan: %v %+v, %d records", err, info, n)
	}
}
