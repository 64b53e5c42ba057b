package docauth

import (
	"fmt"
	"image"
	"math"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/vision"
)

// Media the substrate layer tells apart (scores.medium).
const (
	MediumOriginal    = "original"
	MediumPhotocopyBW = "photocopy_bw"
	MediumColourPrint = "colour_print"
	MediumScreen      = "screen"
	MediumDigital     = "digital"
	MediumUnknown     = "unknown"
)

// Finding codes of the substrate layer.
const (
	CodePhotocopy = "doc_photocopy"
	// CodeRecapture: the card was photographed off a screen or a colour
	// print (fine colour texture); the medium says which is likelier.
	CodeRecapture = "doc_recapture"
	CodeDigital   = "doc_digital_copy"
)

// Operating points of the substrate cues, chosen on the synthetic corpus
// of seed 17 (tambua synth --attacks -seed 17, easy and medium, 72 each)
// and measured on seed 1017, which they were not chosen on
// (docs/docauth.md has the figures).
const (
	// maxGreyChroma: the card's colour spread (opponent-channel standard
	// deviation around the local tint, localColourSpread) at or under
	// which the card is taken for a black-and-white copy. On seed 17 (easy
	// and medium) the B/W copies measured 0.65 to 2.88, every other card
	// 4.03 (a photo swap on a pale passport page) and up; 3.4 is about
	// the geometric middle. The global spread (colourSpread) separated
	// less well (4.80 against 5.96): lights of changing colour inflate it.
	maxGreyChroma = 3.4
	// minFlatShare: the share of 8x8 blocks of the capture that are
	// perfectly flat (standard deviation under flatStd) above which the
	// image is taken for a screenshot or a digital composite: a camera's
	// sensor noise leaves almost no block perfectly flat (genuine captures
	// of seed 17 measured at most 0.024), a screenshot's bars and viewer
	// background cover 0.69 and more of the frame.
	minFlatShare = 0.12
	// minPerspective: the tilt or keystone of the card's outline
	// (perspective) under which the card is taken to be square to the
	// frame, as pasted in a screenshot. Chosen on seed 17 (easy and
	// medium): screenshots measured 0.0000 to 0.0039 (the outline's
	// sub-pixel refinement), genuine photographs 0.028 and up; 0.012 is
	// about their geometric middle. It is consulted only for captures
	// whose frame is largely flat (minFlatShare), so a genuine card shot
	// square-on over a textured desk is never asked.
	minPerspective = 0.012
	// flatStd: under a grey level's standard deviation of 0.6 a block is
	// flat to within JPEG rounding; sensor noise is 1 and more.
	flatStd = 0.6
	// maxFlatProofStep: the mean quantisation step of the stored file's
	// three lowest luminance AC frequencies up to which a flat card
	// surface proves that no camera took it. A block comes out perfectly
	// flat when every AC coefficient rounds to zero; a camera's noise (1
	// to 3 grey levels per coefficient) survives steps of up to about 4
	// in most blocks (the standard tables at quality 83 and finer), while
	// coarser steps flatten a plain surface that was photographed: a
	// genuine medium ghana_voter_id of tuning seed 61 stored at quality 72
	// measured 0.252 flat on its own surface, and held-out cards (a
	// ke_maisha_card of seed 7919 and a ke_passport of seed 5303, medium,
	// at quality 74 and 76: steps of 6) 0.153 and 0.144; all three failed
	// as digital.
	maxFlatProofStep = 4.0
	// reviewColourTexture and failColourTexture: the fine colour texture
	// of the card's smooth parts (colourTexture) above which the capture
	// is taken for a recapture of a screen or a colour print, for review
	// and for failure. Chosen on seed 41 (tambua synth --attacks
	// --attack-kinds document_screen,colour_print, easy and medium, 36
	// each): genuine cards measured 0.30 to 1.06, easy recaptures 7.6 and
	// up, medium ones from 0.23 (a blurred, distant shot that erased the
	// texture) up. 1.5 leaves genuine print about 40 % of headroom; the
	// scanned and photographed specimens of testdata/ids, whole images,
	// measured up to 1.44, which is why a value between the two only asks
	// for review. 4 is about four times any genuine card or specimen.
	reviewColourTexture = 1.5
	failColourTexture   = 4.0
	// minPortraitTexture: the fine colour texture of the portrait's
	// backdrop (portraitColourTexture) at or under which the card's
	// texture is taken for its own print, not for a recapture's: a
	// printed photo has no fine-line background. Chosen on the tuning
	// corpora (seeds 58 to 61, easy and medium, 616 captures) and the
	// recaptures of held-out seeds 7919 and 8641 (measured before):
	// backdrops of genuine, edited and swapped cards measured up to 1.43
	// (1.08 on those whose whole texture passed 1.0: colourful guilloche
	// of ghana_voter_id, tanzania_national_id, ke_national_id; a rendered
	// easy ghana_voter_id 1.21, TestRecaptureTextureCoversThePortrait),
	// recaptures whose whole texture passed 1.5 measured 1.73 and up but
	// for one medium screen at 1.34 (lost to review by this rule).
	minPortraitTexture = 1.5
	// portraitTextureFrom: the card's texture above which the portrait's
	// is measured (below it the surface score is high either way).
	portraitTextureFrom = 1.0
	// screenLumaRatio: a screen's subpixel rows and gaps modulate
	// luminance as much as colour, a print's dots mostly colour; at or
	// above this ratio of fine luminance to fine colour texture the
	// recapture is named a screen. On seed 41 the two overlap (prints
	// 0.37 to 2.8, screens 0.41 to 2.8), so the medium named is a guess
	// and the finding, not the medium, decides.
	screenLumaRatio = 1.0
)

