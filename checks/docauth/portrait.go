package docauth

import (
	"context"
	"fmt"
	"image"
	"math"
	"sort"
	"strings"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/vision"
)

// Finding codes of the portrait layer.
const (
	// CodeGhostMismatch: the secondary (ghost) portrait does not show the
	// face of the main portrait.
	CodeGhostMismatch = "doc_portrait_ghost_mismatch"
	// CodePortraitMode: a colour portrait on a document that engraves its
	// portraits in greyscale.
	CodePortraitMode = "doc_portrait_colour_mode"
	// CodePastedEdge: the portrait ends in a straight cut edge turned
	// against the card, as a photo glued over it does.
	CodePastedEdge = "doc_portrait_pasted_edge"
	// CodeOverlayMissing: the hologram the definition lays over the
	// portrait's corner shows over the card but not over the portrait.
	CodeOverlayMissing = "doc_portrait_overlay_missing"
)

// Operating points of the portrait cues, chosen on the tuning corpora
// (tambua synth --attacks --attack-kinds photo_swap, seeds 58 to 62 of the
// base, art, flow, columns, type and spelling families, easy and medium)
// and measured on the held-out family of a seed none of them saw
// (docs/docauth.md has both).
const (
	// ghostMinNCC: under this correlation of the main face's features
	// with the ghost the ghost is taken to show another face. Genuine
	// cards of the tuning corpora measured 0.57 and up (the faintest,
	// smallest ghost: uganda_national_id_new), swaps 0.41 to 0.80.
	ghostMinNCC = 0.55
	// ghostMinShare: under this share of what the ghost's own print
	// allows (ghostMatch.Ceiling: the matched window's detail above the
	// card's detail around the ghost) the ghost is taken to show another
	// face too. A faint ghost over busy print cannot correlate highly
	// even with the holder's face; a clear one over a quiet background
	// does, so a clear ghost that correlates only fairly is another face.
	// Chosen on the tuning corpora (seeds 58 base, 59 columns, 60 base,
	// 61 columns, easy and medium; 218 captures of the five definitions
	// with a ghost): genuine and edited cards measured 0.694 and up (a
	// faint uganda_national_id_new ghost; the next 0.70, 0.73), photo
	// swaps 0.56 to 1.2, 17 of 36 under 0.65 against 10 of 36 under
	// ghostMinNCC alone.
	ghostMinShare = 0.65
	// ghostMaxPrint: the share of the ghost zone that words the reader
	// found may cover before the ghost is not compared at all.
	ghostMaxPrint = 0.05
	// colourMaxChroma: above this colourfulness of the face against the
	// rest of the portrait (faceChroma) a portrait is in colour. Greyscale
	// portraits measured at most 0.078 on the tuning corpora and 0.083 on
	// the real specimens of testdata/ids (a Spanish identity card); colour
	// swaps 0.112 and up, genuine colour portraits 0.22 and up on the
	// tuning corpora, 0.10 to 0.61 on the specimens (a Croatian passport's
	// pale colour photo is the 0.10).
	colourMaxChroma = 0.12
	// Pasted edges: a side's edge counts when its step stands edgeContrast
	// times over the band's median and holds along edgeSupport of its
	// length; sides turned alike (within edgeAgree degrees, see
	// pastedTurn) by edgeMinTurn degrees or more are a cut photo laid on
	// the card. On the tuning corpora genuine portraits' edges turned at
	// most 0.1 degree (the rectification's own error), pastes 0.1 to 2.5
	// degrees as drawn; 57 of 78 pastes stood out at 0.3. Real specimens
	// (testdata/ids, nine passports and cards) show no turn.
	edgeContrast = 3.0
	edgeSupport  = 0.7
	edgeAgree    = 0.3
	edgeMinTurn  = 0.3
	// edgeMinTurnPrint: the edges' turn measured finely (refinedTurn),
	// against the card's outline and against the card's own print (the
	// values' glyph feet, printTurn), at which a photo is taken for laid
	// on the card (printedTurn.pasted). The issuer prints the portrait
	// with the values, so a die-cut or a rectification that turns one
	// turns the other alike; a photo laid by hand is turned on its own.
	// Chosen on the tuning corpora (seeds 58 base, 59 columns, 60 base,
	// 61 columns, easy and medium): genuine and edited cards whose edges
	// form a group and whose print could be measured (222 captures)
	// turned at most 0.149 degree against the outline; pasted photos laid
	// at 0.25 to 0.5 degree measured within 0.06 degree of it, and 11 of
	// the 55 swaps with a group stand over both lines (4 that no other
	// cue caught). The print's own turn strays by up to 1.1
	// degrees on some cards (a two-column layout's boxes), so it only
	// vetoes: a photo laid at the print's turn is not found.
	edgeMinTurnPrint = 0.2
	// Hologram over the portrait: its part off the portrait must show
	// holoMinVisible times the colour texture of the card beyond it (else
	// this photo does not show the hologram's colour: not examined), and
	// its part over the portrait under holoMaxCover of its part off it is
	// a portrait laid over the hologram or put in its place. Tuning
	// captures (seeds 60 base and 61 columns, easy and medium, the ten
	// definitions whose hologram reaches into the portrait): genuine cards
	// 0.83 and up over 120 captures; pastes glued over the laminate and
	// digital swaps 0.04 to 0.27 for 28 of 40, the rest 0.44 and up (a
	// pasted face whose own colour detail stands in for the hologram's);
	// pastes under the laminate keep the hologram over them (0.7 to 1.6).
	// Edited and genuine cards: 0.67 and up over 189 captures.
	holoMinVisible = 1.25
	holoMaxCover   = 0.4
)

