// Command dpmc is the command-line front door of the dpmc library:
// differentially private low-rank matrix completion with the Laplace,
// Gaussian and Huber mechanisms.
//
// Usage:
//
//	dpmc train      complete a ratings matrix (paper mode, or user-level DP with --privacy user)
//	dpmc budget     print the paper's Table 1 (privacy budget at equal noise variance)
//	dpmc account    compose K releases of a mechanism under every accountant, or calibrate to a total
//	dpmc audit      test a mechanism's or a training run's privacy claim empirically
//	dpmc reproduce  rerun the paper's experiments; write results, plots and REPRODUCTION.md
//	dpmc sample     write noise samples of a mechanism, one per line
//
// Run "dpmc help COMMAND" for every flag with its default and unit.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGINT (Ctrl-C), SIGTERM (kill, a scheduler's stop) and SIGHUP (the
	// terminal or ssh session closing) all cancel the work; every file
	// being written is then removed, not left half written or as a
	// temporary file, and dpmc exits 1.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the process exit status:
// 0 on success, 1 on any error (printed to stderr as "dpmc: …").
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "dpmc: %v\n", err)
		return 1
	}
	return 0
}
