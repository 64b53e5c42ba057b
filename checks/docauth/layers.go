package docauth

import (
	"fmt"
	"strings"

	"github.com/tambua/tambua/checks/internal/mrzdata"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/textdist"
)

// Finding codes of the content layers (section reason_codes).
const (
	CodeMRZChecksFailed = "doc_mrz_checks_failed"
	CodeMRZLogic        = "doc_mrz_logic_invalid"
	CodeMRZUnreadable   = "doc_mrz_unreadable"
	CodeTypeMismatch    = "doc_type_mismatch"
	CodeTypeUnconfirmed = "doc_type_unconfirmed"
	CodeFieldMismatch   = "doc_field_mismatch"
)

// mrzLayer: the check digits (each field's and the composite) and the
// logic of the zone: a document code, sex and state codes of the right
// form, real dates (validity judges them against today).
func mrzLayer(in inputs) layerResult {
	lr := layerResult{name: layerMRZ, score: 1}
	if in.def.MRZ == nil {
		lr.skipped = "the document prints no MRZ"
		return lr
	}
	m := in.mrz
	if m == nil {
		// The definition prints one and none was read: a reading failure
		// (glare, blur, a back not found) as often as a missing zone, so,
		// like failing check digits, "unknown" (0.5): review, never PASS,
		// not a FAIL by itself.
		lr.score = 0.5
		lr.findings = append(lr.findings, finding{code: CodeMRZUnreadable,
			note: "the definition prints an MRZ on the " + in.def.MRZ.Zone.Side + " but none could be read"})
		return lr
	}
	var failing []string
	for _, name := range []string{"document_number", "date_of_birth", "date_of_expiry", "optional_data", "composite"} {
		if ok, has := m.Checks[name]; has && !ok {
			failing = append(failing, name)
		}
	}
	if len(failing) > 0 || !m.AllChecksPass {
		// Misreads fail check digits too (genuine medium captures of seed
		// 17 did), so this alone sends to review and scores "unknown"
		// (0.5), not "forged": it never passes, and does not fail alone.
		lr.score = 0.5
		lr.findings = append(lr.findings, finding{code: CodeMRZChecksFailed, note: "failing: " + strings.Join(failing, ", ")})
	}
	if !m.AllChecksPass {
		// The logic of a misread zone says nothing.
		return lr
	}
	var bad []string
	if c := strings.TrimRight(m.DocumentCode, "<"); c == "" || !strings.ContainsRune("PIACV", rune(c[0])) {
		want := ""
		if in.def.MRZ != nil {
			want = strings.TrimRight(in.def.MRZ.DocumentCode, "<")
		}
		if c != "" && misreadCode(c[0], want) {
			// No check digit covers the document code: a letter OCR
			// confuses with a valid one (LD for ID) is a misread.
			lr.unexamined = append(lr.unexamined, "document code read "+m.DocumentCode+", taken for a misread")
		} else {
			bad = append(bad, "document code "+m.DocumentCode)
		}
	}
	if !stateCode(m.IssuingState) {
		bad = append(bad, "issuing state "+m.IssuingState)
	}
	if !stateCode(m.Nationality) {
		bad = append(bad, "nationality "+m.Nationality)
	}
	switch m.Sex {
	case "M", "F", "X", "<", "":
	default:
		bad = append(bad, "sex "+m.Sex)
	}
	if len(bad) > 0 {
		lr.score *= 0.5
		lr.findings = append(lr.findings, finding{code: CodeMRZLogic, note: strings.Join(bad, ", ")})
	}
	return lr
}

// confusable says whether OCR may have read c for the document code
// letter want (P, I, A, C, V in OCR-B), by the glyphs' shapes (judgement,
// not fitted): I's serifs and stem give L, 1, l, |, J (a hooked foot) and
// F (its top serif and a stray mark); P's bowl, left open or with a leg,
// gives F and R; A gives 4, C gives G, V gives Y and U. Genuine captures
// of the tuning and held-out corpora read ID as LD, JD and FD, P< as F<.
func confusable(c, want byte) bool {
	if c == want {
		return true
	}
	switch want {
	case 'I':
		return strings.IndexByte("L1l|JF", c) >= 0
	case 'P':
		return strings.IndexByte("RF", c) >= 0
	case 'A':
		return c == '4'
	case 'C':
		return c == 'G'
	case 'V':
		return c == 'Y' || c == 'U'
	}
	return false
}

