package userdp

import (
	"context"
	"flag"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpmc/dpmc/internal/procstat"
	"github.com/dpmc/dpmc/synthetic"
)

// BenchmarkTrainSampler times one default run (ε = 5, factors on) on the
// MovieLens-1M-shaped generator with each noise sampler, seeded (ChaCha8)
// and, for the discrete sampler, from crypto/rand as a real release:
//
//	go test ./userdp -run '^$' -bench TrainSampler -count 6 | benchstat -
func BenchmarkTrainSampler(b *testing.B) {
	d, err := synthetic.DefaultRealistic(6040, 1).Generate()
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		sampler Sampler
		seeded  bool
	}{
		{"float/seeded", SamplerFloat, true},
		{"discrete/seeded", SamplerDiscrete, true},
		{"discrete/crypto", SamplerDiscrete, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			o := Defaults(5, 1e-6, 1, 5)
			o.Sampler, o.Seeded, o.Seed = bc.sampler, bc.seeded, 1
			for b.Loop() {
				if _, err := Train(context.Background(), d, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var benchLarge = flag.Bool("large", false, "BenchmarkTrainMemory: the 10 M-rating set instead of the 1 M (about 4 s to generate, 400 MB)")

// BenchmarkTrainMemory measures what one default seeded run (ε = 5, so
// that the factors are on at both sizes) adds to the memory of its data, on the 1 M benchmark set
// (synthetic.DefaultBenchmark(10, 1); with -large the 10 M set):
// matrix-MiB is the data (Matrix.Bytes), B/op everything Train allocates
// (deterministic), and peak-heap-MiB the largest heap of live and
// not-yet-collected objects above the data's seen while Train ran
// (sampled every millisecond, so a lower bound; it depends on when the
// collector runs):
//
//	go test ./userdp -run '^$' -bench TrainMemory -benchtime 1x -count 3 -large
//	go test ./userdp -run '^$' -bench TrainMemory -benchtime 1x -memprofile mem.out
func BenchmarkTrainMemory(b *testing.B) {
	scale := 10
	if *benchLarge {
		scale = 1
	}
	d, err := synthetic.DefaultBenchmark(scale, 1).Generate()
	if err != nil {
		b.Fatal(err)
	}
	o := Defaults(5, 1e-6, d.Min, d.Max)
	o.Seeded, o.Seed = true, 1
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := heap()
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak.Store(max(peak.Load(), heap()))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	b.ReportAllocs()
	cpu0, cpuOK := procstat.CPUTime()
	for b.Loop() {
		if _, err := Train(context.Background(), d, o); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := procstat.CPUTime(); cpuOK {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
	close(done)
	<-sampled
	b.ReportMetric(float64(d.Ratings.Bytes())/(1<<20), "matrix-MiB")
	b.ReportMetric(float64(peak.Load()-min(base, peak.Load()))/(1<<20), "peak-heap-MiB")
}
