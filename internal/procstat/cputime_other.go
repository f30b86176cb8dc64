//go:build !unix

package procstat

import "time"

// CPUTime returns false: getrusage is not available on this system.
func CPUTime() (time.Duration, bool) { return 0, false }
