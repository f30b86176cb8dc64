// Package atomicfile writes output files so that a reader never sees a
// half-written file and nothing a user has is overwritten unasked: data go
// to a temporary file in the same directory, which is renamed over the
// target only when complete.
package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is wrapped by the error Write returns when path exists and
// overwriting was not asked for.
var ErrExists = errors.New("file exists")

// WriteContext is Write, stopped when ctx is done: every write to w
// fails with ctx's error once it is, and a ctx done when fn returns fails
// too, so that a cancelled write leaves path as it was and no temporary
// file behind.
func WriteContext(ctx context.Context, path string, overwrite bool, fn func(w io.Writer) error) error {
	return Write(path, overwrite, func(w io.Writer) error {
		if err := fn(ctxWriter{ctx, w}); err != nil {
			return err
		}
		return ctx.Err()
	})
}

// ctxWriter fails every Write once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Write creates path from what fn writes to w. If path exists and overwrite
// is false it returns an error wrapping ErrExists and writes nothing. If fn
// or any file operation fails, path is left as it was and the temporary file
// is removed.
func Write(path string, overwrite bool, fn func(w io.Writer) error) (err error) {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: %w (pass --force to overwrite)", path, ErrExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("creating temporary file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if !overwrite {
		// Re-check: refuse to clobber a file that appeared meanwhile.
		if err := os.Link(f.Name(), path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%s: %w (pass --force to overwrite)", path, ErrExists)
			}
			// Hard links unsupported: fall back to rename.
			if err := os.Rename(f.Name(), path); err != nil {
				return fmt.Errorf("writing %s: %w", path, err)
			}
			return nil
		}
		return os.Remove(f.Name())
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Check reports, before any long work, whether Write(path, overwrite, …)
// could succeed: path must not be a directory, its directory must exist
// and accept a new file (checked by creating and removing a temporary
// file there), and an existing path needs overwrite. An empty path is
// fine (no output asked for). Errors name the path.
func Check(path string, overwrite bool) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("%s is a directory, want a file name", path)
		}
		if !overwrite {
			return fmt.Errorf("%s: %w (pass --force to overwrite)", path, ErrExists)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%s: directory %s: %w", path, dir, err)
	} else if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+base+".check-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create files in %s: %w", path, dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
