package vision

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/idv"
)

// PixelsPerMM is the canonical resolution of a rectified card: 12 px/mm
// (about 300 dpi), so an ID-1 card is 1027 x 648 and a passport data page
// 1500 x 1056. Zone coordinates of the definitions are fractions of it.
const PixelsPerMM = 12.0

// ErrCardNotFound is returned by Rectify when no card outline was found in
// the photo (the check reports card_not_found).
var ErrCardNotFound = errors.New("vision: card not found")

// Card is a rectified side of a document.
type Card struct {
	// Image is the card, upright, at the canonical resolution.
	Image *image.NRGBA
	// Detection is where the card was found in the capture.
	Detection Detection
	// Rotation (0 or 180) is how far the warped card was turned to bring
	// it upright; UprightMargin is the layout evidence for that choice
	// (0 means the two orientations looked alike).
	Rotation      int
	UprightMargin float64
	// SourceWidth is the card's long side in capture pixels.
	SourceWidth float64
	// Clipped is set when a corner of the card lies outside the capture:
	// part of the card is missing.
	Clipped bool
}

// CanonicalSize is the size of a rectified side of def.
func CanonicalSize(def *idv.DocumentDefinition) (int, int) {
	return int(math.Round(def.Size.WidthMM * PixelsPerMM)), int(math.Round(def.Size.HeightMM * PixelsPerMM))
}

// Rectify finds the card in img, warps it to the definition's canonical
// size and turns it upright using the layout of the given side.
func Rectify(img image.Image, def *idv.DocumentDefinition, side string) (*Card, error) {
	if def == nil || def.Size.Aspect() <= 0 {
		return nil, fmt.Errorf("vision: definition without a size")
	}
	det := FindCard(img, def.Size.Aspect())
	if !det.Found {
		return nil, ErrCardNotFound
	}
	w, h := CanonicalSize(def)
	out, ok := warp(img, det.Quad, w, h)
	if !ok {
		return nil, ErrCardNotFound
	}
	c := &Card{Image: out, Detection: det, SourceWidth: (det.Quad.side(0) + det.Quad.side(2)) / 2}
	b := img.Bounds()
	for _, p := range det.Quad {
		if p.X < float64(b.Min.X)-2 || p.Y < float64(b.Min.Y)-2 || p.X > float64(b.Max.X)+2 || p.Y > float64(b.Max.Y)+2 {
			c.Clipped = true
		}
	}
	rot, margin := Upright(out, def, side)
	if rot == 180 {
		c.Image = imaging.Rotate180(out)
	}
	c.Rotation, c.UprightMargin = rot, margin
	return c, nil
}

// RectifyQuad warps the outline q of img (corners top-left, top-right,
// bottom-right, bottom-left of the upright card) to def's canonical size,
// for a caller that placed the card by other evidence than its outline
// (the MRZ, whose print says where the document's foot is and how large
// it is): no outline is searched for and no way up is chosen.
func RectifyQuad(img image.Image, q Quad, def *idv.DocumentDefinition) (*Card, error) {
	if def == nil || def.Size.Aspect() <= 0 {
		return nil, fmt.Errorf("vision: definition without a size")
	}
	w, h := CanonicalSize(def)
	out, ok := warp(img, q, w, h)
	if !ok {
		return nil, ErrCardNotFound
	}
	c := &Card{Image: out, Detection: Detection{Quad: q, Found: true}, SourceWidth: (q.side(0) + q.side(2)) / 2, UprightMargin: 1}
	b := img.Bounds()
	for _, p := range q {
		if p.X < float64(b.Min.X)-2 || p.Y < float64(b.Min.Y)-2 || p.X > float64(b.Max.X)+2 || p.Y > float64(b.Max.Y)+2 {
			c.Clipped = true
		}
	}
	return c, nil
}

// Turn returns the card turned half a turn, for callers whose own evidence
// (OCR confidence) contradicts the layout's.
func (c *Card) Turn() *Card {
	d := *c
	d.Image = imaging.Rotate180(c.Image)
	d.Rotation = (c.Rotation + 180) % 360
	d.UprightMargin = -c.UprightMargin
	return &d
}

