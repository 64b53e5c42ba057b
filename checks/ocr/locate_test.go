package ocr

import (
	"image"
	"sort"
	"testing"

	"github.com/tambua/tambua/idv"
)

// guess is wd read at a confidence of 40, as garbled print reads.
func guess(wd word) word { wd.conf = 40; return wd }

// w builds a page word: text at x, y with height h (width from its length).
func w(text string, x, y, h int) word {
	return word{box: image.Rect(x, y, x+len(text)*h*6/10, y+h), text: text, conf: 95}
}

func testDef(fields ...idv.FieldDef) *idv.DocumentDefinition {
	for i := range fields {
		fields[i].Zone.Side = "front"
	}
	return &idv.DocumentDefinition{Config: "test_card", Sides: []string{"front"}, Fields: fields,
		Keywords: map[string][]string{"front": {"REPUBLIC OF TESTLAND"}}}
}

// titled gives d's front the keywords kws.
func titled(d *idv.DocumentDefinition, kws ...string) *idv.DocumentDefinition {
	d.Keywords = map[string][]string{"front": kws}
	return d
}

var (
	dobField  = idv.FieldDef{Name: "date_of_birth", Label: "DATE OF BIRTH", Labels: []string{"Date de naissance"}, Type: idv.FieldDate, Pattern: `^[0-9]{2}\.[0-9]{2}\.[0-9]{4}$`}
	docField  = idv.FieldDef{Name: "document_number", Label: "DOCUMENT NO", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", Pattern: `^[A-Z0-9]{4,14}$`}
	expField  = idv.FieldDef{Name: "date_of_expiry", Label: "DATE OF EXPIRY", Type: idv.FieldDate, Pattern: `^[0-9]{2}\.[0-9]{2}\.[0-9]{4}$`}
	sexField  = idv.FieldDef{Name: "sex", Label: "SEX", Type: idv.FieldSex, Format: "word", Pattern: `^[MF]$`}
	nameField = idv.FieldDef{Name: "surname", Label: "SURNAME", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,30}$`}
	cty       = idv.FieldDef{Name: "county", Label: "COUNTY", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[A-Z]{3,20}$`}
	// swahiliName is captioned in English and Kiswahili.
	swahiliName = idv.FieldDef{Name: "surname", Label: "SURNAME", Labels: []string{"LAST NAME", "JINA LA UKOO"}, Type: idv.FieldText,
		Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,30}$`}
	subCty = idv.FieldDef{Name: "sub_county", Label: "S.COUNTY", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[A-Z]{3,20}$`}
)

// bestValue is what locateField takes from the page reading alone.
func bestValue(ly *layout, f idv.FieldDef) string {
	cands := ly.valueCandidates(f)
	best, score := "", 1e9
	for _, c := range cands {
		if prose(c.text) || ly.captionRun(c) || ly.captionSized(f, c) {
			continue
		}
		if _, v, ok := ly.fits(f, c); ok && c.score < score {
			best, score = v, c.score
		}
	}
	return best
}

