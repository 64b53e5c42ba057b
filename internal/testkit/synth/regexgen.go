package synth

import "github.com/tambua/tambua/internal/testkit/regexgen"

// fromPattern draws a string matching pattern from g's stream.
func fromPattern(g *rng, pattern string) (string, error) { return regexgen.Draw(g.r, pattern) }
