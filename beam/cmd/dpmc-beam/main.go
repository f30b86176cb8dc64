// Command dpmc-beam trains dpmc's user-level private model (what
// `dpmc train --privacy user` trains) as an Apache Beam pipeline: on the
// in-process Prism runner by default, or on any Beam runner (Flink,
// Dataflow, …) through Beam's --runner flag and its options. It writes the
// model file `dpmc predict` and `dpmc recommend` load, and prints the
// privacy report. See package github.com/dpmc/dpmc/beam/pipeline.
//
//	go run ./cmd/dpmc-beam --data ratings.csv --epsilon 1 --save model.dpmc
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/dpmc/dpmc/beam/pipeline"
	"github.com/dpmc/dpmc/internal/atomicfile"
)

func main() {
	var f pipeline.Flags
	f.Register(flag.CommandLine)
	flag.Parse()
	// Beam's and Prism's logs at --log-level (default warn: at info Prism
	// logs every stage on stderr), set before beam.Init sets them up.
	if err := pipeline.SetLogLevel(f.LogLevel); err != nil {
		fmt.Fprintln(os.Stderr, "dpmc-beam:", err)
		os.Exit(2)
	}
	beam.Init()
	// SIGINT, SIGTERM and SIGHUP cancel the pipeline (the --save file is
	// written atomically, so nothing is left half written); the handler
	// is removed at the first signal, so a second one ends dpmc-beam at
	// once, as the default action does.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-sigs
		signal.Stop(sigs)
		fmt.Fprintf(os.Stderr, "dpmc-beam: %v: stopping (a second signal ends it at once)\n", sig)
		cancel()
	}()
	set := map[string]bool{}
	flag.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := run(ctx, &f, func(name string) bool { return set[name] }); err != nil {
		fmt.Fprintln(os.Stderr, "dpmc-beam:", err)
		os.Exit(1)
	}
}

// run checks the flags (changed says which were given) and the output,
// runs the pipeline and prints the privacy report.
func run(ctx context.Context, f *pipeline.Flags, changed func(string) bool) error {
	cfg, err := f.Config(changed)
	if err != nil {
		return err
	}
	if err := checkSave(cfg.Save, cfg.Force, cfg.Files, f.Items); err != nil {
		return err
	}
	// A line per stage on stderr (pipeline.Config.Progress): a handful
	// of lines whatever the data's size.
	cfg.Progress = true
	if cfg.Options.Seeded {
		fmt.Fprintln(os.Stderr, "dpmc-beam: warning: --seed makes the noise reproducible: this run is NOT private (experiments only)")
	}
	counters, err := pipeline.Run(ctx, cfg)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(counters))
	if len(names) > 0 {
		// The counters are exact counts of the data (ratings, users, items).
		fmt.Fprintln(os.Stderr, "dpmc-beam: shuffle counters (exact figures of the data, for the operator: evaluation only, NOT released, NOT private):")
	}
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "dpmc-beam: shuffle: %s: %d\n", name, counters[name])
	}
	fmt.Fprintf(os.Stderr, "dpmc-beam: wrote the release (what the privacy report covers, nothing per user) to %s\n", cfg.Save)
	return pipeline.PrintReport(os.Stdout, cfg.Save, strings.EqualFold(f.Output, "json"))
}

// checkSave checks a local --save before the pipeline starts, so that a
// bad one costs no run and gives one clean error instead of the runner's
// dump: it must not be one of the inputs (data, the resolved --data files;
// items, the --items catalogue), even with force; without force it must
// not exist; its folder must exist and take a new file
// (atomicfile.Check). A remote path (gs://…) is left to the runner.
func checkSave(save string, force bool, data []string, items string) error {
	if strings.Contains(save, "://") {
		return nil
	}
	same := func(in string) bool {
		return in != "" && (filepath.Clean(save) == filepath.Clean(in) || atomicfile.Same(save, in))
	}
	if same(items) {
		return fmt.Errorf("--save %s is the same file as --items %s: an output never replaces an input, even with --force", save, items)
	}
	for _, in := range data {
		if same(in) {
			return fmt.Errorf("--save %s is the same file as --data %s: an output never replaces an input, even with --force", save, in)
		}
	}
	if err := atomicfile.Check(save, force); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	return nil
}
