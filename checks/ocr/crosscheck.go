package ocr

import (
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
func MRZValue(m *idv.MRZData, name string) string {
	clean := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "<", " ")), " ") }
	iso := func(s string) string {
		if len(s) != 10 {
			return ""
		}
		return s[8:10] + "." + s[5:7] + "." + s[0:4]
	}
	switch name {
	case "document_code":
		return clean(m.DocumentCode)
	case "document_number":
		return clean(m.DocumentNumber)
	case "date_of_birth":
		return iso(m.DateOfBirth)
	case "date_of_expiry":
		return iso(m.DateOfExpiry)
	case "sex":
		if m.Sex == "M" || m.Sex == "F" || m.Sex == "X" {
			return m.Sex
		}
	case "surname":
		return clean(m.Surname)
	case "given_names":
		return clean(m.GivenNames)
	case "full_name":
		return strings.TrimSpace(clean(m.GivenNames) + " " + clean(m.Surname))
	case "nationality":
		return clean(m.Nationality)
	case "issuing_state":
		return clean(m.IssuingState)
	case "personal_number", "optional_data":
		return clean(m.OptionalData)
	}
	return ""
}

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
