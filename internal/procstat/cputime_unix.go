//go:build unix

package procstat

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system) the process has used,
// and true; false where getrusage is not available.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
