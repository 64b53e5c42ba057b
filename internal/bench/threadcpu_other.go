//go:build !linux

package bench

import "time"

// ThreadCPU is unknown off Linux.
func ThreadCPU() (time.Duration, bool) { return 0, false }
