// Package mrz parses and reads ICAO 9303 machine readable zones, and is the
// mrz_parsing check.
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
// Importing the package registers the mrz_parsing check with idv.Register.
// See docs/mrz.md.
package mrz
