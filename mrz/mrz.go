package mrz

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Formats, spelled as idv.MRZTD1... spell them.
const (
	TD1  = "TD1"
	TD2  = "TD2"
	TD3  = "TD3"
	MRVA = "MRVA"
	MRVB = "MRVB"
)

// Names of the check digits, as the CLI and the mrz_parsed section print them.
const (
	CheckDocumentNumber = "document_number"
	CheckDateOfBirth    = "date_of_birth"
	CheckDateOfExpiry   = "date_of_expiry"
	CheckOptionalData   = "optional_data"
	CheckComposite      = "composite"
)

// ErrMalformed is wrapped by every error Parse returns for text that is not
// an MRZ of a known format.
var ErrMalformed = errors.New("mrz: malformed")

// Checks holds the verdict of each check digit. A nil field means the
// format has no such check digit, so it is absent from the JSON.
type Checks struct {
	DocumentNumber *bool `json:"document_number,omitempty"`
	DateOfBirth    *bool `json:"date_of_birth,omitempty"`
	DateOfExpiry   *bool `json:"date_of_expiry,omitempty"`
	OptionalData   *bool `json:"optional_data,omitempty"`
	Composite      *bool `json:"composite,omitempty"`
}

// Map returns the checks the format has, by name.
func (c Checks) Map() map[string]bool {
	m := map[string]bool{}
	for _, e := range []struct {
		name string
		v    *bool
	}{{CheckDocumentNumber, c.DocumentNumber}, {CheckDateOfBirth, c.DateOfBirth},
		{CheckDateOfExpiry, c.DateOfExpiry}, {CheckOptionalData, c.OptionalData}, {CheckComposite, c.Composite}} {
		if e.v != nil {
			m[e.name] = *e.v
		}
	}
	return m
}

// Failing returns the names of the check digits that fail, in MRZ order.
func (c Checks) Failing() []string {
	var out []string
	for _, e := range []struct {
		name string
		v    *bool
	}{{CheckDocumentNumber, c.DocumentNumber}, {CheckDateOfBirth, c.DateOfBirth},
		{CheckDateOfExpiry, c.DateOfExpiry}, {CheckOptionalData, c.OptionalData}, {CheckComposite, c.Composite}} {
		if e.v != nil && !*e.v {
			out = append(out, e.name)
		}
	}
	return out
}

func (c *Checks) set(name string, ok bool) {
	v := ok
	switch name {
	case CheckDocumentNumber:
		c.DocumentNumber = &v
	case CheckDateOfBirth:
		c.DateOfBirth = &v
	case CheckDateOfExpiry:
		c.DateOfExpiry = &v
	case CheckOptionalData:
		c.OptionalData = &v
	case CheckComposite:
		c.Composite = &v
	}
}

// Repair is one character changed by OCR repair. Line and Position are
// 1-based, as ICAO 9303 numbers positions.
type Repair struct {
	Line     int    `json:"line"`
	Position int    `json:"position"`
	From     string `json:"from"`
	To       string `json:"to"`
	Field    string `json:"field"`
}

func (r Repair) String() string {
	return fmt.Sprintf("line %d position %d: %s->%s (%s)", r.Line, r.Position, r.From, r.To, r.Field)
}

// MRZ is a parsed machine readable zone. Dates are ISO 8601, empty when the
// printed date is not a valid calendar date (the raw digits are kept).
type MRZ struct {
	Format          string   `json:"format"`
	DocumentCode    string   `json:"document_code"`
	IssuingState    string   `json:"issuing_state"`
	DocumentNumber  string   `json:"document_number"`
	DateOfBirth     string   `json:"date_of_birth"`
	DateOfBirthRaw  string   `json:"-"`
	DateOfExpiry    string   `json:"date_of_expiry"`
	DateOfExpiryRaw string   `json:"-"`
	Sex             string   `json:"sex"`
	Nationality     string   `json:"nationality"`
	Surname         string   `json:"surname"`
	GivenNames      string   `json:"given_names"`
	OptionalData    string   `json:"optional_data"`
	OptionalData2   string   `json:"optional_data_2,omitempty"`
	Checks          Checks   `json:"checks"`
	AllChecksPass   bool     `json:"all_checks_pass"`
	Repaired        []Repair `json:"repaired"`
	// Lines are the (repaired) MRZ lines the fields were read from.
	Lines []string `json:"lines,omitempty"`
}

