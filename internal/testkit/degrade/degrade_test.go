package degrade

import (
	"image"
	"image/color"
	"testing"
)

func TestDegrade(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 40, 20))
	for x := 0; x < 40; x++ {
		img.SetGray(x, 10, color.Gray{Y: 255})
	}
	// A quarter turn moves the bright row into a column through the centre.
	q := Turn(img, 90)
	if r, _, _, _ := q.At(20, 3).RGBA(); r < 0x8000 {
		t.Errorf("after a quarter turn (20,3) is dark")
	}
	if r, _, _, _ := q.At(5, 10).RGBA(); r > 0x8000 {
		t.Errorf("after a quarter turn (5,10) is bright")
	}
	if b := Rescale(img, 0.5).Bounds(); b.Dx() != 20 || b.Dy() != 10 {
		t.Errorf("rescaled bounds %v", b)
	}
	for _, k := range Standard {
		out, err := k.Apply(img)
		if err != nil || out.Bounds().Empty() {
			t.Errorf("%s: %v %v", k.Name, out, err)
		}
	}
}
