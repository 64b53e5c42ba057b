package htmlcards

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"

	"github.com/disintegration/imaging"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// FlatGallery tiles each sample's flat front and back side by side, one
// sample a row, captioned, for a person to review the templates.
func FlatGallery(samples []*Sample) *image.RGBA {
	return tile(samples, func(s *Sample) []image.Image {
		out := []image.Image{s.FrontCard}
		if s.BackCard != nil {
			out = append(out, s.BackCard)
		}
		return out
	}, 620)
}

// Gallery tiles the photos (front and back) of each sample.
func Gallery(samples []*Sample) (*image.RGBA, error) {
	var err error
	img := tile(samples, func(s *Sample) []image.Image {
		var out []image.Image
		for _, b := range [][]byte{s.Front, s.Back} {
			if b == nil {
				continue
			}
			im, e := jpeg.Decode(bytes.NewReader(b))
			if e != nil {
				err = e
				continue
			}
			out = append(out, im)
		}
		return out
	}, 560)
	return img, err
}

func tile(samples []*Sample, parts func(*Sample) []image.Image, cellW int) *image.RGBA {
	const pad, caption = 10, 18
	var rows [][]image.Image
	rowH := []int{}
	for _, s := range samples {
		var row []image.Image
		h := 0
		for _, p := range parts(s) {
			sc := imaging.Resize(p, cellW, 0, imaging.Lanczos)
			row = append(row, sc)
			h = max(h, sc.Bounds().Dy())
		}
		rows = append(rows, row)
		rowH = append(rowH, h)
	}
	W := pad + 2*(cellW+pad)
	H := pad
	for _, h := range rowH {
		H += caption + h + pad
	}
	out := image.NewRGBA(image.Rect(0, 0, W, H))
	draw.Draw(out, out.Bounds(), image.NewUniform(color.RGBA{64, 64, 70, 255}), image.Point{}, draw.Src)
	y := pad
	for i, row := range rows {
		t := samples[i].Truth
		label(out, pad, y+13, fmt.Sprintf("#%d %s  style %s  %s", t.Index, t.Config, t.Style, t.Difficulty))
		y += caption
		x := pad
		for _, im := range row {
			draw.Draw(out, im.Bounds().Add(image.Pt(x, y)), im, im.Bounds().Min, draw.Src)
			x += cellW + pad
		}
		y += rowH[i] + pad
	}
	return out
}

func label(img *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.RGBA{240, 240, 240, 255}), Face: basicfont.Face7x13,
		Dot: fixed.P(x, y)}
	d.DrawString(s)
}
