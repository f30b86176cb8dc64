//go:build !purego

package f64

import "testing"

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
