package lists

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
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

// senzingGroups returns the record itself and every object inside its
// lists (NAMES, DATES, COUNTRIES...), in a fixed order: Senzing allows an
// attribute in either place.
func senzingGroups(rec map[string]any) []map[string]any {
	groups := []map[string]any{rec}
	keys := make([]string, 0, len(rec))
	for k := range rec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if arr, ok := rec[k].([]any); ok {
			for _, it := range arr {
				if m, ok := it.(map[string]any); ok {
					groups = append(groups, m)
				}
			}
		}
	}
	return groups
}

// senzingName reads one group's name: NAME_FULL or NAME_ORG, else
// first, middle and last (also with the PRIMARY_ prefix).
func senzingName(g map[string]any) (name string, primary bool) {
	for _, pre := range []string{"PRIMARY_NAME_", "NAME_"} {
		full := str(g[pre+"FULL"])
		if full == "" {
			full = str(g[pre+"ORG"])
		}
		if full == "" {
			full = joinNonEmpty(str(g[pre+"FIRST"]), str(g[pre+"MIDDLE"]), str(g[pre+"LAST"]))
		}
		if full != "" {
			return strings.Join(strings.Fields(full), " "), pre == "PRIMARY_NAME_" || strings.EqualFold(str(g["NAME_TYPE"]), "PRIMARY")
		}
	}
	return "", false
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
	e := &Entity{ID: id, List: PEP, Kind: Person}
	switch strings.ToUpper(str(rec["RECORD_TYPE"])) {
	case "ORGANIZATION", "COMPANY":
		e.Kind = Organization
	case "", "PERSON":
	default:
		e.Kind = Unknown
	}
	groups := senzingGroups(rec)
	var names []string
	for _, g := range groups {
		n, primary := senzingName(g)
		switch {
		case n == "":
		case primary && e.Name == "":
			e.Name = n
		default:
			names = append(names, n)
		}
	}
	for _, n := range names {
		if e.Name == "" {
			e.Name = n // no name marked primary: the first one
			continue
		}
		e.addAlias(n)
	}
	if e.Name == "" {
		return nil, fmt.Errorf("record %s has no name", id)
	}
	for _, g := range groups {
		if d, ok := ParseDate(str(g["DATE_OF_BIRTH"])); ok {
			e.addDOB(d)
		}
		for _, k := range []string{"NATIONALITY", "CITIZENSHIP"} {
			e.addCountry(CountryCode(str(g[k])))
		}
		e.addPassport(str(g["PASSPORT_NUMBER"]))
		for _, k := range []string{"TOPIC", "RISK"} {
			if v := str(g[k]); v != "" && !contains(e.Programs, v) {
				e.Programs = append(e.Programs, v)
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
