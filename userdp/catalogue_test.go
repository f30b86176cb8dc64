package userdp

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestReadCatalogue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"1\n2\n3\n", []string{"1", "2", "3"}, ""},
		{"# items\n 10 \r\n\n20\r\n", []string{"10", "20"}, ""},
		{"a\nb\na\n", nil, "f:3: item \"a\" repeats line 1"},
		{"1,2\n", nil, "f:1: item ID \"1,2\" holds a comma"},
		{"x y\n", nil, "holds a comma or space"},
		{"a\tb\n", nil, "control character"},
		{"\xff\n", nil, "f:1: item ID is not valid UTF-8"},
		{"\n# none\n", nil, "f holds no item ID"},
		{strings.Repeat("x", MaxCatalogueLine+10), nil, "f:1: line longer than"},
	} {
		got, err := ReadCatalogue(strings.NewReader(tc.in), "f")
		if tc.err == "" {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrCatalogue) {
			t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
		}
	}
}

func FuzzReadCatalogue(f *testing.F) {
	for _, s := range []string{"1\n2\n", "# c\n a \r\n", "a\na\n", "1,2", "\xff", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ReadCatalogue(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || seen[id] || strings.ContainsAny(id, ", \t\r\n\x00") {
				t.Fatalf("bad ID %q in %q", id, ids)
			}
			seen[id] = true
		}
	})
}

// Item 10: a catalogue that matches none of the data warns, and the
// report never shows a negative noisy number of users.
func TestCatalogueMatchingNothingWarns(t *testing.T) {
	d := small(t, "")
	o := Defaults(0.05, 1e-6, 1, 5).WithCatalogue([]string{"x1", "x2", "x3"})
	res := train(t, d, o)
	s := Summarize(res, o, d, nil, "small", 0)
	found := false
	for _, w := range s.Warnings() {
		if strings.Contains(w, "none of the training ratings is of an item in the catalogue") && strings.Contains(w, "--items") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning for a catalogue that matches nothing: %q", s.Warnings())
	}
	ok := Summarize(train(t, d, Defaults(5, 1e-6, 1, 5)), Defaults(5, 1e-6, 1, 5), d, nil, "small", 0)
	for _, w := range ok.Warnings() {
		if strings.Contains(w, "catalogue") {
			t.Errorf("a warning about a catalogue without one: %q", w)
		}
	}
	p, err := NewPlan(Defaults(1, 1e-6, 1, 5))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Decide(-42); err != nil {
		t.Fatal(err)
	}
	if f := p.Report().Factors; strings.Contains(f, "-42") || !strings.Contains(f, "= 0 × 1") {
		t.Errorf("factors line %q shows the negative noisy count", f)
	}
}
