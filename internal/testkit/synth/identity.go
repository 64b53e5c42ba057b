package synth

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// person is the holder drawn for one sample.
type person struct {
	Surname string
	Given   []string // first name, then other given names
	Sex     string   // M or F
	DOB     time.Time
	Issue   time.Time
	Expiry  time.Time
}

func (p person) givenNames() string { return strings.Join(p.Given, " ") }

// identity is a person with every field value of one definition.
type identity struct {
	person  person
	values  map[string]string // normalised, as combined returns them
	printed map[string]string // as the card prints them
	mrz     *mrzData
	barcode string
}

// validity in years of each kind of document.
var validityYears = map[string]int{"id_card": 10, "passport": 10, "driving_licence": 5, "voter_id": 0}

// newIdentity draws a holder and fills every field of d. today is the
// reference date the corpus is made for: documents are valid on it.
//
// sex is the sex of the person whose face the card shows ("" draws one).
func newIdentity(g *rng, d *idv.DocumentDefinition, today time.Time, sex string) (*identity, error) {
	b := bookFor(d.Country)
	p := person{Sex: sex}
	if p.Sex == "" {
		p.Sex = "M"
		if g.chance(0.5) {
			p.Sex = "F"
		}
	}
	p.Surname = pick(g, b.surnames)
	if p.Sex == "M" {
		p.Given = []string{pick(g, b.male)}
		if g.chance(0.75) {
			p.Given = append(p.Given, pick(g, b.maleLocal))
		}
	} else {
		p.Given = []string{pick(g, b.female)}
		if g.chance(0.75) {
			p.Given = append(p.Given, pick(g, b.femaleLocal))
		}
	}
	if _, ok := d.Field("middle_name"); ok && len(p.Given) < 2 {
		if p.Sex == "M" {
			p.Given = append(p.Given, pick(g, b.maleLocal))
		} else {
			p.Given = append(p.Given, pick(g, b.femaleLocal))
		}
	}
	if len(p.Given) == 2 && p.Given[0] == p.Given[1] {
		p.Given = p.Given[:1]
	}
	// age: adults for cards; passports include some minors, old enough
	// to pass for the adult faces of the face set
	minAge, maxAge := 18, 78
	if d.Kind == "passport" && g.chance(0.1) {
		minAge, maxAge = 15, 17
	}
	ageDays := g.between(minAge*365+10, maxAge*365)
	p.DOB = today.AddDate(0, 0, -ageDays)
	valid := validityYears[d.Kind]
	earliest := p.DOB.AddDate(18, 0, 0)
	if minAge < 18 {
		earliest = p.DOB.AddDate(0, 1, 0)
	}
	span := 9 * 365
	if valid > 0 {
		span = valid*365 - 60
	}
	lo := today.AddDate(0, 0, -span)
	if lo.Before(earliest) {
		lo = earliest
	}
	hi := today.AddDate(0, 0, -20)
	if !lo.Before(hi) {
		lo = hi.AddDate(0, 0, -1)
	}
	p.Issue = lo.AddDate(0, 0, g.intn(int(hi.Sub(lo).Hours()/24)+1))
	if valid == 0 {
		valid = 10
	}
	p.Expiry = p.Issue.AddDate(valid, 0, -1)

	id := &identity{person: p, values: map[string]string{}, printed: map[string]string{}}
	for _, f := range d.Fields {
		v, err := fieldValue(g, d, f, p, b)
		if err != nil {
			return nil, err
		}
		id.values[f.Name] = v
		id.printed[f.Name] = printedValue(f, v)
	}
	if d.MRZ != nil {
		m, err := mrzFor(g, d, id)
		if err != nil {
			return nil, err
		}
		id.mrz = m
	}
	if d.Barcode != nil {
		var parts []string
		parts = append(parts, d.Config)
		for _, name := range d.Barcode.Fields {
			parts = append(parts, name+"="+id.values[name])
		}
		id.barcode = strings.Join(parts, "|")
	}
	return id, nil
}

func ddmmyyyy(t time.Time) string { return t.Format("02.01.2006") }

