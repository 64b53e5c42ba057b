package lists

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// xmlRoot returns the local name of the document element, or "".
func xmlRoot(data []byte) string {
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local
		}
	}
}

// walkXML calls elem for every start element named one of names, with the
// decoder positioned to DecodeElement it, and the line it starts on.
func walkXML(file string, data []byte, root string, names map[string]bool, elem func(d *xml.Decoder, se xml.StartElement, line int) error) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	sawRoot := false
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if !sawRoot {
				return perr(file, 0, "no <%s> element (is this the right list?)", root)
			}
			return nil
		}
		if err != nil {
			return xmlErr(file, d, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !sawRoot {
			if se.Name.Local != root {
				return perr(file, line, "root element <%s>, want <%s>", se.Name.Local, root)
			}
			sawRoot = true
			continue
		}
		if names[se.Name.Local] {
			line, _ = d.InputPos()
			if err := elem(d, se, line); err != nil {
				var pe *ParseError
				if errors.As(err, &pe) {
					return err
				}
				return xmlErr(file, d, err)
			}
		}
	}
}

func xmlErr(file string, d *xml.Decoder, err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return perr(file, se.Line, "%s", se.Msg)
	}
	line, _ := d.InputPos()
	return perr(file, line, "%v", err)
}

type unValues struct {
	Values []string `xml:"VALUE"`
}

type unAlias struct {
	Quality string `xml:"QUALITY"`
	Name    string `xml:"ALIAS_NAME"`
}

type unDOB struct {
	Type     string `xml:"TYPE_OF_DATE"`
	Date     string `xml:"DATE"`
	Year     string `xml:"YEAR"`
	FromYear string `xml:"FROM_YEAR"`
	ToYear   string `xml:"TO_YEAR"`
}

type unDoc struct {
	Type   string `xml:"TYPE_OF_DOCUMENT"`
	Number string `xml:"NUMBER"`
}

type unRecord struct {
	DataID      string    `xml:"DATAID"`
	First       string    `xml:"FIRST_NAME"`
	Second      string    `xml:"SECOND_NAME"`
	Third       string    `xml:"THIRD_NAME"`
	Fourth      string    `xml:"FOURTH_NAME"`
	ListType    string    `xml:"UN_LIST_TYPE"`
	Ref         string    `xml:"REFERENCE_NUMBER"`
	Nationality unValues  `xml:"NATIONALITY"`
	Aliases     []unAlias `xml:"INDIVIDUAL_ALIAS"`
	EntAliases  []unAlias `xml:"ENTITY_ALIAS"`
	DOBs        []unDOB   `xml:"INDIVIDUAL_DATE_OF_BIRTH"`
	Docs        []unDoc   `xml:"INDIVIDUAL_DOCUMENT"`
	Gender      string    `xml:"GENDER"`
	Titles      unValues  `xml:"TITLE"`
}