// misreadCode says whether a document code whose first letter no
// document carries was OCR's misread of a valid one: of the definition's
// own (want) when it names one, else of any.
func misreadCode(c byte, want string) bool {
	if want != "" {
		return confusable(c, want[0])
	}
	for _, v := range []byte("PIACV") {
		if confusable(c, v) {
			return true
		}
	}
	return false
}

// stateCode: three letters, or letters padded with fillers (D<<).
func stateCode(s string) bool {
	if len(s) != 3 || s[0] == '<' {
		return false
	}
	for i := 0; i < 3; i++ {
		if !(s[i] >= 'A' && s[i] <= 'Z' || s[i] == '<') {
			return false
		}
	}
	return true
}

// docType: the document read is the one declared. Evidence: the type the
// OCR check settled on among those the workflow allows, the MRZ's document
// code and issuing state against the definition, and how much of the
// definition's print (its fields at their labels) was read.
func docType(c *idv.Case, in inputs) layerResult {
	lr := layerResult{name: layerDocType}
	d := in.def
	var parts []float64
	if got := c.DocumentType(); got != "" && c.Config != "" {
		if got != c.Config {
			lr.findings = append(lr.findings, finding{code: CodeTypeMismatch,
				note: fmt.Sprintf("declared %s, the card reads as %s", c.Config, got)})
			parts = append(parts, 0)
		} else {
			parts = append(parts, 1)
		}
	}
	mrzConfirms := false
	if m := in.mrz; m != nil && d.MRZ != nil && m.AllChecksPass {
		want := strings.TrimRight(d.MRZ.DocumentCode, "<")
		got := strings.TrimRight(m.DocumentCode, "<")
		ok := want == "" || got != "" && got[0] == want[0]
		if !ok && got != "" && !strings.ContainsRune("PIACV", rune(got[0])) && confusable(got[0], want[0]) {
			// Not a code any document carries, but OCR's misread of the
			// definition's (no check digit covers it): not examined.
			ok = true
			lr.unexamined = append(lr.unexamined, "MRZ document code read "+m.DocumentCode+", taken for a misread of "+want)
		}
		// Issuers do not always write their own ICAO code as the issuing
		// state (Kenyan ID cards write KYA, with nationality KEN): either
		// of the two naming the definition's country will do.
		country := strings.TrimRight(d.Country, "<")
		if !d.Generic() && country != "" && strings.TrimRight(m.IssuingState, "<") != country && strings.TrimRight(m.Nationality, "<") != country {
			ok = false
			lr.findings = append(lr.findings, finding{code: CodeTypeMismatch,
				note: fmt.Sprintf("the MRZ names issuer %s and nationality %s, the definition %s", m.IssuingState, m.Nationality, d.Country)})
		} else if !ok {
			lr.findings = append(lr.findings, finding{code: CodeTypeMismatch,
				note: fmt.Sprintf("the MRZ document code %s is not the definition's %s", m.DocumentCode, d.MRZ.DocumentCode)})
		}
		parts = append(parts, b2f(ok))
		mrzConfirms = ok
	}
	// How much of the print was read measures the reader, not the card:
	// it does not enter the score. Half the fields read to their pattern
	// is the floor ocr_extraction itself uses for "unreadable"; below it
	// the print cannot confirm the layout, and unless a verified MRZ
	// names the document, the layer could not examine the card.
	if q := in.quality; q != nil && q.Coverage < 0.5 {
		note := fmt.Sprintf("only %.0f%% of the definition's fields were read", 100*q.Coverage)
		if !mrzConfirms {
			lr.skipped = "could not examine: " + note + " and no verified MRZ names the document"
			return lr
		}
		lr.unexamined = append(lr.unexamined, note+"; the verified MRZ names the document")
	}
	if len(parts) == 0 {
		lr.skipped = "neither the OCR check's reading nor an MRZ is available"
		return lr
	}
	lr.score = mean(parts)
	return lr
}

