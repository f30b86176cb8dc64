// Package atomicfile writes output files so that a reader never sees a
// half-written file and nothing a user has is overwritten unasked: data go
// to a temporary file in the same directory, which is renamed over the
// target only when complete. A target that is not a regular file (a
// device such as /dev/null or /dev/stdout, a pipe, a symbolic link) is
// never replaced: it is written in place.
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
	"sync"
)

// live is the set of temporary files being written, so that a process
// that must exit while a write is still in progress (a signal arrived and
// some goroutine is blocked in a read or write that cannot be cancelled,
// such as opening a FIFO nobody writes) can remove them: see
// RemoveTemporary. It is the package's only mutable global state, and it
// has to be global: os.Exit runs no deferred function and the exiting
// goroutine holds no reference to the writes of the others.
var live = struct {
	sync.Mutex
	files  map[string]struct{}
	closed bool // set by RemoveTemporary: no new temporary file after it
}{files: make(map[string]struct{})}

// ErrExiting is wrapped by the error Write returns when RemoveTemporary
// has been called: the process is exiting and takes no new output.
var ErrExiting = errors.New("the process is exiting")

// createTemp creates a temporary file in dir, as os.CreateTemp, and
// records it in live; the returned function forgets it (call it once the
// file is renamed or removed).
func createTemp(dir, pattern string) (*os.File, func(), error) {
	live.Lock()
	defer live.Unlock()
	if live.closed {
		return nil, nil, ErrExiting
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, nil, err
	}
	name := f.Name()
	live.files[name] = struct{}{}
	return f, func() {
		live.Lock()
		delete(live.files, name)
		live.Unlock()
	}, nil
}

// RemoveTemporary removes the temporary file of every write in progress
// and makes every later Write fail with ErrExiting. A command calls it
// just before exiting with writes still running (after a signal, when
// they did not stop in time): their targets are left as they were. It
// returns the files it could not remove.
func RemoveTemporary() []string {
	live.Lock()
	defer live.Unlock()
	live.closed = true
	var left []string
	for name := range live.files {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, name)
		}
		delete(live.files, name)
	}
	return left
}

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
// is removed. An existing path that is not a regular file is written in
// place, not replaced (see writeInPlace).
func Write(path string, overwrite bool, fn func(w io.Writer) error) (err error) {
	if special, err := inPlace(path); err != nil {
		return err
	} else if special {
		return writeInPlace(path, overwrite, fn)
	}
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
	f, forget, err := createTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("creating temporary file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
		forget()
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

// inPlace reports whether path exists and must be written in place: it
// is a symbolic link (renaming over it would replace the link, not write
// where it points) or not a regular file (a device, a pipe, a socket),
// which a rename would replace by a regular file (as root, /dev/null
// itself). A directory is an error.
func inPlace(path string) (bool, error) {
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if lst.Mode().IsRegular() {
		return false, nil
	}
	if lst.IsDir() {
		return false, fmt.Errorf("%s is a directory, want a file name", path)
	}
	return true, nil
}

// writeInPlace writes what fn writes to the existing non-regular path:
// a device or pipe whatever overwrite says (there is nothing of the user's
// to lose), a symbolic link only with overwrite, truncating its target. It
// is not atomic: a reader may see part of the output if fn fails.
func writeInPlace(path string, overwrite bool, fn func(w io.Writer) error) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	flags := os.O_WRONLY
	if st.Mode().IsRegular() {
		if !overwrite {
			return fmt.Errorf("%s: %w (pass --force to overwrite)", path, ErrExists)
		}
		flags |= os.O_TRUNC
	} else if st.IsDir() {
		return fmt.Errorf("%s is a directory, want a file name", path)
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fn(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Check reports, before any long work, whether Write(path, overwrite, …)
// could succeed: path must not be a directory (an existing device or pipe
// is fine, and a symbolic link is written through with overwrite), its
// directory must exist
// and accept a new file (checked by creating and removing a temporary
// file there), and an existing path needs overwrite. An empty path is
// fine (no output asked for). Errors name the path.
func Check(path string, overwrite bool) error {
	if path == "" {
		return nil
	}
	if special, err := inPlace(path); err != nil {
		return err
	} else if special {
		// Written in place: a device or pipe always, a link with overwrite.
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if st.Mode().IsRegular() && !overwrite {
			return fmt.Errorf("%s: %w (pass --force to overwrite)", path, ErrExists)
		}
		if st.IsDir() {
			return fmt.Errorf("%s is a directory, want a file name", path)
		}
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
	f, forget, err := createTemp(dir, "."+base+".check-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create files in %s: %w", path, dir, err)
	}
	defer forget()
	f.Close()
	return os.Remove(f.Name())
}

// Same reports whether writing to out would replace or overwrite the
// existing file in: both exist and are one regular file (os.SameFile:
// the same path, or through a symbolic or a hard link). A device or pipe
// is never the same (it is written in place and holds nothing to lose),
// and neither is an out that does not exist yet. Commands use it to
// refuse an output that names one of their inputs, even when asked to
// overwrite.
func Same(out, in string) bool {
	if out == "" || in == "" {
		return false
	}
	so, err := os.Stat(out)
	if err != nil || !so.Mode().IsRegular() {
		return false
	}
	si, err := os.Stat(in)
	return err == nil && os.SameFile(so, si)
}
