//go:build !purego

package f32

import "testing"

// TestDiagMasks holds diagMasks to its definition: row r of a block of
// ncols columns writes columns up to ncols − 4 + r, of which those from
// the start of the last 16-column vector are its lanes.
func TestDiagMasks(t *testing.T) {
	for ncols := 4; ncols <= 128; ncols += 4 {
		start := 16 * ((ncols+15)/16 - 1)
		var want uint64
		for r := range 4 {
			lanes := ncols - 4 + r + 1 - start
			want |= (uint64(1)<<lanes - 1) << (16 * r)
		}
		if got := diagMasks(ncols); got != want {
			t.Fatalf("diagMasks(%d) = %#x, want %#x", ncols, got, want)
		}
	}
}