// faceFinder finds faces in a picture (facerec.Recognizer does).
type faceFinder interface {
	Detect(ctx context.Context, img image.Image) ([]facerec.Face, error)
}

// portraitLayer looks for a portrait that does not belong on the card:
// a ghost portrait that shows another face, a colour portrait on a
// document that engraves them in grey, a straight cut edge turned
// against the card, a hologram laid over the portrait's corner that shows
// over the card but not over the portrait. What each can and cannot see is in docs/docauth.md.
func portraitLayer(ctx context.Context, in *inputs, faces func() (faceFinder, error)) layerResult {
	lr := layerResult{name: layerPortrait, score: 1}
	d := in.def
	if d.Photo == nil {
		lr.skipped = "the definition has no portrait"
		return lr
	}
	side := in.front
	if d.Photo.Side == "back" {
		side = in.back
	}
	if side == nil {
		lr.skipped = "the side with the portrait was not found"
		return lr
	}
	l := in.luma(d.Photo.Side)
	zr := zonePx(*d.Photo, l.w, l.h)
	stats := map[string]float64{}

	// the edges of the photo, found on the card's own print
	es := sideEdges(l, zr)
	pasted := false
	if turn, sides, ok := pastedTurn(es); ok {
		stats["edge_turn_deg"] = round3(turn)
		if math.Abs(turn) >= edgeMinTurn {
			pasted = true
			lr.score = math.Min(lr.score, 0.3)
			lr.findings = append(lr.findings, finding{code: CodePastedEdge,
				note: fmt.Sprintf("the portrait ends in straight edges (%s) turned %.2f degrees against the card", strings.Join(sides, ", "), turn)})
		}
	}
	// the same edges measured finely, against the card's own print
	if !pasted {
		if m, ok := turnAgainstPrint(l, zr, es, d.Photo.Side, in.readings); ok {
			stats["edge_turn_fine_deg"] = round3(m.edges)
			stats["print_turn_deg"] = round3(m.print)
			if rel := m.edges - m.print; m.pasted() {
				lr.score = math.Min(lr.score, 0.3)
				lr.findings = append(lr.findings, finding{code: CodePastedEdge,
					note: fmt.Sprintf("the portrait ends in straight edges (%s) turned %.2f degrees against the card's print (edges %.2f, print %.2f)", strings.Join(m.sides, ", "), rel, m.edges, m.print)})
			}
		}
	}

	// the hologram the definition lays over the portrait's corner
	if hz, ok := overlayZone(d); ok {
		if m, ok := hologramCover(side, zr, zonePx(hz, l.w, l.h)); ok {
			stats["holo_visible"] = round3(m.visible)
			if m.visible < holoMinVisible {
				lr.unexamined = append(lr.unexamined, fmt.Sprintf("the hologram over the portrait: this photo does not show its colour (%.2f of the card's beside it)", m.visible))
			} else {
				stats["holo_cover"] = round3(m.cover)
				if m.cover < holoMaxCover {
					lr.score = math.Min(lr.score, 0.3)
					lr.findings = append(lr.findings, finding{code: CodeOverlayMissing,
						note: fmt.Sprintf("the hologram over the portrait's corner shows over the card but not over the portrait (colour detail %.2f of its part off the portrait, under %.2f)", m.cover, holoMaxCover)})
				}
			}
		}
	}

	// the face, for the colour and the ghost
	ff, err := faces()
	if err != nil {
		lr.unexamined = append(lr.unexamined, "the face in the portrait: "+err.Error())
		lr.stats = stats
		return lr
	}
	// the portrait with a margin; rectangles below are in its pixels
	photo := vision.Crop(side, growZone(*d.Photo, 0.1))
	pb := photo.Bounds()
	gx, gy := int(math.Floor((d.Photo.X-0.1*d.Photo.W)*float64(l.w))), int(math.Floor((d.Photo.Y-0.1*d.Photo.H)*float64(l.h)))
	zin := zr.Sub(image.Pt(max(gx, 0), max(gy, 0))).Intersect(pb)
	found, err := ff.Detect(ctx, photo)
	if err != nil || len(found) == 0 {
		lr.unexamined = append(lr.unexamined, "no face was found in the portrait: its colour and the ghost portrait were not compared")
		lr.stats = stats
		return lr
	}
	face := found[0].Rect
	if d.Portrait != nil && d.Portrait.Mode == idv.PortraitGreyscale {
		c := faceChroma(photo, zin, face)
		stats["face_chroma"] = round3(c)
		if c > colourMaxChroma {
			lr.score = math.Min(lr.score, 0.3)
			lr.findings = append(lr.findings, finding{code: CodePortraitMode,
				note: fmt.Sprintf("the document engraves its portrait in greyscale, this one is in colour (face chroma %.3f over %.3f)", c, colourMaxChroma)})
		}
	}
	if gz, ok := ghostZone(d); ok {
		gside := in.front
		if gz.Side == "back" {
			gside = in.back
		}
		if gside == nil {
			lr.unexamined = append(lr.unexamined, "the ghost portrait: the "+gz.Side+" was not found")
		} else if share := printOver(in.readings, gz); share > ghostMaxPrint {
			// Issuers print data over some ghost portraits (a date of
			// birth across the eyes on German documents); the feature
			// comparison is not made for such a ghost.
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("the ghost portrait: %.0f%% of it is covered by print the reader found", 100*share))
		} else {
			ghost := lumaOf(vision.Crop(gside, growZone(gz, 0.2)))
			portrait := lumaOf(photo)
			m, ok := compareGhost(portrait, face, ghost, gz.W/d.Photo.W, nil)
			if ok && m.mismatch() {
				// The side may have been turned the wrong way up (the
				// reader chooses the way up by its print): then the ghost
				// is at the opposite corner, upside down.
				turned := gz
				turned.X, turned.Y = 1-gz.X-gz.W, 1-gz.Y-gz.H
				if m2, ok2 := compareGhost(portrait, face, lumaOf(imaging.Rotate180(vision.Crop(gside, growZone(turned, 0.2)))), gz.W/d.Photo.W, nil); ok2 && m2.NCC > m.NCC {
					m = m2
				}
			}
			if ok {
				stats["ghost_ncc"] = round3(m.NCC)
				stats["ghost_scale"] = round3(m.Scale)
				stats["ghost_ceiling"] = round3(m.Ceiling)
				switch {
				case m.NCC < ghostMinNCC:
					lr.score = math.Min(lr.score, 0.3)
					lr.findings = append(lr.findings, finding{code: CodeGhostMismatch,
						note: fmt.Sprintf("the ghost portrait does not show the main portrait's face (feature correlation %.2f under %.2f)", m.NCC, ghostMinNCC)})
				case m.mismatch():
					lr.score = math.Min(lr.score, 0.3)
					lr.findings = append(lr.findings, finding{code: CodeGhostMismatch,
						note: fmt.Sprintf("the ghost portrait does not show the main portrait's face (feature correlation %.2f, under %.2f of the %.2f its clearly printed ghost allows)", m.NCC, ghostMinShare, m.Ceiling)})
				}
			} else {
				lr.unexamined = append(lr.unexamined, "the ghost portrait: too small to compare")
			}
		}
	}
	lr.stats = stats
	return lr
}

