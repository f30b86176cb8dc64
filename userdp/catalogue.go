package userdp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode"
	"unicode/utf8"
)

// MaxCatalogueLine is the longest line, in bytes, ReadCatalogue accepts.
const MaxCatalogueLine = 4096

// ErrCatalogue is wrapped by every error ReadCatalogue returns for bad
// content.
var ErrCatalogue = errors.New("bad item catalogue")

// ReadCatalogue reads a public item catalogue: one item ID per line, as in
// the ratings file's item column. Surrounding spaces and tabs and a final
// carriage return are trimmed; blank lines and lines starting with '#' are
// skipped. It returns an error naming the file and line for an ID that is
// not valid UTF-8, holds a comma, a space or a control character inside, is longer than
// MaxCatalogueLine, or repeats an earlier line, and for a catalogue with
// no ID.
func ReadCatalogue(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1024), MaxCatalogueLine+2)
	seen := map[string]int{}
	var ids []string
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		b = bytes.Trim(b, " \t")
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("userdp: %w: %s:%d: "+format, append([]any{ErrCatalogue, name, line}, a...)...)
		}
		switch {
		case !utf8.Valid(b):
			return nil, bad("item ID is not valid UTF-8")
		case bytes.ContainsAny(b, ", "):
			return nil, bad("item ID %q holds a comma or space: one ID per line", b)
		case bytes.ContainsFunc(b, unicode.IsControl):
			return nil, bad("item ID %q holds a control character", b)
		}
		id := string(b)
		if first, dup := seen[id]; dup {
			return nil, bad("item %q repeats line %d", id, first)
		}
		seen[id] = line
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("userdp: %w: %s:%d: line longer than %d bytes", ErrCatalogue, name, line+1, MaxCatalogueLine)
		}
		return nil, fmt.Errorf("userdp: reading %s: %w", name, err)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("userdp: %w: %s holds no item ID", ErrCatalogue, name)
	}
	return ids, nil
}

// LoadCatalogue is ReadCatalogue on the file at path.
func LoadCatalogue(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("userdp: item catalogue: %w", err)
	}
	defer f.Close()
	return ReadCatalogue(f, path)
}
