// Package synth renders the synthetic capture corpus Tambua's accuracy
// benchmarks run on: the front and back of every document definition for
// a random holder, photographed by a simulated phone, a selfie, and
// presentation and tampering attacks, each sample with its ground truth.
//
// Only the CLI (tambua synth, tambua bench synth) and tests import it; no
// runtime package may.
//
//	gen, err := synth.New(synth.Options{Definitions: docdefs.Default().Drawn(), Seed: 7, Difficulty: synth.Medium, Attacks: true})
//	s, err := gen.Sample(ctx, 0)      // s.Front, s.Back, s.Selfie are JPEG; s.Truth is truth.json
//	err = s.WriteDir("/tmp/c/00000")
//
// The same seed gives byte-identical samples on machines with the same
// Debian fonts (DejaVu, Liberation, OCR-B) and dlib face photos. See
// docs/synth.md for what is drawn and the truth's fields.
package synth
