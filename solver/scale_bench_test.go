package solver

import (
	"context"
	"flag"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dpmc/dpmc/internal/procstat"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/rng"
	"github.com/dpmc/dpmc/synthetic"
)

var (
	benchScale  = flag.String("scale", "1,10", "BenchmarkScale: benchmark sets, in millions of ratings, comma-separated (1, 10, 50, …)")
	benchTarget = flag.Float64("target", 0.15, "BenchmarkScale: the test RMSE to reach")
	benchRMSE   = flag.Float64("rmse", 0.86, "BenchmarkTimeToRMSE: the test RMSE to reach")
)

// BenchmarkScale trains non-private ALS at rank 32 (λ = 0.005 scaled by
// count, one worker) on benchmark sets of the shape of
// synthetic.DefaultBenchmark scaled to -scale million ratings (100 users and
// 20 items per thousand ratings, so 100 ratings per user and 500 per item
// at every size), until the RMSE on 100 000 held-out ratings
// (synthetic.Benchmark.Test) is at most -target (default 0.15, 1.5 times
// the data's noise SD of 0.1; the 1 M set gets there in 5 sweeps and
// levels off near 0.139), or 20 sweeps. One op is
// one such run; ns/op is its training time, without data generation or
// evaluation. It reports wall and CPU seconds per sweep, GFLOP/s
// (sweepFlops, on wall time), sweeps and wall and CPU seconds to the
// target (0 if not reached), the final test RMSE, the matrix's own
// MiB, the Go runtime's memory from the OS (Sys) and the process's peak
// resident memory (Linux), both including generation:
//
//	go test ./solver -run '^$' -bench Scale -benchtime 1x -scale 1,10,50
//
// Time per sweep should grow linearly in ratings.
func BenchmarkScale(b *testing.B) {
	const rank, lambda, maxSweeps, testSize = 32, 0.005, 20, 100_000
	for _, f := range strings.Split(*benchScale, ",") {
		millions, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || millions < 1 {
			b.Fatalf("-scale: %q is not a positive whole number of millions", f)
		}
		bm := synthetic.DefaultBenchmark(1, 1)
		bm.Users, bm.Items, bm.Ratings = 10_000*millions, 2_000*millions, 1_000_000*millions
		d, err := bm.Generate()
		if err != nil {
			b.Fatal(err)
		}
		x := d.Ratings
		test, err := bm.Test(testSize, x)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("ratings=%dM/rank=%d", millions, rank), func(b *testing.B) {
			o := Options{Rank: rank, Lambda: lambda, LambdaScale: LambdaCount, Iters: maxSweeps, Seeded: true, Seed: 1, Workers: 1}
			var res run
			for range b.N {
				res = scaleRun(b, x, test, o, Clip{}, *benchTarget)
			}
			b.ReportMetric(res.wall.Seconds()/float64(res.sweeps), "s/sweep")
			b.ReportMetric(res.cpu.Seconds()/float64(res.sweeps), "cpu-s/sweep")
			b.ReportMetric(sweepFlops(x, rank)*float64(res.sweeps)/res.wall.Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(float64(res.reached), "sweeps-to-target")
			b.ReportMetric(res.wallTarget.Seconds(), "s-to-target")
			b.ReportMetric(res.cpuTarget.Seconds(), "cpu-s-to-target")
			b.ReportMetric(res.rmse[len(res.rmse)-1], "test-RMSE")
			b.ReportMetric(float64(x.Bytes())/(1<<20), "matrix-MiB")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.Sys)/(1<<20), "Sys-MiB")
			if hwm, ok := procstat.PeakRSS(); ok {
				b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
			}
		})
	}
}

// run is one training run of scaleRun or BenchmarkTimeToRMSE: sweeps
// done, the first sweep at or below the target (0 if none) and the test
// RMSE after each.
type run struct {
	sweeps, reached       int
	wall, cpu             time.Duration // training only, all sweeps
	wallTarget, cpuTarget time.Duration // training only, to the target
	rmse                  []float64
}

