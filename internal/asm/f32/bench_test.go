package f32

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func randSlice(g *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(2*g.Float64() - 1)
	}
	return s
}

// forEachImplBench runs f as a sub-benchmark per available implementation.
func forEachImplBench(b *testing.B, name string, f func(b *testing.B)) {
	for _, impl := range Available() {
		b.Run(fmt.Sprintf("impl=%v/%s", impl, name), func(b *testing.B) {
			defer Use(Use(impl))
			f(b)
		})
	}
}

// BenchmarkSyrkLower is the Gram matrix of k gathered factor rows of rank
// n, the fast ALS path's main kernel; useful work k·n·(n+1) flops.
func BenchmarkSyrkLower(b *testing.B) {
	g := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{8, 32, 64} {
		for _, k := range []int{64, 256} {
			a, c := randSlice(g, k*n), make([]float32, n*n)
			forEachImplBench(b, fmt.Sprintf("n=%d/k=%d", n, k), func(b *testing.B) {
				for b.Loop() {
					SyrkLower(n, k, a, n, c, n)
				}
				b.ReportMetric(float64(k*n*(n+1))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkGemvT is the right-hand side Σ x_p·a_p of k rows of rank n;
// 2·k·n flops.
func BenchmarkGemvT(b *testing.B) {
	g := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{8, 32, 64} {
		const k = 256
		a, x, y := randSlice(g, k*n), randSlice(g, k), make([]float32, n)
		forEachImplBench(b, fmt.Sprintf("n=%d/k=%d", n, k), func(b *testing.B) {
			for b.Loop() {
				GemvT(k, n, a, n, x, 1, y)
			}
			b.ReportMetric(float64(2*k*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkGather copies 512 random rows of a 100 000-row matrix (12.8 MB
// at n = 32: larger than the L2 cache), reporting ns per row.
func BenchmarkGather(b *testing.B) {
	g := rand.New(rand.NewPCG(3, 3))
	const srcRows, k = 100_000, 512
	for _, n := range []int{8, 32} {
		src, dst := randSlice(g, srcRows*n), make([]float32, k*n)
		rows := make([]int32, k)
		for p := range rows {
			rows[p] = int32(g.IntN(srcRows))
		}
		forEachImplBench(b, fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Gather(dst, src, n, rows)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/row")
		})
	}
}