// contentZones are where a side of def carries print or the photo: the
// field values with their labels above, the title, the photo, the MRZ and
// the barcode.
func contentZones(def *idv.DocumentDefinition, side string) []idv.Zone {
	var zs []idv.Zone
	for _, f := range def.Fields {
		if f.Zone.Side != side || !f.HasZone() {
			// A field without a zone says nothing of where print is.
			continue
		}
		z := f.Zone
		if f.Fixed != "" {
			// The document's title, printed large at the top: the
			// strongest cue on a card whose photo and fields are laid out
			// almost symmetrically.
			zs = append(zs, z)
			continue
		}
		z.Y -= z.H * 0.9
		z.H *= 1.9
		zs = append(zs, z)
	}
	if def.Photo != nil && def.Photo.Side == side {
		zs = append(zs, *def.Photo)
	}
	if def.MRZ != nil && def.MRZ.Zone.Side == side {
		zs = append(zs, def.MRZ.Zone)
	}
	// A barcode is the densest detail of a side: left out, it reads as
	// print where the layout expects none and turns the card over.
	if def.Barcode != nil && def.Barcode.Zone.Side == side {
		zs = append(zs, def.Barcode.Zone)
	}
	return zs
}

// Upright decides whether the rectified card must be turned half a turn,
// from the layout of the side: print and the photo concentrate where the
// definition puts them (the photo on one side, the MRZ at the foot), so the
// detail map of the card correlates better with the layout one way than
// the other. It returns 0 or 180 and the margin between the two scores.
func Upright(card image.Image, def *idv.DocumentDefinition, side string) (int, float64) {
	zs := contentZones(def, side)
	if len(zs) == 0 {
		return 0, 0
	}
	const gw, gh = 64, 40
	g := resizeGray(card, gw*4, gh*4)
	gx, gy := g.sobel()
	var cell [gh][gw]float64
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			i := y*g.w + x
			cell[y/4][x/4] += math.Abs(float64(gx.p[i])) + math.Abs(float64(gy.p[i]))
		}
	}
	var mask [gh][gw]bool
	for _, z := range zs {
		for y := int(z.Y * gh); y < int(math.Ceil((z.Y+z.H)*gh)) && y < gh; y++ {
			for x := int(z.X * gw); x < int(math.Ceil((z.X+z.W)*gw)) && x < gw; x++ {
				if x >= 0 && y >= 0 {
					mask[y][x] = true
				}
			}
		}
	}
	score := func(flip bool) float64 {
		var in, out float64
		var nin, nout int
		for y := 0; y < gh; y++ {
			for x := 0; x < gw; x++ {
				v := cell[y][x]
				if flip {
					v = cell[gh-1-y][gw-1-x]
				}
				if mask[y][x] {
					in += v
					nin++
				} else {
					out += v
					nout++
				}
			}
		}
		if nin == 0 || nout == 0 {
			return 0
		}
		return in/float64(nin) - out/float64(nout)
	}
	s0, s180 := score(false), score(true)
	norm := math.Abs(s0) + math.Abs(s180)
	if norm == 0 {
		return 0, 0
	}
	if s180 > s0 {
		return 180, (s180 - s0) / norm
	}
	return 0, (s0 - s180) / norm
}

// Crop returns the zone of a rectified card as an image.
func Crop(card image.Image, z idv.Zone) *image.NRGBA {
	b := card.Bounds()
	r := image.Rect(
		b.Min.X+int(math.Floor(z.X*float64(b.Dx()))), b.Min.Y+int(math.Floor(z.Y*float64(b.Dy()))),
		b.Min.X+int(math.Ceil((z.X+z.W)*float64(b.Dx()))), b.Min.Y+int(math.Ceil((z.Y+z.H)*float64(b.Dy()))),
	).Intersect(b)
	if r.Empty() {
		return image.NewNRGBA(image.Rect(0, 0, 1, 1))
	}
	return imaging.Crop(card, r)
}
