//go:build !unix

package cli

import "time"

// processCPU is unknown off Unix.
func processCPU() time.Duration { return 0 }

// childrenCPU is unknown off Unix.
func childrenCPU() time.Duration { return 0 }
