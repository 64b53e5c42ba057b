// Package mrz parses and reads ICAO 9303 machine readable zones. It is a
// library: it imports nothing of Tambua's domain and registers nothing; the
// mrz_parsing check (package checks/mrz) and the OCR check wrap it.
//
// Parse and ParseText take MRZ text in any of the five formats (TD1, TD2,
// TD3, MRV-A, MRV-B), report every check digit on its own, infer the century
// of dates, split names, and, with Options.Repair, undo the character
// confusions of OCR when that makes a failing check digit pass.
//
// Reader finds the MRZ band in a photo or scan and reads it with a
// classifier of the fixed-pitch OCR-B glyphs, whose templates it renders at
// start-up from the Debian font fonts-ocr-b. It is pure Go (no cgo).
//
// See docs/mrz.md.
package mrz