// pastedTurn is the turn shared by the portrait's straight edges. The
// sides whose edge stands out (edgeContrast, edgeSupport) are grouped by
// their turn (within edgeAgree); the largest group that holds a side
// across and a side along the card, both upright sides, or three sides,
// gives it; top and bottom alone only when both hold along nearly all
// their length (on a genuine generic_passport of the columns family both
// caught lines of print turned alike, each held along 72 %). A rectangle
// laid on the card turns all its sides alike; curves in a portrait (the
// shoulders, a hairline) that happen to stand out on one side do not line
// up with another side. ok is false without such a group: a portrait that
// fades into the card has no straight edges.
func pastedTurn(es [4]straightEdge) (float64, []string, bool) {
	names := [4]string{"left", "top", "right", "bottom"}
	var strong []int
	for i, e := range es {
		if e.Contrast >= edgeContrast && e.Support >= edgeSupport {
			strong = append(strong, i)
		}
	}
	var best []int
	for _, i := range strong {
		var group []int
		for _, j := range strong {
			if math.Abs(es[j].Rot-es[i].Rot) <= edgeAgree {
				group = append(group, j)
			}
		}
		across, along, left, right := false, false, false, false
		for _, j := range group {
			if j%2 == 0 {
				across = true
			} else {
				along = true
			}
			left, right = left || j == 0, right || j == 2
		}
		// top and bottom together only when both hold all but a fifth of
		// their length: a page's lines of print can pair up too
		topBottom := len(group) == 2 && !across && es[1].Support >= 0.8 && es[3].Support >= 0.8
		if (len(group) >= 3 || across && along || left && right || topBottom) && len(group) > len(best) {
			best = group
		}
	}
	if len(best) == 0 {
		return 0, nil, false
	}
	var sum float64
	var sides []string
	for _, j := range best {
		sum += es[j].Rot
		sides = append(sides, names[j])
	}
	return sum / float64(len(best)), sides, true
}

