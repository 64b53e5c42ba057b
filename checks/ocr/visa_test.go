package ocr

import (
	"image"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// Visas print their dates as a day, a month's name and a year without
// spaces (12DEC1966 on US visas; 10DEC/DIC 91 and 07SEP 40 on ICAO's
// specimens): each is read as the date it is. A two-digit year other
// than a birth's is in the 2000s unless that is more than 30 years ahead,
// as the MRZ's expiry is read (10DEC/DIC 96 is the MRZ's 961210, 1996).
func TestAnyDateRunTogether(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	birth := idv.FieldDef{Name: "date_of_birth", Type: idv.FieldDate, Format: dateAny, MRZ: "date_of_birth"}
	until := idv.FieldDef{Name: "valid_until", Type: idv.FieldDate, Format: dateAny, MRZ: "date_of_expiry"}
	for _, tc := range []struct {
		f    idv.FieldDef
		raw  string
		want string
	}{
		{birth, "12DEC1966", "12.12.1966"},
		{birth, "O7SEP40", "07.09.1940"},
		{birth, "07SEP 40", "07.09.1940"},
		{until, "29JUL2004", "29.07.2004"},
		{until, "10DEC/DIC 96", "10.12.1996"},
		{until, "10DEC/DIC 91", "10.12.1991"},
		{until, "12 MAR 45", "12.03.2045"},
		{until, "28JUL2014 0100", "28.07.2014"},
		// Not dates: a code of letters and digits, a month with no day.
		{until, "L8988901C", ""},
		{until, "DEC1966", ""},
		{birth, "12ABC1966", ""},
	} {
		assert.Equal(t, tc.want, anyDate(tc.raw, tc.f, now), tc.raw)
	}
}

func TestSplitDateRun(t *testing.T) {
	for raw, want := range map[string][]string{
		"12DEC1966":  {"12", "DEC", "1966"},
		"10DEC":      {"10", "DEC"},
		"1966":       {"1966"},
		"DEC":        {"DEC"},
		"M123889546": {"M123889546"},
	} {
		assert.Equal(t, want, splitDateRun(raw), raw)
	}
}

// An MRV-B visa's MRZ is two lines of 36 characters, as TD2's: text of
// that shape is the MRZ of generic_visa_b, and a passport's 44 not.
func TestMRZLikenessVisa(t *testing.T) {
	reg := docdefs.Default()
	b, _ := reg.Definition("generic_visa_b")
	a, _ := reg.Definition("generic_visa_a")
	mrvb := "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nL8988901C4XXX4009078F9612109<<<<<<<<"
	mrva := "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL8988901C4XXX4009078F96121096ZE184226B<<<<<<"
	assert.Equal(t, 1.0, mrzLikeness(mrvb, b))
	assert.Equal(t, 1.0, mrzLikeness(mrva, a))
	assert.Equal(t, 0.0, mrzLikeness(mrva, b))
}

// The document's titles (its keywords) are never a name, wherever the
// page prints them: the Croatian page stacks PUTOVNICA / PASSPORT /
// PASSEPORT down its left edge below the top fifth, where the ICAO order
// took PASSEPORT for the surname.
func TestTitleIsNoName(t *testing.T) {
	d, _ := docdefs.Default().Definition("generic_passport")
	pg := &page{w: 1000, h: 700, words: []word{
		{box: image.Rect(40, 150, 260, 175), text: "PASSEPORT", conf: 95},
		{box: image.Rect(300, 190, 520, 220), text: "SPECIMEN", conf: 95},
		{box: image.Rect(300, 400, 420, 430), text: "PASSPORT", conf: 95},
		{box: image.Rect(430, 400, 560, 430), text: "OFFICE", conf: 95},
	}}
	ly := newLayout(pg, d, "front")
	assert.True(t, ly.titleWords("PASSEPORT"))
	assert.False(t, ly.titleWords("SPECIMEN"))
	assert.False(t, ly.titleWords("PASSPORT OFFICE"), "an authority may hold a title word")
	assert.False(t, nameLine(ly, valueLine{words: []int{0}, box: pg.words[0].box}))
	assert.True(t, nameLine(ly, valueLine{words: []int{1}, box: pg.words[1].box}))

	rs := map[string]fieldRead{
		"surname":     {box: pg.words[0].box, value: "PASSEPORT", valid: true},
		"given_names": {box: pg.words[1].box, value: "SPECIMEN", valid: true},
	}
	genericChecks(d, ly, rs)
	assert.False(t, rs["surname"].valid)
	assert.Equal(t, "SPECIMEN", rs["given_names"].value)
}

// The ICAO order of a passport's data zone is not a visa's: it is used
// for the generic passport, card and TD2 documents, never for a visa.
func TestICAOOrderNotForVisas(t *testing.T) {
	reg := docdefs.Default()
	for config, want := range map[string]bool{"generic_passport": true, "generic_id_card": true, "generic_td2": true,
		"generic_visa_a": false, "generic_visa_b": false} {
		d, ok := reg.Definition(config)
		require.True(t, ok, config)
		assert.Equal(t, want, icaoOrdered(d), config)
	}
}
