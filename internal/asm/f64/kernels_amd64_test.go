//go:build !purego

package f64

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestDiagMasks512(t *testing.T) {
	for _, tt := range []struct {
		ncols int
		want  uint64
	}{
		{4, 0x0f07_0301},
		{8, 0xff7f_3f1f},
		{12, 0x0f07_0301},
		{32, 0xff7f_3f1f},
	} {
		if got := diagMasks(tt.ncols); got != tt.want {
			t.Errorf("diagMasks(%d) = %#x, want %#x", tt.ncols, got, tt.want)
		}
	}
}

// BenchmarkPeakFMA is the single-core peak: a loop of 12 independent
// vector FMAs, 4-wide (AVX2) and 8-wide (AVX-512).
func BenchmarkPeakFMA(b *testing.B) {
	const n = 1 << 16
	for _, impl := range Available()[1:] {
		b.Run("impl="+impl.String(), func(b *testing.B) {
			flops := 96.0
			for b.Loop() {
				if impl == AVX512 {
					fmaLoopAVX512(n)
				} else {
					fmaLoopAVX2(n)
				}
			}
			if impl == AVX512 {
				flops = 192
			}
			reportGFLOPS(b, flops*n)
		})
	}
}

// TestGatherAhead runs the assembly gather at prefetch distances from none
// to past the end of the rows: the distance must not change what is copied.
func TestGatherAhead(t *testing.T) {
	if best() == Generic {
		t.Skip("no AVX2 on this CPU")
	}
	g := rand.New(rand.NewPCG(1, 9))
	for _, ahead := range []int{0, 1, 3, 8, 16, 100} {
		for _, n := range []int{1, 3, 4, 5, 8, 15, 16, 17, 32, 33, 64, 67} {
			for _, k := range []int{1, 2, 8, 9, 50} {
				dst, dstAll, src, rows := gatherCase(g, 60, n, k, k%3)
				gatherAVX2(dst, src, n, rows, ahead)
				checkGather(t, fmt.Sprintf("ahead=%d n=%d k=%d", ahead, n, k), dst, dstAll, src, n, rows)
			}
		}
	}
}

// BenchmarkGatherAhead gathers 512 random rows of a 100 000-row matrix
// (25.6 MB at n = 32, larger than the caches, like U of the 10 M
// benchmark set) at several prefetch distances; ahead=0 prefetches
// nothing. Each op gathers a fresh random set of rows.
func BenchmarkGatherAhead(b *testing.B) {
	if best() == Generic {
		b.Skip("no AVX2 on this CPU")
	}
	const m, k = 100_000, 512
	g := rand.New(rand.NewPCG(1, 10))
	for _, n := range []int{8, 32, 64} {
		src, dst := randSlice(g, m*n), make([]float64, k*n)
		sets := make([][]int32, 256)
		for i := range sets {
			sets[i] = make([]int32, k)
			for p := range sets[i] {
				sets[i][p] = int32(g.IntN(m))
			}
		}
		b.Run(fmt.Sprintf("n=%d/copy", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				gatherGeneric(dst, src, n, sets[i%len(sets)])
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/row")
		})
		for _, ahead := range []int{0, 2, 4, 8, 12, 16, 32} {
			b.Run(fmt.Sprintf("n=%d/ahead=%d", n, ahead), func(b *testing.B) {
				i := 0
				for b.Loop() {
					gatherAVX2(dst, src, n, sets[i%len(sets)], ahead)
					i++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/row")
			})
		}
	}
}
