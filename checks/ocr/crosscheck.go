package ocr

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tambua/tambua/checks/internal/mrzdata"
	"github.com/tambua/tambua/idv"
	mrzpkg "github.com/tambua/tambua/mrz"
)

// MRZData is the parse m in the form the Case carries (for tools that
// compare a reading with a known MRZ).
func MRZData(m *mrzpkg.MRZ) *idv.MRZData { return mrzdata.From(m) }

// MRZValue is the value of the parsed MRZ field name (a FieldDef's MRZ:
// document_number, surname...) in the normalised form of combined: dates
// DD.MM.YYYY, fillers as spaces. "" when the MRZ does not carry it.
func MRZValue(m *idv.MRZData, name string) string { return mrzdata.Value(m, name) }

// checked tells whether a check digit covers the MRZ field: the document
// number, the dates, and the optional data or personal number (its own
// digit in TD3, the composite one in TD1 and TD2).
func checked(name string) bool {
	switch name {
	case "document_number", "date_of_birth", "date_of_expiry", "personal_number", "optional_data":
		return true
	}
	return false
}

// agrees compares a printed value with the MRZ's. Names compare as sets of
// words, since cards print given names and surname in varying order and
// the MRZ truncates long names.
func agrees(field, printed, fromMRZ string) bool {
	if printed == fromMRZ {
		return true
	}
	switch field {
	case "full_name", "surname", "given_names":
		b := strings.Fields(strings.ReplaceAll(fromMRZ, "-", " "))
		pa := strings.Fields(strings.NewReplacer("-", " ", "'", "").Replace(printed))
		sort.Strings(pa)
		sort.Strings(b)
		return strings.Join(pa, " ") == strings.Join(b, " ")
	}
	return false
}

// crossCheck compares the MRZ-backed fields with the MRZ. When the MRZ's
// check digits all pass and it is of the definition's format its values
// are trusted: a printed value that disagrees is listed as a conflict (and
// kept, for a reviewer to see), and a field that could not be read is
// taken from the MRZ.
func crossCheck(ex *Extraction, d *idv.DocumentDefinition, m *idv.MRZData) {
	if m == nil {
		return
	}
	trusted := mrzTrusted(d, m)
	ex.Quality.MRZTrusted = trusted
	compared, agreed := 0, 0
	for _, f := range d.Fields {
		if f.MRZ == "" || f.Fixed != "" {
			continue
		}
		mv := MRZValue(m, f.MRZ)
		if mv == "" {
			continue
		}
		pv := ex.Fields[f.Name]
		if pv == "" {
			if trusted {
				if validValue(f, mv) {
					ex.Fields[f.Name] = mv
					ex.FromMRZ = append(ex.FromMRZ, f.Name)
				}
			}
			continue
		}
		compared++
		if agrees(f.MRZ, pv, mv) {
			agreed++
		} else if trusted && checked(f.MRZ) && fold(pv) == fold(mv) && validValue(f, mv) {
			// The print differs only by letters and digits OCR cannot
			// tell apart (O and 0, I and 1...); the MRZ's check digits
			// settle which it is. Only for fields a check digit covers:
			// the MRZ's own reading of a name or a country code is no
			// surer than the print's (UTO printed, UTQ in the MRZ).
			ex.Fields[f.Name] = mv
			ex.Resolved = append(ex.Resolved, f.Name)
			agreed++
		} else if trusted {
			ex.Quality.Conflicts = append(ex.Quality.Conflicts, f.Name)
		}
	}
	if compared > 0 {
		ex.Quality.Agreement = float64(agreed) / float64(compared)
	}
}

// validValue reports whether an already normalised value matches the
// field's pattern.
func validValue(f idv.FieldDef, v string) bool {
	if f.Pattern == "" {
		return v != ""
	}
	re, err := compiled(f.Pattern)
	return err == nil && re.MatchString(v)
}

// fold maps the letters OCR confuses with digits to those digits.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if d, ok := toDigit[r]; ok {
			return d
		}
		return r
	}, s)
}

