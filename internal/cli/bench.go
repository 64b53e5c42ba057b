package cli

import (
	"os"
	"runtime/pprof"

	"github.com/tambua/tambua/internal/bench"
)

// benchErr makes a harness's *bench.InputError (a folder without the data
// it needs) a usage error, exit status 2.
func benchErr(err error) error {
	if bench.IsInput(err) {
		return &UsageError{Err: err}
	}
	return err
}

// startCPUProfile writes a CPU profile to path until stop is called; an
// empty path profiles nothing. The benches' -cpuprofile flag.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
