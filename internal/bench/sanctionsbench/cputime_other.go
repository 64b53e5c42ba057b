//go:build !linux

package sanctionsbench

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
