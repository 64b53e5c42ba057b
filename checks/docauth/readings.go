package docauth

import (
	"fmt"
	"sort"

	"github.com/tambua/tambua/idv"
)

// weakConf is the word confidence (tesseract's 0..100) under which
// tesseract's words on the synth corpus are guesses at faint print or
// artwork (the line the reader used for its own weak words). A printed
// value read under it is the reader's guess, not the card's print. Chosen
// for the reader, not fitted here.
const weakConf = 75

// weakReading says why the printed value of the field is no evidence about
// the card, or "" when it was read firmly: next to its caption (or, on a
// generic layout, at its place in the caption order) and at a confidence
// the reader did not doubt. A value found without its caption may be
// another field's print (a held-out layout's date of issue taken for the
// date of birth), one taken from the MRZ is not the print at all. Without
// the reader's account (an older ocr_extraction), every value counts as
// read firmly, as before it was recorded.
func weakReading(r *idv.OCRReadings, field string) string {
	if r == nil {
		return ""
	}
	fr, ok := r.Fields[field]
	if !ok {
		return ""
	}
	switch fr.How {
	case "label", "order":
	case "mrz":
		return "not read from the print: taken from the MRZ"
	case "mrz_located":
		return "found on the print by the MRZ's value: it agrees with the MRZ by how it was found"
	case "":
		return "not read from the print"
	default:
		return "found without its caption (" + fr.How + "): it may be another field's print"
	}
	if fr.Conf < weakConf {
		return fmt.Sprintf("read at a confidence of %.0f, under the reader's own %d", fr.Conf, weakConf)
	}
	return ""
}

// mrzBacked: the value is the MRZ's, taken from it ("mrz") or found on
// the print by it ("mrz_located": the reader took the one run of print
// that reads the MRZ's value, so it agrees with the MRZ by how it was
// found). Either is examined with the MRZ, not as print of its own: the
// print found by the MRZ's value is where the MRZ's text reads, not
// print the layout ties to the field, and judged as the field's value
// it flagged a genuine card whose names are set in another face.
func mrzBacked(how string) bool { return how == "mrz" || how == "mrz_located" }

// firmFields splits the printed fields into those read firmly and notes
// on those that were not (for could_not_examine; none for values taken
// from the MRZ); names limits the split to those fields, all fields when
// nil.
func firmFields(r *idv.OCRReadings, fields map[string]string, names []string) (map[string]string, []string) {
	firm := map[string]string{}
	var weak []string
	consider := func(n string) {
		v := fields[n]
		if v == "" {
			return
		}
		if why := weakReading(r, n); why != "" {
			if !mrzBacked(r.Fields[n].How) {
				// A value taken from the MRZ is the MRZ's, examined
				// there: no note.
				weak = append(weak, fmt.Sprintf("%s %q %s", n, v, why))
			}
			return
		}
		firm[n] = v
	}
	if names == nil {
		for n := range fields {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	for _, n := range names {
		consider(n)
	}
	return firm, weak
}
