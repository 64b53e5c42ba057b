package ocr

// #cgo LDFLAGS: -lgomp
// #include <omp.h>
// static void single_thread(void) { omp_set_dynamic(1); omp_set_num_threads(1); }
import "C"

import "runtime"

// Debian's libtesseract is built with OpenMP. Its worker threads spin while
// they wait, which on a busy machine costs more than they save on the
// one-line zones read here; and concurrency comes from the pool of clients
// anyway. The OpenMP thread count is a per-thread setting, so each read
// pins its goroutine to an OS thread and sets it there.
func lockSingleThread() func() {
	runtime.LockOSThread()
	C.single_thread()
	return runtime.UnlockOSThread
}