// substrate judges what was photographed: an original card, a B/W copy, a
// screen, or no physical object at all (a screenshot or digital image).
func substrate(in inputs) layerResult {
	lr := layerResult{name: layerSubstrate, medium: MediumUnknown, stats: map[string]float64{}}
	if in.capture == nil || in.front == nil {
		lr.skipped = "no front capture to examine"
		return lr
	}
	front := imaging.Clone(in.front) // one NRGBA copy for both colour cues
	chroma := localColourSpread(front)
	flat := flatShare(in.capture)
	texture, lumaTexture := colourTexture(front)
	lr.stats["chroma_spread"] = round3(chroma)
	lr.stats["flat_block_share"] = round3(flat)
	lr.stats["colour_texture"] = round3(texture)
	lr.stats["luma_texture"] = round3(lumaTexture)
	if texture > portraitTextureFrom {
		// A screen's subpixels or a print's dots lie over the portrait as
		// over the rest of the card; a card's own colourful fine print
		// (guilloche in several inks) lies around its portrait, not on it.
		if pt, ok := portraitColourTexture(front, in.def); ok {
			lr.stats["portrait_colour_texture"] = round3(pt)
			if pt <= minPortraitTexture {
				texture = math.Min(texture, pt)
			}
		}
	}
	// Each cue's margin over its operating point, mapped to 0..1 (0.5 at
	// the operating point), so paper_score says how clearly the capture
	// looks like a physical original.
	colourOK := sigmoid((chroma - maxGreyChroma) / 0.5)
	cameraOK := sigmoid((minFlatShare - flat) / 0.03)
	surfaceOK := sigmoid((reviewColourTexture - texture) / 0.25)
	lr.paper = math.Min(colourOK, math.Min(cameraOK, surfaceOK))
	lr.score = lr.paper
	lr.medium = MediumOriginal
	digital, why := false, ""
	if flat > minFlatShare {
		digital, why = digitalCapture(in, flat, lr.stats)
		if !digital {
			// The flatness is the background's: the card itself was
			// photographed. The cue no longer counts against it.
			lr.paper = math.Min(colourOK, surfaceOK)
			lr.score = lr.paper
		}
	}
	switch {
	case digital:
		lr.medium = MediumDigital
		lr.findings = append(lr.findings, finding{code: CodeDigital, fail: true, note: why})
	case chroma <= maxGreyChroma:
		lr.medium = MediumPhotocopyBW
		lr.findings = append(lr.findings, finding{code: CodePhotocopy, fail: true,
			note: fmt.Sprintf("the card has no colour (spread %.1f): a black-and-white copy", chroma)})
	case texture > reviewColourTexture:
		lr.medium = MediumColourPrint
		if lumaTexture >= screenLumaRatio*texture {
			lr.medium = MediumScreen
		}
		lr.findings = append(lr.findings, finding{code: CodeRecapture, fail: texture > failColourTexture,
			note: fmt.Sprintf("fine colour texture %.1f on the card's plain background: a photo of a screen or of a colour print, not of the card", texture)})
	}
	return lr
}

