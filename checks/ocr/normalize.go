package ocr

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/tambua/tambua/idv"
)

// Normalize turns what tesseract read in a field's zone into the field's
// normalised value (names upper case, dates DD.MM.YYYY, sex M/F/X) and
// reports whether it is valid for the definition. An invalid value is
// never presented as read: the caller leaves the field empty. Characters
// outside the field's set are dropped silently; a caller taking print
// found on the page asks dropped whether they were other print.
func Normalize(f idv.FieldDef, raw string) (string, bool) {
	raw = strings.ToUpper(strings.TrimSpace(raw))
	var v string
	switch f.Type {
	case idv.FieldDate:
		if f.Format == dateAny {
			v = anyDate(raw, f, time.Now())
		} else {
			v = normDate(raw, f.Format)
		}
	case idv.FieldSex:
		v = normSex(raw)
	case idv.FieldNumber:
		v = repairClasses(squash(raw, charsetOf(f)), f.Pattern)
	default:
		v = normText(raw, f)
	}
	if v == "" {
		return "", false
	}
	if f.Pattern != "" {
		re, err := compiled(f.Pattern)
		if err != nil || !re.MatchString(v) {
			return v, false
		}
	}
	return v, true
}

// dropped tells whether the character set's filter, which Normalize
// applies silently, would drop letters or digits of raw that say it is
// other print than f's value rather than a misread of it. A page word or
// a line of a column taken as a value is such print more often than the
// value misread: a run gone on into the next column's date
// (GOVERNMENT OF KENYA 22 MAY gave GOVERNMENT OF KENYA MAY), the MRZ's
// first line at a column's edge (IDKYA04729407506709048 gave IDKYA as a
// place), a garbled caption (FC gave the sex F). So the callers that take
// print found on the page (layout.fits: captioned candidates, shapes,
// columns, rows, lone lines, the generic order) refuse such a run, and
// the run without the other print, or the box re-read with the field's
// whitelist, is tried instead. Readings of a value's own box keep the
// filter as it is: there a drop is a stray of the crop.
//
// What is other print, by type (punctuation, spaces and separators are
// never counted: names keep their apostrophes and hyphens, dates are not
// judged, and confusions within the set are repairClasses' to mend):
//   - text: a word whose letters and digits are all outside the set (the
//     22 of a date after an authority's value), or a share of the run's
//     letters and digits outside it of dropShare or more (the digits of
//     an MRZ line);
//   - number: any letter outside the set (a number's letters are part of
//     what the print says, and dropping them changes the number);
//   - sex: a letter or digit besides the sex's letters, unless the run is
//     one of the words MALE or FEMALE that normSex reads (FC, F1).
func dropped(f idv.FieldDef, raw string) bool {
	cs := charsetOf(f)
	raw = strings.ToUpper(raw)
	outside := func(r rune) bool {
		return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !strings.ContainsRune(cs, r)
	}
	switch f.Type {
	case idv.FieldDate:
		return false
	case idv.FieldSex:
		s := strings.Join(strings.Fields(raw), "")
		if strings.Contains(s, "FEM") || strings.Contains(s, "MALE") || s == "MAL" || s == "ALE" {
			return false
		}
		if cs == "" {
			cs = "MFX"
		}
		return strings.ContainsFunc(s, outside)
	case idv.FieldNumber:
		return cs != "" && strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsLetter(r) && outside(r) })
	}
	if cs == "" {
		return false
	}
	all, out := 0, 0
	for _, w := range strings.Fields(raw) {
		wAll, wOut := 0, 0
		for _, r := range w {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				wAll++
				if outside(r) {
					wOut++
				}
			}
		}
		if wAll > 0 && wOut == wAll {
			return true
		}
		all, out = all+wAll, out+wOut
	}
	return out > 0 && float64(out) >= dropShare*float64(all)
}

// dropShare is the share of a text run's letters and digits outside the
// field's set from which the run is taken for other print. Chosen on the
// tuning runs (docs/ocr.md, seventh round): a quarter.
const dropShare = 0.25