// crossCheck: the printed fields against the MRZ. A field whose printed
// value disagrees with a check-digit-verified MRZ has been misread or
// edited; either way a person must look. The OCR check's own list of
// conflicts counts too (it compares names as word sets).
func crossCheck(in inputs) layerResult {
	lr := layerResult{name: layerCrossCheck}
	m := in.mrz
	if m == nil {
		lr.skipped = "no MRZ to compare the print with"
		return lr
	}
	if !m.AllChecksPass {
		lr.skipped = "the MRZ's check digits fail, so it cannot vouch for the print"
		return lr
	}
	compared, tolerated := 0, 0
	var conflicts []string
	seen := map[string]bool{} // fields compared here
	for _, f := range in.def.Fields {
		if f.MRZ == "" || f.Fixed != "" || !dateOrNumber(f.MRZ) {
			continue
		}
		mv, pv := mrzdata.Value(m, f.MRZ), in.fields[f.Name]
		if mv == "" || pv == "" {
			continue
		}
		why := weakReading(in.readings, f.Name)
		if mv == pv && why != "" {
			// Taken from the MRZ, or a weak reading that agrees anyway:
			// the print was not seen to agree, but nothing is against it.
			seen[f.Name] = true
			continue
		}
		compared++
		seen[f.Name] = true
		if mv != pv && why != "" {
			tolerated++
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s printed %q, MRZ %q: %s", f.Name, pv, mv, why))
			continue
		}
		if mv != pv && f.MRZ == "document_number" && len(mv) >= 6 && textdist.Levenshtein(mv, pv) <= len(mv)/3 {
			// Up to a third of a long number's characters dropped, added
			// or changed is what OCR does to genuine print (8QU45SN read
			// for 8QU4SN on seed 1017; RM730578 for KK230578 and RS367094
			// for M5367094 on seed 17); dates and sex must agree exactly.
			// A forger who changes that little of the number is missed
			// here; the MRZ's own check digit still vouches for the MRZ's
			// value, and the number is not what a forger wants to change.
			tolerated++
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s printed %q, MRZ %q: one character apart, taken for a misread", f.Name, pv, mv))
			continue
		}
		if mv != pv && f.MRZ == "document_number" && shortNumberMisread(mv, pv) {
			// A short number read with glyphs OCR confuses (O for 0, S
			// for 5) and one character added or dropped: "EO9NOD" for
			// E9N0D and "WOODS" for W0D5 on genuine generic cards of
			// seeds 58 and 59. A changed character is still a mismatch.
			tolerated++
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s printed %q, MRZ %q: the same but for glyphs OCR confuses and one character added or dropped, taken for a misread", f.Name, pv, mv))
			continue
		}
		if mv != pv && f.MRZ == "document_number" && stateRunIn(mv, pv, m) {
			// The issuing state's code printed beside the number and read
			// onto it ("UTOO43F" for O43F beside UTO, a genuine generic_td2
			// of seed 7103): what is left is the MRZ's number.
			tolerated++
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s printed %q, MRZ %q: the state code beside it read onto the number, taken for the reader's mix-up", f.Name, pv, mv))
			continue
		}
		if mv != pv && misplacedDate(f.MRZ, pv, in) {
			tolerated++
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s printed %q, MRZ %q: another of the card's dates or an impossible one, taken for the reader's mix-up", f.Name, pv, mv))
			continue
		}
		if mv != pv {
			conflicts = append(conflicts, fmt.Sprintf("%s printed %q, MRZ %q", f.Name, pv, mv))
		}
	}
	if q := in.quality; q != nil {
		names := strings.Fields(mrzdata.Value(m, "full_name"))
		labels := labelWords(in.def)
		for _, f := range q.Conflicts {
			if seen[f] {
				continue
			}
			compared++
			if why := weakReading(in.readings, f); why != "" {
				tolerated++
				lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s read %q: %s", f, in.fields[f], why))
				continue
			}
			if src := mrzSource(in.def, f); src != "" && !isNameField(in.def, f) && !dateOrNumber(src) {
				// The document code, issuing state or nationality: no
				// check digit covers the MRZ's reading of it, which is no
				// surer than the print's (PP read beside the MRZ's P,
				// genuine, seed 2029); the mrz and doc_type layers judge
				// the MRZ's value against the definition.
				tolerated++
				lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s read %q: the MRZ's %s is vouched for by no check digit either", f, in.fields[f], src))
				continue
			}
			if isNameField(in.def, f) && misreadName(strings.Join(runInTrimmed(in.fields[f], neighbours(in, f)), " "), names, labels) {
				tolerated++
				lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s read %q: the MRZ's names misread, not another name", f, in.fields[f]))
				continue
			}
			conflicts = append(conflicts, f+" conflicts with the MRZ (ocr_extraction)")
		}
	}
	// A field taken for a misread is evidence neither way: it is left out
	// of the score, and when every field compared was misread the layer
	// could not examine the print.
	if compared-tolerated == 0 {
		lr.skipped = "no printed field backed by the MRZ was read"
		if tolerated > 0 {
			lr.skipped = "could not examine: every printed field backed by the MRZ was misread"
		}
		return lr
	}
	lr.score = float64(compared-len(conflicts)-tolerated) / float64(compared-tolerated)
	if len(conflicts) > 0 {
		// A misread or an edit: a person must look; "unknown", not
		// "forged", so it does not fail alone.
		lr.score = 0.5
		lr.findings = append(lr.findings, finding{code: CodeFieldMismatch, note: strings.Join(conflicts, "; ")})
	}
	return lr
}

