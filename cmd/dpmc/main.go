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
	"time"

	"github.com/dpmc/dpmc/internal/atomicfile"
)

// stopSignals stop dpmc: SIGINT (Ctrl-C), SIGTERM (kill, a scheduler's
// stop) and SIGHUP (the terminal or ssh session closing).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// grace is how long dpmc waits, after the first signal, for the work to
// stop by itself before it exits anyway.
const grace = time.Second

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr, grace))
}

// runMain runs the command line args as main does and returns the exit
// status. The first stop signal cancels the work's context: every file
// being written is then removed, not left half written or as a temporary
// file, and dpmc exits 1. The signal handler is removed at once, so a
// second signal has its default action (it ends dpmc immediately, without
// cleaning up). Work that has not returned after wait (it is blocked in an
// open, read or write that Go cannot cancel, such as a FIFO nobody
// writes) is abandoned: the temporary files of the writes in progress are
// removed (atomicfile.RemoveTemporary) and runMain returns 1, for main to
// exit.
func runMain(args []string, stdout, stderr io.Writer, wait time.Duration) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, stdout, stderr) }()
	var sig os.Signal
	select {
	case code := <-done:
		return code
	case sig = <-sigs:
	}
	signal.Stop(sigs)
	cancel()
	fmt.Fprintf(stderr, "dpmc: %v: stopping (a second signal ends dpmc at once)\n", sig)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case code := <-done:
		return code
	case <-timer.C:
	}
	left := atomicfile.RemoveTemporary()
	fmt.Fprintf(stderr, "dpmc: %v: stopped while blocked in a read or write (a pipe or FIFO without a writer or reader?); no output was written\n", sig)
	for _, name := range left {
		fmt.Fprintf(stderr, "dpmc: could not remove the temporary file %s\n", name)
	}
	return 1
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
