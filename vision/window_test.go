package vision

import (
	"image"
	"image/color"
	"testing"

	"github.com/disintegration/imaging"
)

// TestPlanesOf: a part converted on its own has exactly the values of the
// same part of the whole image converted by imaging, for a JPEG's YCbCr
// (odd offsets, so the chroma subsampling is crossed) and for NRGBA.
func TestPlanesOf(t *testing.T) {
	scene, _ := drawnScene{card: color.NRGBA{240, 236, 215, 255}, paper: color.NRGBA{90, 60, 40, 255}, angle: 17, shadow: 6}.render(t)
	for name, img := range map[string]image.Image{"ycbcr": jpegOf(t, scene), "nrgba": imaging.Clone(scene)} {
		t.Run(name, func(t *testing.T) {
			if _, ok := img.(*image.YCbCr); name == "ycbcr" && !ok {
				t.Fatalf("decoded %T", img)
			}
			whole := channels(imaging.Clone(img))
			r := image.Rect(301, 97, 777, 460)
			part := planesOf(img, r)
			for c := range part {
				for y := 0; y < r.Dy(); y++ {
					for x := 0; x < r.Dx(); x++ {
						if got, want := part[c].at(x, y), whole[c].at(x+r.Min.X, y+r.Min.Y); got != want {
							t.Fatalf("plane %d at (%d, %d): %v, whole image %v", c, x+r.Min.X, y+r.Min.Y, got, want)
						}
					}
				}
			}
		})
	}
}

// TestFitSideStrip: a side fitted on the strip around it is the side
// fitted on the whole photo's planes, shadow test included.
func TestFitSideStrip(t *testing.T) {
	for _, s := range []drawnScene{
		{card: color.NRGBA{240, 236, 215, 255}, paper: color.NRGBA{240, 240, 240, 255}, frame: color.NRGBA{120, 120, 130, 255}, frameIn: 0.015, angle: 3},
		{card: color.NRGBA{250, 250, 250, 255}, paper: color.NRGBA{150, 120, 90, 255}, angle: 38, shadow: 9},
	} {
		photo, want := s.render(t)
		img := jpegOf(t, photo)
		whole := fullWindow(channels(imaging.Clone(img)))
		var cx, cy float64
		for _, p := range want {
			cx += p.X / 4
			cy += p.Y / 4
		}
		const reach = 14.7
		for i := range want {
			a, b := want[i], want[(i+1)%4]
			// Off the true side, as the coarse outline is, and tilted.
			a.X += 9
			b.Y -= 7
			lw, okw := fitSide(whole, a, b, Point{cx, cy}, reach, reach)
			ls, oks := fitSide(stripWindow(img, a, b, reach+8), a, b, Point{cx, cy}, reach, reach)
			if lw != ls || okw != oks {
				t.Errorf("angle %v side %d: strip %+v %v, whole %+v %v", s.angle, i, ls, oks, lw, okw)
			}
			if !okw {
				t.Errorf("angle %v side %d: not fitted", s.angle, i)
			}
		}
	}
}