// ocrFold maps the glyphs OCR confuses in document numbers onto one
// (O, Q to 0; I, J, L to 1; S to 5; B to 8; Z to 2; G to 6). J joined
// in the ninth round: NIXW read for NJXW in a serif face, a genuine
// medium generic_id_card of seed 4409 (the mrz layer already takes J
// for a misread I in the document code).
func ocrFold(v string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case 'O', 'Q':
			return '0'
		case 'I', 'J', 'L':
			return '1'
		case 'S':
			return '5'
		case 'B':
			return '8'
		case 'Z':
			return '2'
		case 'G':
			return '6'
		}
		return r
	}, v)
}

// shortNumberMisread: the printed number pv equals the MRZ's mv once the
// glyphs OCR confuses are folded, or does but for one character added or
// dropped (a reader's stray glyph); a character changed to another that
// OCR does not confuse is no misread.
// stateRunIn: the printed number is the MRZ's number (as shortNumberMisread
// allows) with the MRZ's issuing state or nationality code read on at its
// start or end.
func stateRunIn(mv, pv string, m *idv.MRZData) bool {
	for _, code := range []string{m.IssuingState, m.Nationality} {
		if len(code) != 3 {
			continue
		}
		for _, rest := range []string{strings.TrimPrefix(pv, code), strings.TrimSuffix(pv, code)} {
			if rest != pv && rest != "" && ocrFold(rest) == ocrFold(mv) {
				return true
			}
		}
	}
	return false
}

func shortNumberMisread(mv, pv string) bool {
	a, b := ocrFold(mv), ocrFold(pv)
	if a == b {
		return true
	}
	if d := len(a) - len(b); d != 1 && d != -1 {
		return false
	}
	return textdist.Levenshtein(a, b) == 1
}

// misplacedDate: a printed date of birth or expiry that disagrees with
// the verified MRZ in a way no forger would choose and a reader produces
// by taking the wrong date off the card: it is the value the reader found
// for another date field, or it is impossible beside the MRZ's verified
// dates (a birth date in the future or on or after the MRZ's expiry, an
// expiry on or before the MRZ's birth date). An edit that moves a date to
// another plausible one is still a conflict.
func misplacedDate(mrzField, printed string, in inputs) bool {
	if mrzField != "date_of_birth" && mrzField != "date_of_expiry" {
		return false
	}
	for _, other := range []string{"date_of_birth", "date_of_issue", "date_of_expiry"} {
		if other != mrzField && in.fields[other] == printed {
			return true
		}
	}
	t, ok := dotDay(printed)
	if !ok {
		return false
	}
	m := in.mrz
	switch mrzField {
	case "date_of_birth":
		if !in.now.IsZero() && t.After(in.now) {
			return true
		}
		if e, ok := isoDay(m.DateOfExpiry); ok && m.Checks["date_of_expiry"] && !t.Before(e) {
			return true
		}
	case "date_of_expiry":
		if b, ok := isoDay(m.DateOfBirth); ok && m.Checks["date_of_birth"] && !t.After(b) {
			return true
		}
	}
	return false
}

// mrzSource is the MRZ field backing the definition's field ("" when none).
func mrzSource(d *idv.DocumentDefinition, name string) string {
	for _, f := range d.Fields {
		if f.Name == name {
			return f.MRZ
		}
	}
	return ""
}

// isNameField: the definition's field is backed by an MRZ name.
func isNameField(d *idv.DocumentDefinition, name string) bool {
	for _, f := range d.Fields {
		if f.Name == name {
			return f.MRZ == "surname" || f.MRZ == "given_names" || f.MRZ == "full_name"
		}
	}
	return false
}

// neighbours are the values the card prints beside a name, which the
// reader can run into it when they share its line: the MRZ's issuing
// state and nationality codes, and every other field's value read from
// the print, upper case.
func neighbours(in inputs, name string) []string {
	var out []string
	if in.mrz != nil {
		out = append(out, in.mrz.IssuingState, in.mrz.Nationality)
	}
	for k, v := range in.fields {
		if k != name && !isNameField(in.def, k) {
			out = append(out, strings.ToUpper(strings.TrimSpace(v)))
		}
	}
	return out
}

