package cli

import (
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/bench/mrzbench"
)

// benchErr makes a harness's *bench.InputError (a folder without the data
// it needs) a usage error, exit status 2.
func benchErr(err error) error {
	if bench.IsInput(err) {
		return &UsageError{Err: err}
	}
	return err
}

// What the OCR benchmark (bench_ocr.go), whose harness has not moved to
// internal/bench yet, uses under its old names.

// processCPU is bench.ProcessCPU.
func processCPU() time.Duration { return bench.ProcessCPU() }

// mrzCase is an mrzbench.Case.
type mrzCase struct {
	name, path string
	lines      []string
}

// mrzSpecimens is mrzbench.Specimens.
func mrzSpecimens(dir string) ([]mrzCase, error) {
	cs, err := mrzbench.Specimens(dir)
	if err != nil {
		return nil, err
	}
	out := make([]mrzCase, len(cs))
	for i, c := range cs {
		out[i] = mrzCase{c.Name, c.Path, c.Lines}
	}
	return out, nil
}