var reCache sync.Map // pattern -> *regexp.Regexp

func compiled(p string) (*regexp.Regexp, error) {
	if re, ok := reCache.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	reCache.Store(p, re)
	return re, nil
}

// charsetOf is the field's charset, with a space when the pattern allows
// one (a charset lists what tesseract may read, and OCR reads spaces
// anyway).
func charsetOf(f idv.FieldDef) string {
	if f.Charset != "" && strings.Contains(f.Pattern, " ") && !strings.Contains(f.Charset, " ") {
		return f.Charset + " "
	}
	return f.Charset
}

// squash keeps the characters of the charset (all when empty) and drops
// spaces that OCR put between digits.
func squash(s, charset string) string {
	var b strings.Builder
	for _, r := range s {
		if r == ' ' || r == '\n' {
			if strings.ContainsRune(charset, ' ') {
				b.WriteRune(' ')
			}
			continue
		}
		if charset == "" || strings.ContainsRune(charset, r) {
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func normText(raw string, f idv.FieldDef) string {
	raw = strings.ReplaceAll(raw, "\n", " ")
	v := squash(raw, charsetOf(f))
	v = strings.Trim(v, " '-")
	return repairClasses(v, f.Pattern)
}

// Letters and digits that OCR confuses, for positions whose class the
// pattern fixes.
var (
	toDigit  = map[rune]rune{'O': '0', 'D': '0', 'Q': '0', 'I': '1', 'L': '1', 'Z': '2', 'S': '5', 'B': '8', 'G': '6', 'T': '7'}
	toLetter = map[rune]rune{'0': 'O', '1': 'I', '2': 'Z', '5': 'S', '8': 'B', '6': 'G', '7': 'T', '4': 'A'}
)

// repairClasses fixes letter/digit confusions where the pattern is a
// sequence of character classes (such as ^[A-Z]{2}[0-9]{7}$ or
// ^[A-Z][0-9]{6}[A-Z]?$) that fixes each position's class for a value of
// this length. Other values are returned unchanged.
func repairClasses(v, pattern string) string {
	rs := []rune(v)
	classes := positionClasses(pattern, len(rs))
	if classes == nil {
		return v
	}
	for i, r := range rs {
		switch classes[i] {
		case 'd':
			if m, ok := toDigit[r]; ok {
				rs[i] = m
			}
		case 'a':
			if m, ok := toLetter[r]; ok {
				rs[i] = m
			}
		}
	}
	return string(rs)
}

// positionClasses returns 'd' (digit), 'a' (letter) or '?' per position of
// a value of length n, for patterns made of character classes, literals,
// bounded repeats and optional parts; nil when the pattern admits no such
// value or is of another kind. Where the pattern's readings of length n
// disagree on a position, it is '?'.
func positionClasses(pattern string, n int) []byte {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	// Every class sequence the pattern admits, up to a bound: ID patterns
	// have at most a few optional characters.
	const maxSeqs = 64
	var walk func(r *syntax.Regexp, seqs [][]byte) [][]byte
	walk = func(r *syntax.Regexp, seqs [][]byte) [][]byte {
		if seqs == nil || len(seqs) > maxSeqs {
			return nil
		}
		add := func(c byte) [][]byte {
			for i := range seqs {
				seqs[i] = append(seqs[i], c)
			}
			return seqs
		}
		switch r.Op {
		case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpEmptyMatch:
			return seqs
		case syntax.OpConcat:
			for _, s := range r.Sub {
				seqs = walk(s, seqs)
			}
			return seqs
		case syntax.OpCapture:
			return walk(r.Sub[0], seqs)
		case syntax.OpLiteral:
			for range r.Rune {
				seqs = add('?')
			}
			return seqs
		case syntax.OpCharClass:
			return add(classOf(r.Rune))
		case syntax.OpQuest:
			return append(clone(seqs), walk(r.Sub[0], seqs)...)
		case syntax.OpRepeat:
			if r.Max < r.Min || r.Max > 40 {
				return nil
			}
			for i := 0; i < r.Min; i++ {
				seqs = walk(r.Sub[0], seqs)
			}
			var out [][]byte
			for i := r.Min; i <= r.Max && seqs != nil; i++ {
				out = append(out, clone(seqs)...)
				if i < r.Max {
					seqs = walk(r.Sub[0], seqs)
				}
			}
			return out
		}
		return nil
	}
	var out []byte
	for _, seq := range walk(re, [][]byte{{}}) {
		if len(seq) != n {
			continue
		}
		if out == nil {
			out = seq
			continue
		}
		for i := range out {
			if out[i] != seq[i] {
				out[i] = '?'
			}
		}
	}
	return out
}

func clone(seqs [][]byte) [][]byte {
	out := make([][]byte, len(seqs))
	for i, s := range seqs {
		out[i] = append([]byte(nil), s...)
	}
	return out
}

func classOf(ranges []rune) byte {
	digits, letters := false, false
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '9' && hi >= '0' {
			digits = true
		}
		if lo <= 'Z' && hi >= 'A' {
			letters = true
		}
	}
	switch {
	case digits && !letters:
		return 'd'
	case letters && !digits:
		return 'a'
	}
	return '?'
}

var monthNames = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

// normDate reads a date printed as DD.MM.YYYY, DD/MM/YYYY, DD-MM-YYYY or
// DD MMM YYYY (bilingual month labels such as "MAR/MARS" included) and
// returns DD.MM.YYYY, or "" when it is not a real calendar date.
func normDate(raw, format string) string {
	s := strings.ReplaceAll(raw, "\n", " ")
	var d, m, y int
	if format == "DD MMM YYYY" {
		if out, ok := wordDate(s); ok {
			return out
		}
		var digits []byte
		var letters []byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
				digits = append(digits, c)
			case c >= 'A' && c <= 'Z':
				letters = append(letters, c)
			}
		}
		// The day's and year's digits may carry letter confusions; the
		// month is the first three letters.
		if len(digits) != 6 || len(letters) < 3 {
			return ""
		}
		m = monthIndex(string(letters[:3]))
		if m == 0 {
			return ""
		}
		fmt.Sscanf(string(digits[:2]), "%d", &d)
		fmt.Sscanf(string(digits[2:]), "%d", &y)
	} else {
		var digits []byte
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= '0' && c <= '9' {
				digits = append(digits, c)
			} else if r, ok := toDigit[rune(c)]; ok && c != 'T' {
				digits = append(digits, byte(r))
			}
		}
		if len(digits) != 8 {
			return ""
		}
		if !calendarDate(digits) {
			// No such day: one digit misread as its look-alike (a soft 0
			// read 6: 19.63.2024, 09/06/2625) is put back when exactly
			// one look-alike makes a real date.
			if fixed, ok := oneDigitRepair(digits); ok {
				digits = fixed
			}
		}
		fmt.Sscanf(string(digits[0:2]), "%d", &d)
		fmt.Sscanf(string(digits[2:4]), "%d", &m)
		fmt.Sscanf(string(digits[4:8]), "%d", &y)
	}
	if y < 1900 || y > 2100 {
		return ""
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != m {
		return ""
	}
	return fmt.Sprintf("%02d.%02d.%04d", d, m, y)
}

