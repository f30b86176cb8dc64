package atomicfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := Write(path, false, write("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, false, write("two")); !errors.Is(err, ErrExists) {
		t.Errorf("second write without overwrite: err = %v, want ErrExists", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "one" {
		t.Errorf("file = %q after refused overwrite, want %q", got, "one")
	}
	boom := errors.New("boom")
	if err := Write(path, true, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("failing writer: err = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "one" {
		t.Errorf("file = %q after failed write, want it untouched", got)
	}
	if err := Write(path, true, write("three")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "three" {
		t.Errorf("file = %q after overwrite, want %q", got, "three")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the output (temporary files left behind?)", len(entries))
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "out.txt"), false, func(io.Writer) error { return nil })
	if err == nil {
		t.Fatal("no error writing into a missing directory")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.txt")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path      string
		overwrite bool
		want      string // "" for no error
	}{
		{"", false, ""},
		{filepath.Join(dir, "new.txt"), false, ""},
		{existing, true, ""},
		{existing, false, "file exists"},
		{dir, true, "is a directory"},
		{filepath.Join(dir, "no", "such", "x.txt"), false, "directory"},
		{filepath.Join(existing, "x.txt"), false, "not a directory"},
	} {
		err := Check(tc.path, tc.overwrite)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%q, %v) = %v, want %q", tc.path, tc.overwrite, err, tc.want)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("Check left %v", left)
	}
}

// A context cancelled during the write, or by the time fn returns, makes
// WriteContext fail with context.Canceled, leaving no file and no
// temporary file; an uncancelled one writes the file.
func TestWriteContext(t *testing.T) {
	for _, c := range []struct {
		name    string
		cancel  int // cancel before this write of fn (0: never; 3: after fn's two writes)
		wantErr bool
	}{{"never", 0, false}, {"before the first write", 1, true}, {"between writes", 2, true}, {"after fn", 3, true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := WriteContext(ctx, path, false, func(w io.Writer) error {
				for k := 1; k <= 2; k++ {
					if c.cancel == k {
						cancel()
					}
					if _, err := w.Write(make([]byte, 1<<17)); err != nil {
						return err
					}
				}
				if c.cancel == 3 {
					cancel()
				}
				return nil
			})
			if got := errors.Is(err, context.Canceled); got != c.wantErr || (!c.wantErr && err != nil) {
				t.Fatalf("err = %v, want cancelled = %v", err, c.wantErr)
			}
			left, _ := os.ReadDir(dir)
			switch {
			case c.wantErr && len(left) != 0:
				t.Errorf("left behind: %v", left)
			case !c.wantErr && (len(left) != 1 || left[0].Name() != "out.txt"):
				t.Errorf("directory holds %v, want out.txt only", left)
			}
		})
	}
}

// RemoveTemporary removes the temporary file of a write still in
// progress (what dpmc does when a signal arrives and a write does not
// stop in time), the write then fails without creating its target, and
// every later write fails with ErrExiting.
func TestRemoveTemporary(t *testing.T) {
	defer func() { live.Lock(); live.closed = false; live.Unlock() }()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	inside, resume := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Write(path, false, func(w io.Writer) error {
			io.WriteString(w, "partial")
			close(inside)
			<-resume
			return nil
		})
	}()
	<-inside
	tmp, _ := filepath.Glob(filepath.Join(dir, ".out.txt.tmp-*"))
	if len(tmp) != 1 {
		t.Fatalf("temporary files during the write: %v, want one", tmp)
	}
	if left := RemoveTemporary(); len(left) != 0 {
		t.Errorf("RemoveTemporary left %v", left)
	}
	if _, err := os.Stat(tmp[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file after RemoveTemporary: %v", err)
	}
	close(resume)
	if err := <-done; err == nil {
		t.Error("the interrupted write succeeded")
	}
	if err := Write(path, false, func(w io.Writer) error { return nil }); !errors.Is(err, ErrExiting) {
		t.Errorf("Write after RemoveTemporary: %v, want ErrExiting", err)
	}
	if err := Check(path, false); err == nil {
		t.Error("Check after RemoveTemporary: nil error")
	}
	if all, _ := filepath.Glob(filepath.Join(dir, "*")); len(all) != 0 {
		t.Errorf("left behind: %v", all)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(hidden) != 0 {
		t.Errorf("left behind: %v", hidden)
	}
}

// Same finds an input behind every name: the path itself, another
// spelling of it, a symbolic link and a hard link; not another file, a
// file that does not exist, or a device.
func TestSame(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	other := filepath.Join(dir, "other.txt")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sym, hard := filepath.Join(dir, "sym"), filepath.Join(dir, "hard")
	if err := os.Symlink(in, sym); err != nil {
		t.Skip(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		out  string
		want bool
	}{
		{in, true},
		{filepath.Join(dir, ".", "x", "..", "in.txt"), true},
		{sym, true},
		{hard, true},
		{other, false},
		{filepath.Join(dir, "new.txt"), false},
		{"", false},
		{os.DevNull, false},
	} {
		if got := Same(c.out, in); got != c.want {
			t.Errorf("Same(%q, in) = %v, want %v", c.out, got, c.want)
		}
	}
	if Same(os.DevNull, os.DevNull) {
		t.Errorf("Same(%s, %[1]s) = true, want false (a device holds nothing to lose)", os.DevNull)
	}
}
