//go:build unix

package model

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Load of a directory says so; a FIFO (as --model <(cat m) gives) is read
// as a stream, whole or truncated (issue 24, item 11: they gave "0 bytes,
// shorter than the 16-byte preamble" and "header of 3898 bytes in a file
// of 0").
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := tiny().Write(&buf); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), dir+" is a directory, not a model file") {
		t.Errorf("Load(dir): %v", err)
	}
	for k, c := range []struct {
		name string
		data []byte
		want string // "" for success
	}{
		{"whole", whole, ""},
		{"empty", nil, "empty input, not a model file"},
		{"truncated in the data", whole[:len(whole)-9], "corrupt model file"},
		{"without its checksum", whole[:len(whole)-trailerSize], "truncated before its 4-byte checksum"},
		{"trailing byte", append(bytes.Clone(whole), 0), "trailing bytes"},
	} {
		fifo := filepath.Join(dir, "fifo"+string(rune('a'+k)))
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write(c.data)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			done <- err
		}()
		m, err := Load(fifo)
		if werr := <-done; werr != nil && !errors.Is(werr, syscall.EPIPE) {
			t.Fatalf("%s: writer: %v", c.name, werr)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && !equalModels(m, tiny()):
			t.Errorf("%s: read a different model", c.name)
		case c.want != "" && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), fifo)):
			t.Errorf("%s: %v, want ErrCorrupt naming %s and saying %q", c.name, err, fifo, c.want)
		}
	}
}

// equalModels compares what a file holds of two models.
func equalModels(a, b *Model) bool {
	var x, y bytes.Buffer
	return a.Write(&x) == nil && b.Write(&y) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}
