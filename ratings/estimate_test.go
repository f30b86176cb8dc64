package ratings

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEstimateLines checks the loader's guess of an input's lines, which
// sizes its buffers: from samples spread over an input that can be read
// at random, it is within a few per cent of the truth even when the lines
// lengthen down the file (users numbered in order, as dpmc generate
// writes them), where the head alone guesses high; it never guesses low
// by more than the 2 % margin it adds, which would cost a reallocation.
func TestEstimateLines(t *testing.T) {
	var lengthening, even bytes.Buffer
	for u := 1; u <= 60000; u++ {
		for k := range 3 {
			fmt.Fprintf(&lengthening, "%d\t%d\t%d\n", u, (u*7+k)%2000+1, k+1)
			fmt.Fprintf(&even, "%d\t%d\t%d\n", u%9+1, k+1, k+1)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name      string
		data      []byte
		lines     int
		headAlone bool // the reader cannot sample
	}{
		{"lengthening lines, a file", lengthening.Bytes(), 180000, false},
		{"even lines, a file", even.Bytes(), 180000, false},
		{"lengthening lines, a stream", lengthening.Bytes(), 180000, true},
	} {
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = f
		if c.headAlone {
			r = io.MultiReader(f) // no ReaderAt
		}
		head := c.data[:64<<10]
		_, all := estimateLines(int64(len(c.data)), head, sampleInput(r, int64(len(c.data)), len(head)))
		f.Close()
		ratio := float64(all) / float64(c.lines)
		switch {
		case c.headAlone && ratio < 1.05:
			t.Errorf("%s: guessed %d lines for %d (%.3f×); the head alone should guess high here", c.name, all, c.lines, ratio)
		case !c.headAlone && (ratio < 1 || ratio > 1.04):
			t.Errorf("%s: guessed %d lines for %d (%.3f×), want 1–1.04×", c.name, all, c.lines, ratio)
		}
	}
}

// TestAtOffsetZero: the loader samples an input at random only from its
// start, where the offsets of ReadAt and the bytes still to read agree.
func TestAtOffsetZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, []byte("1\t2\t3\n4\t5\t6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	partly := strings.NewReader("1\t2\t3\n4\t5\t6\n")
	if _, err := partly.Read(make([]byte, 3)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		r    io.Reader
		want bool
	}{
		{"a file just opened", f, true},
		{"a fresh strings.Reader", strings.NewReader("1\t2\t3\n"), true},
		{"a strings.Reader partly read", partly, false},
		{"a reader without Seek", io.MultiReader(strings.NewReader("x")), false},
	} {
		if got := atOffsetZero(c.r); got != c.want {
			t.Errorf("%s: atOffsetZero = %v, want %v", c.name, got, c.want)
		}
	}
	if _, err := f.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if atOffsetZero(f) {
		t.Error("a file read from offset 4: atOffsetZero = true")
	}
}
