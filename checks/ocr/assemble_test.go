package ocr

import (
	"image"
	"testing"

	"github.com/otiai10/gosseract/v2"
)

// mono lays out words at a constant pitch, a word space adding one pitch;
// tight sets letters a constant gap apart, words a wider gap. Arguments
// after the height and spacing are a word followed by its letters'
// widths, "" between words.
func mono(h, pitch int, spec ...any) []gosseract.BoundingBox {
	var out []gosseract.BoundingBox
	c := pitch / 2
	word, i := "", 0
	for _, v := range spec {
		switch v := v.(type) {
		case string:
			if v == "" {
				c += pitch
			}
			word, i = v, 0
		case int:
			out = append(out, gosseract.BoundingBox{Box: image.Rect(c-v/2, 0, c-v/2+v, h), Word: word[i : i+1], Confidence: 90})
			c += pitch
			i++
		}
	}
	return out
}

func tight(h, gap, wordGap int, spec ...any) []gosseract.BoundingBox {
	var out []gosseract.BoundingBox
	x := 0
	word, i := "", 0
	for _, v := range spec {
		switch v := v.(type) {
		case string:
			if v == "" {
				x += wordGap - gap
			}
			word, i = v, 0
		case int:
			out = append(out, gosseract.BoundingBox{Box: image.Rect(x, 0, x+v, h), Word: word[i : i+1], Confidence: 90})
			x += v + gap
			i++
		}
	}
	return out
}

func TestAssemble(t *testing.T) {
	box := func(x0, y0, x1, y1 int, s string) gosseract.BoundingBox {
		return gosseract.BoundingBox{Box: image.Rect(x0, y0, x1, y1), Word: s, Confidence: 90}
	}
	cases := []struct {
		name   string
		boxes  []gosseract.BoundingBox
		single bool
		want   string
	}{
		{"empty", nil, true, ""},
		{"tight letters make one word", []gosseract.BoundingBox{box(0, 0, 20, 30, "M"), box(24, 0, 40, 30, "U"), box(44, 0, 60, 30, "T")}, true, "MUT"},
		{"a wide gap is a space", []gosseract.BoundingBox{box(0, 0, 20, 30, "A"), box(40, 0, 60, 30, "E"), box(62, 0, 80, 30, "B")}, true, "A EB"},
		{"letter-spaced print keeps narrow letters in the word", []gosseract.BoundingBox{box(0, 0, 20, 30, "L"), box(34, 0, 38, 30, "I"),
			box(52, 0, 72, 30, "N"), box(82, 0, 102, 30, "D"), box(112, 0, 132, 30, "Q")}, true, "LINDQ"},
		{"letter-spaced words", []gosseract.BoundingBox{box(0, 0, 20, 30, "E"), box(30, 0, 50, 30, "V"), box(60, 0, 80, 30, "A"),
			box(110, 0, 130, 30, "J"), box(140, 0, 160, 30, "O")}, true, "EVA JO"},
		{"two letters a space apart", []gosseract.BoundingBox{box(0, 0, 20, 30, "A"), box(36, 0, 56, 30, "B")}, true, "A B"},
		{"a symbol below starts a line", []gosseract.BoundingBox{box(0, 0, 20, 30, "P"), box(22, 0, 40, 30, "<"), box(0, 40, 20, 70, "0")}, false, "P<\n0"},
		{"a single-line read has one line", []gosseract.BoundingBox{box(100, 0, 270, 30, "E"), box(60, 0, 80, 30, "G"), box(82, 0, 100, 30, "A")}, true, "EGA"},
		{"a condensed name keeps its space", []gosseract.BoundingBox{box(0, 0, 28, 32, "S"), box(34, 0, 60, 32, "E"), box(65, 0, 88, 32, "L"),
			box(104, 0, 130, 32, "L"), box(135, 0, 160, 32, "O"), box(166, 0, 190, 32, "M")}, true, "SEL LOM"},
		{"a narrow letter in letter-spaced print", []gosseract.BoundingBox{box(0, 0, 17, 33, "J"), box(34, 0, 56, 33, "U"), box(68, 0, 91, 33, "M"),
			box(103, 0, 125, 33, "A")}, true, "JUMA"},
		{"a narrow pair in letter-spaced print", mono(33, 35, "KENJI", 23, 21, 23, 12, 10, "", "EM", 23, 25), true, "KENJI EM"},
		{"narrow letters either side of a space in tight print", tight(33, 6, 16, "ALI", 30, 24, 8, "", "IBRA", 8, 28, 29, 30), true, "ALI IBRA"},
		// Tesseract's boxes of a soft I overlap its neighbours.
		{"overlapping boxes are not letter spacing", []gosseract.BoundingBox{box(0, 17, 35, 50, "M"), box(40, 17, 70, 50, "A"), box(59, 17, 91, 52, "S"),
			box(76, 17, 117, 52, "I"), box(123, 17, 152, 50, "N"), box(144, 17, 172, 52, "D"), box(158, 17, 202, 50, "I")}, true, "MASINDI"},
		{"a mark far beyond the value is dropped", []gosseract.BoundingBox{box(0, 17, 14, 45, "U"), box(16, 17, 30, 45, "R"), box(32, 17, 40, 45, "I"),
			box(42, 17, 56, 45, "O"), box(170, 30, 180, 35, "-"), box(290, 17, 306, 45, "Z")}, true, "URIO"},
		{"blank symbols are dropped", []gosseract.BoundingBox{box(0, 0, 20, 30, " "), box(22, 0, 40, 30, "K")}, true, "K"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := assemble(tc.boxes, tc.single).Text; got != tc.want {
				t.Fatalf("assemble = %q, want %q", got, tc.want)
			}
		})
	}
}