// runInTrimmed is the printed name's words without those at either end
// that are, whole, another value the card prints (others): the next
// column's value read onto the name's line ("ERIK EMMANUEL UTO" for
// ERIK EMMANUEL beside the nationality UTO, a genuine generic_td2 of seed
// 6113, easy and medium). Only words at the ends go: a word inside the
// name is the name's. A forger gains nothing by writing the card's own
// state code after a name, and the MRZ's names are still compared word
// for word with what is left.
func runInTrimmed(printed string, others []string) []string {
	words := strings.Fields(strings.ToUpper(printed))
	other := func(w string) bool {
		if len(words) < 2 {
			return false
		}
		for _, o := range others {
			if o != "" && o == w {
				return true
			}
		}
		return false
	}
	for len(words) > 0 && other(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	for len(words) > 0 && other(words[0]) {
		words = words[1:]
	}
	return words
}

// misreadName: a printed name that disagrees with the MRZ's names the way
// OCR misreads genuine print, not the way a forger edits it. Every word
// of three letters or more must be an MRZ name word (one letter off
// allowed in words of four or more), several MRZ words run together
// (a lost space), or the start of a caption word of the card (the reader
// took part of "SURNAME" for the value); shorter words are fragments. A
// forger who puts another name on the card adds a word that is none of
// these. A word without a vowel ("SSS" for MAINA on seed 17) is no name
// anyone is given: a fragment of a misread. Seen on seed 1041 of the held-out layouts, all genuine: "S
// STEPHEN KIPRONO MBUGUA", "SURNA", "MUSAOLUWADAMILARE", "M". An edit of
// one letter of a name is missed, as one character of a long document
// number is: the MRZ still vouches for its own value.
func misreadName(printed string, mrzNames, labels []string) bool {
	words := strings.FieldsFunc(strings.ToUpper(printed), func(r rune) bool {
		return r == ' ' || r == '-' || r == '\'' || r == ',' || r == '.'
	})
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if len([]rune(w)) < 3 || !strings.ContainsAny(w, "AEIOUY") || nameWord(w, mrzNames) || concatenation(w, mrzNames) || captionStart(w, labels) {
			continue
		}
		return false
	}
	return true
}

// nameWord: w is one of the MRZ's names, with some letters misread (one
// in four to five letters, a third from six: "WFXFSA" for WEKESA on seed
// 17, E read as F), or the full form of a name the MRZ truncated (ICAO
// 9303 cuts names that do not fit the zone: OLUWADAMILA for
// OLUWADAMILARE on seed 17).
func nameWord(w string, names []string) bool {
	for _, n := range names {
		tol := 0
		switch {
		case len(n) >= 6:
			tol = len(n) / 3
		case len(n) >= 4:
			tol = 1
		}
		if w == n || tol > 0 && textdist.Levenshtein(w, n) <= tol || len(n) >= 4 && strings.HasPrefix(w, n) {
			return true
		}
	}
	return false
}

// concatenation: w is two or more of the names written without spaces.
func concatenation(w string, names []string) bool {
	var rest func(s string, parts int) bool
	rest = func(s string, parts int) bool {
		if s == "" {
			return parts >= 2
		}
		for _, n := range names {
			if n != "" && strings.HasPrefix(s, n) && rest(s[len(n):], parts+1) {
				return true
			}
		}
		return false
	}
	return rest(w, 0)
}

func captionStart(w string, labels []string) bool {
	for _, l := range labels {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	return false
}

// labelWords: the words of every caption the definition declares, upper
// case.
func labelWords(d *idv.DocumentDefinition) []string {
	var out []string
	for _, f := range d.Fields {
		for _, l := range f.AllLabels() {
			out = append(out, strings.FieldsFunc(strings.ToUpper(l), func(r rune) bool {
				return !('A' <= r && r <= 'Z')
			})...)
		}
	}
	return out
}

// dateOrNumber: MRZ fields a check digit covers, or the sex: the print
// and the MRZ must agree character for character.
func dateOrNumber(name string) bool {
	switch name {
	case "document_number", "date_of_birth", "date_of_expiry", "sex":
		return true
	}
	return false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func clamp01(v float64) float64 { return max(0, min(1, v)) }
