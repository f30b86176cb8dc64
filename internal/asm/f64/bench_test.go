package f64

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// reportGFLOPS reports flops per op as GFLOP/s.
func reportGFLOPS(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func randSlice(g *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*g.Float64() - 1
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

// BenchmarkGemmTNLower is the Gram matrix of k gathered factor rows of
// rank n, the solvers' main kernel; useful work k·n·(n+1) flops.
func BenchmarkGemmTNLower(b *testing.B) {
	g := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{8, 32, 64} {
		for _, k := range []int{64, 256} {
			a, c := randSlice(g, k*n), make([]float64, n*n)
			forEachImplBench(b, fmt.Sprintf("n=%d/k=%d", n, k), func(b *testing.B) {
				for b.Loop() {
					GemmTNLower(n, k, a, n, a, n, c, n)
				}
				reportGFLOPS(b, float64(k*n*(n+1)))
			})
		}
	}
}

// BenchmarkGemv is the residuals (GemvN) and the right-hand side (GemvT)
// of 64 factor rows at rank 32; 2·64·32 flops each.
func BenchmarkGemv(b *testing.B) {
	const m, n = 64, 32
	g := rand.New(rand.NewPCG(1, 2))
	a, x, y := randSlice(g, m*n), randSlice(g, m), make([]float64, m)
	forEachImplBench(b, "N", func(b *testing.B) {
		for b.Loop() {
			GemvN(m, n, a, n, x, y)
		}
		reportGFLOPS(b, 2*m*n)
	})
	forEachImplBench(b, "T", func(b *testing.B) {
		for b.Loop() {
			GemvT(m, n, 1, a, n, x, 1, y)
		}
		reportGFLOPS(b, 2*m*n)
	})
}

// BenchmarkDot is a dot product of length 32.
func BenchmarkDot(b *testing.B) {
	g := rand.New(rand.NewPCG(1, 3))
	x, y := randSlice(g, 32), randSlice(g, 32)
	var s float64
	forEachImplBench(b, "n=32", func(b *testing.B) {
		for b.Loop() {
			s += Dot(x, y)
		}
		reportGFLOPS(b, 64)
	})
	_ = s
}