// wordDate reads DD MMM YYYY word by word: the word that names a month,
// the day before it and the year after it, each with letter/digit
// confusions repaired. A day of three characters keeps its last two when
// the first is a letter or a zero: a stray mark before the day is read as
// O (`O05 JAN 2032`), which the letter-and-digit count of normDate cannot
// place.
func wordDate(s string) (string, bool) {
	words := strings.Fields(s)
	for i := 1; i+1 < len(words); i++ {
		w := words[i]
		if k := strings.IndexByte(w, '/'); k >= 0 {
			// Bilingual labels: MAR/MARS.
			w = w[:k]
		}
		if len(w) < 3 || !allLetters(w[:3]) {
			continue
		}
		m := monthIndex(w[:3])
		if m == 0 {
			continue
		}
		day, ok := confusedDigits(words[i-1])
		if !ok {
			return "", false
		}
		if len(day) == 3 && (day[0] == '0' || !isDigit(words[i-1][0])) {
			day = day[1:]
		}
		year, ok := confusedDigits(words[i+1])
		if !ok || len(day) < 1 || len(day) > 2 || len(year) != 4 {
			return "", false
		}
		var d, y int
		fmt.Sscanf(day, "%d", &d)
		fmt.Sscanf(year, "%d", &y)
		if y < 1900 || y > 2100 {
			return "", false
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d || int(t.Month()) != m {
			return "", false
		}
		return fmt.Sprintf("%02d.%02d.%04d", d, m, y), true
	}
	return "", false
}

// confusedDigits maps a word to digits, reading letters OCR confuses with
// digits (O, S, I...) as those digits; false if any other character is in it.
func confusedDigits(w string) (string, bool) {
	out := make([]byte, 0, len(w))
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			out = append(out, byte(r))
		case toDigit[r] != 0:
			out = append(out, byte(toDigit[r]))
		default:
			return "", false
		}
	}
	return string(out), true
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// monthIndex matches three letters to a month, allowing one wrong letter
// when that still names a single month.
func monthIndex(s string) int {
	best, bestD, ties := 0, 4, 0
	for i, m := range monthNames {
		d := 0
		for k := 0; k < 3; k++ {
			if s[k] != m[k] {
				d++
			}
		}
		if d < bestD {
			best, bestD, ties = i+1, d, 0
		} else if d == bestD {
			ties++
		}
	}
	if bestD == 0 || (bestD == 1 && ties == 0) {
		return best
	}
	return 0
}