// Options tune Parse.
type Options struct {
	// Now is the reference date for century inference (default time.Now).
	Now time.Time
	// Repair enables OCR repair of failing check digits.
	Repair bool
}

// kind is what a position of the MRZ may hold.
type kind uint8

const (
	kAlpha kind = iota // A-Z and the filler
	kNum               // digits (dates, check digits)
	kNumF              // digits or the filler (check digits that may be empty)
	kAlnum             // A-Z, 0-9 and the filler
	kSex               // M, F, X or the filler
)

// span is a run of positions [start, end) of one line.
type span struct{ line, start, end int }

type fieldDef struct {
	name string
	sp   span
	k    kind
}

type layout struct {
	format string
	lines  int
	width  int
	fields []fieldDef
}

// Positions of the second line shared by TD2, TD3 and the visas.
func line2Common(docCheck kind) []fieldDef {
	return []fieldDef{
		{"document_number", span{1, 0, 9}, kAlnum},
		{"document_number_check", span{1, 9, 10}, docCheck},
		{"nationality", span{1, 10, 13}, kAlpha},
		{"date_of_birth", span{1, 13, 19}, kNum},
		{"date_of_birth_check", span{1, 19, 20}, kNum},
		{"sex", span{1, 20, 21}, kSex},
		{"date_of_expiry", span{1, 21, 27}, kNum},
		{"date_of_expiry_check", span{1, 27, 28}, kNum},
	}
}

func header(w int) []fieldDef {
	return []fieldDef{
		{"document_code", span{0, 0, 2}, kAlpha},
		{"issuing_state", span{0, 2, 5}, kAlpha},
		{"name", span{0, 5, w}, kAlpha},
	}
}

var layouts = map[string]*layout{
	TD1: {TD1, 3, 30, []fieldDef{
		{"document_code", span{0, 0, 2}, kAlpha},
		{"issuing_state", span{0, 2, 5}, kAlpha},
		{"document_number", span{0, 5, 14}, kAlnum},
		{"document_number_check", span{0, 14, 15}, kNumF},
		{"optional_data", span{0, 15, 30}, kAlnum},
		{"date_of_birth", span{1, 0, 6}, kNum},
		{"date_of_birth_check", span{1, 6, 7}, kNum},
		{"sex", span{1, 7, 8}, kSex},
		{"date_of_expiry", span{1, 8, 14}, kNum},
		{"date_of_expiry_check", span{1, 14, 15}, kNum},
		{"nationality", span{1, 15, 18}, kAlpha},
		{"optional_data_2", span{1, 18, 29}, kAlnum},
		{"composite_check", span{1, 29, 30}, kNum},
		{"name", span{2, 0, 30}, kAlpha},
	}},
	TD2: {TD2, 2, 36, append(append(header(36), line2Common(kNumF)...),
		fieldDef{"optional_data", span{1, 28, 35}, kAlnum},
		fieldDef{"composite_check", span{1, 35, 36}, kNum})},
	TD3: {TD3, 2, 44, append(append(header(44), line2Common(kNum)...),
		fieldDef{"optional_data", span{1, 28, 42}, kAlnum},
		fieldDef{"optional_data_check", span{1, 42, 43}, kNumF},
		fieldDef{"composite_check", span{1, 43, 44}, kNum})},
	MRVA: {MRVA, 2, 44, append(append(header(44), line2Common(kNum)...),
		fieldDef{"optional_data", span{1, 28, 44}, kAlnum})},
	MRVB: {MRVB, 2, 36, append(append(header(36), line2Common(kNum)...),
		fieldDef{"optional_data", span{1, 28, 36}, kAlnum})},
}

// Shape returns the number of lines and characters per line of a format.
func Shape(format string) (lines, width int, ok bool) {
	l, ok := layouts[format]
	if !ok {
		return 0, 0, false
	}
	return l.lines, l.width, true
}