// fieldValue draws the normalised value of one field, consistent with the
// person, and checks it against the field's pattern.
func fieldValue(g *rng, d *idv.DocumentDefinition, f idv.FieldDef, p person, b *nameBook) (string, error) {
	if f.Fixed != "" {
		return f.Fixed, nil
	}
	var re *regexp.Regexp
	if f.Pattern != "" {
		var err error
		re, err = regexp.Compile(f.Pattern)
		if err != nil {
			return "", fmt.Errorf("synth: %s.%s: %w", d.Config, f.Name, err)
		}
	}
	v := semanticValue(g, d, f, p, b)
	if v != "" && (re == nil || re.MatchString(v)) {
		return v, nil
	}
	if re == nil {
		return "", fmt.Errorf("synth: %s.%s: no value and no pattern to draw one from", d.Config, f.Name)
	}
	// the pattern decides; retry a few draws in case of anchors or classes
	// the generator reads loosely
	for i := 0; i < 20; i++ {
		s, err := fromPattern(g, f.Pattern)
		if err != nil {
			return "", err
		}
		s = strings.TrimSpace(s)
		if re.MatchString(s) {
			return s, nil
		}
	}
	return "", fmt.Errorf("synth: %s.%s: cannot draw a value matching %s", d.Config, f.Name, f.Pattern)
}

// semanticValue is the value a field name implies, or "" to fall back to
// the pattern.
func semanticValue(g *rng, d *idv.DocumentDefinition, f idv.FieldDef, p person, b *nameBook) string {
	switch f.Type {
	case idv.FieldDate:
		switch f.Name {
		case "date_of_birth":
			return ddmmyyyy(p.DOB)
		case "date_of_issue", "issue_date":
			return ddmmyyyy(p.Issue)
		case "date_of_expiry", "expiry_date":
			return ddmmyyyy(p.Expiry)
		case "date_of_registration":
			lo := p.DOB.AddDate(18, 0, 0)
			if p.Issue.Before(lo) {
				return ddmmyyyy(p.Issue)
			}
			days := int(p.Issue.Sub(lo).Hours() / 24)
			return ddmmyyyy(lo.AddDate(0, 0, g.intn(days+1)))
		}
		return ddmmyyyy(p.Issue)
	case idv.FieldSex:
		return p.Sex
	}
	switch f.Name {
	case "surname", "last_name", "family_name":
		return p.Surname
	case "given_names", "given_name", "names", "other_names", "forenames":
		return p.givenNames()
	case "first_name":
		return p.Given[0]
	case "middle_name":
		if len(p.Given) > 1 {
			return strings.Join(p.Given[1:], " ")
		}
		return ""
	case "full_name", "name":
		return p.givenNames() + " " + p.Surname
	case "nationality":
		if strings.Contains(f.Pattern, "{3}") || len(strings.Trim(f.Pattern, "^$")) == 3 {
			return d.Country
		}
		return b.nationality
	case "issuing_state":
		return d.Country
	case "country_of_birth":
		if d.Country == "ZAF" {
			return "RSA"
		}
		return d.Country
	case "status":
		if g.chance(0.92) {
			return "CITIZEN"
		}
		return "PERMANENT RESIDENT"
	case "document_type":
		if d.MRZ != nil {
			return d.MRZ.DocumentCode
		}
	case "authority":
		switch d.Country {
		case "KEN":
			return "GOVERNMENT OF KENYA"
		case "UGA":
			return "MINISTRY OF INTERNAL AFFAIRS"
		}
		return "PASSPORT OFFICE " + pick(g, b.towns)
	case "place_of_birth", "district_of_birth":
		return pick(g, b.districts)
	case "place_of_issue":
		return pick(g, b.towns)
	case "district", "region", "state", "province":
		return pick(g, b.districts)
	case "county":
		if d.Country == "UGA" {
			return pick(g, b.towns)
		}
		return pick(g, b.regions)
	case "division", "sub_county", "location", "ward", "lga":
		return pick(g, b.towns)
	case "sub_location", "parish", "village":
		return pick(g, b.villages)
	case "licence_class":
		return pick(g, []string{"B", "B CM", "A B", "B C", "A B CM", "B CM CH", "B DM"})
	case "identity_number":
		if d.Country == "ZAF" {
			return saIdentityNumber(g, p)
		}
	case "nin":
		switch d.Country {
		case "UGA":
			// C, the sex, the two digits of the birth year, then ten
			var sb strings.Builder
			sb.WriteString("C" + p.Sex + p.DOB.Format("06"))
			for i := 0; i < 10; i++ {
				if i < 5 || g.chance(0.3) {
					sb.WriteByte(byte('0' + g.intn(10)))
				} else {
					sb.WriteByte(byte('A' + g.intn(26)))
				}
			}
			return sb.String()
		case "TZA":
			// NIDA numbers open with the date of birth
			return fmt.Sprintf("%s-%05d-%05d-%02d", p.DOB.Format("20060102"), g.intn(100000), g.intn(100000), g.intn(100))
		}
	}
	return ""
}

