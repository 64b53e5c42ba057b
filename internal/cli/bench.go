package cli

import "github.com/tambua/tambua/internal/bench"

// benchErr makes a harness's *bench.InputError (a folder without the data
// it needs) a usage error, exit status 2.
func benchErr(err error) error {
	if bench.IsInput(err) {
		return &UsageError{Err: err}
	}
	return err
}
