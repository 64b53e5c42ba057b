//go:build !unix

package cli

import "time"

// processCPU is unknown off Unix.
func processCPU() time.Duration { return 0 }
