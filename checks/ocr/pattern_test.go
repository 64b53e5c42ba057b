package ocr

import (
	"image"
	"strings"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// A side whose captions were lost still says which value is which: a NIN's
// digit groups, a sex word and one date by their shape, the names by
// their place in the column of values above the date of birth.
func TestShapeAndStack(t *testing.T) {
	def := builtin(t, "tanzania_national_id")
	w := printed(14, 25)
	column := []word{w(217, 120, "Rajabu"), w(217, 235, "Emmanuel"), w(217, 350, "Temba"), w(217, 465, "28-06-1954"),
		w(508, 465, "MALE"), w(217, 590, "19540628-40703-14427-46")}
	cases := []struct {
		name  string
		words []word
		want  map[string]string // field -> value, "" for not given
	}{
		{name: "captions lost", words: column, want: map[string]string{"first_name": "RAJABU", "middle_name": "EMMANUEL",
			"surname": "TEMBA", "date_of_birth": "28.06.1954", "sex": "M", "nin": "19540628-40703-14427-46"}},
		{name: "one line too many in the column", words: append([]word{w(217, 60, "Jamhuri")}, column...),
			want: map[string]string{"first_name": "", "middle_name": "", "surname": "", "date_of_birth": "28.06.1954"}},
		{name: "a line off the column", words: append(column[:2:2], append([]word{w(300, 350, "Temba")}, column[3:]...)...),
			want: map[string]string{"first_name": "", "surname": "", "nin": "19540628-40703-14427-46"}},
		{name: "two dates on a side with one date field", words: append([]word{w(700, 590, "01-02-2022")}, column...),
			want: map[string]string{"date_of_birth": "", "first_name": "", "sex": "M"}},
		// A caption read surely, at caption size, in the column where
		// a value is missing (NIN over its number, read Nw) is no value.
		{name: "a caption in the place of a lost value", words: append(column[:2:2], append([]word{printed(9, 12)(217, 420, "Nw")}, column[3:]...)...),
			want: map[string]string{"first_name": "", "middle_name": "", "surname": "", "nin": "19540628-40703-14427-46"}},
		{name: "a sex guessed from a word", words: []word{w(217, 465, "28-06-1954"), w(508, 465, "of")},
			want: map[string]string{"sex": ""}},
		{name: "a lone letter", words: []word{w(217, 465, "28-06-1954"), w(508, 465, "F")},
			want: map[string]string{"sex": ""}},
		{name: "a number read with letters for digits", words: []word{w(217, 590, "1954O628-4O7O3-14427-46")},
			want: map[string]string{"nin": ""}},
		// Two runs of a garbled caption end in the date (AA, read over
		// AUZAL, leads into CATE as AUZAL does): one print, one fit.
		{name: "a garbled caption read as two runs before the date", words: []word{
			{box: image.Rect(38, 470, 77, 479), text: "TARO", conf: 17}, {box: image.Rect(82, 471, 94, 479), text: "WA", conf: 37},
			{box: image.Rect(97, 470, 155, 480), text: "AUZAL", conf: 34}, {box: image.Rect(134, 468, 152, 485), text: "AA", conf: 51},
			{box: image.Rect(158, 470, 186, 480), text: "CATE", conf: 34}, w(218, 469, "30-08-1961")},
			want: map[string]string{"date_of_birth": "30.08.1961"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			rs := map[string]fieldRead{}
			datesByOrder(def, "front", ly, rs)
			byPattern(def, "front", ly, rs)
			byStack(def, "front", ly, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// A column none of whose fields was read is its own evidence when one
// left edge alone starts as many lines as the column has fields.
func TestStackWithoutAnchor(t *testing.T) {
	def := builtin(t, "ke_national_id")
	w := printed(14, 22)
	// Tiny letter-spaced captions read as guesses, as tesseract reads them.
	guess := func(x, y int, text string) word { g := w(x, y, text); g.conf = 30; return g }
	column := []word{guess(49, 45, "Oretrvet"), w(157, 33, "KISUMU"), guess(49, 110, "Oivrvies"), w(155, 97, "WESTLANDS"),
		guess(49, 174, "Leceties"), w(156, 160, "WESTLANDS"), guess(49, 237, "Sed"), w(157, 224, "KIKUYU")}
	cases := []struct {
		name  string
		words []word
		want  []string // district, division, location, sub_location
	}{
		{name: "one column of four", words: column, want: []string{"KISUMU", "WESTLANDS", "WESTLANDS", "KIKUYU"}},
		{name: "a fifth line at the edge", words: append([]word{w(157, 300, "NAKURU")}, column...), want: []string{"", "", "", ""}},
		{name: "two columns of four", words: append(column, w(600, 33, "ONE"), w(600, 97, "TWO"), w(600, 160, "THREE"), w(600, 224, "FOUR")),
			want: []string{"", "", "", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "back", tc.words)
			rs := map[string]fieldRead{}
			byStack(def, "back", ly, rs)
			for k, f := range []string{"district", "division", "location", "sub_location"} {
				if got := rs[f].value; got != tc.want[k] {
					t.Errorf("%s = %q, want %q", f, got, tc.want[k])
				}
			}
		})
	}
}

// builtin is the embedded definition of config.
func builtin(t *testing.T, config string) *idv.DocumentDefinition {
	t.Helper()
	def, ok := docdefs.Default().Definition(config)
	if !ok {
		t.Fatalf("no %s", config)
	}
	return def
}

// printed makes words of print whose glyphs are width px wide and height
// px high, read at a confidence of 93.
func printed(width, height int) func(x, y int, text string) word {
	return func(x, y int, text string) word {
		return word{box: image.Rect(x, y, x+width*len(text), y+height), text: text, conf: 93}
	}
}

// knownLayout is a side of an ID-1 card flattened to 1027 x 648 px that
// shows words, known to be the document's.
func knownLayout(def *idv.DocumentDefinition, side string, words []word) *layout {
	ly := newLayout(&page{words: words, w: 1027, h: 648}, def, side)
	ly.vouched = true
	return ly
}

// Print no taller than the side's captions is a garbled caption, unless
// tesseract read every word of it surely: a value set small (an
// authority in small capitals under its caption).
func TestCaptionSized(t *testing.T) {
	def := builtin(t, "generic_passport")
	small := printed(9, 16)
	guessed := func(x, y int, text string) word { w := small(x, y, text); w.conf = 55; return w }
	cases := []struct {
		name  string
		field string
		words []word
		want  bool
	}{
		{name: "an authority in small capitals", field: "authority", words: []word{small(760, 560, "PASSPORT"), small(840, 560, "OFFICE")}},
		{name: "caption print read as guesses", field: "authority", words: []word{guessed(760, 560, "DATI"), small(800, 560, "BR")}, want: true},
		{name: "a small value's last word read unsurely", field: "authority", words: []word{small(760, 560, "PASSPORT"), small(840, 560, "OFFICE"),
			guessed(900, 560, "NORTHBAY")}},
		{name: "a caption read unsurely but for one word", field: "authority", words: []word{guessed(760, 560, "DATI"), small(800, 560, "OF"),
			guessed(830, 560, "BR")}, want: true},
		{name: "print as large as a value", field: "authority", words: []word{printed(14, 30)(760, 560, "UTO")}},
		{name: "a digit misread in a name's caption", field: "given_names", words: []word{guessed(760, 560, "S9RE"), guessed(800, 560, "EONS")}, want: true},
		{name: "a date at caption size", field: "date_of_issue", words: []word{guessed(760, 560, "21.02.2018")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			ly.captionH = 20
			var all []int
			for i := range tc.words {
				all = append(all, i)
			}
			f := field(t, "generic_passport", tc.field)
			c := ly.makeCandidate(f, all, 0)
			if got := ly.captionSized(f, c); got != tc.want {
				t.Errorf("captionSized(%q) = %v, want %v", c.text, got, tc.want)
			}
		})
	}
}

// A grid of the definition (village | parish, sub-county | county,
// district) printed as one column: a field between two read fields that
// stand at one left edge of the card takes the one line between them.
func TestStackInTheCardsColumn(t *testing.T) {
	def := builtin(t, "uganda_national_id_old")
	w := printed(14, 22)
	column := []word{w(390, 40, "Kawanda"), w(390, 112, "Kisasi"), w(390, 185, "Busiro"), w(390, 258, "Kooki"), w(390, 330, "Kasese")}
	read := func(ly *layout, i int, how string) fieldRead {
		b := ly.pg.words[i].box
		return fieldRead{box: b, how: how, valid: true, value: strings.ToUpper(ly.pg.words[i].text), conf: 93}
	}
	cases := []struct {
		name   string
		words  []word
		county int // the word read as the county
		want   string
	}{
		{name: "one line between", words: column, county: 3, want: "BUSIRO"},
		{name: "two lines between", words: append(column[:3:3], append([]word{w(390, 220, "Extra")}, column[3:]...)...), county: 4},
		{name: "anchors at two edges", words: append(column[:3:3], w(600, 258, "Kooki"), column[4]), county: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "back", tc.words)
			rs := map[string]fieldRead{"parish": read(ly, 1, "label"), "county": read(ly, tc.county, "label")}
			byStack(def, "back", ly, rs)
			wantValues(t, rs, map[string]string{"sub_county": tc.want})
		})
	}
}

// In the definition's grid the field above county in its column is
// parish, two places back in the reading order: county takes the one
// line under parish's value at its edge.
func TestStackInAGridColumn(t *testing.T) {
	def := builtin(t, "uganda_national_id_new")
	w := printed(14, 22)
	grid := []word{w(50, 40, "Bwebajja"), w(50, 112, "Namugongo"), w(50, 185, "Rukungiri"), w(530, 40, "Kajjansi"), w(530, 112, "Nansana")}
	cases := []struct {
		name  string
		words []word
		want  string
	}{
		{name: "one line under parish", words: grid, want: "NANSANA"},
		{name: "two lines under parish", words: append(grid, w(530, 185, "Wakiso"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "back", tc.words)
			rs := map[string]fieldRead{}
			for i, f := range map[int]string{0: "village", 1: "sub_county", 2: "district", 3: "parish"} {
				rs[f] = fieldRead{box: ly.pg.words[i].box, how: "label", valid: true, value: strings.ToUpper(ly.pg.words[i].text), conf: 93}
			}
			byStack(def, "back", ly, rs)
			if got := rs["county"].value; got != tc.want {
				t.Errorf("county = %q (%s), want %q", got, rs["county"].how, tc.want)
			}
		})
	}
}

// The old Ugandan front drawn by the definition as a grid (nationality |
// sex | date of birth, card number | expiry) printed as one column with
// its captions lost: the run that opens the side (surname, given name,
// nationality and a lone F for the sex) takes the lines above the date of
// birth, because the date and the NIN, side by side in the definition,
// stand at one edge on the card.
func TestStackOpeningTheCardsColumn(t *testing.T) {
	def := builtin(t, "uganda_national_id_old")
	w := printed(14, 22)
	values := []word{w(140, 120, "Atuhaire"), w(140, 170, "Harriet"), w(140, 225, "UGA"), w(140, 276, "F")}
	// Four lines at another edge: the column of values is not the only
	// edge starting four lines, so only the fields around it place it.
	values = append(values, w(700, 430, "Kampala"), w(700, 470, "Wakiso"), w(700, 510, "Mukono"), w(700, 550, "Jinja"))
	dob, nin := w(140, 328, "23.06.1977"), w(140, 380, "CF7781767966O9")
	cases := []struct {
		name  string
		words []word
		ninX  int
		want  map[string]string
	}{
		{name: "one column", words: values, ninX: 140,
			want: map[string]string{"surname": "ATUHAIRE", "given_name": "HARRIET", "nationality": "UGA", "sex": "F"}},
		{name: "the NIN at another edge", words: values, ninX: 400,
			want: map[string]string{"surname": "", "sex": ""}},
		{name: "a line too many", words: append([]word{w(140, 60, "Uganda")}, values...), ninX: 140,
			want: map[string]string{"surname": "", "sex": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := nin
			n.box = n.box.Add(image.Pt(tc.ninX-140, 0))
			ly := knownLayout(def, "front", append(append([]word(nil), tc.words...), dob, n))
			k := len(tc.words)
			rs := map[string]fieldRead{
				"date_of_birth": {box: ly.pg.words[k].box, how: "loose", valid: true, value: "23.06.1977", conf: 96},
				"nin":           {box: ly.pg.words[k+1].box, how: "shape", valid: true, value: "CF7781767966O9", conf: 92},
			}
			byStack(def, "front", ly, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// A garbled caption taken for the sex's only by where it stands (Sen,
// the scrap of a First Name caption) that gave no value does not keep
// FEMALE, lower on the side, from being the sex by its shape; a caption
// read as such does.
func TestLooseCaptionLeavesShape(t *testing.T) {
	def := builtin(t, "tanzania_national_id")
	w := printed(14, 25)
	for _, tc := range []struct {
		name  string
		loose bool
		want  string
	}{{"loose caption", true, "F"}, {"caption read", false, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", []word{w(583, 120, "Eva"), w(583, 500, "FEMALE")})
			ly.hits["sex"] = []labelHit{{field: "sex", box: image.Rect(470, 120, 500, 132), loose: tc.loose}}
			rs := map[string]fieldRead{"sex": {how: "loose", raw: "A|26"}}
			byPattern(def, "front", ly, rs)
			wantValues(t, rs, map[string]string{"sex": tc.want})
		})
	}
}

// A lone M between the date of birth and the nationality, which the
// card prints at one edge though the definition draws date of birth |
// sex | nationality as a row: the field under the sex in the
// definition's column (the date of expiry) leaves two lines to share,
// the fields around it in reading order one.
func TestStackLoneLetterInTheCardsColumn(t *testing.T) {
	def := builtin(t, "uganda_driving_licence")
	w := printed(14, 24)
	words := []word{w(208, 243, "16/03/1999"), w(208, 301, "M"), w(208, 358, "UGA"), w(208, 414, "ABC"), w(208, 585, "14/06/2027")}
	ly := knownLayout(def, "front", words)
	firm := func(i int, v string) fieldRead {
		return fieldRead{box: ly.pg.words[i].box, how: "label", valid: true, value: v, conf: 95}
	}
	rs := map[string]fieldRead{"date_of_birth": firm(0, "16.03.1999"), "nationality": firm(2, "UGA"), "date_of_expiry": firm(4, "14.06.2027")}
	byStack(def, "front", ly, rs)
	wantValues(t, rs, map[string]string{"sex": "M"})
}

// The NIN, unread, is placed first between the date of birth and the
// card number; with it placed, the date and the NIN show the column the
// names above them stand in, and the names are placed on the pass after.
// An emblem read as "=" at the column's edge is no line of it.
func TestStackPlacesAgainAfterAPlacement(t *testing.T) {
	def := builtin(t, "uganda_national_id_old")
	w := printed(14, 22)
	words := []word{w(150, 30, "="), w(140, 120, "Musoke"), w(140, 170, "Obura"), w(140, 225, "UGA"), w(140, 276, "M"),
		w(140, 328, "07.05.2005"), w(140, 380, "CM0563422BXR8J"), w(140, 430, "391157239"),
		w(700, 430, "Kampala"), w(700, 470, "Wakiso"), w(700, 510, "Mukono"), w(700, 550, "Jinja")}
	ly := knownLayout(def, "front", words)
	rs := map[string]fieldRead{
		"date_of_birth": {box: ly.pg.words[5].box, how: "label", valid: true, value: "07.05.2005", conf: 96},
		"card_number":   {box: ly.pg.words[7].box, how: "shape", valid: true, value: "391157239", conf: 97},
	}
	byStack(def, "front", ly, rs)
	wantValues(t, rs, map[string]string{"nin": "CM0563422BXR8J", "surname": "MUSOKE", "given_name": "OBURA", "nationality": "UGA", "sex": "M"})
}

// A value set a little in from its column (KYADONDO 12 px right of its
// neighbours, at a line height of 22) is still a line of the column.
func TestStackWithoutAnchorIndentedLine(t *testing.T) {
	def := builtin(t, "uganda_national_id_old")
	w := printed(14, 22)
	ly := knownLayout(def, "back", []word{w(357, 39, "Kisasi"), w(354, 112, "Bweyogerere"), w(369, 185, "Kyadondo"),
		w(356, 258, "Makindye"), w(360, 330, "Kampala")})
	rs := map[string]fieldRead{"district": {box: ly.pg.words[4].box, how: "loose", valid: true, value: "KAMPALA", conf: 96}}
	byStack(def, "back", ly, rs)
	wantValues(t, rs, map[string]string{"village": "KISASI", "parish": "BWEYOGERERE", "sub_county": "KYADONDO", "county": "MAKINDYE"})
}

// A field drawn in the row of a field read, its caption lost, is the one
// run of print beside that field's value on its line: the sex's M beside
// the nationality's UGA (the date of birth, in that row of the
// definition, printed on the next line), the sub-location beside the
// location's value read from its region. Two runs there, or a run read
// unsurely, give nothing.
func TestRow(t *testing.T) {
	w := printed(14, 22)
	cases := []struct {
		name, config, side string
		words              []word
		reads              map[int]fieldRead // word -> read (field in raw)
		want               map[string]string
	}{
		{name: "the sex beside the nationality", config: "uganda_national_id_old", side: "front",
			words: []word{w(224, 259, "UGA"), w(537, 259, "M"), w(223, 330, "30.11.1954")},
			reads: map[int]fieldRead{0: {raw: "nationality", how: "label", value: "UGA"}, 2: {raw: "date_of_birth", how: "label", value: "30.11.1954"}},
			want:  map[string]string{"sex": "M"}},
		{name: "a speck read unsurely beside it", config: "uganda_national_id_old", side: "front",
			words: []word{w(224, 259, "UGA"), w(537, 259, "M"), {box: image.Rect(845, 265, 860, 280), text: "i", conf: 37}},
			reads: map[int]fieldRead{0: {raw: "nationality", how: "label", value: "UGA"}},
			want:  map[string]string{"sex": "M"}},
		{name: "two runs beside the nationality", config: "uganda_national_id_old", side: "front",
			words: []word{w(224, 259, "UGA"), w(537, 259, "M"), w(700, 259, "F")},
			reads: map[int]fieldRead{0: {raw: "nationality", how: "label", value: "UGA"}},
			want:  map[string]string{"sex": ""}},
		{name: "the sub-location beside the location's region read", config: "ke_national_id", side: "back",
			words: []word{w(125, 223, "Mumias"), w(616, 223, "Kiganjo"), w(125, 33, "Thika"), w(616, 33, "Langata")},
			reads: map[int]fieldRead{0: {raw: "location", how: "region", value: "MUMIAS"}, 2: {raw: "district", how: "region", value: "THIKA"},
				3: {raw: "division", how: "region", value: "LANGATA"}},
			want: map[string]string{"sub_location": "KIGANJO"}},
		{name: "beside a value read only as a zone's crop", config: "ke_national_id", side: "back",
			words: []word{w(125, 223, "Mumias"), w(616, 223, "Kiganjo")},
			reads: map[int]fieldRead{0: {raw: "location", how: "zone", value: "MUMIAS"}},
			want:  map[string]string{"sub_location": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			def := builtin(t, tc.config)
			ly := knownLayout(def, tc.side, tc.words)
			rs := map[string]fieldRead{}
			for i, r := range tc.reads {
				rs[r.raw] = fieldRead{box: ly.pg.words[i].box, how: r.how, valid: true, value: r.value, conf: 93}
			}
			byRow(def, tc.side, ly, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// The one line left at a column's edge goes to the one unread field it
// fits: a voter card printing its number above the names, so no order
// places the sex's M between the other names and the polling code.
func TestStackLoneLine(t *testing.T) {
	def := builtin(t, "ghana_voter_id")
	w := printed(14, 24)
	column := []word{w(319, 145, "4444302605"), w(319, 233, "Amoah"), w(321, 322, "Fiifi"), w(321, 410, "M"),
		w(321, 498, "H078759"), w(319, 586, "04/08/2024")}
	cases := []struct {
		name  string
		words []word
		names bool // surname and other names read
		want  map[string]string
	}{
		{name: "one line left", words: column, names: true, want: map[string]string{"sex": "M"}},
		{name: "two lines left", words: append(column, w(321, 450, "F")), names: true, want: map[string]string{"sex": ""}},
		{name: "a garbled caption's letters", words: append(append([]word(nil), column[:3]...), w(321, 410, "FC"), column[4], column[5]), names: true,
			want: map[string]string{"sex": ""}},
		{name: "a line over the column", words: append(append([]word(nil), column[:3]...), w(321, 60, "M"), column[4], column[5]), names: true,
			want: map[string]string{"sex": ""}},
		// Words 1 to 3 stand apart: the reads below are words 0, 4, 5.
		{name: "a line two fields fit", words: []word{column[0], w(321, 322, "Kofi"), w(700, 60, "x"), w(700, 100, "y"), column[4], column[5]},
			want: map[string]string{"surname": "", "other_names": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			read := func(i int, v string) fieldRead {
				return fieldRead{box: ly.pg.words[i].box, how: "label", valid: true, value: v, conf: 95}
			}
			rs := map[string]fieldRead{"voter_id_number": read(0, "4444302605"), "polling_station_code": read(4, "H078759"),
				"date_of_registration": read(5, "04.08.2024")}
			if tc.names {
				rs["surname"], rs["other_names"] = read(1, "AMOAH"), read(2, "FIIFI")
			}
			byStack(def, "front", ly, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// A number of its own shape read from its zone's words (the serial
// number's nine digits) anchors the column as a read by its shape does:
// the full name between it and the sex is the one line left.
func TestStackAnchoredOnAShapeInItsZone(t *testing.T) {
	def := builtin(t, "kenya_national_id")
	w := printed(18, 26)
	ly := knownLayout(def, "front", []word{w(352, 125, "756560238"), w(350, 195, "BENSON"), w(470, 195, "KAMAU"),
		w(340, 258, "MALE"), w(346, 320, "16.08.2017")})
	read := readOf(ly)
	for _, how := range []string{"region", "zone"} {
		rs := map[string]fieldRead{"serial_number": read(0, how, "756560238"), "sex": read(3, "shape", "M"),
			"date_of_issue": read(4, "chronology", "16.08.2017")}
		byStack(def, "front", ly, rs)
		want := map[string]string{"full_name": "BENSON KAMAU"}
		if how == "zone" {
			want["full_name"] = "" // a crop of the zone has no box of its print
		}
		wantValues(t, rs, want)
	}
	// A lone letter read in the sex's zone (a speck of the portrait) is
	// no anchor.
	st := stacker{ly: ly, rs: map[string]fieldRead{"sex": {box: image.Rect(879, 330, 908, 342), how: "region", valid: true, value: "F"}}}
	sex, _ := def.Field("sex")
	if _, ok := st.settled(sex); ok {
		t.Error("a sex's F read in its zone anchors a column")
	}
}

// The run closing the side's order (sub-county, county, district) takes
// the lines under the last field read at its edge (the parish, by its
// caption), though the village above that was read only from its region.
func TestStackClosingRun(t *testing.T) {
	def := builtin(t, "uganda_national_id_new")
	w := printed(19, 26)
	column := []word{w(148, 42, "MPERERWE"), w(148, 124, "MPERERWE"), w(148, 205, "KOOKI"), w(148, 287, "BUGANGAIZI"),
		w(148, 368, "FORT"), w(240, 368, "PORTAL")}
	cases := []struct {
		name  string
		words []word
		want  map[string]string
	}{
		{"three lines under the parish", column, map[string]string{"sub_county": "KOOKI", "county": "BUGANGAIZI", "district": "FORT PORTAL"}},
		{"four lines under it", append(column, w(148, 450, "KASESE")), map[string]string{"sub_county": "", "county": "", "district": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "back", tc.words)
			rs := map[string]fieldRead{
				"village": {box: ly.pg.words[0].box, how: "region", valid: true, value: "MPERERWE", conf: 99},
				"parish":  {box: ly.pg.words[1].box, how: "label", valid: true, value: "MPERERWE", conf: 99},
			}
			byStack(def, "back", ly, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// wantValues checks the values read against want (field -> value, ""
// for not given).
// readOf gives a valid read of ly's i-th word, found as how.
func readOf(ly *layout) func(i int, how, v string) fieldRead {
	return func(i int, how, v string) fieldRead {
		return fieldRead{box: ly.pg.words[i].box, how: how, valid: true, value: v, conf: 95}
	}
}

func wantValues(t *testing.T, rs map[string]fieldRead, want map[string]string) {
	t.Helper()
	for f, v := range want {
		if got := rs[f].value; got != v {
			t.Errorf("%s = %q (%s), want %q", f, got, rs[f].how, v)
		}
	}
}

// The MRZ is never a line of a column of values: its first line at the
// column's edge, under the last value, is not the sub-location.
func TestStackLeavesTheMRZ(t *testing.T) {
	def := builtin(t, "ke_national_id")
	w := printed(14, 22)
	for _, mrz := range []string{"IDKYA04729407506709048<<<<<<<<", "IDKYA047294075067090481KKKKKK"} {
		t.Run(mrz, func(t *testing.T) {
			// The MRZ's second line read unsurely: the first is the one
			// line under the location at the column's edge.
			second := w(130, 520, "7008108M3303115KEN<<<<<<<<<<<2")
			second.conf = 50
			ly := knownLayout(def, "back", []word{w(130, 33, "THIKA"), w(130, 97, "WOTE"), w(130, 160, "KASARANI"),
				w(130, 490, mrz), second})
			rs := map[string]fieldRead{"location": {box: ly.pg.words[2].box, how: "label", valid: true, value: "KASARANI", conf: 95}}
			byStack(def, "back", ly, rs)
			wantValues(t, rs, map[string]string{"sub_location": ""})
		})
	}
}

// A licence's sex placed by its row beside the date of birth makes a
// column of two firm reads with the expiry date under it; the class
// between them, the one line left there, is placed by byLone after byRow
// (lone had run before the sex was read). The class's B, within a
// glyph's height of the column's edge, is the tail of its run, not a
// second line.
func TestLoneAfterRow(t *testing.T) {
	def := builtin(t, "uganda_driving_licence")
	w := printed(14, 26)
	words := []word{w(38, 320, "07/03/1975"), w(381, 310, "F"), w(38, 392, "UGA"), w(380, 392, "A"), w(404, 392, "B"),
		w(38, 474, "UT17692261"), w(38, 554, "18/03/2022"), w(382, 554, "17/03/2027"), w(38, 150, "MUGISHA"), w(38, 230, "AKELLO")}
	ly := knownLayout(def, "front", words)
	read := readOf(ly)
	rs := map[string]fieldRead{"date_of_birth": read(0, "chronology", "07.03.1975"), "nationality": read(2, "stack", "UGA"),
		"licence_number": read(5, "shape", "UT17692261"), "date_of_issue": read(6, "chronology", "18.03.2022"),
		"date_of_expiry": read(7, "chronology", "17.03.2027"), "sex": read(1, "row", "F"),
		"surname": read(8, "stack", "MUGISHA"), "given_names": read(9, "stack", "AKELLO")}
	byLone(def, "front", ly, rs)
	wantValues(t, rs, map[string]string{"licence_class": "A B"})
}

// The one line left at a column's edge is no field's whose neighbours in
// the reading order it does not lie between: a Kenyan front's full name,
// its line read too unsurely to count, is not the place of issue under
// the place of birth, below the date of birth and the place of birth
// that follow the name in the order.
func TestLoneKeepsTheOrder(t *testing.T) {
	def := builtin(t, "kenya_national_id")
	w := printed(14, 26)
	unsure := w(172, 213, "KIPCHUMBA")
	unsure.conf = 45
	words := []word{w(172, 118, "996474386"), unsure, w(172, 306, "25.02.1974"), w(172, 396, "KAJIADO"), w(172, 486, "GARISSA"),
		w(172, 577, "12.03.2025")}
	ly := knownLayout(def, "front", words)
	read := readOf(ly)
	rs := map[string]fieldRead{"serial_number": read(0, "loose", "996474386"), "date_of_birth": read(2, "chronology", "25.02.1974"),
		"place_of_birth": read(3, "label", "KAJIADO"), "date_of_issue": read(5, "label", "12.03.2025")}
	byLone(def, "front", ly, rs)
	wantValues(t, rs, map[string]string{"full_name": ""})
}

// A value of a closed list (a South African status: CITIZEN or
// PERMANENT RESIDENT) has a shape no name or place has: under a caption
// read past matching (SWS for STATUS:) it is found by that shape.
func TestShapeOfAClosedList(t *testing.T) {
	def := builtin(t, "south_africa_id")
	w := printed(14, 25)
	g := w(319, 535, "SWS")
	g.conf = 40
	ly := knownLayout(def, "front", []word{g, w(399, 541, "CITIZEN"), w(500, 300, "RSA")})
	rs := map[string]fieldRead{}
	byPattern(def, "front", ly, rs)
	wantValues(t, rs, map[string]string{"status": "CITIZEN"})
}

// A card set in two columns whose captions were lost prints its names in
// the definition's order across its rows (first name | middle name,
// surname | date of birth): byStack, walking one column, places none of
// them, and reading order does, only when the lines between firm reads
// are as many as the fields open there.
func TestOrderAcrossTwoColumns(t *testing.T) {
	def := builtin(t, "tanzania_national_id")
	w := printed(14, 25)
	rows := []word{w(344, 121, "EMMANUEL"), w(692, 125, "SHABANI"), w(347, 185, "LYIMO"), w(688, 190, "01-08-1956"),
		w(352, 247, "MALE")}
	cases := []struct {
		name  string
		words []word
		want  map[string]string
	}{
		{name: "names across two rows", words: rows, want: map[string]string{"first_name": "EMMANUEL", "middle_name": "SHABANI",
			"surname": "LYIMO", "date_of_birth": "01.08.1956", "sex": "M"}},
		{name: "a line too many before the date", words: append([]word{w(692, 60, "JAMHURI")}, rows...),
			want: map[string]string{"first_name": "", "middle_name": "", "surname": "", "date_of_birth": "01.08.1956"}},
		{name: "a line too few", words: append(rows[:1:1], rows[2:]...),
			want: map[string]string{"first_name": "", "middle_name": "", "surname": ""}},
		{name: "a lone glyph in the place of a name", words: append([]word{printed(14, 25)(344, 121, "'T")}, rows[1:]...),
			want: map[string]string{"first_name": "", "middle_name": "", "surname": ""}},
		{name: "a speck of another size", words: append([]word{{box: image.Rect(90, 60, 130, 110), text: "XX", conf: 90}}, rows...),
			want: map[string]string{"first_name": "EMMANUEL", "middle_name": "SHABANI", "surname": "LYIMO"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			rs := map[string]fieldRead{}
			datesByOrder(def, "front", ly, rs)
			byPattern(def, "front", ly, rs)
			byStack(def, "front", ly, rs)
			byOrder(def, "front", ly, rs)
			wantValues(t, rs, tc.want)
		})
	}
}

// The rows of a page are read left to right, row by row: a value set a
// little lower than its neighbour on the row is still on that row.
func TestReadingOrder(t *testing.T) {
	boxes := []image.Rectangle{image.Rect(692, 125, 830, 150), image.Rect(344, 121, 525, 147), image.Rect(688, 190, 853, 216),
		image.Rect(347, 185, 442, 211), image.Rect(352, 247, 437, 273)}
	got := readingOrder(boxes, func(r image.Rectangle) image.Rectangle { return r })
	want := []int{344, 692, 347, 688, 352}
	for i, r := range got {
		if r.Min.X != want[i] {
			t.Fatalf("order %v, want x %v", got, want)
		}
	}
}

// A side none of whose fields was read firmly takes its lines in reading
// order when they are exactly its fields, three and more, of one size.
func TestOrderWithoutAnchors(t *testing.T) {
	def := builtin(t, "ke_national_id")
	w := printed(14, 22)
	grid := []word{w(47, 55, "BOMET"), w(508, 60, "WEBUYE"), w(55, 117, "LITEIN"), w(511, 124, "ZIMMERMAN")}
	cases := []struct {
		name  string
		words []word
		want  []string // district, division, location, sub_location
	}{
		{name: "two columns of two", words: grid, want: []string{"BOMET", "WEBUYE", "LITEIN", "ZIMMERMAN"}},
		{name: "a fifth line", words: append([]word{w(300, 300, "NAKURU")}, grid...), want: []string{"", "", "", ""}},
		{name: "a line of another size", words: append(grid[:3:3], printed(30, 50)(511, 124, "ZIMMERMAN")), want: []string{"", "", "", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "back", tc.words)
			rs := map[string]fieldRead{}
			byStack(def, "back", ly, rs)
			byOrder(def, "back", ly, rs)
			for k, f := range []string{"district", "division", "location", "sub_location"} {
				if got := rs[f].value; got != tc.want[k] {
					t.Errorf("%s = %q, want %q", f, got, tc.want[k])
				}
			}
		})
	}
}