// Normalize turns text into MRZ lines: upper case, spaces removed, blank
// lines dropped; a single line holding a whole MRZ is split.
func Normalize(text string) []string {
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n") {
		l = strings.ToUpper(strings.Join(strings.Fields(l), ""))
		if l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 1 {
		switch n := len(lines[0]); n {
		case 90:
			return []string{lines[0][:30], lines[0][30:60], lines[0][60:]}
		case 72, 88:
			return []string{lines[0][:n/2], lines[0][n/2:]}
		}
	}
	return lines
}

// Detect tells the format from the line count, the line length and the
// document code (visas start with V).
func Detect(lines []string) (string, error) {
	if len(lines) == 0 {
		return "", fmt.Errorf("%w: no lines", ErrMalformed)
	}
	for i, l := range lines {
		if len(l) != len(lines[0]) {
			return "", fmt.Errorf("%w: line %d has %d characters, line 1 has %d", ErrMalformed, i+1, len(l), len(lines[0]))
		}
	}
	visa := lines[0][0] == 'V'
	switch {
	case len(lines) == 3 && len(lines[0]) == 30:
		return TD1, nil
	case len(lines) == 2 && len(lines[0]) == 36 && visa:
		return MRVB, nil
	case len(lines) == 2 && len(lines[0]) == 36:
		return TD2, nil
	case len(lines) == 2 && len(lines[0]) == 44 && visa:
		return MRVA, nil
	case len(lines) == 2 && len(lines[0]) == 44:
		return TD3, nil
	}
	return "", fmt.Errorf("%w: %d lines of %d characters is no MRZ format (3x30, 2x36 or 2x44)", ErrMalformed, len(lines), len(lines[0]))
}

// ParseText normalises text and parses it.
func ParseText(text string, opt Options) (*MRZ, error) {
	return Parse(Normalize(text), opt)
}

// Parse parses MRZ lines. It returns an error only when the lines are not
// an MRZ at all (wrong shape or characters); failing check digits are
// reported in the result.
func Parse(lines []string, opt Options) (*MRZ, error) {
	format, err := Detect(lines)
	if err != nil {
		return nil, err
	}
	for i, l := range lines {
		for j := 0; j < len(l); j++ {
			if !validChar(l[j]) {
				return nil, fmt.Errorf("%w: line %d position %d: %q is not an MRZ character", ErrMalformed, i+1, j+1, l[j])
			}
		}
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	lay := layouts[format]
	buf := make([][]byte, len(lines))
	for i, l := range lines {
		buf[i] = []byte(l)
	}
	var repaired []Repair
	if opt.Repair {
		repaired = repair(lay, buf)
	}
	m := decode(lay, buf, opt.Now)
	m.Repaired = repaired
	if m.Repaired == nil {
		m.Repaired = []Repair{}
	}
	return m, nil
}

func validChar(c byte) bool {
	return c == '<' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')
}

// charValue is the ICAO 9303 value of an MRZ character, -1 for others.
func charValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	case c == '<':
		return 0
	}
	return -1
}

// CheckDigit computes the ICAO 9303 check digit of s (weights 7, 3, 1), or
// -1 when s holds a character outside the MRZ set.
func CheckDigit(s string) int {
	sum := 0
	w := [3]int{7, 3, 1}
	for i := 0; i < len(s); i++ {
		v := charValue(s[i])
		if v < 0 {
			return -1
		}
		sum += v * w[i%3]
	}
	return sum % 10
}

// checkDef is one check digit: the positions it covers and where it is.
type checkDef struct {
	name  string
	data  []span
	digit span
	// alt is a second accepted reading of the data (TD1/TD2 long document
	// numbers, whose check digit issuers compute with or without the filler).
	alt []span
	// fillerOK: an empty field may carry < as its check digit.
	fillerOK bool
}

func get(buf [][]byte, s span) string { return string(buf[s.line][s.start:s.end]) }

func joined(buf [][]byte, ss []span) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(get(buf, s))
	}
	return b.String()
}

// longDoc finds the continuation of a long document number in an optional
// data field: the characters up to the first filler, the last of which is
// the check digit. ok is false when the field holds no continuation.
func longDoc(buf [][]byte, opt span) (cont span, digit span, rest span, ok bool) {
	f := get(buf, opt)
	k := strings.IndexByte(f, '<')
	if k < 0 {
		k = len(f)
	}
	if k < 1 {
		return span{}, span{}, span{}, false
	}
	cont = span{opt.line, opt.start, opt.start + k - 1}
	digit = span{opt.line, opt.start + k - 1, opt.start + k}
	rest = span{opt.line, opt.start + k, opt.end}
	return cont, digit, rest, true
}

