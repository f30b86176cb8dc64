package procstat

import (
	"runtime"
	"testing"
)

// Both readings exist on Linux, and CPU time never runs backwards.
func TestReadings(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM and getrusage are read on Linux")
	}
	rss, ok := PeakRSS()
	if !ok || rss == 0 {
		t.Errorf("PeakRSS = %d, %v", rss, ok)
	}
	c0, ok0 := CPUTime()
	s := 0
	for i := range 1_000_000 {
		s += i % 7
	}
	c1, ok1 := CPUTime()
	if !ok0 || !ok1 || c1 < c0 || s < 0 {
		t.Errorf("CPUTime %v then %v (%v, %v)", c0, c1, ok0, ok1)
	}
}
