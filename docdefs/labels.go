package docdefs

import (
	"strings"
	"unicode"

	"github.com/tambua/tambua/idv"
)

// settleSides gives a field without a zone its side in Zone.Side too, so
// code that asks where a field is printed reads one place.
func settleSides(d *idv.DocumentDefinition) {
	for i := range d.Fields {
		f := &d.Fields[i]
		if !f.HasZone() && f.Zone.Side == "" {
			f.Zone.Side = f.Side
		}
	}
}

// labelCollisions reports two fields of one side that share a label
// spelling: the reader could not tell which of them a caption on the card
// belongs to, and might give one field the other's value.
func labelCollisions(d *idv.DocumentDefinition, bad func(string, ...any)) {
	owner := map[string]string{} // side + key -> field
	for _, f := range d.Fields {
		seen := map[string]bool{}
		for _, l := range Spellings(f) {
			k := LabelKey(l)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			id := f.Zone.Side + "\x00" + k
			if other, ok := owner[id]; ok && other != f.Name {
				bad("fields %s and %s: both have the label %q on the %s", other, f.Name, l, f.Zone.Side)
				continue
			}
			owner[id] = f.Name
		}
	}
}

// LabelKey is the form in which labels are compared: upper case, accents
// folded, letters and digits only, and the digits OCR reads for letters
// turned back into letters (labels are words). "Date of birth:",
// "DATE OF BIRTH" and "D A T E  OF  B1RTH" have the same key.
func LabelKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if f, ok := foldAccent[r]; ok {
			b.WriteString(f)
			continue
		}
		if c, ok := digitAsLetter[r]; ok {
			r = c
		}
		if r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else if unicode.IsLetter(r) {
			// Other scripts are kept as they are.
			b.WriteRune(r)
		}
	}
	return b.String()
}

// digitAsLetter are the signs tesseract reads for a caption's letters
// ($ for S: S.County read $.count) on a Ugandan back).
var digitAsLetter = map[rune]rune{'0': 'O', '1': 'I', '5': 'S', '8': 'B', '|': 'I', '!': 'I', '$': 'S'}

var foldAccent = func() map[rune]string {
	m := map[rune]string{'ß': "SS", 'Æ': "AE", 'Œ': "OE", 'Ø': "O"}
	// Latin-1 and Latin Extended-A: the captions of European passports
	// (Příjmení, Uzvārds, Data nașterii, Datum rođenja) as tesseract's
	// English model reads them, without their marks.
	for base, all := range map[string]string{
		"A": "ÀÁÂÃÄÅĀĂĄ", "C": "ÇĆĈĊČ", "D": "ĎĐ", "E": "ÈÉÊËĒĔĖĘĚ", "G": "ĜĞĠĢ", "H": "ĤĦ",
		"I": "ÌÍÎÏĨĪĬĮİ", "J": "Ĵ", "K": "Ķ", "L": "ĹĻĽĿŁ", "N": "ÑŃŅŇ", "O": "ÒÓÔÕÖŌŎŐ",
		"R": "ŔŖŘ", "S": "ŚŜŞŠȘ", "T": "ŢŤŦȚ", "U": "ÙÚÛÜŨŪŬŮŰŲ", "W": "Ŵ", "Y": "ÝŸŶ", "Z": "ŹŻŽ",
	} {
		for _, r := range all {
			m[r] = base
		}
	}
	return m
}()

// Spellings are the captions the reader looks for: each label, and the
// parts of a bilingual one ("Surname/Nom" is also "Surname" and "Nom"),
// since another print run may carry one language only.
func Spellings(f idv.FieldDef) []string {
	var out []string
	for _, l := range f.AllLabels() {
		out = append(out, l)
		if parts := strings.Split(l, "/"); len(parts) > 1 {
			for _, p := range parts {
				if LabelKey(p) != "" {
					out = append(out, strings.TrimSpace(p))
				}
			}
		}
	}
	return out
}