// ParseUN reads the UN Security Council consolidated list XML.
func ParseUN(file string, data []byte) ([]*Entity, error) {
	var ents []*Entity
	seen := map[string]bool{}
	err := walkXML(file, data, "CONSOLIDATED_LIST", map[string]bool{"INDIVIDUAL": true, "ENTITY": true},
		func(d *xml.Decoder, se xml.StartElement, line int) error {
			var r unRecord
			if err := d.DecodeElement(&r, &se); err != nil {
				return err
			}
			id := strings.TrimSpace(r.Ref)
			if id == "" {
				id = strings.TrimSpace(r.DataID)
			}
			if id == "" {
				return perr(file, line, "<%s> without REFERENCE_NUMBER or DATAID", se.Name.Local)
			}
			name := joinNonEmpty(r.First, r.Second, r.Third, r.Fourth)
			if name == "" {
				return perr(file, line, "%s has no name", id)
			}
			if seen[id] {
				// The UN list gives one reference number per record; a
				// repeat is a broken file, not a second person.
				return perr(file, line, "reference number %s appears twice", id)
			}
			seen[id] = true
			e := &Entity{ID: id, List: UN, Name: name, Kind: Organization}
			if se.Name.Local == "INDIVIDUAL" {
				e.Kind = Person
			}
			if lt := strings.TrimSpace(r.ListType); lt != "" {
				e.Programs = []string{lt}
			}
			for _, a := range append(r.Aliases, r.EntAliases...) {
				// The UN marks some aliases "Low" quality: too vague to
				// identify anyone on their own, so they are not screened.
				if strings.EqualFold(strings.TrimSpace(a.Quality), "low") {
					continue
				}
				e.addAlias(a.Name)
			}
			for _, n := range r.Nationality.Values {
				e.addCountry(CountryCode(n))
			}
			for _, dob := range r.DOBs {
				e.addDOB(unDate(dob))
			}
			for _, doc := range r.Docs {
				if strings.Contains(strings.ToLower(doc.Type), "passport") {
					e.addPassport(doc.Number)
				}
			}
			ents = append(ents, e)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return ents, nil
}

func unDate(d unDOB) Date {
	if dt, ok := ParseDate(d.Date); ok {
		return dt
	}
	from, to := atoi(strings.TrimSpace(d.FromYear)), atoi(strings.TrimSpace(d.ToYear))
	if strings.EqualFold(strings.TrimSpace(d.Type), "BETWEEN") && from > 0 && to >= from {
		return Date{Year: from, YearTo: to}
	}
	y := atoi(strings.TrimSpace(d.Year))
	if y < 1800 {
		return Date{}
	}
	if strings.EqualFold(strings.TrimSpace(d.Type), "APPROXIMATELY") {
		return Date{Year: y - 1, YearTo: y + 1}
	}
	return Date{Year: y}
}

func joinNonEmpty(parts ...string) string {
	var f []string
	for _, p := range parts {
		f = append(f, strings.Fields(p)...)
	}
	return strings.Join(f, " ")
}

type euAlias struct {
	WholeName string `xml:"wholeName,attr"`
	First     string `xml:"firstName,attr"`
	Middle    string `xml:"middleName,attr"`
	Last      string `xml:"lastName,attr"`
}

type euCountry struct {
	ISO2 string `xml:"countryIso2Code,attr"`
	Desc string `xml:"countryDescription,attr"`
}

type euBirth struct {
	Birthdate string `xml:"birthdate,attr"`
	Year      string `xml:"year,attr"`
	Month     string `xml:"monthOfYear,attr"`
	Day       string `xml:"dayOfMonth,attr"`
	From      string `xml:"yearRangeFrom,attr"`
	To        string `xml:"yearRangeTo,attr"`
	Circa     string `xml:"circa,attr"`
}

type euIdent struct {
	Type   string `xml:"identificationTypeCode,attr"`
	Number string `xml:"number,attr"`
}

type euEntity struct {
	Ref        string `xml:"euReferenceNumber,attr"`
	LogicalID  string `xml:"logicalId,attr"`
	Regulation []struct {
		Programme string `xml:"programme,attr"`
	} `xml:"regulation"`
	Subject struct {
		Code string `xml:"code,attr"`
	} `xml:"subjectType"`
	Aliases     []euAlias   `xml:"nameAlias"`
	Citizenship []euCountry `xml:"citizenship"`
	Births      []euBirth   `xml:"birthdate"`
	Idents      []euIdent   `xml:"identification"`
}

// ParseEU reads the EU Financial Sanctions Files consolidated XML (the
// export format with sanctionEntity elements).
func ParseEU(file string, data []byte) ([]*Entity, error) {
	var ents []*Entity
	err := walkXML(file, data, "export", map[string]bool{"sanctionEntity": true},
		func(d *xml.Decoder, se xml.StartElement, line int) error {
			var r euEntity
			if err := d.DecodeElement(&r, &se); err != nil {
				return err
			}
			id := strings.TrimSpace(r.Ref)
			if id == "" {
				id = "EU.logical." + strings.TrimSpace(r.LogicalID)
			}
			if strings.TrimSpace(r.Ref) == "" && strings.TrimSpace(r.LogicalID) == "" {
				return perr(file, line, "sanctionEntity without euReferenceNumber or logicalId")
			}
			e := &Entity{ID: id, List: EU}
			switch r.Subject.Code {
			case "person":
				e.Kind = Person
			case "enterprise":
				e.Kind = Organization
			default:
				e.Kind = Unknown
			}
			for _, a := range r.Aliases {
				n := strings.TrimSpace(a.WholeName)
				if n == "" {
					n = joinNonEmpty(a.First, a.Middle, a.Last)
				}
				if n == "" {
					continue
				}
				if e.Name == "" {
					e.Name = strings.Join(strings.Fields(n), " ")
				} else {
					e.addAlias(n)
				}
			}
			if e.Name == "" {
				return perr(file, line, "%s has no name", id)
			}
			for _, reg := range r.Regulation {
				if p := strings.TrimSpace(reg.Programme); p != "" && !contains(e.Programs, p) {
					e.Programs = append(e.Programs, p)
				}
			}
			for _, c := range r.Citizenship {
				code := strings.ToUpper(strings.TrimSpace(c.ISO2))
				if len(code) != 2 || code == "00" {
					code = CountryCode(c.Desc)
				}
				e.addCountry(code)
			}
			for _, b := range r.Births {
				e.addDOB(euDate(b))
			}
			for _, id := range r.Idents {
				if id.Type == "passport" {
					e.addPassport(id.Number)
				}
			}
			ents = append(ents, e)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return ents, nil
}

func euDate(b euBirth) Date {
	if d, ok := ParseDate(b.Birthdate); ok {
		return d
	}
	from, to := atoi(b.From), atoi(b.To)
	if from > 1800 && to >= from {
		return Date{Year: from, YearTo: to}
	}
	y := atoi(b.Year)
	if y < 1800 {
		return Date{}
	}
	if b.Circa == "true" {
		return Date{Year: y - 1, YearTo: y + 1}
	}
	m, day := atoi(b.Month), atoi(b.Day)
	if d, ok := checkDate(y, max(m, 0), max(day, 0)); ok {
		return d
	}
	return Date{Year: y}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
