package ocr

import (
	"image"
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
		{name: "a sex guessed from a word", words: []word{w(217, 465, "28-06-1954"), w(508, 465, "of")},
			want: map[string]string{"sex": ""}},
		{name: "a lone letter", words: []word{w(217, 465, "28-06-1954"), w(508, 465, "F")},
			want: map[string]string{"sex": ""}},
		{name: "a number read with letters for digits", words: []word{w(217, 590, "1954O628-4O7O3-14427-46")},
			want: map[string]string{"nin": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			rs := map[string]fieldRead{}
			datesByOrder(def, "front", ly, rs)
			byPattern(def, "front", ly, rs)
			byStack(def, "front", ly, rs)
			for f, want := range tc.want {
				if got := rs[f].value; got != want {
					t.Errorf("%s = %q (%s), want %q", f, got, rs[f].how, want)
				}
			}
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
		words []word
		want  bool
	}{
		{name: "an authority in small capitals", words: []word{small(760, 560, "PASSPORT"), small(840, 560, "OFFICE")}},
		{name: "caption print read as guesses", words: []word{guessed(760, 560, "DATI"), small(800, 560, "BR")}, want: true},
		{name: "print as large as a value", words: []word{printed(14, 30)(760, 560, "UTO")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ly := knownLayout(def, "front", tc.words)
			ly.captionH = 20
			var all []int
			for i := range tc.words {
				all = append(all, i)
			}
			c := ly.makeCandidate(def.Fields[0], all, 0)
			if got := ly.captionSized(c); got != tc.want {
				t.Errorf("captionSized(%q) = %v, want %v", c.text, got, tc.want)
			}
		})
	}
}
