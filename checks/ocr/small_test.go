package ocr

import (
	"context"
	"image"
	"image/draw"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/cardtest"
	"github.com/tambua/tambua/vision"
)

// A value printed at its caption's size that the page reading garbled
// (COATRAMENT OF KENYA at 40) is read again in its box when nothing else
// was found, and kept when tesseract is sure of it.
func TestSmallValueReadAgain(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 1500, 1000))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	face := testFace(t, cardtest.FontBold, 22)
	dr := font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fixed.P(800, 600)}
	dr.DrawString("GOVERNMENT OF KENYA")
	end := dr.Dot.X.Ceil()
	authority := idv.FieldDef{Name: "authority", Label: "AUTHORITY", Value: idv.ValueBelow, Type: idv.FieldText,
		Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-", Pattern: `^[A-Z][A-Z '-]{1,40}$`}
	d := testDef(authority, nameField, sexField, dobField)
	words := []word{
		w("AUTHORITY", 800, 560, 18), w("SURNAME", 100, 100, 18), w("SEX", 100, 200, 18), w("DATE", 100, 300, 18), w("OF", 160, 300, 18), w("BIRTH", 200, 300, 18),
		{box: image.Rect(800, 582, 990, 600), text: "COATRAMENT", conf: 40}, {box: image.Rect(1000, 582, 1040, 600), text: "OF", conf: 60},
		{box: image.Rect(1050, 582, end, 600), text: "KENYA", conf: 70},
	}
	ly := newLayout(&page{words: words, w: 1500, h: 1000}, d, "front")
	k := New(WithWorkers(1))
	r, err := k.locateField(context.Background(), authority, &vision.Card{Image: img}, ly)
	if err != nil {
		t.Fatal(err)
	}
	if !r.valid || r.value != "GOVERNMENT OF KENYA" {
		t.Errorf("authority = %q valid %v (%s), want GOVERNMENT OF KENYA", r.value, r.valid, r.raw)
	}
}
