package solver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/dpmc/dpmc/internal/asm/f32"
	"github.com/dpmc/dpmc/internal/asm/f64"
	"github.com/dpmc/dpmc/internal/procstat"
	"github.com/dpmc/dpmc/noise"
	"github.com/dpmc/dpmc/noise/discrete"
	"github.com/dpmc/dpmc/noise/huber"
	"github.com/dpmc/dpmc/ratings"
	"github.com/dpmc/dpmc/synthetic"
)

// The throughput benchmark, on one worker:
//
//	go test ./solver -run '^$' -bench 'SweepML100k' -benchtime 10x -count 6 | tee new.txt
//	go test ./solver -run '^$' -bench 'PaperML100k' -benchtime 1x -count 6 | tee -a new.txt
//	go test ./solver -run '^$' -bench SweepSynthetic -benchtime 3x -large
//	benchstat old.txt new.txt
//
// BenchmarkSweepML100k and BenchmarkPaperML100k need the shared MovieLens
// 100k files; BenchmarkSweepSynthetic generates its data (the 1 M set, and
// with -large the 10 M set too).
var benchLarge = flag.Bool("large", false, "BenchmarkSweepSynthetic: also the 10 M-rating set (about 4 s to generate and 1 GB of memory)")

// loadML100k returns MovieLens 100k's u1.base, or skips the benchmark or
// test if the shared data folder is absent.
func loadML100k(tb testing.TB) (train, test *ratings.Matrix) {
	tb.Helper()
	dir := filepath.Join("..", "..", "shared", "data", "movielens-100k")
	a, b, err := ratings.LoadPair(filepath.Join(dir, "u1.base"), filepath.Join(dir, "u1.test"), ratings.Options{})
	if err != nil {
		if errors.Is(err, fsNotExist) {
			tb.Skipf("MovieLens 100k not found in %s", dir)
		}
		tb.Fatal(err)
	}
	return a.Ratings, b.Ratings
}

// sweepFlops is the useful floating-point work of one ALS sweep at rank r
// on x, the unit of the GFLOP/s the benchmarks report: per rating and side
// r(r+1) for the lower triangle of the Gram matrix and 2r for the
// right-hand side, per row r³/3 for the Cholesky factorization and 2r² for
// the two triangular solves. Work a kernel does beyond this (the upper half
// of a diagonal tile, say) does not count.
func sweepFlops(x *ratings.Matrix, r int) float64 {
	rf := float64(r)
	perRating := rf*(rf+1) + 2*rf
	perRow := rf*rf*rf/3 + 2*rf*rf
	return 2*float64(x.Len())*perRating + float64(x.Rows()+x.Cols())*perRow
}

// paperFlops is the floating-point operations of one sweep of o on x,
// counting only what the algorithm cannot skip: sweepFlops for ALS; for
// R-IRLS the users' half of sweepFlops, each item's Gram matrix, its
// right-hand side and one r × r Cholesky factorization (r³/3 flops), and
// in each of its K inner iterations the residuals (2nr) and a solve with
// that factor (2r²: two triangular solves, or a product with the inverse,
// which itself costs more), or for an item solved in the space of its n ≤ r/4
// ratings (irlsDual) 4nr + n³/3 + 2n². Corrections for weights below 1
// come on top, so R-IRLS's count is a lower bound.
func paperFlops(x *ratings.Matrix, o Options) float64 {
	if o.Algorithm != IRLS {
		return sweepFlops(x, o.Rank)
	}
	r := float64(o.Rank)
	k := float64(o.IRLSIters)
	f := float64(x.Len())*(r*(r+1)+2*r) + float64(x.Rows())*(r*r*r/3+2*r*r)
	for j := range x.Cols() {
		users, _ := x.Col(j)
		n := float64(len(users))
		if len(users) <= dualMax(o.Rank) {
			f += n*n*r + k*(4*n*r+n*n*n/3+2*n*n)
			continue
		}
		f += n*(r*(r+1)+2*r) + r*r*r/3 + k*(2*n*r+2*r*r)
	}
	return f
}

