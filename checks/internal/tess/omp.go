// Package tess holds what the checks that run tesseract share: keeping
// its OpenMP threads from spinning and leptonica's messages off standard
// error.
package tess

// #cgo LDFLAGS: -lgomp -llept
// #include <omp.h>
// #include <leptonica/allheaders.h>
// static void single_thread(void) { omp_set_dynamic(1); omp_set_num_threads(1); omp_set_max_active_levels(0); }
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
//
// Tesseract asks for a team of four in every LSTM time step (a
// num_threads clause, which overrides the thread count), so the count
// set here alone does not hold: dynamic adjustment cut each team to one,
// but libgomp decides that by asking the kernel for the CPUs it may use
// and the load average (sched_getaffinity and sysinfo) at every
// parallel region, some 1240 system calls a line read. No active levels (max-active-levels 0, a process-wide
// setting in libgomp) runs every parallel region on the calling thread
// without asking: the same one thread, the same readings (437 line reads
// of four synth cards identical), 10 to 13 % less CPU a line read
// (docs/ocr.md, Speed, eighth round).
func LockSingleThread() func() {
	runtime.LockOSThread()
	C.single_thread()
	return runtime.UnlockOSThread
}
