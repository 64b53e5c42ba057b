//go:build race

package cli

// raceEnabled: the race detector slows rendering synthetic selfies about
// tenfold, so tests that render many skip under it (their logic is tested
// without it in the package that owns it).
const raceEnabled = true
