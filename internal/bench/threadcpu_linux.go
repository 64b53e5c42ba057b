package bench

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPU is the CPU time this OS thread has used: with the goroutine
// locked to its thread, the difference around a call is the call's own
// cost, whatever else the machine runs.
func ThreadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