// checksFor lists the check digits of the MRZ in buf, in MRZ order.
func checksFor(lay *layout, buf [][]byte) []checkDef {
	var cs []checkDef
	switch lay.format {
	case TD1:
		doc := checkDef{name: CheckDocumentNumber, data: []span{{0, 5, 14}}, digit: span{0, 14, 15}}
		if buf[0][14] == '<' {
			if cont, d, _, ok := longDoc(buf, span{0, 15, 30}); ok {
				doc = checkDef{name: CheckDocumentNumber, data: []span{{0, 5, 15}, cont}, alt: []span{{0, 5, 14}, cont}, digit: d}
			}
		}
		cs = append(cs, doc,
			checkDef{name: CheckDateOfBirth, data: []span{{1, 0, 6}}, digit: span{1, 6, 7}},
			checkDef{name: CheckDateOfExpiry, data: []span{{1, 8, 14}}, digit: span{1, 14, 15}},
			checkDef{name: CheckComposite, data: []span{{0, 5, 30}, {1, 0, 7}, {1, 8, 15}, {1, 18, 29}}, digit: span{1, 29, 30}})
	default:
		doc := checkDef{name: CheckDocumentNumber, data: []span{{1, 0, 9}}, digit: span{1, 9, 10}}
		if lay.format == TD2 && buf[1][9] == '<' {
			if cont, d, _, ok := longDoc(buf, span{1, 28, 35}); ok {
				doc = checkDef{name: CheckDocumentNumber, data: []span{{1, 0, 10}, cont}, alt: []span{{1, 0, 9}, cont}, digit: d}
			}
		}
		cs = append(cs, doc,
			checkDef{name: CheckDateOfBirth, data: []span{{1, 13, 19}}, digit: span{1, 19, 20}},
			checkDef{name: CheckDateOfExpiry, data: []span{{1, 21, 27}}, digit: span{1, 27, 28}})
		switch lay.format {
		case TD2:
			cs = append(cs, checkDef{name: CheckComposite, data: []span{{1, 0, 10}, {1, 13, 20}, {1, 21, 35}}, digit: span{1, 35, 36}})
		case TD3:
			cs = append(cs,
				checkDef{name: CheckOptionalData, data: []span{{1, 28, 42}}, digit: span{1, 42, 43}, fillerOK: true},
				checkDef{name: CheckComposite, data: []span{{1, 0, 10}, {1, 13, 20}, {1, 21, 43}}, digit: span{1, 43, 44}})
		}
	}
	return cs
}

// verify reports whether the check digit of c matches its data.
func (c checkDef) verify(buf [][]byte) bool {
	d := buf[c.digit.line][c.digit.start]
	want := -1
	switch {
	case d >= '0' && d <= '9':
		want = int(d - '0')
	case d == '<' && c.fillerOK:
		// An empty optional field may print < for its check digit.
		return strings.Trim(joined(buf, c.data), "<") == ""
	default:
		return false
	}
	if CheckDigit(joined(buf, c.data)) == want {
		return true
	}
	return c.alt != nil && CheckDigit(joined(buf, c.alt)) == want
}

