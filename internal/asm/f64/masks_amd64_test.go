//go:build !purego

package f64

import "testing"

// TestDiagMasksFormula holds the two constants of diagMasks to the masks
// built lane by lane from their definition, for every multiple of 4 up to
// 512 columns.
func TestDiagMasksFormula(t *testing.T) {
	for ncols := 4; ncols <= 512; ncols += 4 {
		start := 8 * ((ncols+7)/8 - 1)
		var want uint64
		for r := range 4 {
			for col := start; col < start+8; col++ {
				if col <= ncols-4+r {
					want |= 1 << (8*r + col - start)
				}
			}
		}
		if got := diagMasks(ncols); got != want {
			t.Fatalf("diagMasks(%d) = %#x, want %#x", ncols, got, want)
		}
	}
}
