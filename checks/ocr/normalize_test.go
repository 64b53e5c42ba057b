package ocr

import (
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

func field(t testing.TB, config, name string) idv.FieldDef {
	t.Helper()
	d, ok := docdefs.Default().Definition(config)
	if !ok {
		t.Fatalf("no %s", config)
	}
	f, ok := d.Field(name)
	if !ok {
		t.Fatalf("no %s.%s", config, name)
	}
	return f
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		config, field, raw, want string
		valid                    bool
	}{
		{"generic_passport", "date_of_birth", "12 MAR 1985", "12.03.1985", true},
		{"generic_passport", "date_of_birth", "12 NAR 1985", "12.03.1985", true},
		{"generic_passport", "date_of_birth", "31 FEB 1985", "", false},
		// A stray mark before the day read as O, and 05 read as OS.
		{"generic_passport", "date_of_issue", "O05 JAN 2032", "05.01.2032", true},
		{"generic_passport", "date_of_issue", "O02 MAY 2026", "02.05.2026", true},
		{"generic_passport", "date_of_issue", "OS JAN 2019", "05.01.2019", true},
		{"generic_passport", "date_of_issue", "105 JAN 2019", "", false},
		{"generic_passport", "date_of_issue", "12 MAR/MARS 1985", "12.03.1985", true},
		{"kenya_national_id", "date_of_birth", "05.11.1990", "05.11.1990", true},
		{"kenya_national_id", "date_of_birth", "05 11 199", "", false},
		{"kenya_national_id", "sex", "FEMALE", "F", true},
		{"kenya_national_id", "sex", "MALE", "M", true},
		{"generic_passport", "sex", "F", "F", true},
		{"generic_passport", "sex", "MF", "", false},
		{"kenya_national_id", "full_name", "john  kamau mwangi", "JOHN KAMAU MWANGI", true},
		{"kenya_national_id", "national_id_number", "1234 5678", "12345678", true},
		{"kenya_national_id", "national_id_number", "123", "123", false},
		{"ke_maisha_card", "card_number", "A81234567", "AB1234567", true},
		{"ke_maisha_card", "card_number", "AB12345G7", "AB1234567", true},
		// An optional last letter: the first position is still a letter.
		{"ghana_voter_id", "polling_station_code", "1420317E", "I420317E", true},
		{"ghana_voter_id", "polling_station_code", "DS91996", "D591996", true},
	}
	for _, tc := range cases {
		t.Run(tc.field+"/"+tc.raw, func(t *testing.T) {
			got, ok := Normalize(field(t, tc.config, tc.field), tc.raw)
			if ok != tc.valid || (tc.valid && got != tc.want) {
				t.Fatalf("Normalize(%q) = %q, %v; want %q, %v", tc.raw, got, ok, tc.want, tc.valid)
			}
		})
	}
}

func TestPositionClasses(t *testing.T) {
	cases := []struct {
		pattern string
		n       int
		want    string
	}{
		{`^[A-Z]{2}[0-9]{7}$`, 9, "aaddddddd"},
		{`^[A-Z]{2}[0-9]{7}$`, 8, ""},
		{`^[A-Z][0-9]{6}[A-Z]?$`, 8, "adddddda"},
		{`^[A-Z][0-9]{6}[A-Z]?$`, 7, "adddddd"},
		{`^C[MF][0-9]{2}[0-9A-Z]{10}$`, 14, "?add??????????"},
		// Alternation is not followed.
		{`^([A-Z][0-9]|[0-9]{2})$`, 2, ""},
		{`^[0-9]{1,3}[A-Z]$`, 3, "dda"},
		// Readings of one length that disagree leave the position open.
		{`^[A-Z]?[0-9]{2}[A-Z]?$`, 3, "?d?"},
		{`^[A-Z]+$`, 3, ""},
	}
	for _, tc := range cases {
		t.Run(tc.pattern, func(t *testing.T) {
			if got := string(positionClasses(tc.pattern, tc.n)); got != tc.want {
				t.Fatalf("positionClasses(%s, %d) = %q, want %q", tc.pattern, tc.n, got, tc.want)
			}
		})
	}
}

func FuzzNormalize(f *testing.F) {
	defs := docdefs.Default().Drawn()
	for _, s := range []string{"12 MAR 1985", "05.11.1990", "FEMALE", "AB1234567", "", "\n\n", "é"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, raw string, pick uint8) {
		d := defs[int(pick)%len(defs)]
		for _, fd := range d.Fields {
			v, ok := Normalize(fd, raw)
			if ok && fd.Pattern != "" && !validValue(fd, v) {
				t.Fatalf("%s: %q accepted as %q against %s", fd.Name, raw, v, fd.Pattern)
			}
		}
	})
}

func TestDateDigitRepair(t *testing.T) {
	f := idv.FieldDef{Name: "date_of_issue", Type: idv.FieldDate, Format: "DD/MM/YYYY", Pattern: `^[0-9]{2}\.[0-9]{2}\.[0-9]{4}$`}
	cases := []struct{ raw, want string }{
		{"19.63.2024", "19.03.2024"}, // a soft 0 read 6 in the month
		{"09/06/2625", "09.06.2025"}, // and in the year
		{"25/61/1951", "25.01.1951"},
		{"31/02/2020", ""}, // no single look-alike makes it a day
		{"12/05/2020", "12.05.2020"},
	}
	for _, tc := range cases {
		got, ok := Normalize(f, tc.raw)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Normalize(%q) = %q, %v, want %q", tc.raw, got, ok, tc.want)
		}
	}
}

// The character set's filter drops letters and digits that are other
// print (dropped), and keeps dropping what a value's own print carries
// besides its characters.
func TestDropped(t *testing.T) {
	cases := []struct {
		config, field, raw string
		dropped            bool
	}{
		// Other print: a run gone on into a date, the MRZ's first line
		// with its fillers lost, a garbled caption's letters as a sex, a
		// number with letters the filter would drop.
		{"ke_passport", "authority", "Government Of Kenya 22 MAY", true},
		{"ke_national_id", "sub_location", "IDKYA04729407506709048", true},
		{"ke_national_id", "sub_location", "IDKYA04729407506709048<<<<<<<<", true},
		{"ghana_voter_id", "sex", "FC", true},
		{"ghana_voter_id", "sex", "F1", true},
		{"kenya_national_id", "serial_number", "SN123456789", true},
		// What the filter may drop: punctuation, spaces between digit
		// groups, a stray mark, a date's separators, the words of a sex,
		// a single misread letter among many (MAR1ANNE: the box re-read
		// mends it better than refusing the print).
		{"ke_passport", "surname", "O'NEIL-SMITH", false},
		{"ke_passport", "surname", "KAMAU.", false},
		{"ke_passport", "surname", "| KAMAU", false},
		{"ke_passport", "given_names", "MAR1ANNE WANJIRU", false},
		{"kenya_national_id", "national_id_number", "1234 5678", false},
		{"kenya_national_id", "date_of_birth", "05/11/1990", false},
		{"generic_passport", "date_of_birth", "12 MAR/MARS 1985", false},
		{"ghana_voter_id", "sex", "M/M", false},
		{"ghana_voter_id", "sex", "F.", false},
		{"ke_passport", "sex", "FEMALE", false},
		{"ke_national_id", "sex", "MALE", false},
	}
	for _, tc := range cases {
		t.Run(tc.field+"/"+tc.raw, func(t *testing.T) {
			if got := dropped(field(t, tc.config, tc.field), tc.raw); got != tc.dropped {
				t.Errorf("dropped(%q) = %v, want %v", tc.raw, got, tc.dropped)
			}
		})
	}
}