// locatedByMRZ finds the print of a name or code a trusted MRZ carries
// on a side where that field was read only weakly (from its zone, by a
// caption taken by where it stands, or by its place in a column) and the
// reading disagrees with the MRZ: a page whose small captions were all
// lost, its surname read from whatever stood in the definition's zone.
// The one run of the side's print that reads the MRZ's value (no
// caption, no other field's print) is the field's print,
// and its value is the print's: the MRZ says which print it is, not what
// it says. A printed value that was altered reads no such run and stays
// as read, to be listed as a conflict. An issuer's dates are left to
// their order and the check digits (crossCheck); a generic definition's
// are located too. It returns the fields it placed.
func locatedByMRZ(d *idv.DocumentDefinition, m *idv.MRZData, lys map[string]*layout, rs map[string]fieldRead) []string {
	var placed []string
	// A name read next to a caption but spelling the MRZ's other name,
	// not its own, was given the wrong caption: a caption naming both
	// (NOM PRÉNOM / SURNAME NAME over a surname and given names on one
	// line, the Polish visa) of which only the given names' word was
	// read. That reading is as weak as one taken from the zone.
	misnamed := map[string]bool{}
	for _, f := range d.Fields {
		other := map[string]string{"surname": "given_names", "given_names": "surname"}[f.MRZ]
		r := rs[f.Name]
		if other == "" || !r.valid {
			continue
		}
		own, theirs := MRZValue(m, f.MRZ), MRZValue(m, other)
		if theirs != "" && !agrees(f.MRZ, r.value, own) && agrees(other, r.value, theirs) {
			misnamed[f.Name] = true
		}
	}
	weak := func(n string, r fieldRead) bool { return placedWeakly(r) || misnamed[n] }
	for _, f := range d.Fields {
		ly := lys[f.Zone.Side]
		// An issuer's dates are left to their order and the check digits
		// (crossCheck); a generic page's are found like its names, by the
		// one run of print that reads the MRZ's date in any common
		// print (10.05.1986, 14 MAR/MAR 87, 1960-02-08), where no caption
		// was read beside them (5 px captions, a trilingual caption read
		// as noise).
		if f.MRZ == "" || f.Fixed != "" || f.Type == idv.FieldDate && !d.Generic() || ly == nil {
			continue
		}
		mv := MRZValue(m, f.MRZ)
		r := rs[f.Name]
		if mv == "" || r.valid && (!weak(f.Name, r) || agrees(f.MRZ, r.value, mv)) {
			continue
		}
		var others []fieldRead
		for n, o := range rs {
			if n != f.Name && o.valid && !weak(n, o) && !o.box.Empty() {
				others = append(others, o)
			}
		}
		// Four letters or more read as the MRZ has them are no chance
		// reading, however unsure tesseract was of them (Mwangi in a
		// soft capture at 30); a short code must be read surely, and as it
		// is printed (a sex from MALE or a lone F, not from the word OF).
		minConf := float64(shapeConf)
		if len(alnum(mv)) >= 4 {
			minConf = 0
		}
		// The MRZ itself reads its values too (a line read MOKOENA THABO
		// with its fillers dropped): only print above it is the VIZ.
		mrzTop := ly.mrzTop()
		var found []candidate
		var values []string
		for _, seg := range ly.runs() {
			for a := range seg {
				for b := a + 1; b <= len(seg); b++ {
					c := ly.makeCandidate(f, seg[a:b], 0)
					if c.box.Max.Y > mrzTop {
						continue
					}
					v, ok := Normalize(f, c.text)
					// A number or date a check digit covers may read with
					// letters and digits OCR confuses (LTOO00000 for
					// LT0000000): its run is found all the same, and
					// crossCheck settles its characters by the check
					// digit, as for any print.
					same := agrees(f.MRZ, v, mv) || checked(f.MRZ) && fold(v) == fold(mv)
					if ok && c.conf >= minConf && same && (plain(f, c.text, v) || alnum(c.text) == alnum(v)) && !overlapsAny(c.box, others) &&
						!slices.ContainsFunc(found, func(o candidate) bool { return o.box.Overlaps(c.box) }) {
						found, values = append(found, c), append(values, v)
					}
				}
			}
		}
		if len(found) > 1 {
			// The value printed in capitals, as the MRZ has it, over the
			// same name written by hand (the Swedish card's signature
			// Specimen beside its surname SPECIMEN): when exactly one
			// run is in capitals, it is the field's print.
			caps := -1
			for i, c := range found {
				if strings.ToUpper(c.text) == c.text {
					if caps >= 0 {
						caps = -1
						break
					}
					caps = i
				}
			}
			if caps >= 0 {
				found, values = found[caps:caps+1], values[caps:caps+1]
			}
		}
		if len(found) != 1 {
			continue
		}
		c := found[0]
		rs[f.Name] = fieldRead{box: c.box, how: "mrz_located", raw: fmt.Sprintf("located by the MRZ %s|%.0f", c.text, c.conf),
			value: values[0], valid: true, conf: c.conf}
		placed = append(placed, f.Name)
	}
	return placed
}

// placedWeakly: read from the zone, by a caption taken by where it
// stands, by its place in a column, or by the ICAO order of a generic
// page (a page printing its data zone in two columns, the surname beside
// the number, gave the given names as the surname by that order); not
// next to its own caption, by its shape or by the order of dates.
func placedWeakly(r fieldRead) bool {
	switch r.how {
	case "zone", "region", "loose", "stack", "order", "":
		return true
	}
	return false
}
