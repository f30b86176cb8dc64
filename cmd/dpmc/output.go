package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dpmc/dpmc/internal/atomicfile"
)

// outputFlags are the --output and --force flags shared by commands that
// write a result.
type outputFlags struct {
	path  string
	force bool
}

func (o *outputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.path, "output", "o", "", "write to this file (atomically: temporary file, then rename) instead of standard output")
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite the --output file if it exists")
}

// check reports, before any work, whether write could succeed: --force
// needs --output, and the --output path must be writable (see
// atomicfile.Check).
func (o *outputFlags) check() error {
	if o.path == "" {
		if o.force {
			return fmt.Errorf("--force needs --output")
		}
		return nil
	}
	if err := atomicfile.Check(o.path, o.force); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}

// write sends what fn writes to the --output file, or to stdout if none.
func (o *outputFlags) write(stdout io.Writer, fn func(io.Writer) error) error {
	if o.path == "" {
		if o.force {
			return fmt.Errorf("--force needs --output")
		}
		return fn(stdout)
	}
	return atomicfile.Write(o.path, o.force, fn)
}

// writeContext is write, stopped when ctx is done (a signal): the
// --output file is then left as it was, with no temporary file, and the
// error wraps ctx's.
func (o *outputFlags) writeContext(ctx context.Context, stdout io.Writer, fn func(io.Writer) error) error {
	if o.path == "" {
		if o.force {
			return fmt.Errorf("--force needs --output")
		}
		return fn(stdout)
	}
	return atomicfile.WriteContext(ctx, o.path, o.force, fn)
}

// namedFile is a file a command reads or writes, with the flag naming it.
type namedFile struct{ flag, path string }

// refuseSameFile returns an error naming both flags if the file out, of
// flag outFlag, is one of others: the same path once cleaned, or the same
// existing regular file through another name, a symbolic or a hard link
// (atomicfile.Same). --force does not lift it: an output never replaces
// a file the command reads or another output of the same run.
func refuseSameFile(outFlag, out string, others ...namedFile) error {
	if out == "" {
		return nil
	}
	for _, o := range others {
		if o.path == "" {
			continue
		}
		if filepath.Clean(out) == filepath.Clean(o.path) || atomicfile.Same(out, o.path) {
			return fmt.Errorf("%s %s is the same file as %s %s: an output never replaces a file the command reads or writes, even with --force", outFlag, out, o.flag, o.path)
		}
	}
	return nil
}
