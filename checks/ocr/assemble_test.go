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
