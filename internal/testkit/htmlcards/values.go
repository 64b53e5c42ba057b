package htmlcards

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/regexgen"
	"github.com/tambua/tambua/mrz"
)

// ReferenceDate is the day every document is valid on. It is fixed so a
// seed gives the same cards on any day (the same date synth uses, so the
// two corpora can be read side by side).
var ReferenceDate = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// holder is one person with every value of one definition.
type holder struct {
	country string
	surname string
	given   []string
	sex     string // M or F
	dob     time.Time
	issue   time.Time
	expiry  time.Time
	// combined is each field normalised (DD.MM.YYYY, M/F, upper case);
	// printed is each field as the card prints it.
	combined, printed map[string]string
	// extra are values the card prints that no field of the definition
	// names (a place of issue on the Kenyan ID the definition leaves out).
	extra   map[string]string
	mrz     []string
	barcode string
}

func (h *holder) givenNames() string { return strings.Join(h.given, " ") }

// validity in years per kind of document (a voter card has no expiry; a
// notional ten years keeps the MRZ-less dates in order).
var validity = map[string]int{"id_card": 10, "passport": 10, "driving_licence": 5, "voter_id": 10}

// newHolder draws a holder for d. dates says how the card prints dates
// whose definition allows any format (the generic ones).
func newHolder(r *rand.Rand, d *idv.DocumentDefinition, dates dateStyle) (*holder, error) {
	b := bookFor(d.Country)
	h := &holder{country: d.Country, combined: map[string]string{}, printed: map[string]string{}, extra: map[string]string{}}
	// The face photos are all of men; the sex printed is drawn on its own
	// (the corpus measures reading, not whether the face fits the sex).
	h.sex = "M"
	if r.Float64() < 0.35 {
		h.sex = "F"
	}
	h.surname = oneOf(r, b.surnames)
	names := b.male
	if h.sex == "F" {
		names = b.female
	}
	h.given = []string{oneOf(r, names)}
	_, middle := d.Field("middle_name")
	if middle || r.Float64() < 0.6 {
		if n := oneOf(r, names); n != h.given[0] {
			h.given = append(h.given, n)
		} else if middle {
			h.given = append(h.given, oneOf(r, b.surnames))
		}
	}
	age := 18 + r.IntN(55)
	if d.Kind == "passport" && r.Float64() < 0.08 {
		age = 16
	}
	h.dob = ReferenceDate.AddDate(-age, -r.IntN(12), -r.IntN(28)-1)
	years := validity[d.Kind]
	// issued between 3 weeks and (validity - 2 months) ago, and not before
	// the holder turned 16
	lo := ReferenceDate.AddDate(-years, 2, 0)
	if min := h.dob.AddDate(16, 0, 0); lo.Before(min) {
		lo = min
	}
	hi := ReferenceDate.AddDate(0, 0, -21)
	if !lo.Before(hi) {
		lo = hi.AddDate(0, 0, -1)
	}
	h.issue = lo.AddDate(0, 0, r.IntN(int(hi.Sub(lo).Hours()/24)+1))
	h.expiry = h.issue.AddDate(years, 0, -1)

	for _, f := range d.Fields {
		v, err := h.value(r, d, f, b)
		if err != nil {
			return nil, err
		}
		h.combined[f.Name] = v
		h.printed[f.Name] = printed(f, v, dates)
	}
	h.extra["place_of_issue"] = oneOf(r, b.towns)
	h.extra["fixed_nationality"] = b.nationalWord
	if d.MRZ != nil {
		lines, err := h.mrzLines(r, d)
		if err != nil {
			return nil, err
		}
		h.mrz = lines
	}
	if d.Barcode != nil {
		parts := []string{d.Config}
		for _, n := range d.Barcode.Fields {
			parts = append(parts, n+"="+h.combined[n])
		}
		h.barcode = strings.Join(parts, "|")
	}
	return h, nil
}

