//go:build !unix

package cli

import "time"

func processCPU() time.Duration { return 0 }
