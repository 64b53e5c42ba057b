package ocr

import (
	"image"
	"testing"

	"github.com/otiai10/gosseract/v2"
)

func TestAssemble(t *testing.T) {
	box := func(x0, y0, x1, y1 int, s string) gosseract.BoundingBox {
		return gosseract.BoundingBox{Box: image.Rect(x0, y0, x1, y1), Word: s, Confidence: 90}
	}
	cases := []struct {
		name  string
		boxes []gosseract.BoundingBox
		want  string
	}{
		{"empty", nil, ""},
		{"tight letters make one word", []gosseract.BoundingBox{box(0, 0, 20, 30, "M"), box(24, 0, 40, 30, "U"), box(44, 0, 60, 30, "T")}, "MUT"},
		{"a wide gap is a space", []gosseract.BoundingBox{box(0, 0, 20, 30, "A"), box(40, 0, 60, 30, "E"), box(62, 0, 80, 30, "B")}, "A EB"},
		{"letter-spaced print keeps narrow letters in the word", []gosseract.BoundingBox{box(0, 0, 20, 30, "L"), box(34, 0, 38, 30, "I"),
			box(52, 0, 72, 30, "N"), box(82, 0, 102, 30, "D"), box(112, 0, 132, 30, "Q")}, "LINDQ"},
		{"letter-spaced words", []gosseract.BoundingBox{box(0, 0, 20, 30, "E"), box(30, 0, 50, 30, "V"), box(60, 0, 80, 30, "A"),
			box(110, 0, 130, 30, "J"), box(140, 0, 160, 30, "O")}, "EVA JO"},
		{"two letters a space apart", []gosseract.BoundingBox{box(0, 0, 20, 30, "A"), box(36, 0, 56, 30, "B")}, "A B"},
		{"a symbol below starts a line", []gosseract.BoundingBox{box(0, 0, 20, 30, "P"), box(22, 0, 40, 30, "<"), box(0, 40, 20, 70, "0")}, "P<\n0"},
		{"blank symbols are dropped", []gosseract.BoundingBox{box(0, 0, 20, 30, " "), box(22, 0, 40, 30, "K")}, "K"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := assemble(tc.boxes).Text; got != tc.want {
				t.Fatalf("assemble = %q, want %q", got, tc.want)
			}
		})
	}
}
