// Package outdir guards the folders that dpmc's long commands write their
// results into, so that a folder of the user's own is never written into
// by mistake.
package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrForeign is returned by Check for a folder that holds files but none
// the command wrote.
var ErrForeign = errors.New("not empty and holds no earlier results of this command")

// Check makes sure dir can take a command's results before it starts: it
// creates dir if absent, and accepts it if it is new or empty, if force is
// set, or if ours reports true for the path of one of its files (a result
// the command wrote earlier). Otherwise it returns an error wrapping
// ErrForeign, naming dir; an error creating or reading dir is returned
// wrapped too.
func Check(dir string, force bool, ours func(path string) bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("results folder: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("results folder: %w", err)
	}
	if len(entries) == 0 || force {
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() && ours(filepath.Join(dir, e.Name())) {
			return nil
		}
	}
	return fmt.Errorf("results folder %s: %w", dir, ErrForeign)
}
