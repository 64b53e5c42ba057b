//go:build race

package server_test

// raceEnabled: the race detector slows the real checks (tesseract's Go
// side, image work) about tenfold, so the end-to-end test with them skips
// under it; scripts/test.sh runs it once without.
const raceEnabled = true