func decode(lay *layout, buf [][]byte, now time.Time) *MRZ {
	m := &MRZ{Format: lay.format}
	for _, l := range buf {
		m.Lines = append(m.Lines, string(l))
	}
	m.DocumentCode = strings.TrimRight(get(buf, span{0, 0, 2}), "<")
	m.IssuingState = get(buf, span{0, 2, 5})
	var nameField string
	switch lay.format {
	case TD1:
		m.DocumentNumber = strings.TrimRight(get(buf, span{0, 5, 14}), "<")
		m.OptionalData = trimFill(get(buf, span{0, 15, 30}))
		if buf[0][14] == '<' {
			if cont, _, rest, ok := longDoc(buf, span{0, 15, 30}); ok {
				m.DocumentNumber = strings.TrimRight(get(buf, span{0, 5, 14}), "<") + get(buf, cont)
				m.OptionalData = trimFill(get(buf, rest))
			}
		}
		m.DateOfBirthRaw = get(buf, span{1, 0, 6})
		m.Sex = sex(buf[1][7])
		m.DateOfExpiryRaw = get(buf, span{1, 8, 14})
		m.Nationality = get(buf, span{1, 15, 18})
		m.OptionalData2 = trimFill(get(buf, span{1, 18, 29}))
		nameField = string(buf[2])
	default:
		m.DocumentNumber = strings.TrimRight(get(buf, span{1, 0, 9}), "<")
		m.Nationality = get(buf, span{1, 10, 13})
		m.DateOfBirthRaw = get(buf, span{1, 13, 19})
		m.Sex = sex(buf[1][20])
		m.DateOfExpiryRaw = get(buf, span{1, 21, 27})
		opt := span{1, 28, lay.width}
		switch lay.format {
		case TD2:
			opt = span{1, 28, 35}
		case TD3:
			opt = span{1, 28, 42}
		}
		m.OptionalData = trimFill(get(buf, opt))
		if lay.format == TD2 && buf[1][9] == '<' {
			if cont, _, rest, ok := longDoc(buf, opt); ok {
				m.DocumentNumber = strings.TrimRight(get(buf, span{1, 0, 9}), "<") + get(buf, cont)
				m.OptionalData = trimFill(get(buf, rest))
			}
		}
		nameField = string(buf[0][5:])
	}
	m.Surname, m.GivenNames = SplitName(nameField)
	m.DateOfBirth = birthDate(m.DateOfBirthRaw, now)
	m.DateOfExpiry = expiryDate(m.DateOfExpiryRaw, now)
	m.AllChecksPass = true
	for _, c := range checksFor(lay, buf) {
		ok := c.verify(buf)
		m.Checks.set(c.name, ok)
		m.AllChecksPass = m.AllChecksPass && ok
	}
	return m
}

func trimFill(s string) string { return strings.Trim(s, "<") }

// sex maps the sex position: M, F, and X for X, < or anything unspecified.
func sex(c byte) string {
	switch c {
	case 'M', 'F':
		return string(c)
	}
	return "X"
}

// SplitName splits an MRZ name field at the first double filler into the
// primary identifier (surname) and the secondary (given names), with single
// fillers turned into spaces.
func SplitName(field string) (surname, given string) {
	field = strings.TrimRight(field, "<")
	sur, giv, _ := strings.Cut(field, "<<")
	clean := func(s string) string {
		return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '<' }), " ")
	}
	return clean(sur), clean(giv)
}

// yymmdd reads a six digit date; ok is false for non digits or an invalid
// calendar date.
func yymmdd(raw string) (yy, mm, dd int, ok bool) {
	if len(raw) != 6 {
		return 0, 0, 0, false
	}
	var v [6]int
	for i := 0; i < 6; i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return 0, 0, 0, false
		}
		v[i] = int(raw[i] - '0')
	}
	yy, mm, dd = v[0]*10+v[1], v[2]*10+v[3], v[4]*10+v[5]
	if mm < 1 || mm > 12 || dd < 1 || dd > 31 {
		return 0, 0, 0, false
	}
	return yy, mm, dd, true
}

func isoDate(y, m, d int) string {
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return "" // 31 April and the like
	}
	return t.Format("2006-01-02")
}

// birthDate infers the century so that the birth lies in the past.
func birthDate(raw string, now time.Time) string {
	yy, mm, dd, ok := yymmdd(raw)
	if !ok {
		return ""
	}
	y := 2000 + yy
	if time.Date(y, time.Month(mm), dd, 0, 0, 0, 0, time.UTC).After(now) {
		y -= 100
	}
	return isoDate(y, mm, dd)
}

// expiryWindow is how far ahead of now an expiry may lie before the
// century is taken to be the previous one. No travel document is valid for
// more than a few decades; a document that expired in the 1970s still reads
// as 197x.
const expiryWindow = 30

// expiryDate infers the century of an expiry: the 2000s unless that puts
// it more than expiryWindow years ahead.
func expiryDate(raw string, now time.Time) string {
	yy, mm, dd, ok := yymmdd(raw)
	if !ok {
		return ""
	}
	y := 2000 + yy
	if y > now.Year()+expiryWindow {
		y -= 100
	}
	return isoDate(y, mm, dd)
}