func TestLayoutFindsValuesByCaption(t *testing.T) {
	tests := []struct {
		name  string
		def   *idv.DocumentDefinition
		words []word
		want  map[string]string
	}{
		{"value below", testDef(dobField, sexField), []word{
			w("DATE", 100, 100, 14), w("OF", 150, 100, 14), w("BIRTH:", 180, 100, 14), w("SEX", 500, 100, 14),
			w("10.10.1983", 100, 125, 28), w("MALE", 500, 125, 28),
		}, map[string]string{"date_of_birth": "10.10.1983", "sex": "M"}},
		{"value right, no colon, letter spaced", testDef(dobField, sexField), []word{
			w("D", 100, 100, 14), w("A", 112, 100, 14), w("T", 124, 100, 14), w("E", 136, 100, 14), w("OF", 160, 100, 14), w("BIRTH", 190, 100, 14),
			w("10.10.1983", 300, 96, 20), w("SEX", 100, 160, 14), w("F", 160, 158, 18),
		}, map[string]string{"date_of_birth": "10.10.1983", "sex": "F"}},
		{"every letter a word", testDef(dobField, sexField), []word{
			w("D", 100, 100, 14), w("A", 112, 100, 14), w("T", 124, 100, 14), w("E", 136, 100, 14), w("O", 160, 100, 14), w("F", 172, 100, 14),
			w("B", 196, 100, 14), w("I", 208, 100, 14), w("R", 220, 100, 14), w("T", 232, 100, 14), w("H", 244, 100, 14),
			w("10.10.1983", 100, 125, 28), w("S", 400, 100, 14), w("E", 412, 100, 14), w("X", 424, 100, 14), w("F", 400, 125, 28),
		}, map[string]string{"date_of_birth": "10.10.1983", "sex": "F"}},
		{"a caption in three languages, its value under the first", testDef(nameField), []word{
			w("1.", 90, 102, 10), {box: image.Rect(100, 100, 150, 114), text: "Numm", conf: 95}, {box: image.Rect(155, 100, 185, 114), text: "Nom", conf: 95, listed: true},
			{box: image.Rect(190, 100, 260, 114), text: "Surname", conf: 95, listed: true},
			w("OLE", 101, 122, 24), w("BIRTHDAY", 180, 160, 14),
		}, map[string]string{"surname": "OLE"}},
		{"OCR confusions in a caption", testDef(dobField), []word{
			w("DATE", 100, 100, 14), w("0F", 150, 100, 14), w("B1RTH", 180, 100, 14), w("01.02.2003", 100, 125, 28),
		}, map[string]string{"date_of_birth": "01.02.2003"}},
		{"another language", testDef(dobField), []word{
			w("Date", 100, 100, 14), w("de", 150, 100, 14), w("naissance/", 180, 100, 14), w("Date", 100, 118, 14), w("of", 150, 118, 14), w("birth", 180, 118, 14),
			w("20.06.1978", 100, 140, 28),
		}, map[string]string{"date_of_birth": "20.06.1978"}},
		{"never past another field's caption", testDef(dobField, sexField), []word{
			w("DATE", 100, 100, 14), w("OF", 150, 100, 14), w("BIRTH", 180, 100, 14),
			w("SEX", 100, 125, 14), w("M", 100, 150, 28),
		}, map[string]string{"date_of_birth": "", "sex": "M"}},
		{"title is no value", testDef(nameField), []word{
			w("SURNAME", 100, 30, 14), w("REPUBLIC", 300, 28, 16), w("OF", 400, 28, 16), w("TESTLAND", 430, 28, 16),
			w("OMONDI", 100, 55, 28),
		}, map[string]string{"surname": "OMONDI"}},
		{"an exact caption is its own field", testDef(cty, subCty), []word{
			w("COUNTY", 500, 100, 14), w("KASANGATI", 500, 125, 28),
		}, map[string]string{"county": "KASANGATI", "sub_county": ""}},
		{"a large value hanging from a small caption's top", testDef(swahiliName, dobField), []word{
			w("LAST", 37, 117, 9), w("NAME", 62, 117, 9), w("ONYANGO", 183, 120, 22),
			w("DATE", 37, 300, 9), w("OF", 62, 300, 9), w("BIRTH", 76, 300, 9), w("12.12.1995", 183, 303, 22),
		}, map[string]string{"surname": "ONYANGO", "date_of_birth": "12.12.1995"}},
		{"a caption on two lines", testDef(idv.FieldDef{Name: "place_of_birth", Label: "PLACE OF BIRTH", Labels: []string{"MAHALI PA KUZALIWA"},
			Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,30}$`}), []word{
			w("MAHALI", 364, 392, 10), w("PA", 406, 392, 10), w("KUZALIWA", 364, 406, 10), w("KAJIADO", 544, 395, 22),
		}, map[string]string{"place_of_birth": "KAJIADO"}},
		{"the garbled rest of a two-language caption before the value", testDef(swahiliName, dobField, sexField), []word{
			w("Jina", 34, 221, 11), w("la", 63, 221, 11), w("Ukoo", 79, 221, 11), guess(w("Sume", 112, 221, 11)), guess(w("ae", 145, 223, 8)),
			w("CHACHA", 356, 210, 24), w("DATE", 34, 300, 11), w("OF", 64, 300, 11), w("BIRTH", 82, 300, 11), w("11.05.1978", 356, 290, 24),
			w("SEX", 34, 380, 11), w("MALE", 356, 370, 24),
		}, map[string]string{"surname": "CHACHA"}},
		{"a speck between the caption and its value", testDef(sexField), []word{
			w("SEX", 500, 100, 14), {box: image.Rect(495, 116, 498, 119), text: "©", conf: 31}, w("MALE", 500, 125, 28),
		}, map[string]string{"sex": "M"}},
		{"a bar left of the caption's start", testDef(dobField), []word{
			{box: image.Rect(95, 118, 99, 126), text: "|", conf: 57}, w("DATE", 100, 100, 14), w("OF", 150, 100, 14), w("BIRTH", 180, 100, 14),
			w("08.04.2025", 100, 130, 28),
		}, map[string]string{"date_of_birth": "08.04.2025"}},
		{"the caption's last letters split off", testDef(cty), []word{
			w("Count", 500, 100, 14), w("ly", 552, 102, 12), w("KOOKI", 620, 96, 20),
		}, map[string]string{"county": "KOOKI"}},
		{"a keyword that is a caption, in the title band", titled(testDef(cty), "COUNTY"), []word{
			w("COUNTV", 500, 60, 14), w("KASANGATI", 500, 85, 28),
		}, map[string]string{"county": "KASANGATI"}},
		{"the date left of the column, run on through a mark", testDef(dobField, expField), []word{
			w("DATE", 100, 100, 14), w("OF", 150, 100, 14), w("BIRTH", 180, 100, 14),
			w("DATE", 420, 100, 14), w("OF", 470, 100, 14), w("EXPIRY", 500, 100, 14),
			w("08.01.2025", 100, 125, 28), {box: image.Rect(272, 118, 400, 158), text: "Y", conf: 83}, w("07.01.2030", 420, 125, 28),
		}, map[string]string{"date_of_birth": "08.01.2025", "date_of_expiry": "07.01.2030"}},
		{"a caption on three lines, its value right of the first", testDef(docField), []word{
			w("NUMERO", 100, 100, 14), w("DEL", 160, 100, 14), w("DOCUMENTO", 100, 117, 14), w("/", 190, 117, 14),
			w("DOCUMENT", 100, 134, 14), w("NO", 180, 134, 14), w("GS0012476", 300, 94, 26),
		}, map[string]string{"document_number": "GS0012476"}},
		{"the row above is another field's, a value's height off", testDef(docField), []word{
			w("Sumame", 100, 100, 14), w("MARTIN", 300, 96, 24), w("DOCUMENT", 100, 140, 14), w("NO", 180, 140, 14),
		}, map[string]string{"document_number": ""}},
		{"artwork left of the margin run into the value", testDef(nameField), []word{
			w("SURNAME", 350, 190, 15), {box: image.Rect(170, 212, 250, 292), text: "a", conf: 27}, w("JACQUES", 350, 218, 30),
		}, map[string]string{"surname": "JACQUES"}},
		{"a small letter-spaced caption, its words two heights apart", testDef(idv.FieldDef{Name: "place_of_issue", Label: "PLACE OF ISSUE",
			Labels: []string{"MAHALI PA KUTOLEWA"}, Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,30}$`}), []word{
			w("Mahali", 38, 502, 8), w("pa", 83, 502, 8), w("Kutolewa", 99, 502, 8), w("Mombasa", 184, 490, 28),
		}, map[string]string{"place_of_issue": "MOMBASA"}},
		{"the MRZ under a caption far from its value", testDef(idv.FieldDef{Name: "authority", Label: "ISSUING AUTHORITY", Type: idv.FieldText,
			Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,40}$`}), []word{
			w("issuing", 330, 460, 12), w("authority:", 385, 460, 12), w("DIRECTORATE", 630, 456, 18), w("OF", 757, 456, 18), w("IMMIGRATION", 786, 456, 18),
			w("P<KENWAMALWA<<WANYAMA<<<<<<<<<<<<<<<<<<<<<<<", 44, 516, 18), w("B4812781<6KEN6308317M3603147<<<<<<<<<<<<<<<8", 44, 563, 18),
		}, map[string]string{"authority": "DIRECTORATE OF IMMIGRATION"}},
		{"a caption's garbled other language as tall as it, the side's other captions smaller", testDef(dobField, sexField, nameField, docField), []word{
			w("SEX", 100, 60, 9), w("SURNAME", 100, 160, 9), w("ELENA", 600, 150, 26), w("DOCUMENT", 100, 220, 9), w("NO", 160, 220, 9),
			w("date", 400, 300, 12), w("of", 432, 300, 12), w("birth", 450, 300, 12), guess(w("fe", 500, 300, 12)), guess(w("mace", 518, 300, 12)),
			w("19.10.1971", 700, 292, 26),
		}, map[string]string{"date_of_birth": "19.10.1971"}},
		{"the value right of another field's caption, on the line under this one's", testDef(docField, idv.FieldDef{Name: "issuing_state", Label: "CODE",
			Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[A-Z]{3}$`}), []word{
			w("Document", 655, 104, 15), w("No:", 735, 104, 15),
			w("Code:", 470, 150, 15), {box: image.Rect(548, 138, 623, 166), text: "UTO", conf: 96}, {box: image.Rect(657, 130, 918, 166), text: "DL2G36R4VG", conf: 95},
		}, map[string]string{"document_number": "DL2G36R4VG", "issuing_state": "UTO"}},
		{"a value that is a word of another caption, printed at a value's size", testDef(docField, idv.FieldDef{Name: "document_type", Label: "TYPE",
			Labels: []string{"ID NO"}, Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[ACI][A-Z0-9]?$`}, nameField), []word{
			w("Type:", 326, 219, 22), w("ID", 396, 201, 39), w("Document", 639, 160, 20), w("No.", 745, 160, 20), w("DL2G36R4VG", 640, 199, 40),
			w("Surname:", 327, 353, 20), w("MORENO", 439, 333, 40),
		}, map[string]string{"document_type": "ID", "document_number": "DL2G36R4VG"}},
		{"caption words at a caption's size are no value", testDef(docField, idv.FieldDef{Name: "document_type", Label: "TYPE",
			Labels: []string{"ID NO"}, Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[ACI][A-Z0-9]?$`}, nameField), []word{
			w("Type:", 326, 219, 22), w("ID", 396, 219, 22), w("Document", 639, 160, 20), w("No.", 745, 160, 20), w("DL2G36R4VG", 640, 199, 40),
			w("Surname:", 327, 353, 20), w("MORENO", 439, 333, 40),
		}, map[string]string{"document_type": ""}},
		{"a code read in lower case, far right of its caption, and another field's row under it", testDef(docField, nameField), []word{
			w("Document", 772, 170, 22), w("No", 880, 170, 22), {box: image.Rect(1021, 163, 1167, 201), text: "vul2", conf: 90},
			w("Surname", 460, 274, 22), {box: image.Rect(574, 270, 803, 308), text: "TANAKA", conf: 96},
		}, map[string]string{"document_number": "VUL2", "surname": "TANAKA"}},
		{"prose is no value", testDef(nameField), []word{
			w("SURNAME", 100, 100, 14), w("visibles", 220, 100, 14), w("selon", 300, 100, 14),
		}, map[string]string{"surname": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg := &page{words: tt.words, w: 1000, h: 640}
			ly := newLayout(pg, tt.def, "front")
			for name, want := range tt.want {
				f, _ := tt.def.Field(name)
				if got := bestValue(ly, f); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestForeignPage(t *testing.T) {
	def := testDef(dobField, sexField)
	other := &page{w: 1000, h: 640}
	for i, s := range []string{"PERMIS", "DE", "CONDUIRE", "CATEGORIE", "VALABLE", "JUSQUAU", "NUMERO"} {
		other.words = append(other.words, w(s, 100+(i%3)*200, 100+(i/3)*60, 20))
	}
	if !newLayout(other, def, "front").foreign() {
		t.Error("a page of another document's words is not foreign")
	}
	blank := &page{w: 1000, h: 640, words: []word{w("A", 10, 10, 10)}}
	if newLayout(blank, def, "front").foreign() {
		t.Error("a nearly blank page is foreign; it should read as unreadable")
	}
	shared := &page{w: 1000, h: 640, words: append(append([]word(nil), other.words...), w("SEX", 100, 400, 14))}
	if !newLayout(shared, def, "front").foreign() {
		t.Error("a page sharing a caption (SEX) but no title is not foreign")
	}
	own := &page{w: 1000, h: 640, words: append(append([]word(nil), other.words...),
		w("REPUBLIC", 300, 20, 16), w("OF", 400, 20, 16), w("TESTLAND", 430, 20, 16))}
	if newLayout(own, def, "front").foreign() {
		t.Error("a page with the definition's title is foreign")
	}
	// Dates are values, not words of a language: two of them and four
	// scraps of faint captions are the back of a card whose title was
	// misread, not another document.
	dated := &page{w: 1000, h: 640}
	for i, s := range []string{"TAIFA", "ya", "are", "ill", "26-01-2020", "25-01-2030"} {
		dated.words = append(dated.words, w(s, 100+(i%3)*200, 100+(i/3)*60, 20))
	}
	if newLayout(dated, def, "front").foreign() {
		t.Error("a page of two dates and four scraps is foreign")
	}
}

// A side's title vouches for the sides read after it with a caption read
// as spelled, or, its captions all faded, with nearly every field read.
func TestTitledSideVouches(t *testing.T) {
	def := testDef(nameField, dobField, sexField, docField)
	title := []word{w("REPUBLIC", 300, 20, 16), w("OF", 400, 20, 16), w("TESTLAND", 430, 20, 16)}
	read := func(names ...string) map[string]fieldRead {
		rs := map[string]fieldRead{}
		for _, f := range def.Fields {
			rs[f.Name] = fieldRead{}
		}
		for _, n := range names {
			rs[n] = fieldRead{valid: true, value: "X", how: "stack"}
		}
		return rs
	}
	values := []word{w("OMONDI", 300, 100, 24), w("10.10.1983", 300, 150, 24), w("M", 300, 200, 24), w("A1234567", 300, 250, 24)}
	bare := newLayout(&page{w: 1000, h: 640, words: append(append([]word(nil), title...), values...)}, def, "front")
	captioned := newLayout(&page{w: 1000, h: 640, words: append(append(append([]word(nil), title...), values...), w("SURNAME", 100, 104, 12))}, def, "front")
	untitled := newLayout(&page{w: 1000, h: 640, words: values}, def, "front")
	tests := []struct {
		name string
		ly   *layout
		rs   map[string]fieldRead
		want bool
	}{
		{"title and a caption", captioned, read("surname", "sex"), true},
		{"title, no caption, every field read", bare, read("surname", "date_of_birth", "sex", "document_number"), true},
		{"title, no caption, all but one read", bare, read("surname", "date_of_birth", "sex"), true},
		{"title, no caption, half read", bare, read("surname", "sex"), false},
		{"no title, every field read", untitled, read("surname", "date_of_birth", "sex", "document_number"), false},
	}
	for _, tt := range tests {
		if got := tt.ly.titled(tt.rs); got != tt.want {
			t.Errorf("%s: titled = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSplitWord(t *testing.T) {
	got := splitWord(word{box: image.Rect(0, 0, 110, 10), text: "Surname/Nom"})
	if len(got) != 2 || got[0].text != "Surname" || got[1].text != "Nom" || got[0].box.Max.X > got[1].box.Min.X {
		t.Errorf("splitWord = %+v", got)
	}
	got = splitWord(word{box: image.Rect(0, 0, 50, 10), text: "SEX:M"})
	if len(got) != 2 || got[0].text != "SEX:" || got[1].text != "M" {
		t.Errorf("splitWord = %+v", got)
	}
}

func TestInfixDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"URNAMENOM", "SURNAMENOM", 0},
		{"SURAA", "SURNAME", 1},
		{"ABC", "XYZ", 3},
		{"", "ABC", 0},
	} {
		if got := infixDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("infixDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := levenshtein("KITTEN", "SITTING"); got != 3 {
		t.Errorf("levenshtein = %d, want 3", got)
	}
}

// With no caption matched, a run right over a larger line is that line's
// caption (a garbled JINA LA KWANZA over PETRO), not a value; a run with
// digits, or over print of its own size, is not.
func TestOverValue(t *testing.T) {
	pg := &page{w: 1000, h: 640, words: []word{
		w("PALA", 100, 100, 12), w("KURATA", 140, 100, 12), w("PETRO", 100, 118, 24),
		w("KAMAU", 500, 100, 24), w("OTIENO", 500, 128, 24),
		w("12.03.1990", 100, 300, 14), w("12345678", 100, 318, 24),
		w("PARISH", 600, 100, 24), {box: image.Rect(580, 300, 900, 600), text: "moe", conf: 50},
	}}
	ly := newLayout(pg, testDef(nameField), "front")
	for _, tc := range []struct {
		words []int
		want  bool
	}{
		{[]int{0, 1}, true},
		{[]int{2}, false},
		{[]int{3}, false},
		{[]int{5}, false},
		{[]int{7}, false}, // over a barcode read as a word
	} {
		c := ly.makeCandidate(nameField, tc.words, 0)
		if got := ly.overValue(c); got != tc.want {
			t.Errorf("overValue(%q) = %v, want %v", c.text, got, tc.want)
		}
	}
}

// A run cut at a wide letter gap is read again as a line; words a space
// apart are not. A run of two sizes keeps the larger.
func TestTightGapAndLargestPrint(t *testing.T) {
	pg := &page{w: 1000, h: 640, words: []word{
		{box: image.Rect(100, 100, 130, 130), text: "KI", conf: 95}, {box: image.Rect(136, 100, 200, 130), text: "HARA", conf: 95},
		{box: image.Rect(100, 200, 170, 230), text: "KOFI", conf: 95}, {box: image.Rect(185, 200, 270, 230), text: "JOHAN", conf: 95},
		{box: image.Rect(100, 300, 130, 312), text: "PRA", conf: 90}, {box: image.Rect(135, 300, 180, 312), text: "SURNAME", conf: 90},
		{box: image.Rect(200, 292, 330, 322), text: "RAMADHANI", conf: 95},
		{box: image.Rect(100, 400, 130, 424), text: "08", conf: 99}, {box: image.Rect(140, 400, 190, 424), text: "APR", conf: 99},
		{box: image.Rect(200, 400, 260, 424), text: "2025", conf: 99}, {box: image.Rect(300, 300, 600, 600), text: "i", conf: 60},
	}}
	ly := newLayout(pg, testDef(nameField), "front")
	if !ly.tightGap(ly.makeCandidate(nameField, []int{0, 1}, 0)) {
		t.Error("KI HARA, 6 px apart at 30 px, is not a tight gap")
	}
	if ly.tightGap(ly.makeCandidate(nameField, []int{2, 3}, 0)) {
		t.Error("KOFI JOHAN, 15 px apart at 30 px, is a tight gap")
	}
	if got := ly.largestPrint(nameField, ly.makeCandidate(nameField, []int{4, 5, 6}, 0)).text; got != "RAMADHANI" {
		t.Errorf("largestPrint = %q, want RAMADHANI", got)
	}
	if got := ly.largestPrint(dobField, ly.makeCandidate(dobField, []int{7, 8, 9, 10}, 0)).text; got != "08 APR 2025 i" {
		t.Errorf("largestPrint = %q, want the run whole (a barcode read as i is no larger print)", got)
	}
	if got := ly.largestPrint(nameField, ly.makeCandidate(nameField, []int{2, 3}, 0)).text; got != "KOFI JOHAN" {
		t.Errorf("largestPrint = %q, want KOFI JOHAN", got)
	}
	// The rest of the caption the value was found from, at the caption's
	// size on its line, is caption print though no spelling matches it.
	tail := &page{w: 1000, h: 640, words: []word{
		{box: image.Rect(37, 191, 60, 208), text: "Jina", conf: 96}, {box: image.Rect(65, 191, 75, 208), text: "la", conf: 78},
		{box: image.Rect(80, 190, 107, 209), text: "Kati", conf: 65}, {box: image.Rect(114, 190, 156, 209), text: "Middie", conf: 65},
		{box: image.Rect(161, 191, 198, 208), text: "Narne", conf: 83}, {box: image.Rect(209, 193, 325, 224), text: "Mwajuma", conf: 90},
	}}
	ly = newLayout(tail, testDef(nameField), "front")
	c := ly.makeCandidate(nameField, []int{3, 4, 5}, 0)
	c.label = image.Rect(37, 190, 107, 209)
	if got := ly.largestPrint(nameField, c).text; got != "Mwajuma" {
		t.Errorf("largestPrint = %q, want Mwajuma", got)
	}
}

// A line that runs through two fields' print (a date, the next caption
// garbled, a country) gives each field its own words only.
func TestFitsTakesTheValueOnly(t *testing.T) {
	def := builtin(t, "south_africa_id")
	dob, _ := def.Field("date_of_birth")
	country, _ := def.Field("country_of_birth")
	words := []word{w("04", 481, 470, 26), w("DEC", 510, 470, 26), w("1966", 560, 470, 26), w("comycrmen", 690, 478, 18), w("RSA", 858, 470, 26)}
	ly := knownLayout(def, "front", words)
	line := ly.makeCandidate(dob, []int{0, 1, 2, 3, 4}, 0)
	sub, v, ok := ly.fits(dob, line)
	if !ok || v != "04.12.1966" || sub.text != "04 DEC 1966" {
		t.Errorf("date: %q from %q, want 04.12.1966 from its own words", v, sub.text)
	}
	line.how = "region"
	sub, v, ok = ly.fits(country, line)
	if !ok || v != "RSA" || sub.text != "RSA" {
		t.Errorf("country: %q from %q, want RSA (not DEC with the digits dropped)", v, sub.text)
	}
	// A run gone on into the next column's date: the digits end the
	// value, not dropped from it (GOVERNMENT OF KENYA MAY).
	kp := builtin(t, "ke_passport")
	auth, _ := kp.Field("authority")
	ly = knownLayout(kp, "front", []word{w("Government", 500, 560, 30), w("Of", 690, 560, 30), w("Kenya", 730, 560, 30),
		w("22", 830, 560, 30), w("MAY", 875, 560, 30), w("2024", 940, 560, 30)})
	sub, v, ok = ly.fits(auth, ly.makeCandidate(auth, []int{0, 1, 2, 3, 4, 5}, 0))
	if !ok || v != "GOVERNMENT OF KENYA" {
		t.Errorf("authority: %q from %q, want GOVERNMENT OF KENYA", v, sub.text)
	}
	// A short value starts at its zone's left edge: nearer it than
	// artwork read as letters in the zone's middle.
	name := nameField
	name.Zone = idv.Zone{X: 0.34, Y: 0.19, W: 0.62, H: 0.065}
	ly = newLayout(&page{words: []word{w("TUMWINE", 351, 132, 26), w("PB", 720, 140, 30)}, w: 1000, h: 640}, testDef(name), "front")
	if a, b := ly.makeCandidate(name, []int{0}, 0), ly.makeCandidate(name, []int{1}, 0); a.score >= b.score {
		t.Errorf("zone prior: TUMWINE %.2f, PB %.2f; want TUMWINE nearer", a.score, b.score)
	}
}

// A mark read as punctuation under a caption is tried after the value
// right of it (it may be a glyph read as punctuation, so it stays a
// candidate).
func TestPunctuationRanksLast(t *testing.T) {
	def := testDef(nameField)
	words := []word{w("SURNAME:", 100, 100, 14), {box: image.Rect(90, 118, 110, 138), text: "%.", conf: 40}, w("BYARUHANGA", 220, 96, 22)}
	ly := newLayout(&page{words: words, w: 1000, h: 640}, def, "front")
	cands := ly.valueCandidates(nameField)
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score < cands[j].score })
	if len(cands) != 2 || cands[0].text != "BYARUHANGA" || cands[1].text != "%." {
		t.Errorf("candidates %+v, want BYARUHANGA then %%.", cands)
	}
}

// A date in spaced-out print is read whole; a word further off on its
// line is not taken into it.
func TestSpacedDate(t *testing.T) {
	def := builtin(t, "generic_passport")
	f, _ := def.Field("date_of_issue")
	cases := []struct {
		name  string
		words []word
		want  string
	}{
		{"parts 1.5 heights apart", []word{w("21", 100, 200, 32), w("FEB", 187, 202, 30), w("2018", 292, 200, 32)}, "21 FEB 2018"},
		{"one run already", []word{w("21.02.2018", 100, 200, 32), w("M", 330, 200, 32)}, "21.02.2018"},
		{"the year in the next column", []word{w("21", 100, 200, 32), w("FEB", 187, 202, 30), w("2018", 400, 200, 32)}, "21"},
	}
	for _, tc := range cases {
		ly := knownLayout(def, "front", tc.words)
		if got := ly.textOf(ly.spacedDate(f, []int{0})); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A garbled caption is taken for the field it spells nearest, by where
// it stands; not when it reads as closely inside another field's longer
// caption: t Name, the rest of First Name, is three edits from LAST NAME
// but whole inside FIRST NAMES.
func TestLooseCaptionPieceOfAnother(t *testing.T) {
	def := builtin(t, "uganda_driving_licence")
	small := printed(9, 12)
	value := printed(19, 22)
	cases := []struct {
		name    string
		caption []word
		want    bool // a loose surname caption
	}{
		{"a caption's end", []word{small(355, 224, "t"), small(371, 222, "Name")}, false},
		{"a caption misread", []word{small(319, 224, "Surnme")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", append([]word{value(459, 222, "CHRISTINE")}, tc.caption...))
			if got := len(ly.hits["surname"]) > 0; got != tc.want {
				t.Errorf("surname caption found: %v, want %v (hits %v)", got, tc.want, ly.hits)
			}
		})
	}
}

// A run of print whose letters or digits the field's set would drop is
// other print (dropped), not the value with a few marks filtered out:
// fits refuses it, and takes the part of the run that is the value when
// there is one.
func TestFitsRefusesOtherPrint(t *testing.T) {
	p := printed(14, 24)
	cases := []struct {
		config, field string
		words         []word
		want          string // "" for refused
	}{
		// The MRZ's first line with its fillers lost is no place.
		{"ke_national_id", "sub_location", []word{p(130, 490, "IDKYA04729407506709048")}, ""},
		// A garbled FORENAMES caption is no sex, nor is a stray digit
		// beside the letter.
		{"ghana_voter_id", "sex", []word{p(321, 410, "FC")}, ""},
		{"ghana_voter_id", "sex", []word{p(321, 410, "F1")}, ""},
		// The value itself, from the run that holds it: the digits of a
		// number after its caption's remains, a name with its apostrophe
		// and a stray full stop, a sex in both languages.
		{"ke_national_id", "serial_number", []word{p(600, 100, "No."), p(660, 100, "271213729")}, "271213729"},
		{"ke_passport", "surname", []word{p(300, 200, "O'NEIL.")}, "O'NEIL"},
		{"ghana_voter_id", "sex", []word{p(321, 410, "M/M")}, "M"},
	}
	for _, tc := range cases {
		t.Run(tc.field+"/"+tc.words[0].text, func(t *testing.T) {
			def := builtin(t, tc.config)
			f, _ := def.Field(tc.field)
			ly := knownLayout(def, f.Zone.Side, tc.words)
			ws := make([]int, len(tc.words))
			for i := range ws {
				ws[i] = i
			}
			_, v, ok := ly.fits(f, ly.makeCandidate(f, ws, 0))
			if tc.want == "" && ok {
				t.Errorf("fits took %q as %s, want it refused", v, tc.field)
			}
			if tc.want != "" && (!ok || v != tc.want) {
				t.Errorf("fits = %q, %v; want %q", v, ok, tc.want)
			}
		})
	}
}