// printedTurn is the turn of the portrait's straight edges and of the
// card's print beside it.
type printedTurn struct {
	edges, print float64
	sides        []string
}

// pasted tells whether the edges are turned against both the card's
// outline (the rectified side's axes) and the card's print: by
// edgeMinTurnPrint or more against the first, half that against the
// second. The print's turn is measured on a few values and strays by up
// to a few tenths of a degree on its own (a value edited at an angle, a
// misread box); the outline's is the rectification's. A photo laid by
// hand is turned against both; a portrait printed with the card follows
// its print when the card was cut or rectified turned.
func (m printedTurn) pasted() bool {
	return math.Abs(m.edges) >= edgeMinTurnPrint && math.Abs(m.edges-m.print) >= edgeMinTurnPrint/2
}

// turnAgainstPrint measures the turn shared by the portrait's straight
// edges es (sideEdges of the zone zr) finely, and the turn of the card's
// print on side. ok is false when the edges form no group (pastedTurn),
// turn by less than edgeMinTurnPrint against the outline (then they are
// not pasted whatever the print: it is not measured, which saves a
// millisecond or two per capture), or the print cannot be measured.
func turnAgainstPrint(l *plane, zr image.Rectangle, es [4]straightEdge, side string, r *idv.OCRReadings) (printedTurn, bool) {
	turn, sides, ok := pastedTurn(refinedEdges(l, zr, es))
	if !ok || math.Abs(turn) < edgeMinTurnPrint {
		return printedTurn{}, false
	}
	pt, ok := printTurn(l, side, r)
	if !ok {
		return printedTurn{}, false
	}
	return printedTurn{edges: turn, print: pt, sides: sides}, true
}

