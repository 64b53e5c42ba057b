//go:build unix

package cli

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user + system), so that
// benchmarks on a shared machine can report work done rather than waiting.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
