//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A pipe and a symbolic link are written in place, never replaced by a
// regular file (devices take the pipe's way: a rename over /dev/null as
// root would replace the device itself, so the test does not touch it); a
// link needs overwrite, as its target is a file of the user's.
func TestWriteInPlace(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}

	// A named pipe, read concurrently.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := Check(fifo, false); err != nil {
		t.Errorf("Check(pipe): %v", err)
	}
	if err := Write(fifo, false, write("through the pipe")); err != nil {
		t.Fatalf("Write(pipe): %v", err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("pipe read %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v, %v", st.Mode(), err)
	}

	// A symbolic link to a file: refused without overwrite, written
	// through with it; the link stays a link.
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old contents, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Check(link, false); err == nil {
		t.Error("Check(link) without overwrite: no error")
	}
	if err := Write(link, false, write("new")); err == nil {
		t.Error("Write(link) without overwrite: no error")
	}
	if err := Write(link, true, write("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want %q", b, "new")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", st.Mode(), err)
	}
	// Nothing else was left in the folder.
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d entries in the folder, want 3", len(entries))
	}
}
