package main

import (
	"context"
	"fmt"
	"io"

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
