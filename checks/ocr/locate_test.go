package ocr

import (
	"image"
	"testing"

	"github.com/tambua/tambua/idv"
)

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

var (
	dobField  = idv.FieldDef{Name: "date_of_birth", Label: "DATE OF BIRTH", Labels: []string{"Date de naissance"}, Type: idv.FieldDate, Pattern: `^[0-9]{2}\.[0-9]{2}\.[0-9]{4}$`}
	sexField  = idv.FieldDef{Name: "sex", Label: "SEX", Type: idv.FieldSex, Format: "word", Pattern: `^[MF]$`}
	nameField = idv.FieldDef{Name: "surname", Label: "SURNAME", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,30}$`}
	cty       = idv.FieldDef{Name: "county", Label: "COUNTY", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[A-Z]{3,20}$`}
	subCty    = idv.FieldDef{Name: "sub_county", Label: "S.COUNTY", Type: idv.FieldText, Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ", Pattern: `^[A-Z]{3,20}$`}
)

// bestValue is what locateField takes from the page reading alone.
func bestValue(ly *layout, f idv.FieldDef) string {
	cands := ly.valueCandidates(f)
	best, score := "", 1e9
	for _, c := range cands {
		if prose(c.text) {
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
