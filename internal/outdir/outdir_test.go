package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	ours := func(path string) bool { return strings.HasSuffix(path, ".ours") }
	for _, c := range []struct {
		name  string
		files []string // nil: no folder
		force bool
		want  error // nil or ErrForeign
	}{
		{"absent", nil, false, nil},
		{"empty", []string{}, false, nil},
		{"earlier results", []string{"a.ours", "b.png"}, false, nil},
		{"foreign", []string{"notes.txt"}, false, ErrForeign},
		{"foreign, forced", []string{"notes.txt"}, true, nil},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		if c.files != nil {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		err := Check(dir, c.force, ours)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			t.Errorf("%s: no folder after Check: %v", c.name, serr)
		}
	}
}
