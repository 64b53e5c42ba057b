// Package bench holds what the benchmark harnesses under internal/bench
// share: CPU time and resident memory of this process, percentiles and
// millisecond figures, and the error a harness returns for bad input.
// Each harness lives in its own package (mrzbench, facebench, ...); the
// tambua bench commands in internal/cli parse flags, call one and print
// its report.
package bench

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"
)

// Percentile returns the p-th percentile of xs, the element at index
// n*p/100 of the sorted values (the largest for p >= 100), or zero when xs
// is empty. xs is left as it is.
func Percentile[T cmp.Ordered](xs []T, p int) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// Mean returns the mean of ds, zero when empty.
func Mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s / time.Duration(len(ds))
}

// Pct formats a of b as a percentage with one decimal, "-" when b is 0.
func Pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// Millis is d in milliseconds.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MillisMicro is d in milliseconds to the microsecond, as the JSON
// reports carry their times.
func MillisMicro(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// HeapInUse returns the live heap after a collection.
func HeapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// InputError is an error in what the harness was given (a folder without
// the files it needs, an unusable URL): the command line reports it as
// bad usage rather than as a failure to run.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Inputf returns an *InputError.
func Inputf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// IsInput reports whether err is or wraps an *InputError.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
