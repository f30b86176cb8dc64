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
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/dpmc/dpmc/beam/pipeline"
)

func main() {
	var f pipeline.Flags
	f.Register(flag.CommandLine)
	flag.Parse()
	beam.Init()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, &f); err != nil {
		fmt.Fprintln(os.Stderr, "dpmc-beam:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, f *pipeline.Flags) error {
	set := map[string]bool{}
	flag.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	cfg, err := f.Config(func(name string) bool { return set[name] })
	if err != nil {
		return err
	}
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
