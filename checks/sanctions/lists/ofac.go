package lists

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// OFACFiles are the four files of one OFAC list in its legacy CSV format:
// the primary records (sdn.csv or cons_prim.csv), aliases, addresses and
// the overflow of long remarks. Only Prim is required. Each is the file's
// name (for errors) and content.
type OFACFiles struct {
	Prim, Alt, Add, Comments NamedData
}

// NamedData is a file's name and bytes.
type NamedData struct {
	Name string
	Data []byte
}

// ofacNull is how the OFAC CSV files write an empty field.
const ofacNull = "-0-"

// ParseOFAC reads an OFAC SDN or consolidated list. list is OFACSDN or
// OFACCons and becomes every entity's List.
func ParseOFAC(list string, f OFACFiles) ([]*Entity, error) {
	if f.Prim.Data == nil {
		return nil, perr(f.Prim.Name, 0, "the primary file is missing")
	}
	var ents []*Entity
	byID := map[string]*Entity{}
	remarks := map[*Entity]string{}
	err := readOFACCSV(f.Prim, 12, func(line int, r []string) error {
		id := r[0]
		if !isDigits(id) {
			return perr(f.Prim.Name, line, "ent_num %q is not a number", id)
		}
		if byID[id] != nil {
			return perr(f.Prim.Name, line, "ent_num %s appears twice", id)
		}
		name := ofacField(r[1])
		if name == "" {
			return perr(f.Prim.Name, line, "entity %s has no name", id)
		}
		e := &Entity{ID: id, List: list, Name: name, Kind: ofacKind(ofacField(r[2]))}
		e.Programs = splitPrograms(ofacField(r[3]))
		byID[id] = e
		ents = append(ents, e)
		if rem := ofacField(r[11]); rem != "" {
			remarks[e] = rem
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if f.Comments.Data != nil {
		err := readOFACCSV(f.Comments, 2, func(line int, r []string) error {
			if e := byID[r[0]]; e != nil {
				// The comments file holds the rest of a remark that
				// was cut at the primary file's field limit.
				remarks[e] += ofacField(r[1])
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if f.Alt.Data != nil {
		err := readOFACCSV(f.Alt, 5, func(line int, r []string) error {
			if !isDigits(r[0]) {
				return perr(f.Alt.Name, line, "ent_num %q is not a number", r[0])
			}
			if e := byID[r[0]]; e != nil {
				e.addAlias(ofacField(r[3]))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if f.Add.Data != nil {
		// Addresses are not screened against, but a broken address file
		// means a broken download, so it is read and checked.
		err := readOFACCSV(f.Add, 6, func(line int, r []string) error {
			if !isDigits(r[0]) {
				return perr(f.Add.Name, line, "ent_num %q is not a number", r[0])
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, e := range ents {
		applyRemarks(e, remarks[e])
	}
	return ents, nil
}

func readOFACCSV(f NamedData, fields int, row func(line int, r []string) error) error {
	data := bytes.TrimRight(f.Data, "\x1a\r\n \t")
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return perr(f.Name, pe.Line, "%v", pe.Err)
			}
			return perr(f.Name, 0, "%v", err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) != fields {
			return perr(f.Name, line, "%d fields, want %d (is this an OFAC CSV file?)", len(rec), fields)
		}
		if err := row(line, rec); err != nil {
			return err
		}
	}
}

func ofacField(s string) string {
	s = strings.TrimSpace(s)
	if s == ofacNull {
		return ""
	}
	return s
}

func ofacKind(t string) Kind {
	switch strings.ToLower(t) {
	case "individual":
		return Person
	case "vessel":
		return Vessel
	case "aircraft":
		return Aircraft
	}
	return Organization
}

// splitPrograms reads "SDGT" and "NPWMD] [IFSR" (the brackets of a
// multi-program field survive only between programs).
func splitPrograms(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "] [") {
		p = strings.Trim(strings.TrimSpace(p), "[]")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// applyRemarks mines the remarks for what screening can use: dates of
// birth, nationality and citizenship, passport numbers.
func applyRemarks(e *Entity, rem string) {
	for _, part := range strings.Split(rem, ";") {
		part = strings.TrimSpace(part)
		part = strings.TrimPrefix(part, "alt. ")
		key, val, ok := cutKey(part)
		if !ok {
			continue
		}
		switch key {
		case "DOB":
			if d, ok := ParseDate(val); ok {
				e.addDOB(d)
			}
		case "nationality", "citizen", "Nationality of Registration":
			e.addCountry(CountryCode(strings.TrimSuffix(val, ".")))
		case "Passport":
			// "1084010 (Egypt)" or "19820215" or "A123 issued 2010 (Iran)".
			num := val
			if i := strings.IndexByte(num, '('); i >= 0 {
				num = num[:i]
			}
			if f := strings.Fields(num); len(f) > 0 {
				e.addPassport(f[0])
			}
		case "Gender":
			if e.Kind == Organization {
				e.Kind = Person
			}
		}
	}
}

var remarkKeys = []string{"DOB", "nationality", "citizen", "Nationality of Registration", "Passport", "Gender"}

func cutKey(part string) (key, val string, ok bool) {
	for _, k := range remarkKeys {
		if strings.HasPrefix(part, k+" ") {
			return k, strings.TrimSpace(part[len(k)+1:]), true
		}
	}
	return "", "", false
}
