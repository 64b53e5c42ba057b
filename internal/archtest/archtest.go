// Package archtest holds no code: its test checks the module's layout rules
// (docs/layout.md) with `go list`, so a coupling nobody can see in one file
// fails the suite instead of surfacing as a surprise registration.
package archtest