// saIdentityNumber is YYMMDD, a sequence (0000-4999 female, 5000-9999
// male), citizenship (0), 8, and a Luhn check digit.
func saIdentityNumber(g *rng, p person) string {
	seq := g.intn(5000)
	if p.Sex == "M" {
		seq += 5000
	}
	s := p.DOB.Format("060102") + fmt.Sprintf("%04d", seq) + "08"
	return s + strconv.Itoa(luhn(s))
}

// luhn returns the check digit that makes s+digit pass the Luhn test.
func luhn(s string) int {
	sum := 0
	double := true
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return (10 - sum%10) % 10
}

var monthAbbr = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

// printedValue formats a normalised value the way the card prints it.
func printedValue(f idv.FieldDef, v string) string {
	switch f.Type {
	case idv.FieldDate:
		t, err := time.Parse("02.01.2006", v)
		if err != nil {
			return v
		}
		switch f.Format {
		case "DD/MM/YYYY":
			return t.Format("02/01/2006")
		case "DD-MM-YYYY":
			return t.Format("02-01-2006")
		case "DD MMM YYYY", "any":
			return fmt.Sprintf("%02d %s %d", t.Day(), monthAbbr[t.Month()-1], t.Year())
		}
		return v
	case idv.FieldSex:
		if f.Format == "word" {
			switch v {
			case "M":
				return "MALE"
			case "F":
				return "FEMALE"
			}
		}
	}
	return v
}

// mrzIssuer is the issuing code the MRZ prints: a keyword that is the
// start of the MRZ (IDKYA, P<KEN) names it; otherwise the country.
func mrzIssuer(d *idv.DocumentDefinition) string {
	code := d.MRZ.DocumentCode
	for _, kws := range d.Keywords {
		for _, k := range kws {
			k = strings.ReplaceAll(k, "<", "")
			c := strings.ReplaceAll(code, "<", "")
			if len(k) == len(c)+3 && strings.HasPrefix(k, c) {
				iss := k[len(c):]
				if strings.Trim(iss, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
					return iss
				}
			}
		}
	}
	return d.Country
}

// mrzFor builds the MRZ of an identity from the fields that back it; what
// no printed field carries is drawn.
func mrzFor(g *rng, d *idv.DocumentDefinition, id *identity) (*mrzData, error) {
	p := id.person
	m := &mrzData{
		Format: d.MRZ.Format, DocCode: d.MRZ.DocumentCode, Issuer: mrzIssuer(d),
		Nationality: d.Country, Surname: p.Surname, Given: p.givenNames(), Sex: p.Sex,
		DOB: p.DOB, Expiry: p.Expiry,
	}
	haveOptional := false
	for _, f := range d.Fields {
		v := id.values[f.Name]
		switch f.MRZ {
		case "document_number":
			m.Number = v
		case "optional_data", "personal_number":
			m.Optional = v
			haveOptional = true
		case "nationality":
			m.Nationality = v
		case "issuing_state":
			m.Issuer = v
		case "surname":
			m.Surname = v
		case "given_names":
			m.Given = v
		}
	}
	if m.Number == "" {
		n, err := fromPattern(g, `[A-Z][0-9]{8}`)
		if err != nil {
			return nil, err
		}
		m.Number = n
	}
	if !haveOptional {
		// a national number, where the card prints one, rides in the
		// optional data as on most ID cards
		for _, name := range []string{"identity_number", "nin", "national_id_number", "personal_number"} {
			if v, ok := id.values[name]; ok && len(mrzText(v)) <= 15 {
				m.Optional = v
				break
			}
		}
	}
	if _, err := m.lines(); err != nil {
		return nil, err
	}
	return m, nil
}
