package ocr

import "github.com/tambua/tambua/checks/internal/tess"

// lockSingleThread keeps tesseract's OpenMP team to the calling thread
// (see checks/internal/tess).
func lockSingleThread() func() { return tess.LockSingleThread() }