// printTurn is the turn (degrees, as straightEdge.Rot counts it) of the
// card's own print on side: the median tilt of the values of
// printTurnGlyphs glyphs or more the reader found there (value_print's
// measure: the slope of their glyphs' feet and heads), at least three of
// them. ok is false without the reader's account or enough values.
func printTurn(l *plane, side string, r *idv.OCRReadings) (float64, bool) {
	if r == nil {
		return 0, false
	}
	// the values sidePrints measures, their tilt only (not their ground)
	W, H := float64(l.w), float64(l.h)
	var tilts []float64
	for _, fr := range r.Fields {
		if fr.Side != side || fr.How == "" || mrzBacked(fr.How) || fr.Box[2] <= 0 || fr.Box[3] <= 0 {
			continue
		}
		f := fr.Box
		box := image.Rect(int(f[0]*W), int(f[1]*H), int((f[0]+f[2])*W), int((f[1]+f[3])*H))
		if vp, ok := measureValue(l, box); ok && vp.Glyphs >= printTurnGlyphs {
			tilts = append(tilts, vp.Tilt)
		}
	}
	if len(tilts) < 3 {
		return 0, false
	}
	sort.Float64s(tilts)
	return tilts[len(tilts)/2], true
}

// printTurnGlyphs: values of fewer glyphs measure their tilt too coarsely
// (value_print's own line).
const printTurnGlyphs = 8

// printOver is the share of the zone z covered by the boxes of the words
// the reader found on its side (0 without the reader's account).
func printOver(r *idv.OCRReadings, z idv.Zone) float64 {
	if r == nil || z.W <= 0 || z.H <= 0 {
		return 0
	}
	var covered float64
	for _, w := range r.Words[z.Side] {
		x0, y0 := math.Max(w[0], z.X), math.Max(w[1], z.Y)
		x1, y1 := math.Min(w[0]+w[2], z.X+z.W), math.Min(w[1]+w[3], z.Y+z.H)
		if x1 > x0 && y1 > y0 {
			covered += (x1 - x0) * (y1 - y0)
		}
	}
	return math.Min(1, covered/(z.W*z.H))
}

// ghostZone is where the definition prints the ghost portrait.
func ghostZone(d *idv.DocumentDefinition) (idv.Zone, bool) {
	for _, f := range d.Security {
		if f.Kind == "ghost_image" {
			return f.Zone, true
		}
	}
	return idv.Zone{}, false
}

// zonePx is a zone in the pixels of a w x h side.
func zonePx(z idv.Zone, w, h int) image.Rectangle {
	return image.Rect(int(z.X*float64(w)), int(z.Y*float64(h)), int((z.X+z.W)*float64(w)), int((z.Y+z.H)*float64(h)))
}

// growZone widens a zone by f of its size each way.
func growZone(z idv.Zone, f float64) idv.Zone {
	mx, my := z.W*f, z.H*f
	z.X, z.Y, z.W, z.H = z.X-mx, z.Y-my, z.W+2*mx, z.H+2*my
	return z
}

// overlayZone is where the definition lays a hologram over the portrait:
// a hologram on the portrait's side that reaches into the photo zone by a
// fifth of its own area at least.
func overlayZone(d *idv.DocumentDefinition) (idv.Zone, bool) {
	p := *d.Photo
	for _, f := range d.Security {
		z := f.Zone
		if f.Kind != "hologram" || z.Side != p.Side || z.W <= 0 || z.H <= 0 {
			continue
		}
		x0, y0 := math.Max(p.X, z.X), math.Max(p.Y, z.Y)
		x1, y1 := math.Min(p.X+p.W, z.X+z.W), math.Min(p.Y+p.H, z.Y+z.H)
		if x1 > x0 && y1 > y0 && (x1-x0)*(y1-y0) >= 0.2*z.W*z.H {
			return z, true
		}
	}
	return idv.Zone{}, false
}
