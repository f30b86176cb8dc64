// Command beamprof runs dpmc-beam's pipeline (the same flags) on Prism
// with Go's profilers on, for the scale measurements in beam/README.md:
// a CPU profile of the whole run, and the heap profile (live objects by
// allocation site) taken when the live heap is at its largest, sampled
// once a second with runtime/metrics. Prism runs in process, so the
// profiles cover the runner and the pipeline's DoFns together.
//
//	go run ./internal/cmd/beamprof -cpuprofile cpu.pprof -heapprofile heap.pprof \
//	  --data 'r10m-*.csv' --epsilon 1 --rank 4 --iters 2 --seed 1 --save m.dpmc
//	go tool pprof -top -sample_index=inuse_space heap.pprof
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/dpmc/dpmc/beam/pipeline"
)

func main() {
	var f pipeline.Flags
	f.Register(flag.CommandLine)
	cpu := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	heap := flag.String("heapprofile", "", "write the heap profile taken at the largest live heap to this file")
	flag.Parse()
	if err := pipeline.SetLogLevel(f.LogLevel); err != nil {
		fmt.Fprintln(os.Stderr, "beamprof:", err)
		os.Exit(2)
	}
	beam.Init()
	set := map[string]bool{}
	flag.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := run(&f, func(name string) bool { return set[name] }, *cpu, *heap); err != nil {
		fmt.Fprintln(os.Stderr, "beamprof:", err)
		os.Exit(1)
	}
}

func run(f *pipeline.Flags, changed func(string) bool, cpu, heap string) error {
	cfg, err := f.Config(changed)
	if err != nil {
		return err
	}
	if cpu != "" {
		w, err := os.Create(cpu)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer w.Close()
		if err := pprof.StartCPUProfile(w); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	done := make(chan struct{})
	peak := make(chan uint64, 1)
	go watchHeap(heap, done, peak)
	_, err = pipeline.Run(context.Background(), cfg)
	close(done)
	fmt.Fprintf(os.Stderr, "beamprof: largest live heap sampled: %.2f GB\n", float64(<-peak)/1e9)
	return err
}

// watchHeap samples the live heap (runtime/metrics) once a second and,
// when it passes its largest value so far by 5 %, writes a heap profile
// to path (replacing the last). It sends the largest live heap seen on
// peak when done closes.
func watchHeap(path string, done <-chan struct{}, peak chan<- uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var most, written uint64
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			peak <- most
			return
		case <-t.C:
		}
		metrics.Read(s)
		live := s[0].Value.Uint64()
		most = max(most, live)
		if path != "" && live > written+written/20 {
			written = live
			runtime.GC() // the profile's in-use figures are as of the last GC
			if w, err := os.Create(path); err == nil {
				pprof.WriteHeapProfile(w)
				w.Close()
			}
		}
	}
}
