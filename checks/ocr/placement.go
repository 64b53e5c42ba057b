package ocr

import (
	"context"
	"errors"
	"image"
	"math"
	"time"

	"github.com/tambua/tambua/idv"
	mrzpkg "github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// A document no definition was written for is often captured in ways the
// outline search does not expect: a scan cut at the page's edge with its
// portrait as the sharpest rectangle in it (the Ukrainian specimen), or a
// card's two sides scanned one above the other in one image (the Maltese
// specimen). Its MRZ then says where it is: ICAO 9303 prints the MRZ in
// OCR-B at 2.54 mm a character (ten to the inch), its lines across the
// document's width at its foot, so the band's length gives the scale, its
// middle the document's middle, its lines the way up, and the format the
// document's size. placeByMRZ places the document by that evidence alone.

// mrzPitchMM is the MRZ's character pitch (ICAO 9303 part 3: ten
// characters to the inch).
const mrzPitchMM = 2.54

// mrzPlace is where a capture's MRZ puts its document: the side with the
// MRZ, and for a card whose other side was captured beside it, that side.
type mrzPlace struct {
	mrzSide vision.Quad
	other   *vision.Quad
}

// formatFits: the band is of a generic definition's MRZ format; another
// format (a visa's, a TD2 document's) places no document of d.
func formatFits(d *idv.DocumentDefinition, rd *mrzpkg.Reading) bool {
	return d.Generic() && d.MRZ != nil && rd != nil && rd.Format == d.MRZ.Format
}

// placeByMRZ places d's document in a capture of the given bounds from
// the MRZ band read there (rd). ok is false when the band is not of d's format.
func placeByMRZ(rd *mrzpkg.Reading, d *idv.DocumentDefinition, bounds image.Rectangle) (mrzPlace, bool) {
	if !formatFits(d, rd) || rd.Box.Empty() {
		return mrzPlace{}, false
	}
	_, width, ok := mrzpkg.Shape(rd.Format)
	if !ok {
		return mrzPlace{}, false
	}
	W, H := float64(bounds.Dx()), float64(bounds.Dy())
	// The frame the reader read in: the capture turned clockwise by
	// rd.Rotation, where the MRZ is upright.
	wr, hr := W, H
	if rd.Rotation == 90 || rd.Rotation == 270 {
		wr, hr = H, W
	}
	box := rd.Box
	// The reader's box runs from a pitch before the first character's
	// centre to half a pitch past the last one's right edge: width+1
	// pitches, centred on the line.
	pitch := float64(box.Dx()) / float64(width+1)
	pxmm := pitch / mrzPitchMM
	docW, docH := d.Size.WidthMM*pxmm, d.Size.HeightMM*pxmm
	cx := float64(box.Min.X+box.Max.X) / 2
	// The band's foot is where the definition's MRZ zone ends on the
	// document (2 mm above the edge on both generic definitions).
	z := d.MRZ.Zone
	bottom := float64(box.Max.Y) + (1-(z.Y+z.H))*docH
	rect := [4]float64{cx - docW/2, bottom - docH, cx + docW/2, bottom}
	// A scan cut at the document's edge: an edge of the estimate lying
	// just outside the frame is the frame's. edgeSlack (a twentieth of the
	// document) is about the estimate's error: the band's box is measured
	// to a pixel or two in a 300 px specimen, and margins differ by a few
	// mm between issuers.
	const edgeSlack = 0.05
	snap := func(v, lim, span float64) float64 {
		if math.Abs(v-lim) <= edgeSlack*span {
			return lim
		}
		return v
	}
	rect[0] = snap(rect[0], 0, docW)
	rect[2] = snap(rect[2], wr, docW)
	rect[1] = snap(rect[1], 0, docH)
	rect[3] = snap(rect[3], hr, docH)
	toCapture := func(x, y float64) vision.Point {
		var p vision.Point
		switch rd.Rotation {
		case 90:
			p = vision.Point{X: y, Y: H - x}
		case 180:
			p = vision.Point{X: W - x, Y: H - y}
		case 270:
			p = vision.Point{X: W - y, Y: x}
		default:
			p = vision.Point{X: x, Y: y}
		}
		p.X += float64(bounds.Min.X)
		p.Y += float64(bounds.Min.Y)
		return p
	}
	quad := func(r [4]float64) vision.Quad {
		return vision.Quad{toCapture(r[0], r[1]), toCapture(r[2], r[1]), toCapture(r[2], r[3]), toCapture(r[0], r[3])}
	}
	pl := mrzPlace{mrzSide: quad(rect)}
	if !d.HasSide("back") || d.MRZ.Zone.Side != "back" {
		return pl, true
	}
	// A card's other side captured in the same image, beside the MRZ
	// side: the frame leaves room for most of a card there (three
	// quarters of it: a side cut by the frame still shows its print).
	// Of the four directions, the one with the most room.
	const room = 0.75
	type dir struct {
		space, need float64
		r           [4]float64
	}
	gapY, gapX := func(space float64) float64 { return math.Min(math.Max(0, space-docH), 0.1*docH) },
		func(space float64) float64 { return math.Min(math.Max(0, space-docW), 0.1*docW) }
	// Two sides scanned together lie close: the other is taken next to
	// this one, a gap of at most a tenth of the card between them.
	dirs := []dir{
		{rect[1], docH, [4]float64{rect[0], math.Max(0, rect[1]-gapY(rect[1])-docH), rect[2], rect[1] - gapY(rect[1])}},
		{hr - rect[3], docH, [4]float64{rect[0], rect[3] + gapY(hr-rect[3]), rect[2], math.Min(hr, rect[3]+gapY(hr-rect[3])+docH)}},
		{rect[0], docW, [4]float64{math.Max(0, rect[0]-gapX(rect[0])-docW), rect[1], rect[0] - gapX(rect[0]), rect[3]}},
		{wr - rect[2], docW, [4]float64{rect[2] + gapX(wr-rect[2]), rect[1], math.Min(wr, rect[2]+gapX(wr-rect[2])+docW), rect[3]}},
	}
	best := -1
	for i, dr := range dirs {
		if dr.space >= room*dr.need && (best < 0 || dr.space/dr.need > dirs[best].space/dirs[best].need) {
			best = i
		}
	}
	if best >= 0 {
		q := quad(dirs[best].r)
		pl.other = &q
	}
	return pl, true
}

// printedKeys counts the key fields (surname, given names, document
// number, date of birth) ex presents from the print, not from the MRZ.
func printedKeys(ex *Extraction) int {
	from := map[string]bool{}
	for _, f := range ex.FromMRZ {
		from[f] = true
	}
	n := 0
	for _, f := range ex.Definition.Fields {
		switch f.MRZ {
		case "surname", "given_names", "document_number", "date_of_birth":
			if ex.Fields[f.Name] != "" && !from[f.Name] {
				n++
			}
		}
	}
	return n
}

// sameOutline: the card found by its outline is where the MRZ puts it,
// the same way up: their upright corners lie within a tenth of the
// card's width of each other.
func sameOutline(c *vision.Card, q vision.Quad) bool {
	dq := c.Detection.Quad
	if c.Rotation == 180 {
		dq = vision.Quad{dq[2], dq[3], dq[0], dq[1]}
	}
	w := math.Hypot(q[1].X-q[0].X, q[1].Y-q[0].Y)
	for i := range q {
		if math.Hypot(dq[i].X-q[i].X, dq[i].Y-q[i].Y) > 0.1*w {
			return false
		}
	}
	return true
}

// placedSide is a side already rectified by its MRZ (placeByMRZ), handed
// to extractAs in place of a back capture.
type placedSide struct {
	*image.NRGBA
	card *vision.Card
}

// rectifyBack rectifies a back capture, or returns the card a placedSide
// carries.
func rectifyBack(img image.Image, d *idv.DocumentDefinition) (*vision.Card, error) {
	if p, ok := img.(placedSide); ok {
		return p.card, nil
	}
	return vision.Rectify(img, d, "back")
}

// byMRZ reads front again with the generic candidates placed by the MRZ
// the capture shows, when best, a generic reading, read no key field
// from the print and did not find that MRZ on its side (its outline or
// its way up is then wrong), or the capture holds both sides of a card. The reading that presents more key
// fields from the print is kept, unless it ranks clearly lower (it
// matched its definition worse). Only a generic definition's reading is
// retried: an issuer's definition is tuned on its captures as they are.
func (k *Check) byMRZ(ctx context.Context, front image.Image, back image.Image, cands []*idv.DocumentDefinition, best *Extraction, mrz *idv.MRZData, now time.Time) (*Extraction, error) {
	// A reading that found no MRZ of its own is retried too, whatever it
	// read: the MRZ is printed in the definition's zone on every document
	// of its format, so an outline that shows none there is not the
	// document's (the Latvian page, photographed with the booklet's next
	// page under it: the zones slid down a line, the given name read as
	// the surname).
	if best == nil || !best.Definition.Generic() || printedKeys(best) > 0 && best.MRZ != nil {
		return best, nil
	}
	lost := best.MRZ == nil
	rd, err := k.mrz.Read(ctx, front)
	if errors.Is(err, mrzpkg.ErrNotFound) {
		return best, nil
	}
	if err != nil {
		return nil, err
	}
	for _, d := range cands {
		pl, ok := placeByMRZ(rd, d, front.Bounds())
		if !ok {
			continue
		}
		var frontCard, backCard *vision.Card
		mrzCard, err := vision.RectifyQuad(front, pl.mrzSide, d)
		if err != nil {
			continue
		}
		backImg := back
		if pl.other != nil && back == nil {
			// Whether the room beside holds the card's other side is
			// left to its reading: a side with no print there reads no
			// field, and the reading is not kept.
			if oc, err := vision.RectifyQuad(front, *pl.other, d); err == nil {
				frontCard, backCard = oc, mrzCard
			}
		}
		if frontCard == nil {
			frontCard = mrzCard
			if best.Definition == d && best.mrzMatch {
				// The side found by its outline showed this MRZ in the
				// definition's zone, read the right way up: the outline
				// holds the document, and whatever its print missed
				// another outline will not read better (the Polish
				// page, placed again, read caption fragments as its
				// names).
				continue
			}
			if c := best.Cards["front"]; c != nil && best.Definition == d && sameOutline(c, pl.mrzSide) {
				// The outline found is the MRZ's: nothing to read again.
				continue
			}
		}
		if backCard != nil {
			backImg = placedSide{NRGBA: backCard.Image, card: backCard}
		}
		ex, err := k.extractAs(ctx, d, frontCard, backImg, mrz, now)
		if err != nil {
			return nil, err
		}
		// The top band's keywords were scored on the first reading's
		// outline; they count alike for both.
		ex.keywords = best.keywords
		// rank differs by 0.5 between readings with and without an MRZ
		// of their definition; a tenth is within what the confidence and
		// the outline's fit move it.
		switch {
		case printedKeys(ex) > printedKeys(best) && ex.rank() >= best.rank()-0.1:
			best = ex
		case lost && ex.mrzMatch && printedKeys(ex) > 0:
			// Placed by its MRZ, the side now shows that MRZ in its
			// zone: the outline is the document's, and what the first
			// reading took from the wrong zones is not kept, however
			// many fields it filled (the Latvian page's first reading
			// gave three key fields, two of them other lines' print).
			best = ex
		}
	}
	return best, nil
}