// scaleRun trains ALS on x with o for up to o.Iters sweeps, stopping once
// the RMSE on test (predictions clipped by clip) is at most target (never,
// if target < 0). Only training is timed, in wall and in CPU time.
func scaleRun(b *testing.B, x, test *ratings.Matrix, o Options, clip Clip, target float64) run {
	b.StopTimer()
	defer b.StartTimer()
	ctx := context.Background()
	t := newTrainer(x, &o)
	if err := t.initItems(ctx); err != nil {
		b.Fatal(err)
	}
	var res run
	for s := 1; s <= o.Iters; s++ {
		start := time.Now()
		cpu0, _ := procstat.CPUTime()
		b.StartTimer()
		if err := t.parallel(ctx, x.Rows(), func(w *worker, i int) error { return t.user(w, s, i) }); err != nil {
			b.Fatal(err)
		}
		if err := t.parallel(ctx, x.Cols(), func(w *worker, j int) error { return t.itemALS(w, s, j) }); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu1, _ := procstat.CPUTime()
		res.wall += time.Since(start)
		res.cpu += cpu1 - cpu0
		res.sweeps = s
		rmse := t.testRMSE(test, clip)
		res.rmse = append(res.rmse, rmse)
		if res.reached == 0 && rmse <= target {
			res.reached, res.wallTarget, res.cpuTarget = s, res.wall, res.cpu
			break
		}
	}
	return res
}

// BenchmarkTimeToRMSE trains non-private ALS at rank 32 with λ scaled by
// count (ALS-WR), on one worker, on data of MovieLens 1M's kind, and
// reports when the test RMSE (predictions clipped to [1, 5]) first reaches
// -rmse (default 0.86), within 30 sweeps: sweeps and wall and CPU seconds
// to it (0 if never), and the best test RMSE with its sweep. The sets:
// MovieLens 100k u1.base/u1.test (λ = 0.1; skipped without the shared
// files) and synthetic.LegacyRealistic(6040, 1) (the first realistic generator), MovieLens 1M's shape,
// split 80/20 by ratings.Split at seed 1 (λ = 0.1).
//
//	go test ./solver -run '^$' -bench TimeToRMSE -benchtime 1x
func BenchmarkTimeToRMSE(b *testing.B) {
	const rank, lambda, maxSweeps = 32, 0.1, 30
	sets := []struct {
		name string
		load func(testing.TB) (train, test *ratings.Matrix)
	}{
		{"ml100k", loadML100k},
		{"realistic6040", func(tb testing.TB) (train, test *ratings.Matrix) {
			d, err := synthetic.LegacyRealistic(6040, 1).Generate()
			if err != nil {
				tb.Fatal(err)
			}
			tr, te, err := ratings.Split(d, 0.2, rng.Seeded(1))
			if err != nil {
				tb.Fatal(err)
			}
			return tr.Ratings, te.Ratings
		}},
	}
	for _, set := range sets {
		b.Run(fmt.Sprintf("data=%s/rank=%d", set.name, rank), func(b *testing.B) {
			x, test := set.load(b)
			o := Options{Rank: rank, Lambda: lambda, LambdaScale: LambdaCount, Iters: maxSweeps, Seeded: true, Seed: 1, Workers: 1}
			var res run
			for range b.N {
				res = scaleRun(b, x, test, o, Clip{Min: 1, Max: 5, On: true}, *benchRMSE)
			}
			best := 0
			for s, v := range res.rmse {
				if v < res.rmse[best] {
					best = s
				}
			}
			b.ReportMetric(float64(res.reached), "sweeps-to-target")
			b.ReportMetric(res.wallTarget.Seconds(), "s-to-target")
			b.ReportMetric(res.cpuTarget.Seconds(), "cpu-s-to-target")
			b.ReportMetric(res.rmse[best], "best-test-RMSE")
			b.ReportMetric(float64(best+1), "best-sweep")
			b.ReportMetric(res.cpu.Seconds()/float64(res.sweeps), "cpu-s/sweep")
		})
	}
}

// testRMSE returns the RMSE of the trainer's model as it stands between
// sweeps on test (predictions clipped by clip): Model.Errors, or for a
// Mixed run the same from the float32 factors (the model's own memory
// holds them as float32s until the run ends), without a float64 copy.
func (t *trainer) testRMSE(test *ratings.Matrix, clip Clip) float64 {
	if !t.mixed() {
		rmse, _ := t.model.Errors(test, clip)
		return rmse
	}
	r := t.opts.Rank
	var se float64
	for i := range test.Rows() {
		items, vals := test.Row(i)
		u := t.u32[i*r : i*r+r]
		for k, j := range items {
			v := t.v32[int(j)*r : int(j)*r+r]
			var p float64
			for q, x := range u {
				p += float64(x) * float64(v[q])
			}
			d := clip.Apply(p+t.model.Offset) - vals.At(k)
			se += d * d
		}
	}
	return math.Sqrt(se / float64(test.Len()))
}
