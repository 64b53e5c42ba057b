package synth

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"

	xdraw "golang.org/x/image/draw"
)

// Gallery tiles samples into one picture for reviewers: one row per
// sample with its front, back and selfie, and a caption naming the
// definition, difficulty and attack.
func Gallery(samples []*Sample) (*image.RGBA, error) { return gallery(samples, false) }

// FlatGallery is Gallery with the flat documents (front and back before
// capture, at a larger scale) instead of the photos, for reviewing
// layouts: every caption and value should be readable and clear of the
// rest. The samples must keep FrontCard and BackCard.
func FlatGallery(samples []*Sample) (*image.RGBA, error) { return gallery(samples, true) }

func gallery(samples []*Sample, flat bool) (*image.RGBA, error) {
	rowH, gap, capH := 300, 12, 34
	if flat {
		rowH = 420
	}
	type row struct {
		imgs    []image.Image
		caption string
	}
	var rows []row
	maxW := 0
	for _, s := range samples {
		var r row
		x := gap
		if flat {
			if s.FrontCard == nil || s.BackCard == nil {
				return nil, fmt.Errorf("synth: flat gallery: sample %d has no flat cards", s.Truth.Index)
			}
			for _, img := range []*image.RGBA{s.FrontCard, s.BackCard} {
				r.imgs = append(r.imgs, img)
				x += img.Bounds().Dx()*rowH/img.Bounds().Dy() + gap
			}
		}
		for _, b := range [][]byte{s.Front, s.Back, s.Selfie} {
			if flat {
				break
			}
			dec, err := jpeg.Decode(bytes.NewReader(b))
			if err != nil {
				return nil, fmt.Errorf("synth: gallery: %w", err)
			}
			var img image.Image = dec
			if o := exifOrientation(b); o != 1 {
				img = display(dec, o).toRGBA()
			}
			r.imgs = append(r.imgs, img)
			x += img.Bounds().Dx()*rowH/img.Bounds().Dy() + gap
		}
		maxW = max(maxW, x)
		attack := "no attack"
		if s.Truth.Attack != nil {
			attack = "attack: " + *s.Truth.Attack
		}
		same := "same person"
		if !s.Truth.SelfieSamePerson {
			same = "impostor selfie"
		}
		r.caption = fmt.Sprintf("#%d  %s  (%s)  %s, %s", s.Truth.Index, s.Truth.Config, s.Truth.Difficulty, attack, same)
		if s.Truth.Layout != nil {
			r.caption += "  variant: " + s.Truth.Layout.Variant
		}
		rows = append(rows, r)
	}
	h := gap + len(rows)*(rowH+capH+gap)
	c := newCanvas(maxW, h)
	c.fillAll(rgb{40, 40, 44})
	fs, err := newFonts()
	if err != nil {
		return nil, err
	}
	y := gap
	for _, r := range rows {
		var p path
		fs.text(&p, textStyle{font: fontSans, size: 20}, r.caption, translate(float64(gap), float64(y)+22))
		c.fill(&p, rgb{230, 230, 230}, 1)
		y += capH
		x := gap
		for _, img := range r.imgs {
			w := img.Bounds().Dx() * rowH / img.Bounds().Dy()
			op := xdraw.Src
			if flat {
				op = xdraw.Over // the cards' corners are transparent
			}
			xdraw.ApproxBiLinear.Scale(c.img, image.Rect(x, y, x+w, y+rowH), img, img.Bounds(), op, nil)
			x += w + gap
		}
		y += rowH + gap
	}
	return c.img, nil
}
