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