func oneOf[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// value is field f's normalised value, from its meaning where we know it
// and otherwise from its pattern; it always matches the pattern.
func (h *holder) value(r *rand.Rand, d *idv.DocumentDefinition, f idv.FieldDef, b *book) (string, error) {
	if f.Fixed != "" {
		return f.Fixed, nil
	}
	re, err := regexp.Compile(f.Pattern)
	if err != nil {
		return "", fmt.Errorf("htmlcards: %s.%s: %w", d.Config, f.Name, err)
	}
	if v := h.meaning(r, d, f, b); v != "" {
		if !re.MatchString(v) {
			return "", fmt.Errorf("htmlcards: %s.%s: %q does not match %s", d.Config, f.Name, v, f.Pattern)
		}
		return v, nil
	}
	for range 50 {
		v, err := regexgen.Draw(r, f.Pattern)
		if err != nil {
			return "", err
		}
		if re.MatchString(v) && strings.TrimSpace(v) == v {
			return v, nil
		}
	}
	return "", fmt.Errorf("htmlcards: %s.%s: no value drawn for %s", d.Config, f.Name, f.Pattern)
}

func dmy(t time.Time) string { return t.Format("02.01.2006") }

// meaning is the value a field's name implies, or "" to draw from the
// pattern.
func (h *holder) meaning(r *rand.Rand, d *idv.DocumentDefinition, f idv.FieldDef, b *book) string {
	switch f.Type {
	case idv.FieldDate:
		switch {
		case strings.Contains(f.Name, "birth"):
			return dmy(h.dob)
		case strings.Contains(f.Name, "expiry"):
			return dmy(h.expiry)
		case f.Name == "date_of_registration":
			// registered as a voter between 18 and the card's issue
			lo := h.dob.AddDate(18, 0, 0)
			if !lo.Before(h.issue) {
				return dmy(h.issue)
			}
			return dmy(lo.AddDate(0, 0, r.IntN(int(h.issue.Sub(lo).Hours()/24)+1)))
		}
		return dmy(h.issue)
	case idv.FieldSex:
		return h.sex
	}
	switch f.Name {
	case "surname":
		return h.surname
	case "given_names", "given_name", "names", "other_names":
		return h.givenNames()
	case "first_name":
		return h.given[0]
	case "middle_name":
		return strings.Join(h.given[1:], " ")
	case "full_name":
		return h.givenNames() + " " + h.surname
	case "nationality":
		if strings.Contains(f.Pattern, "[A-Z]{3}") {
			return d.Country
		}
		return strings.Trim(f.Pattern, "^$") // the one value the pattern allows (UGA, KENYAN, RSA)
	case "issuing_state":
		return d.Country
	case "country_of_birth":
		if d.Country == "ZAF" {
			return "RSA"
		}
		return d.Country
	case "status":
		if r.Float64() < 0.9 {
			return "CITIZEN"
		}
		return "PERMANENT RESIDENT"
	case "document_type":
		if d.MRZ != nil {
			return strings.TrimRight(d.MRZ.DocumentCode, "<")
		}
	case "authority":
		return oneOf(r, b.authority)
	case "place_of_birth", "district":
		return oneOf(r, b.towns)
	case "place_of_issue":
		return oneOf(r, b.towns)
	case "division", "location", "county", "sub_county":
		return oneOf(r, b.areas)
	case "sub_location", "parish", "village":
		return oneOf(r, b.villages)
	case "licence_class":
		return oneOf(r, []string{"B", "A B", "B C", "B CM", "A B C", "B D", "C CM", "B CH"})
	case "identity_number":
		if d.Country == "ZAF" {
			// YYMMDD, a sequence (5000-9999 for men), citizenship 0, 8, Luhn
			seq := r.IntN(5000)
			if h.sex == "M" {
				seq += 5000
			}
			s := h.dob.Format("060102") + fmt.Sprintf("%04d", seq) + "08"
			return s + strconv.Itoa(luhnDigit(s))
		}
	case "nin":
		switch d.Country {
		case "UGA":
			// C, the sex, the birth year's last two digits, then ten
			// digits and letters
			var sb strings.Builder
			sb.WriteString("C" + h.sex + h.dob.Format("06"))
			for i := range 10 {
				if i < 4 || r.Float64() < 0.5 {
					sb.WriteByte(byte('0' + r.IntN(10)))
				} else {
					sb.WriteByte(byte('A' + r.IntN(26)))
				}
			}
			return sb.String()
		case "TZA":
			return fmt.Sprintf("%s-%05d-%05d-%02d", h.dob.Format("20060102"), r.IntN(100000), r.IntN(100000), r.IntN(100))
		}
	case "document_number", "passport_number":
		if d.Country == "UTO" || d.Config == "generic_id_card" || d.Config == "generic_td2" {
			// nine characters or fewer: no TD1 overflow
			return fmt.Sprintf("%c%c%07d", 'A'+r.IntN(26), 'A'+r.IntN(26), r.IntN(10000000))
		}
	}
	return ""
}

func luhnDigit(s string) int {
	sum, double := 0, true
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return (10 - sum%10) % 10
}

// dateStyle is how a card whose definition accepts any date format
// prints its dates.
type dateStyle int

const (
	dateWord      dateStyle = iota // 14 MAR 1985
	dateDots                       // 14.03.1985
	dateBilingual                  // 14 MAR/MARS 1985
	dateSlash                      // 14/03/1985
)

var (
	monthsEN = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	monthsFR = []string{"JAN", "FEV", "MARS", "AVR", "MAI", "JUIN", "JUIL", "AOUT", "SEPT", "OCT", "NOV", "DEC"}
)

// printed is a normalised value as the card prints it: dates in the
// definition's format, sex as a letter or a word.
func printed(f idv.FieldDef, v string, dates dateStyle) string {
	switch f.Type {
	case idv.FieldDate:
		t, err := time.Parse("02.01.2006", v)
		if err != nil {
			return v
		}
		word := fmt.Sprintf("%02d %s %d", t.Day(), monthsEN[t.Month()-1], t.Year())
		switch f.Format {
		case "DD/MM/YYYY":
			return t.Format("02/01/2006")
		case "DD-MM-YYYY":
			return t.Format("02-01-2006")
		case "DD MMM YYYY":
			return word
		case "any":
			switch dates {
			case dateDots:
				return v
			case dateSlash:
				return t.Format("02/01/2006")
			case dateBilingual:
				return fmt.Sprintf("%02d %s/%s %d", t.Day(), monthsEN[t.Month()-1], monthsFR[t.Month()-1], t.Year())
			}
			return word
		}
		return v
	case idv.FieldSex:
		if f.Format == "word" {
			return map[string]string{"M": "MALE", "F": "FEMALE"}[v]
		}
	}
	return v
}

// mrzText is s in the MRZ alphabet: spaces and hyphens become fillers,
// apostrophes and other marks are dropped.
func mrzText(s string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(s) {
		switch {
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case c == ' ' || c == '-':
			b.WriteByte('<')
		}
	}
	return b.String()
}

func fill(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

func cd(s string) string { return strconv.Itoa(mrz.CheckDigit(s)) }

// mrzLines writes the holder's MRZ in d's format (ICAO 9303 parts 4-6):
// the number, names, dates and optional data from the fields that back
// them (`mrz:` in the definition); a document number no field prints is
// drawn.
func (h *holder) mrzLines(r *rand.Rand, d *idv.DocumentDefinition) ([]string, error) {
	code := d.MRZ.DocumentCode
	issuer, nat := d.Country, d.Country
	number, optional := "", ""
	surname, given := h.surname, h.givenNames()
	for _, f := range d.Fields {
		v := h.combined[f.Name]
		switch f.MRZ {
		case "document_number":
			number = v
		case "optional_data", "personal_number":
			optional = v
		case "issuing_state":
			issuer = v
		case "document_code":
			code = v
		}
	}
	// the issuer code a card's MRZ starts with, when a keyword says it
	// (IDKYA on the Kenyan ID)
	for _, kws := range d.Keywords {
		for _, k := range kws {
			if c := strings.TrimRight(d.MRZ.DocumentCode, "<"); len(k) == len(c)+3 && strings.HasPrefix(k, c) && k != c+d.Country {
				issuer = k[len(c):]
			}
		}
	}
	if number == "" {
		number = fmt.Sprintf("%09d", r.IntN(1000000000))
	}
	if optional == "" {
		for _, n := range []string{"identity_number", "nin", "national_id_number"} {
			if v, ok := h.combined[n]; ok && len(mrzText(v)) <= 15 {
				optional = v
			}
		}
	}
	dob, exp := h.dob.Format("060102"), h.expiry.Format("060102")
	num := fill(mrzText(number), 9)
	if len(mrzText(number)) > 9 {
		return nil, fmt.Errorf("htmlcards: %s: document number %q is longer than nine characters", d.Config, number)
	}
	name := func(w int) string { return fill(mrzText(surname)+"<<"+mrzText(given), w) }
	c2 := fill(mrzText(code), 2)
	switch d.MRZ.Format {
	case idv.MRZTD1:
		l1 := c2 + fill(issuer, 3) + num + cd(num) + fill(mrzText(optional), 15)
		l2 := dob + cd(dob) + h.sex + exp + cd(exp) + fill(nat, 3) + strings.Repeat("<", 11)
		l2 += cd(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29])
		return []string{l1, l2, name(30)}, nil
	case idv.MRZTD2:
		l1 := c2 + fill(issuer, 3) + name(31)
		l2 := num + cd(num) + fill(nat, 3) + dob + cd(dob) + h.sex + exp + cd(exp) + fill(mrzText(optional), 7)
		l2 += cd(l2[0:10] + l2[13:20] + l2[21:35])
		return []string{l1, l2}, nil
	case idv.MRZTD3:
		l1 := c2 + fill(issuer, 3) + name(39)
		pn := fill(mrzText(optional), 14)
		pnc := cd(pn)
		if strings.Trim(pn, "<") == "" {
			pnc = "<"
		}
		l2 := num + cd(num) + fill(nat, 3) + dob + cd(dob) + h.sex + exp + cd(exp) + pn + pnc
		l2 += cd(l2[0:10] + l2[13:20] + l2[21:43])
		return []string{l1, l2}, nil
	}
	return nil, fmt.Errorf("htmlcards: %s: MRZ format %q", d.Config, d.MRZ.Format)
}
