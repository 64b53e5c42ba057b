package lists

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ParseSenzing reads entities in the Senzing generic entity format as
// OpenSanctions exports them (its PEP dataset): either one JSON object per
// line or a JSON array of objects. Attributes may sit at the top level
// (NAME_FULL, DATE_OF_BIRTH...) or in lists of objects (NAMES, DATES,
// COUNTRIES, IDENTIFIERS...), as the format allows; a NAME_TYPE of PRIMARY
// marks the primary name.
func ParseSenzing(file string, data []byte) ([]*Entity, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, perr(file, 0, "empty file")
	}
	var ents []*Entity
	seen := map[string]bool{}
	add := func(line int, raw json.RawMessage) error {
		e, err := senzingEntity(raw)
		if err != nil {
			return perr(file, line, "%v", err)
		}
		if e == nil {
			return nil
		}
		if seen[e.ID] {
			return perr(file, line, "RECORD_ID %s appears twice", e.ID)
		}
		seen[e.ID] = true
		ents = append(ents, e)
		return nil
	}
	if trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return nil, perr(file, 1, "%v", err)
		}
		for dec.More() {
			line := lineAt(data, dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, perr(file, jsonErrLine(data, err, line), "%v", err)
			}
			if err := add(line, raw); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, perr(file, lineAt(data, dec.InputOffset()), "%v", err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, perr(file, lineAt(data, dec.InputOffset()), "data after the closing ]")
		}
		return ents, nil
	}
	for i, ln := range bytes.Split(data, []byte("\n")) {
		ln = bytes.TrimSpace(ln)
		if len(ln) == 0 {
			continue
		}
		if !json.Valid(ln) {
			var v any
			err := json.Unmarshal(ln, &v)
			return nil, perr(file, i+1, "not a JSON object: %v", err)
		}
		if err := add(i+1, ln); err != nil {
			return nil, err
		}
	}
	return ents, nil
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	n := 1 + bytes.Count(data[:off], []byte("\n"))
	// The decoder's offset sits before the whitespace leading to the
	// next value; count that value's own line.
	rest := data[off:]
	for _, c := range rest {
		if c == '\n' {
			n++
		} else if c != ' ' && c != '\t' && c != '\r' && c != ',' {
			break
		}
	}
	return n
}

func jsonErrLine(data []byte, err error, def int) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineAt(data, se.Offset)
	}
	return def
}

// senzingAttrs flattens a record: every string attribute at the top level
// or inside a list of objects, in order, with the object it came from.
type senzingAttr struct {
	key, val string
	group    map[string]any
}

func senzingEntity(raw json.RawMessage) (*Entity, error) {
	var rec map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if rec == nil {
		return nil, errors.New("null record")
	}
	id := str(rec["RECORD_ID"])
	if id == "" {
		return nil, errors.New("record without RECORD_ID")
	}
	var attrs []senzingAttr
	for k, v := range rec {
		switch v := v.(type) {
		case string:
			attrs = append(attrs, senzingAttr{k, v, rec})
		case []any:
			for _, it := range v {
				if m, ok := it.(map[string]any); ok {
					for k2, v2 := range m {
						if s, ok := v2.(string); ok {
							attrs = append(attrs, senzingAttr{k2, s, m})
						}
					}
				}
			}
		}
	}
	e := &Entity{ID: id, List: PEP, Kind: Person}
	switch strings.ToUpper(str(rec["RECORD_TYPE"])) {
	case "ORGANIZATION", "COMPANY":
		e.Kind = Organization
	case "", "PERSON":
	default:
		e.Kind = Unknown
	}
	// Names: a group's NAME_FULL or NAME_ORG, else its first/middle/last.
	type name struct {
		text    string
		primary bool
	}
	var names []name
	seenGroup := map[string]bool{}
	for _, a := range attrs {
		if !strings.HasPrefix(a.key, "NAME_") && !strings.HasPrefix(a.key, "PRIMARY_NAME_") {
			continue
		}
		g := a.group
		key := fmt.Sprintf("%p", g)
		if seenGroup[key] && g != nil {
			continue
		}
		seenGroup[key] = true
		primary := strings.EqualFold(str(g["NAME_TYPE"]), "PRIMARY")
		for _, pre := range []string{"PRIMARY_NAME_", "NAME_"} {
			full := str(g[pre+"FULL"])
			if full == "" {
				full = str(g[pre+"ORG"])
			}
			if full == "" {
				full = joinNonEmpty(str(g[pre+"FIRST"]), str(g[pre+"MIDDLE"]), str(g[pre+"LAST"]))
			}
			if full != "" {
				names = append(names, name{full, primary || pre == "PRIMARY_NAME_"})
			}
		}
	}
	for _, n := range names {
		if n.primary && e.Name == "" {
			e.Name = strings.Join(strings.Fields(n.text), " ")
		}
	}
	for _, n := range names {
		if e.Name == "" {
			e.Name = strings.Join(strings.Fields(n.text), " ")
			continue
		}
		e.addAlias(n.text)
	}
	if e.Name == "" {
		return nil, fmt.Errorf("record %s has no name", id)
	}
	for _, a := range attrs {
		switch a.key {
		case "DATE_OF_BIRTH":
			if d, ok := ParseDate(a.val); ok {
				e.addDOB(d)
			}
		case "NATIONALITY", "CITIZENSHIP":
			e.addCountry(CountryCode(a.val))
		case "PASSPORT_NUMBER":
			e.addPassport(a.val)
		case "TOPIC", "RISK":
			if !contains(e.Programs, a.val) {
				e.Programs = append(e.Programs, a.val)
			}
		}
	}
	sortStrings(e.Aliases)
	sortDates(e.DOBs)
	sortStrings(e.Countries)
	return e, nil
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	}
	return ""
}
