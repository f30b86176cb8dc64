// Package procstat reads what the benchmarks of ratings and solver report
// beside wall time: the process's CPU time and peak resident memory. Wall
// time on a shared machine depends on the neighbours; CPU time much less.
package procstat

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes (VmHWM in
// /proc/self/status) and true, or false where that file does not exist
// (Linux only).
func PeakRSS() (uint64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}
