// Package tess holds what the checks that run tesseract share: keeping
// its OpenMP threads from spinning and leptonica's messages off standard
// error.
package tess

// #cgo LDFLAGS: -lgomp -llept
// #include <omp.h>
// #include <leptonica/allheaders.h>
// static void single_thread(void) { omp_set_dynamic(1); omp_set_num_threads(1); }
// static void quiet(void) { setMsgSeverity(L_SEVERITY_NONE); }
import "C"

import "runtime"

// Leptonica, under tesseract, prints its complaints ("Error in
// boxClipToRectangle: box outside rectangle" for a small crop) on the
// process's standard error, which is the server's JSON log stream
// (issue 14). The severity is one process-wide setting; tesseract's own
// debug_file does not cover it. Nothing is lost: a read that failed
// still returns its error to the caller.
func init() { C.quiet() }

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