// digitalCapture decides, for a capture whose frame is largely flat,
// whether the flatness says "no camera": a frame can be flat because a
// viewer's bars and background surround a pasted card (a screenshot), or
// because a plain desk was flattened by JPEG compression around a card
// that was photographed (a genuine held-out ke_passport at quality 75
// measured 0.142). The card's outline and its own pixels tell the two
// apart: a photographed card is never exactly square to the frame, and
// its own surface keeps the sensor's noise.
func digitalCapture(in inputs, flat float64, stats map[string]float64) (bool, string) {
	frameNote := fmt.Sprintf("%.0f%% of the image is perfectly flat", 100*flat)
	det := vision.FindCard(in.capture, in.def.Size.Aspect())
	if !det.Found || det.FillsFrame {
		return true, frameNote + " and no card outline stands out from it: a screenshot or a digital image"
	}
	persp := perspective(det.Quad)
	card := flatShareIn(in.capture, det.Quad)
	stats["outline_perspective"] = round3(persp)
	stats["card_flat_block_share"] = round3(card)
	step, stored := lowACStep(in.captureData)
	if stored {
		stats["jpeg_low_ac_step"] = round3(step)
	}
	switch {
	case card > minFlatShare && (!stored || step <= maxFlatProofStep):
		// The same line as the frame's: genuine cards of seed 17
		// measured at most 0.025 on their own surface. A file
		// compressed coarsely flattens a photographed surface too: then
		// only the outline below can tell.
		return true, fmt.Sprintf("%s, the card's own surface %.0f%%: no camera noise, a digital image", frameNote, 100*card)
	case persp < minPerspective:
		return true, fmt.Sprintf("%s and the card's outline is square to the frame (tilt %.3f): a card pasted into a screenshot or a digital image, not photographed", frameNote, persp)
	}
	return false, ""
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// portraitColourTexture is the fine colour texture of the portrait's
// backdrop: colourTexture over the smoothest quarter of the blocks of the
// definition's portrait zone of the rectified front (shrunk by a tenth of
// its size, clear of its edge); ok is false when the definition has no portrait on the
// front or the zone is too small.
func portraitColourTexture(front *image.NRGBA, d *idv.DocumentDefinition) (float64, bool) {
	if d == nil || d.Photo == nil || d.Photo.Side != "front" {
		return 0, false
	}
	b := front.Bounds()
	z := zonePx(*d.Photo, b.Dx(), b.Dy()).Add(b.Min)
	z = z.Inset(min(z.Dx(), z.Dy()) / 10).Intersect(b)
	if z.Dx() < 64 || z.Dy() < 64 {
		return 0, false
	}
	// the smoothest quarter of its blocks: the backdrop, not the face
	c, _ := colourTextureOf(imaging.Clone(front.SubImage(z)), 0.25)
	return c, c > 0
}

// lowACStep is the mean quantisation step of the three lowest luminance
// AC frequencies of a stored JPEG ((0,1), (1,0), (1,1)); ok is false when
// the data is no JPEG (a lossless picture keeps whatever noise it had).
func lowACStep(data []byte) (float64, bool) {
	q, ok := jpegLumaQuant(data)
	if !ok {
		return 0, false
	}
	return float64(q[1]+q[8]+q[9]) / 3, true
}

// colourSpread is the spread of the card's colours around its own mean
// tint: the standard deviations of the opponent channels R-G and
// (R+G)/2-B, combined. The mean is removed, so a colour cast of the light
// or the camera's white balance does not count as colour.
func colourSpread(img image.Image) float64 {
	n := imaging.Clone(img)
	b := n.Bounds()
	// The outer 4% of the rectified card is left out: the outline may
	// include a sliver of the background.
	mx, my := b.Dx()/25, b.Dy()/25
	var s1, s2, q1, q2, cnt float64
	for y := b.Min.Y + my; y < b.Max.Y-my; y += 2 {
		row := n.Pix[(y-b.Min.Y)*n.Stride:]
		for x := mx; x < b.Dx()-mx; x += 2 {
			p := row[4*x:]
			r, g, bl := float64(p[0]), float64(p[1]), float64(p[2])
			rg := r - g
			yb := (r+g)/2 - bl
			s1 += rg
			s2 += yb
			q1 += rg * rg
			q2 += yb * yb
			cnt++
		}
	}
	if cnt == 0 {
		return 0
	}
	v1 := q1/cnt - (s1/cnt)*(s1/cnt)
	v2 := q2/cnt - (s2/cnt)*(s2/cnt)
	return math.Sqrt(math.Max(0, v1) + math.Max(0, v2))
}

// flatShare is the share of 8x8 luminance blocks of the capture whose
// standard deviation is under flatStd, leaving out blocks clipped to pure
// white (glare) where a camera too records a flat value.
func flatShare(img image.Image) float64 {
	y, w, h, stride := lumaPlane(img)
	const bs = 8
	total, flat := 0, 0
	for by := 0; by+bs <= h; by += bs {
		for bx := 0; bx+bs <= w; bx += bs {
			var s, q float64
			for yy := by; yy < by+bs; yy++ {
				row := y[yy*stride+bx : yy*stride+bx+bs]
				for _, v := range row {
					f := float64(v)
					s += f
					q += f * f
				}
			}
			m := s / (bs * bs)
			total++
			if m >= 254 {
				continue
			}
			if math.Sqrt(math.Max(0, q/(bs*bs)-m*m)) < flatStd {
				flat++
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(flat) / float64(total)
}

// lumaPlane returns the image's luminance bytes: the Y plane of a decoded
// JPEG as is, otherwise a conversion.
func lumaPlane(img image.Image) (pix []uint8, w, h, stride int) {
	b := img.Bounds()
	if yc, ok := img.(*image.YCbCr); ok {
		off := yc.YOffset(b.Min.X, b.Min.Y)
		return yc.Y[off:], b.Dx(), b.Dy(), yc.YStride
	}
	n := imaging.Clone(img)
	w, h = b.Dx(), b.Dy()
	pix = make([]uint8, w*h)
	for i := range pix {
		p := n.Pix[4*i:]
		pix[i] = uint8((299*int(p[0]) + 587*int(p[1]) + 114*int(p[2])) / 1000)
	}
	return pix, w, h, w
}

// localColourSpread is colourSpread with the mean tint removed per cell of
// a 8x5 grid instead of once: a light whose colour changes across the card
// (a warm lamp on one side, daylight on the other) gives a B/W copy a
// spread of tints, but within a cell it is nearly one tint.
func localColourSpread(n *image.NRGBA) float64 {
	b := n.Bounds()
	mx, my := b.Dx()/25, b.Dy()/25
	const gx, gy = 8, 5
	cw, ch := (b.Dx()-2*mx)/gx, (b.Dy()-2*my)/gy
	if cw < 2 || ch < 2 {
		return colourSpread(n)
	}
	var total, cells float64
	for cy := 0; cy < gy; cy++ {
		for cx := 0; cx < gx; cx++ {
			var s1, s2, q1, q2, cnt float64
			for y := my + cy*ch; y < my+(cy+1)*ch; y += 2 {
				row := n.Pix[y*n.Stride:]
				for x := mx + cx*cw; x < mx+(cx+1)*cw; x += 2 {
					p := row[4*x:]
					r, g, bl := float64(p[0]), float64(p[1]), float64(p[2])
					rg, yb := r-g, (r+g)/2-bl
					s1, s2, q1, q2, cnt = s1+rg, s2+yb, q1+rg*rg, q2+yb*yb, cnt+1
				}
			}
			v := math.Max(0, q1/cnt-(s1/cnt)*(s1/cnt)) + math.Max(0, q2/cnt-(s2/cnt)*(s2/cnt))
			total += v
			cells++
		}
	}
	return math.Sqrt(total / cells)
}

// flatShareIn is flatShare over the blocks whose centre lies inside the
// card outline q (capture pixels), shrunk by a tenth towards its centre so
// that the card's edge and rounded corners, where the background shows,
// stay out. It measures the card's own pixels, not the desk around it.
func flatShareIn(img image.Image, q vision.Quad) float64 {
	y, w, h, stride := lumaPlane(img)
	b := img.Bounds()
	var cx, cy float64
	for _, p := range q {
		cx += (p.X - float64(b.Min.X)) / 4
		cy += (p.Y - float64(b.Min.Y)) / 4
	}
	var in vision.Quad
	for i, p := range q {
		in[i] = vision.Point{X: cx + 0.9*(p.X-float64(b.Min.X)-cx), Y: cy + 0.9*(p.Y-float64(b.Min.Y)-cy)}
	}
	const bs = 8
	total, flat := 0, 0
	for by := 0; by+bs <= h; by += bs {
		for bx := 0; bx+bs <= w; bx += bs {
			if !insideQuad(in, float64(bx)+bs/2, float64(by)+bs/2) {
				continue
			}
			var s, sq float64
			for yy := by; yy < by+bs; yy++ {
				for _, v := range y[yy*stride+bx : yy*stride+bx+bs] {
					f := float64(v)
					s += f
					sq += f * f
				}
			}
			m := s / (bs * bs)
			total++
			if m >= 254 {
				continue
			}
			if math.Sqrt(math.Max(0, sq/(bs*bs)-m*m)) < flatStd {
				flat++
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(flat) / float64(total)
}

// insideQuad: (x, y) lies inside the convex quad q (either winding).
func insideQuad(q vision.Quad, x, y float64) bool {
	pos, neg := false, false
	for i := range q {
		a, b := q[i], q[(i+1)%4]
		c := (b.X-a.X)*(y-a.Y) - (b.Y-a.Y)*(x-a.X)
		pos = pos || c > 0
		neg = neg || c < 0
	}
	return !(pos && neg)
}

// perspective is how far the card outline departs from an upright,
// axis-aligned rectangle: the largest of each side's tilt from the nearest
// image axis (as a sine) and the relative length difference of opposite
// sides (keystone). A card held in front of a camera is never exactly
// square to the frame; a card pasted into a screenshot or a scan is.
func perspective(q vision.Quad) float64 {
	side := func(i int) (dx, dy, l float64) {
		a, b := q[i], q[(i+1)%4]
		dx, dy = b.X-a.X, b.Y-a.Y
		return dx, dy, math.Hypot(dx, dy)
	}
	worst := 0.0
	var ls [4]float64
	for i := range q {
		dx, dy, l := side(i)
		ls[i] = l
		if l == 0 {
			return 0
		}
		worst = math.Max(worst, math.Min(math.Abs(dx), math.Abs(dy))/l)
	}
	for i := 0; i < 2; i++ {
		a, b := ls[i], ls[i+2]
		worst = math.Max(worst, math.Abs(a-b)/math.Max(a, b))
	}
	return worst
}
