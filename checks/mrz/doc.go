// Package checks/mrz is the mrz_parsing check: a thin adapter over the mrz
// library that reads the band from the rectified card (or the raw capture),
// parses it with OCR repair and fills mrz_parsed.
//
// Importing the package registers the mrz_parsing check with idv.Register.
// See docs/mrz.md.
package mrz