// benchSweeps times sweeps of training on x with o, continuing from the
// state after warm sweeps (untimed): one op is one sweep (users, then
// items). It reports ALS-equivalent GFLOP/s (sweepFlops per op), and on
// Unix the process's CPU milliseconds per op and GFLOP per CPU second,
// which depend less on other work on a shared machine.
func benchSweeps(b *testing.B, x *ratings.Matrix, o Options, warm int) {
	b.Helper()
	if err := o.validate(); err != nil {
		b.Fatal(err)
	}
	o.Workers = 1
	t := newTrainer(x, &o)
	ctx := context.Background()
	if err := t.initItems(ctx); err != nil {
		b.Fatal(err)
	}
	item := t.itemALS
	if o.Algorithm == IRLS {
		item = t.itemIRLS
	}
	sweep := func(s int) {
		if err := t.parallel(ctx, x.Rows(), func(w *worker, i int) error { return t.user(w, s, i) }); err != nil {
			b.Fatal(err)
		}
		if err := t.parallel(ctx, x.Cols(), func(w *worker, j int) error { return item(w, s, j) }); err != nil {
			b.Fatal(err)
		}
	}
	s := 1
	for ; s <= warm; s++ {
		sweep(s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := procstat.CPUTime()
	for b.Loop() {
		sweep(s)
		s++
	}
	b.ReportMetric(sweepFlops(x, o.Rank)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu1, _ := procstat.CPUTime(); cpuOK {
		cpu := (cpu1 - cpu0).Seconds()
		b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
		b.ReportMetric(sweepFlops(x, o.Rank)*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
	}
}

// reportCPU reports the process's CPU seconds per op since cpu0 (from
// cpuTime), on Unix.
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool) {
	if cpu1, _ := procstat.CPUTime(); ok {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
}

// BenchmarkSweepML100k is one sweep on MovieLens 100k u1.base on one
// worker, after 3 untimed sweeps: ALS at ranks 8, 32 and 64, and the
// paper's IRLS (K = 20, threshold 3, warm start) at rank 32, all with the
// paper's Huber noise of variance 1 and λ = 0.5.
func BenchmarkSweepML100k(b *testing.B) {
	x, _ := loadML100k(b)
	mech, _ := huber.New(3, 1)
	for _, c := range []struct {
		algo Algorithm
		rank int
	}{{ALS, 8}, {ALS, 32}, {ALS, 64}, {IRLS, 32}} {
		b.Run(fmt.Sprintf("algo=%v/rank=%d", c.algo, c.rank), func(b *testing.B) {
			o := Options{Algorithm: c.algo, Rank: c.rank, Lambda: 0.5, Iters: 1, Noise: mech, Seeded: true, Seed: 1}
			if c.algo == IRLS {
				o.IRLSIters, o.Threshold, o.Init = 20, huber.PaperAlpha, InitWarm
			}
			benchSweeps(b, x, o, 3)
		})
	}
}

// BenchmarkPaperML100k is a whole paper-configuration run on MovieLens
// 100k u1.base, on one worker: rank 32, λ = 0.5, T = 50 sweeps, Huber
// noise of variance 1; ALS, and IRLS with K = 20 inner iterations,
// threshold 3 and a warm start. The ratio of the two is the cost of IRLS.
func BenchmarkPaperML100k(b *testing.B) { benchPaper(b, true, false) }

// BenchmarkPaperML100kCrypto is BenchmarkPaperML100k unseeded: the noise
// of a private run, from ChaCha8 streams under a run key drawn from
// crypto/rand (rng.Keyed; before, every bit came from crypto/rand).
func BenchmarkPaperML100kCrypto(b *testing.B) { benchPaper(b, false, false) }

// BenchmarkPaperML100kDiscrete is BenchmarkPaperML100kCrypto with the
// noise an unseeded `dpmc train` draws by default: exact discrete Huber
// noise on the grid γ = 2⁻⁴⁰ (package discrete), rounding included.
func BenchmarkPaperML100kDiscrete(b *testing.B) { benchPaper(b, false, true) }

// benchPaper runs the paper's ALS and R-IRLS on MovieLens 100k, with
// seeded or private noise, floating-point or exact discrete, and reports
// the CPU time.
func benchPaper(b *testing.B, seeded, exact bool) {
	x, _ := loadML100k(b)
	var mech noise.Mechanism
	mech, _ = huber.New(3, 1)
	if exact {
		var err error
		if mech, err = discrete.For(mech); err != nil {
			b.Fatal(err)
		}
	}
	for _, algo := range []Algorithm{ALS, IRLS} {
		b.Run(fmt.Sprintf("algo=%v", algo), func(b *testing.B) {
			o := Options{Algorithm: algo, Rank: 32, Lambda: 0.5, Iters: 50, Noise: mech, Seeded: seeded, Seed: 1, Workers: 1}
			if algo == IRLS {
				o.IRLSIters, o.Threshold, o.Init = 20, huber.PaperAlpha, InitWarm
			}
			cpu0, ok := procstat.CPUTime()
			for b.Loop() {
				if _, err := Train(context.Background(), x, o); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0, ok)
		})
	}
}

// BenchmarkSweepSynthetic is one ALS sweep at ranks 8, 32 and 64, on one
// worker, on the benchmark sets of synthetic.DefaultBenchmark: 1 M ratings
// (10 000 users × 2 000 items) and, with -large, 10 M (100 000 × 20 000),
// with the same ratings per user and per item, so time per sweep should
// grow linearly in ratings. It reports GFLOP/s and the peak resident
// memory of the test process (data set included), where Linux tells it.
func BenchmarkSweepSynthetic(b *testing.B) {
	scales := []int{10}
	if *benchLarge {
		scales = append(scales, 1)
	}
	mech, _ := huber.New(3, 1)
	for _, scale := range scales {
		d, err := synthetic.DefaultBenchmark(scale, 1).Generate()
		if err != nil {
			b.Fatal(err)
		}
		x := d.Ratings
		for _, rank := range []int{8, 32, 64} {
			b.Run(fmt.Sprintf("ratings=%dM/rank=%d", x.Len()/1_000_000, rank), func(b *testing.B) {
				benchSweeps(b, x, Options{Rank: rank, Lambda: 0.5, Iters: 1, Noise: mech, Seeded: true, Seed: 1}, 1)
				if hwm, ok := procstat.PeakRSS(); ok {
					b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
				}
			})
		}
	}
}

// BenchmarkPaperML100kNoiseless is BenchmarkPaperML100k without noise:
// the cost of the solver alone, without the K·r noise draws per item and
// sweep that IRLS adds (1.08 M Huber draws per sweep at K = 20, r = 32).
// It also reports the arithmetic a run cannot skip (paperFlops, GFLOP per
// run), whose ratio between IRLS and ALS bounds that of their times from
// below as long as IRLS's matrix–vector products run no faster than
// ALS's rank-k updates.
func BenchmarkPaperML100kNoiseless(b *testing.B) {
	x, _ := loadML100k(b)
	for _, algo := range []Algorithm{ALS, IRLS} {
		b.Run(fmt.Sprintf("algo=%v", algo), func(b *testing.B) {
			o := Options{Algorithm: algo, Rank: 32, Lambda: 0.5, Iters: 50, Seeded: true, Seed: 1, Workers: 1}
			if algo == IRLS {
				o.IRLSIters, o.Threshold, o.Init = 20, huber.PaperAlpha, InitWarm
			}
			cpu0, ok := procstat.CPUTime()
			for b.Loop() {
				if _, err := Train(context.Background(), x, o); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0, ok)
			b.ReportMetric(float64(o.Iters)*paperFlops(x, o)/1e9, "GFLOP/run")
		})
	}
}

// BenchmarkPaperNoiseDraws draws exactly the noise that a
// BenchmarkPaperML100k run draws, on MovieLens 100k's 1 682 items, and
// does nothing else: T = 50 sweeps of one r = 32 vector of Huber noise
// per item for ALS and K = 20 for IRLS, from the same per-item streams.
// BenchmarkPaperML100k minus this is the solver's own work; the noise is
// a fixed cost of the mechanism (Algorithm 3 adds fresh noise in every
// inner iteration), K times ALS's for IRLS.
func BenchmarkPaperNoiseDraws(b *testing.B) {
	mech, _ := huber.New(3, 1)
	const items, r, sweeps = 1682, 32, 50
	for _, c := range []struct {
		algo  Algorithm
		draws int
	}{{ALS, 1}, {IRLS, 20}} {
		b.Run(fmt.Sprintf("algo=%v", c.algo), func(b *testing.B) {
			o := Options{Rank: r, Iters: 1, Seeded: true, Seed: 1, Workers: 1}
			x, err := ratings.New(1, items, nil)
			if err != nil {
				b.Fatal(err)
			}
			w := newTrainer(x, &o).newWorker()
			v := make([]float64, r)
			cpu0, ok := procstat.CPUTime()
			for b.Loop() {
				for s := 1; s <= sweeps; s++ {
					for j := range items {
						rnd := w.rand(s, phaseItems, j)
						for range c.draws {
							noise.AddNoise(mech, v, rnd)
						}
					}
				}
			}
			reportCPU(b, cpu0, ok)
		})
	}
}

// BenchmarkSweepPaths is one ALS sweep at rank 32 on one worker on the
// 1 M benchmark set (with -large also the 10 M set) by each way of
// building the normal equations: Double (float64 factors and sums), Mixed
// as a CPU with AVX2 but not AVX-512 runs it (float32 factors gathered
// widened to float64 and summed by the float64 kernels; only where the
// float64 kernels are assembly), and Mixed with the float32 kernels this
// machine has (the default).
//
//	go test ./solver -run '^$' -bench SweepPaths -benchtime 3x -count 6
func BenchmarkSweepPaths(b *testing.B) {
	scales := []int{10}
	if *benchLarge {
		scales = append(scales, 1)
	}
	for _, scale := range scales {
		d, err := synthetic.DefaultBenchmark(scale, 1).Generate()
		if err != nil {
			b.Fatal(err)
		}
		x := d.Ratings
		paths := []struct {
			name      string
			precision Precision
			generic32 bool // no float32 sums in assembly (f32.AVX2 at most)
		}{{"double", Double, false}, {"mixed-wide", Mixed, true}, {"mixed", Mixed, false}}
		for _, p := range paths {
			if p.generic32 && f64.Active() == f64.Generic {
				continue
			}
			b.Run(fmt.Sprintf("ratings=%dM/path=%s", x.Len()/1_000_000, p.name), func(b *testing.B) {
				if p.generic32 {
					defer f32.Use(f32.Use(min(f32.AVX2, f32.Active())))
				}
				benchSweeps(b, x, Options{Rank: 32, Lambda: 0.005, LambdaScale: LambdaCount, Iters: 1, Seeded: true, Seed: 1, Precision: p.precision}, 1)
			})
		}
	}
}
