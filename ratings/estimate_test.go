package ratings

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
