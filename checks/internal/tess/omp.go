// Package tess holds what the checks that run tesseract share: keeping
// its OpenMP threads from spinning.
package tess

// #cgo LDFLAGS: -lgomp
// #include <omp.h>
// static void single_thread(void) { omp_set_dynamic(1); omp_set_num_threads(1); }
import "C"

import "runtime"

// LockSingleThread pins the calling goroutine to its OS thread and sets
// that thread's OpenMP team to one thread; call the returned function when
// the tesseract call is done.
//
// Debian's libtesseract is built with OpenMP. Its worker threads spin
// while they wait, which on a busy machine costs more than they save, and
// the checks get their concurrency from several clients anyway. The
// OpenMP thread count is a per-thread setting, hence the pinning.
func LockSingleThread() func() {
	runtime.LockOSThread()
	C.single_thread()
	return runtime.UnlockOSThread
}