// normSex reads M, F or X from a letter or a word (MALE, FEMALE, and the
// bilingual M/M F/F forms).
func normSex(raw string) string {
	s := strings.Join(strings.Fields(raw), "")
	switch {
	case s == "":
		return ""
	case strings.Contains(s, "FEM") || strings.HasSuffix(s, "EMALE"):
		return "F"
	case strings.Contains(s, "MALE") || s == "MAL" || s == "ALE":
		return "M"
	}
	letters := strings.Map(func(r rune) rune {
		if r == 'M' || r == 'F' || r == 'X' {
			return r
		}
		return -1
	}, s)
	if letters == "" {
		return ""
	}
	// "M/M" or "F" alone: every letter read must agree.
	for _, r := range letters {
		if r != rune(letters[0]) {
			return ""
		}
	}
	if len(s) > 3 {
		return ""
	}
	return letters[:1]
}

// lookAlikes are the digits tesseract reads for each other on soft print.
var lookAlikes = map[byte]string{'0': "68", '6': "05", '8': "036", '3': "8", '5': "6", '1': "7", '7': "1"}

// calendarDate: DDMMYYYY digits name a real day between 1900 and 2100.
func calendarDate(dg []byte) bool {
	var d, m, y int
	fmt.Sscanf(string(dg[0:2]), "%d", &d)
	fmt.Sscanf(string(dg[2:4]), "%d", &m)
	fmt.Sscanf(string(dg[4:8]), "%d", &y)
	if y < 1900 || y > 2100 {
		return false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t.Day() == d && int(t.Month()) == m
}

// oneDigitRepair is the one real date that changing a single digit of dg
// to a look-alike gives, when there is exactly one.
func oneDigitRepair(dg []byte) ([]byte, bool) {
	var found []byte
	n := 0
	for i, c := range dg {
		for _, alt := range []byte(lookAlikes[c]) {
			try := append([]byte(nil), dg...)
			try[i] = alt
			if calendarDate(try) {
				found = try
				n++
			}
		}
	}
	return found, n == 1
}

// digitCount is the number of digits in s.
func digitCount(s string) int {
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n++
		}
	}
	return n
}
