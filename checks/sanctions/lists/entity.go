// Package lists reads the official sanctions and PEP lists into one entity
// model: OFAC SDN and consolidated non-SDN CSV (with the remarks mined for
// dates of birth, nationalities and passports), the UN Security Council
// consolidated XML, the EU financial sanctions XML, the US Consolidated
// Screening List CSV, the BIS Denied Persons List and OpenSanctions-style
// Senzing JSON for politically exposed persons. It also downloads them from
// their publishers into a snapshot folder that is swapped in atomically.
//
// Every parser is all or nothing: a malformed file gives a *ParseError
// naming the file and line, and no entities.
package lists

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Kind is what a listed entity is.
type Kind string

// Kinds of entities.
const (
	Person       Kind = "person"
	Organization Kind = "organization"
	Vessel       Kind = "vessel"
	Aircraft     Kind = "aircraft"
	// Unknown is used when the list does not say (BIS DPL, some CSL rows).
	Unknown Kind = "unknown"
)

// List names, as hits report them.
const (
	OFACSDN  = "ofac_sdn"
	OFACCons = "ofac_cons"
	UN       = "un_sc"
	EU       = "eu_fsf"
	USCSL    = "us_csl"
	BISDPL   = "bis_dpl"
	PEP      = "pep"
)

// Names are every list name, in the order the docs table gives them.
var Names = []string{OFACSDN, OFACCons, UN, EU, USCSL, BISDPL, PEP}

// Known reports whether name is one of Names.
func Known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// Category tells which section of the sanctions_screening result a list
// belongs to: "ofac" for sanctions lists, "pep" for politically exposed
// persons.
func Category(list string) string {
	if list == PEP {
		return "pep"
	}
	return "ofac"
}

// Date is a date of birth as lists give it: a full date, a month, a year,
// or a range of years (circa, between).
type Date struct {
	Year  int `json:"year"`
	Month int `json:"month,omitempty"`
	Day   int `json:"day,omitempty"`
	// YearTo is set for ranges ("1953 to 1958"); approximate years
	// ("circa 1966") are given as a range of one year either side.
	YearTo int `json:"year_to,omitempty"`
}

// String prints the date as ISO 8601 or as much of it as is known.
func (d Date) String() string {
	switch {
	case d.YearTo != 0:
		return fmt.Sprintf("%04d..%04d", d.Year, d.YearTo)
	case d.Day != 0:
		return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
	case d.Month != 0:
		return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
	}
	return fmt.Sprintf("%04d", d.Year)
}

// Exact reports whether the date names a single year.
func (d Date) Exact() bool { return d.YearTo == 0 }

// Entity is one listed person, organisation, vessel or aircraft.
type Entity struct {
	// ID is the identifier as the list gives it (OFAC ent_num, UN
	// reference number, EU reference number, Senzing RECORD_ID).
	ID   string `json:"id"`
	List string `json:"list"`
	Kind Kind   `json:"kind"`
	// Name is the primary name exactly as listed.
	Name string `json:"name"`
	// Aliases are further names to screen against, as listed.
	Aliases  []string `json:"aliases,omitempty"`
	Programs []string `json:"programs,omitempty"`
	// DOBs are the listed dates of birth.
	DOBs []Date `json:"dobs,omitempty"`
	// Countries are ISO 3166-1 alpha-2 codes of nationality or
	// citizenship.
	Countries []string `json:"countries,omitempty"`
	Passports []string `json:"passports,omitempty"`
}

// Names returns the primary name followed by the aliases.
func (e *Entity) Names() []string {
	out := make([]string, 0, 1+len(e.Aliases))
	out = append(out, e.Name)
	return append(out, e.Aliases...)
}

func (e *Entity) addAlias(name string) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" || strings.EqualFold(name, e.Name) {
		return
	}
	for _, a := range e.Aliases {
		if strings.EqualFold(a, name) {
			return
		}
	}
	e.Aliases = append(e.Aliases, name)
}

func (e *Entity) addCountry(code string) {
	if code == "" {
		return
	}
	for _, c := range e.Countries {
		if c == code {
			return
		}
	}
	e.Countries = append(e.Countries, code)
}

func (e *Entity) addDOB(d Date) {
	if d.Year == 0 {
		return
	}
	for _, have := range e.DOBs {
		if have == d {
			return
		}
	}
	e.DOBs = append(e.DOBs, d)
}

func (e *Entity) addPassport(p string) {
	p = strings.TrimSpace(p)
	if p == "" {
		return
	}
	for _, have := range e.Passports {
		if have == p {
			return
		}
	}
	e.Passports = append(e.Passports, p)
}

// ParseError is a malformed or unknown list file.
type ParseError struct {
	File string
	// Line is 1-based; 0 when the problem is the file as a whole.
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("lists: %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("lists: %s: %s", e.File, e.Msg)
}

func perr(file string, line int, format string, args ...any) *ParseError {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

var months = map[string]int{
	"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
	"JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}

// ParseDate reads the date forms lists use: 2006-01-02, 2006-01, 2006,
// 02 Jan 2006, Jan 2006, circa 1966, 1960 to 1962, 02/01/2006 (US order
// is not used by the lists we read; day first). It returns false when the
// text is no date.
func ParseDate(s string) (Date, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
	if s == "" {
		return Date{}, false
	}
	up := strings.ToUpper(s)
	for _, p := range []string{"CIRCA ", "CA. ", "APPROXIMATELY ", "ABOUT "} {
		if strings.HasPrefix(up, p) {
			d, ok := ParseDate(s[len(p):])
			if !ok {
				return Date{}, false
			}
			return Date{Year: d.Year - 1, YearTo: d.Year + 1}, true
		}
	}
	if a, b, ok := strings.Cut(up, " TO "); ok {
		da, ok1 := ParseDate(a)
		db, ok2 := ParseDate(b)
		if ok1 && ok2 && db.Year >= da.Year {
			return Date{Year: da.Year, YearTo: max(db.Year, db.YearTo)}, true
		}
		return Date{}, false
	}
	if len(up) >= 10 && up[4] == '-' && up[7] == '-' {
		y, m, d := atoi(up[0:4]), atoi(up[5:7]), atoi(up[8:10])
		return checkDate(y, m, d)
	}
	if len(up) == 7 && up[4] == '-' {
		return checkDate(atoi(up[0:4]), atoi(up[5:7]), 0)
	}
	if len(up) == 10 && (up[2] == '/' || up[2] == '.') && up[5] == up[2] {
		return checkDate(atoi(up[6:10]), atoi(up[3:5]), atoi(up[0:2]))
	}
	f := strings.Fields(up)
	switch len(f) {
	case 1:
		return checkDate(atoi(f[0]), 0, 0)
	case 2:
		if m, ok := months[prefix3(f[0])]; ok {
			return checkDate(atoi(f[1]), m, 0)
		}
	case 3:
		if m, ok := months[prefix3(f[1])]; ok {
			return checkDate(atoi(f[2]), m, atoi(f[0]))
		}
	}
	return Date{}, false
}

func prefix3(s string) string {
	if len(s) < 3 {
		return s
	}
	return s[:3]
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func checkDate(y, m, d int) (Date, bool) {
	if y < 1800 || y > 2200 || m < 0 || m > 12 || d < 0 || d > 31 || (d > 0 && m == 0) {
		return Date{}, false
	}
	return Date{Year: y, Month: m, Day: d}, true
}

func sortStrings(s []string) {
	sort.Strings(s)
}

func sortDates(d []Date) {
	sort.Slice(d, func(i, j int) bool { return d[i].String() < d[j].String() })
}
