package cli

import (
	"time"

	"github.com/tambua/tambua/internal/bench"
)

// processCPU is bench.ProcessCPU under the name the OCR benchmark
// (bench_ocr.go), whose harness has not moved to internal/bench yet, uses.
func processCPU() time.Duration { return bench.ProcessCPU() }

// childrenCPU is bench.ChildrenCPU.
func childrenCPU() time.Duration { return bench.ChildrenCPU() }
