package lists

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"io"
	"regexp"
	"strings"
)

// derivedID names a record of a list that gives no identifier of its own
// (BIS DPL, CSL rows outside OFAC): a short hash of what identifies the
// row, stable across downloads as long as the row does not change.
func derivedID(prefix string, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x1f")))
	return prefix + hex.EncodeToString(h[:6])
}

type csvTable struct {
	file   string
	header map[string]int
	r      *csv.Reader
}

func newCSVTable(file string, data []byte, comma rune, required ...string) (*csvTable, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = 0
	head, err := r.Read()
	if err != nil {
		return nil, csvErr(file, err)
	}
	t := &csvTable{file: file, header: map[string]int{}, r: r}
	for i, h := range head {
		t.header[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, req := range required {
		if _, ok := t.header[req]; !ok {
			return nil, perr(file, 1, "no %q column (is this the right list?)", req)
		}
	}
	return t, nil
}

// each calls row for every data row with a getter by column name.
func (t *csvTable) each(row func(line int, get func(col string) string) error) error {
	for {
		rec, err := t.r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return csvErr(t.file, err)
		}
		line, _ := t.r.FieldPos(0)
		get := func(col string) string {
			i, ok := t.header[col]
			if !ok || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		if err := row(line, get); err != nil {
			return err
		}
	}
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return perr(file, pe.Line, "%v", pe.Err)
	}
	if errors.Is(err, io.EOF) {
		return perr(file, 0, "empty file")
	}
	return perr(file, 0, "%v", err)
}

var sourceAbbrev = regexp.MustCompile(`\(([A-Z]{2,6})\)`)

// ParseCSL reads the US Consolidated Screening List CSV (trade.gov), by
// column name so that the newer export with an _id column reads too.
func ParseCSL(file string, data []byte) ([]*Entity, error) {
	t, err := newCSVTable(file, data, ',', "source", "name")
	if err != nil {
		return nil, err
	}
	var ents []*Entity
	seen := map[string]bool{}
	err = t.each(func(line int, get func(string) string) error {
		name := get("name")
		if name == "" {
			return perr(file, line, "row without a name")
		}
		src := get("source")
		id := get("_id")
		if id == "" {
			id = get("entity_number")
		}
		if id == "" {
			id = derivedID("csl-", src, name, get("start_date"))
		}
		if seen[id] {
			// A source repeats an entity number only when the same row
			// is listed twice; keep the first.
			return nil
		}
		seen[id] = true
		e := &Entity{ID: id, List: USCSL, Name: strings.Join(strings.Fields(name), " ")}
		switch strings.ToLower(get("type")) {
		case "individual":
			e.Kind = Person
		case "entity":
			e.Kind = Organization
		case "vessel":
			e.Kind = Vessel
		case "aircraft":
			e.Kind = Aircraft
		default:
			e.Kind = Unknown
		}
		if m := sourceAbbrev.FindStringSubmatch(src); m != nil {
			e.Programs = append(e.Programs, m[1])
		}
		for _, p := range strings.Split(get("programs"), ";") {
			if p = strings.TrimSpace(p); p != "" && !contains(e.Programs, p) {
				e.Programs = append(e.Programs, p)
			}
		}
		for _, a := range strings.Split(get("alt_names"), ";") {
			e.addAlias(a)
		}
		for _, d := range strings.Split(get("dates_of_birth"), ";") {
			if dt, ok := ParseDate(d); ok {
				e.addDOB(dt)
			}
		}
		for _, col := range []string{"nationalities", "citizenships"} {
			for _, c := range strings.Split(get(col), ";") {
				e.addCountry(CountryCode(c))
			}
		}
		for _, id := range strings.Split(get("ids"), ";") {
			// "IR, A12345, Passport" as trade.gov flattens an ID.
			parts := strings.Split(id, ",")
			if len(parts) >= 2 && strings.Contains(strings.ToLower(parts[len(parts)-1]), "passport") {
				e.addPassport(parts[len(parts)-2])
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

// ParseDPL reads the BIS Denied Persons List (tab separated, quoted, with
// a header row).
func ParseDPL(file string, data []byte) ([]*Entity, error) {
	t, err := newCSVTable(file, data, '\t', "name", "effective_date")
	if err != nil {
		return nil, err
	}
	var ents []*Entity
	seen := map[string]bool{}
	err = t.each(func(line int, get func(string) string) error {
		name := strings.Join(strings.Fields(get("name")), " ")
		if name == "" {
			return perr(file, line, "row without a name")
		}
		id := derivedID("dpl-", name, get("effective_date"), get("fr_citation"))
		if seen[id] {
			return nil
		}
		seen[id] = true
		e := &Entity{ID: id, List: BISDPL, Name: name, Kind: Unknown, Programs: []string{"DPL"}}
		ents = append(ents, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ents, nil
}
