//go:build !unix

package bench

import "time"

// ProcessCPU is unknown off Unix.
func ProcessCPU() time.Duration { return 0 }

// ChildrenCPU is unknown off Unix.
func ChildrenCPU() time.Duration { return 0 }
