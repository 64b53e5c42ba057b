package synth

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/tambua/tambua/idv"
)

// Variant is a family of layouts a definition is drawn in. The base layout
// is the definition's own drawing; the others move, reword, reset and
// repaint it so that a reader tuned on one drawing shows it (issue 15).
type Variant string

const (
	// VariantBase is the definition's own layout, byte for byte the
	// corpus as it was before variants.
	VariantBase Variant = "base"
	// VariantShift moves each field (caption and value together) by up to
	// 8 % of the card, inside the card and clear of everything else.
	VariantShift Variant = "shift"
	// VariantFlow sets values to the right of their caption instead of
	// below it, for the whole card or field by field.
	VariantFlow Variant = "flow"
	// VariantSpelling prints captions with and without colons, in other
	// cases and letter spacings, and one language of a bilingual caption.
	VariantSpelling Variant = "spelling"
	// VariantType sets captions, values and titles in other fonts and
	// weights (DejaVu and Liberation cuts).
	VariantType Variant = "type"
	// VariantArt repaints the security print: other guilloche patterns,
	// tints, inks and emblems.
	VariantArt Variant = "art"
	// VariantHeldout combines all of the above with choices none of them
	// makes (other fonts, two-column arrangements, small captions, mixed
	// case values, other patterns) from a seed stream of its own. No one
	// tunes on it: it is the figure that counts (docs/synth.md).
	VariantHeldout Variant = "heldout"
	// VariantColumns is a tuning family of the kinds of arrangement real
	// cards use and the families above do not: two columns, small
	// captions, mixed-case names. It draws only fonts, inks and art of the
	// tuning families, from a seed stream of its own, so the held-out
	// family's draws stay unseen (docs/synth.md).
	VariantColumns Variant = "columns"
)

// Variants are every family, in report order.
var Variants = []Variant{VariantBase, VariantShift, VariantFlow, VariantSpelling, VariantType, VariantArt, VariantColumns, VariantHeldout}

// ParseVariant reads a variant name; "" is base.
func ParseVariant(s string) (Variant, error) {
	if s == "" {
		return VariantBase, nil
	}
	for _, v := range Variants {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("synth: variant %q (have %v)", s, Variants)
}

// heldoutSalt moves the held-out family onto its own seed stream: its
// holders, captures and layouts share no draw with the other families of
// the same seed.
const heldoutSalt = 0x68656c646f7574 // "heldout"

// columnsSalt does the same for the columns family.
const columnsSalt = 0x636f6c756d6e73 // "columns"

// printedLabel is the caption a card prints for f by default. It is the
// one place that says where the caption comes from.
func printedLabel(f idv.FieldDef) string { return f.Label }

// labelSpellings are the captions the definition admits for f: the printed
// one first, then each language of a bilingual caption ("SURNAME/NOM")
// alone. A variant never prints a word the definition does not give.
func labelSpellings(f idv.FieldDef) []string {
	l := printedLabel(f)
	if l == "" {
		return nil
	}
	out := []string{l}
	if parts := strings.Split(l, "/"); len(parts) == 2 && strings.TrimSpace(parts[0]) != "" && strings.TrimSpace(parts[1]) != "" {
		out = append(out, strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]))
	}
	return out
}

// cardPlan is what a variant decides once per card, for both sides.
type cardPlan struct {
	variant Variant
	shift   float64 // largest move of a field, as a share of the card's side; 0 for none
	// flow: how often a field's value goes to the right of its caption
	rightShare float64
	// spelling
	respell  bool
	colon    int     // 0 keep, 1 drop, 2 add
	caseMode int     // 0 as defined, 1 upper, 2 title
	lang     int     // bilingual captions: 0 as defined, 1 first, 2 second, 3 both swapped
	track    float64 // caption letter spacing, em
	// type
	valueFont, labelFont, titleFont string
	// art (nil: the definition's own print)
	art *artStyle
	// held-out only
	columns    bool    // re-set the fields in two columns
	smallLabel float64 // caption em as a share of the value's; 0 for the usual size
	mixedCase  bool    // names and places in mixed case, where the card's captions are
	labelInk   *rgb
}

// Fonts of the type family: other designs and weights than a definition's
// style uses, all from fonts-dejavu-core, -extra and fonts-liberation2.
var (
	typeValueFonts = []string{fontSerifBold, fontDejaCondBold, fontLibSerifBold, fontLibMonoBold, fontSans, fontLibSans, fontMonoBold}
	typeLabelFonts = []string{fontSans, fontLibSans, fontSerif, fontLibSerif, fontDejaCond, fontLibSansBold, fontSansBold}
	// held-out fonts: families no other variant draws from
	// (fonts-freefont-ttf, fonts-crosextra-carlito)
	heldoutValueFonts = []string{fontFreeSansBold, fontFreeSerifBold, fontCarlitoBold, fontFreeSans, fontCarlito}
	heldoutLabelFonts = []string{fontFreeSans, fontFreeSerif, fontCarlito, fontFreeSansBold}
)

// planCard draws the per-card choices of a variant.
func planCard(v Variant, d *idv.DocumentDefinition, g *rng) cardPlan {
	p := cardPlan{variant: v}
	switch v {
	case VariantShift:
		p.shift = 0.08
	case VariantFlow:
		// whole card to the right, or field by field
		p.rightShare = pick(g, []float64{1, 1, 0.5})
	case VariantSpelling:
		p.respell = true
		p.colon = g.intn(3)
		p.caseMode = g.intn(3)
		p.lang = g.intn(4)
		p.track = g.rangef(0, 0.16)
	case VariantType:
		p.valueFont = pick(g, typeValueFonts)
		p.labelFont = pick(g, typeLabelFonts)
		p.titleFont = pick(g, []string{fontSerifBold, fontLibSerifBold, fontLibSansBold, fontDejaCondBold})
	case VariantArt:
		p.art = drawArt(g, false)
	case VariantHeldout:
		p.columns = g.chance(0.7)
		p.shift = g.rangef(0.02, 0.05)
		if !p.columns {
			p.rightShare = pick(g, []float64{1, 0.5, 0})
			p.shift = 0.06
		}
		p.smallLabel = g.rangef(0.42, 0.55)
		p.respell = true
		p.colon = g.intn(3)
		p.caseMode = pick(g, []int{0, 2})
		p.lang = g.intn(4)
		// wider spacing than the spelling family ever draws
		p.track = g.rangef(0.18, 0.3)
		if g.chance(0.5) {
			p.track = 0
		}
		p.valueFont = pick(g, heldoutValueFonts)
		p.labelFont = pick(g, heldoutLabelFonts)
		p.titleFont = pick(g, []string{fontFreeSerifBold, fontCarlitoBold, fontFreeSansBold})
		p.art = drawArt(g, true)
		p.mixedCase = mixedCaseCard(d) && g.chance(0.7)
		ink := pick(g, []rgb{{90, 30, 90}, {70, 60, 40}, {80, 80, 80}, {20, 80, 70}})
		p.labelInk = &ink
	case VariantColumns:
		p.columns = g.chance(0.75)
		p.shift = g.rangef(0.01, 0.04)
		if !p.columns {
			p.rightShare = pick(g, []float64{1, 0.5})
		}
		p.smallLabel = g.rangef(0.45, 0.62)
		p.respell = true
		p.colon = g.intn(3)
		p.caseMode = pick(g, []int{0, 1, 2})
		p.lang = g.intn(4)
		p.track = g.rangef(0.1, 0.24)
		if g.chance(0.5) {
			p.track = 0
		}
		p.valueFont = pick(g, typeValueFonts)
		p.labelFont = pick(g, typeLabelFonts)
		p.titleFont = pick(g, []string{fontSerifBold, fontLibSerifBold, fontLibSansBold, fontDejaCondBold})
		p.art = drawArt(g, false)
		p.mixedCase = mixedCaseCard(d) && g.chance(0.7)
		ink := pick(g, []rgb{{30, 40, 110}, {110, 40, 40}, {50, 80, 40}, {60, 60, 60}})
		p.labelInk = &ink
	}
	return p
}

// mixedCaseCard says whether a document sets its captions in mixed case,
// the only kind on which we print names in mixed case too.
func mixedCaseCard(d *idv.DocumentDefinition) bool {
	for _, f := range d.Fields {
		for _, r := range printedLabel(f) {
			if unicode.IsLower(r) {
				return true
			}
		}
	}
	return false
}

// mixedCaseFields are the fields a mixed-case card prints in mixed case:
// names and places, never numbers, codes or dates.
func mixedCaseValue(f idv.FieldDef, v string) string {
	if f.Type != idv.FieldText || f.Fixed != "" || f.MRZ == "document_code" || f.MRZ == "issuing_state" || f.MRZ == "nationality" {
		return v
	}
	for _, r := range v {
		if unicode.IsDigit(r) {
			return v
		}
	}
	if len(v) < 4 {
		return v
	}
	return titleCase(v)
}

// titleCase upper-cases the first letter of each word and lowers the rest.
func titleCase(s string) string {
	out := []rune(strings.ToLower(s))
	start := true
	for i, r := range out {
		if unicode.IsLetter(r) {
			if start {
				out[i] = unicode.ToUpper(r)
			}
			start = false
		} else {
			start = r == ' ' || r == '-' || r == '\'' || r == '/'
		}
	}
	return string(out)
}

// spell applies the plan's spelling to a caption.
func (p *cardPlan) spell(f idv.FieldDef) string {
	sp := labelSpellings(f)
	if len(sp) == 0 {
		return ""
	}
	text := sp[0]
	if !p.respell {
		return text
	}
	if len(sp) == 3 {
		switch p.lang {
		case 1:
			text = sp[1]
		case 2:
			text = sp[2]
		case 3:
			text = sp[2] + " / " + sp[1]
		}
	}
	switch p.colon {
	case 1:
		text = strings.TrimRight(text, ": ")
	case 2:
		if !strings.HasSuffix(text, ":") {
			text = strings.TrimRight(text, " ") + ":"
		}
	}
	switch p.caseMode {
	case 1:
		text = strings.ToUpper(text)
	case 2:
		text = titleCase(text)
	}
	return text
}

// pxRect is a rectangle in card pixels.
type pxRect struct{ x, y, w, h float64 }

func (r pxRect) norm(w, h int) frect {
	return frect{r.x / float64(w), r.y / float64(h), (r.x + r.w) / float64(w), (r.y + r.h) / float64(h)}
}

func (r pxRect) union(o pxRect) pxRect {
	if o.w <= 0 || o.h <= 0 {
		return r
	}
	x0, y0 := math.Min(r.x, o.x), math.Min(r.y, o.y)
	x1, y1 := math.Max(r.x+r.w, o.x+o.w), math.Max(r.y+r.h, o.y+o.h)
	return pxRect{x0, y0, x1 - x0, y1 - y0}
}

func (r pxRect) moved(dx, dy float64) pxRect { return pxRect{r.x + dx, r.y + dy, r.w, r.h} }

// fieldPlace is where one field prints: its value's box and its caption.
type fieldPlace struct {
	value     pxRect
	label     labelLayout // text "" for a field printed bare
	labelFont string
	track     float64
}

// labelBox is the caption's ink box, from cap height to descenders.
func (fp fieldPlace) labelBox(fs *fonts) pxRect {
	if fp.label.text == "" {
		return pxRect{}
	}
	l := fp.label
	w := fs.measure(textStyle{font: fp.labelFont, size: l.size, track: fp.track}, l.text)
	return pxRect{l.x, l.y - l.size*capHeight, w, l.size * (capHeight + 0.24)}
}

// block is the caption and value together.
func (fp fieldPlace) block(fs *fonts) pxRect { return fp.value.union(fp.labelBox(fs)) }

func (fp fieldPlace) moved(dx, dy float64) fieldPlace {
	fp.value = fp.value.moved(dx, dy)
	fp.label.x += dx
	fp.label.y += dy
	return fp
}

// sideLayout is how one side of one card is drawn.
type sideLayout struct {
	variant Variant
	st      style
	fields  map[string]fieldPlace
	art     *artStyle
	// static is true when the shared layer may be cached per definition
	// (the base layout); variant layers are drawn per card.
	static bool
}

// baseLayout is the definition's own drawing: values in their zones,
// captions above them.
func baseLayout(d *idv.DocumentDefinition, side string, fs *fonts) *sideLayout {
	w, h := sideSize(d)
	st := styleFor(d)
	lay := &sideLayout{variant: VariantBase, st: st, fields: map[string]fieldPlace{}, static: true}
	labels := layoutLabels(d, side, w, h, fs, st)
	for _, f := range fieldsOn(d, side) {
		x, y, zw, zh := rectPx(f.Zone, w, h)
		fp := fieldPlace{value: pxRect{x, y, zw, zh}, labelFont: st.labelFont, track: 0.02}
		if l, ok := labels[f.Name]; ok {
			fp.label = l
		}
		lay.fields[f.Name] = fp
	}
	return lay
}

// obstacles are what fields must not move onto: photo, signature, MRZ,
// barcode, seals, ghost image, hologram and the fixed title.
func obstacles(d *idv.DocumentDefinition, side string) []frect {
	occ := artZones(d, side, "guilloche", "microtext")
	for _, f := range fieldsOn(d, side) {
		if f.Fixed != "" {
			occ = append(occ, zoneRect(f.Zone))
		}
	}
	return occ
}

// cardMargin keeps moved fields inside the printable area: clear of the
// border rule (1.2 mm, 1.4 % of an ID-1 card) and the flag stripe at the
// foot (2.5 %).
const (
	cardMarginX   = 0.025
	cardMarginTop = 0.03
	cardMarginBot = 0.035
)

// minLabelEm is the smallest caption a variant prints, in card pixels
// (12 px/mm): 12 px em is a cap height of 0.72 mm, about 4 pt type, the
// small print of real cards' captions. The base layout's captions are 18 to
// 24 px; a variant's shrinking for width or style stops here so every
// caption stays legible in a capture.
const minLabelEm = 12

func inside(r frect) bool {
	return r.x0 >= cardMarginX && r.x1 <= 1-cardMarginX && r.y0 >= cardMarginTop && r.y1 <= 1-cardMarginBot
}

func padded(r frect, p float64) frect { return frect{r.x0 - p, r.y0 - p, r.x1 + p, r.y1 + p} }

// variantLayout lays out one side of a card for a plan. values are the
// printed values (to keep a value to the right of its caption only where
// it fits).
func variantLayout(d *idv.DocumentDefinition, side string, p cardPlan, fs *fonts, values map[string]string, g *rng) *sideLayout {
	lay := baseLayout(d, side, fs)
	if p.variant == VariantBase {
		return lay
	}
	lay.variant = p.variant
	lay.static = false
	lay.art = p.art
	if p.valueFont != "" {
		lay.st.valueFont, lay.st.labelFont, lay.st.titleFont = p.valueFont, p.labelFont, p.titleFont
	}
	if p.art != nil {
		lay.st.labelInk = p.art.labelInk
		lay.st.accent = p.art.accent
	}
	if p.labelInk != nil {
		lay.st.labelInk = *p.labelInk
	}
	w, h := sideSize(d)
	W, H := float64(w), float64(h)
	names := layoutOrder(d, side, lay)
	// captions: new spelling, font and size, still above the value
	for _, name := range names {
		fp := lay.fields[name]
		f, _ := d.Field(name)
		fp.labelFont = lay.st.labelFont
		if p.respell && fp.label.text != "" {
			fp.label.text = p.spell(f)
			fp.track = p.track
		}
		if fp.label.text != "" {
			// keep the caption's width within what the base allowed
			base := lay.fields[name]
			bw := fs.measure(textStyle{font: base.labelFont, size: base.label.size, track: base.track}, base.label.text)
			nw := fs.measure(textStyle{font: fp.labelFont, size: fp.label.size, track: fp.track}, fp.label.text)
			limit := math.Max(bw, fp.value.w*1.3)
			if nw > limit && nw > 0 {
				fp.label.size = math.Max(fp.label.size*limit/nw, minLabelEm)
			}
		}
		lay.fields[name] = fp
	}
	if p.columns {
		columnLayout(d, side, lay, p, fs, values, g)
	}
	if p.smallLabel > 0 {
		for _, name := range names {
			fp := lay.fields[name]
			if fp.label.text == "" {
				continue
			}
			vsize := fp.value.h * 0.58 / capHeight
			fp.label.size = math.Max(math.Min(fp.label.size, vsize*p.smallLabel), minLabelEm)
			lay.fields[name] = fp
		}
	}
	fitCaptions(d, side, lay, fs)
	if p.rightShare > 0 {
		obs := obstacles(d, side)
		for _, name := range names {
			if !g.chance(p.rightShare) {
				continue
			}
			fp := lay.fields[name]
			if fp.label.text == "" {
				continue
			}
			if nf, ok := toRight(fp, name, lay, obs, fs, values[name], lay.st.valueFont, W, H); ok {
				lay.fields[name] = nf
			}
		}
	}
	if p.shift > 0 {
		shiftFields(d, side, lay, p.shift, fs, g)
	}
	return lay
}

// fitCaptions shrinks a caption that would run into what prints to its
// right on its line (another field, the photo or the card's edge): a new
// spelling, font or letter spacing is often wider than the definition's
// caption the base layout made room for. It stops at minLabelEm, then
// drops the letter spacing.
func fitCaptions(d *idv.DocumentDefinition, side string, lay *sideLayout, fs *fonts) {
	w, h := sideSize(d)
	W, H := float64(w), float64(h)
	obs := obstacles(d, side)
	names := layoutOrder(d, side, lay)
	for _, name := range names {
		fp := lay.fields[name]
		if fp.label.text == "" {
			continue
		}
		lb := fp.labelBox(fs)
		gap := 0.012 * W
		limit := (1-cardMarginX)*W - 2
		for _, o := range obs {
			if o.y0*H < lb.y+lb.h && o.y1*H > lb.y && o.x0*W >= lb.x {
				limit = math.Min(limit, o.x0*W-gap)
			}
		}
		for _, other := range names {
			if other == name {
				continue
			}
			op := lay.fields[other]
			for _, b := range []pxRect{op.labelBox(fs), op.value} {
				if b.w > 0 && b.y < lb.y+lb.h && b.y+b.h > lb.y && b.x > lb.x {
					limit = math.Min(limit, b.x-gap)
				}
			}
		}
		room := limit - lb.x
		if lb.w <= room || room <= 0 {
			continue
		}
		fp.label.size = math.Max(minLabelEm, fp.label.size*room/lb.w)
		if fp.labelBox(fs).w > room {
			fp.track = 0
		}
		lay.fields[name] = fp
	}
}

// layoutOrder is the side's non-fixed fields in definition order.
func layoutOrder(d *idv.DocumentDefinition, side string, lay *sideLayout) []string {
	var out []string
	for _, f := range fieldsOn(d, side) {
		if _, ok := lay.fields[f.Name]; ok && f.Fixed == "" {
			out = append(out, f.Name)
		}
	}
	return out
}

// toRight sets a value on its caption's line, after the caption, and
// lets it run right until something else prints. It refuses when the
// value would have to shrink below 70 % of its size to fit.
func toRight(fp fieldPlace, name string, lay *sideLayout, obs []frect, fs *fonts, value, valueFont string, W, H float64) (fieldPlace, bool) {
	vsize := fp.value.h * 0.58 / capHeight
	ls := math.Max(math.Min(fp.label.size, vsize*0.85), minLabelEm)
	ts := textStyle{font: fp.labelFont, size: ls, track: fp.track}
	lw := fs.measure(ts, fp.label.text)
	gap := vsize * 0.6
	nf := fp
	nf.label.size = ls
	nf.label.x = fp.value.x
	nf.label.y = fp.value.y + fp.value.h/2 + vsize*capHeight/2
	x0 := fp.value.x + lw + gap
	// run right to the card's margin or the first thing on this band
	limit := (1 - cardMarginX) * W
	band := frect{x0 / W, fp.value.y / H, 1, (fp.value.y + fp.value.h) / H}
	for _, o := range obs {
		if o.y0 < band.y1 && o.y1 > band.y0 && o.x1 > band.x0 && o.x0*W > x0 {
			limit = math.Min(limit, o.x0*W-4)
		}
	}
	for other, op := range lay.fields {
		if other == name {
			continue
		}
		b := op.block(fs)
		if b.y < fp.value.y+fp.value.h && b.y+b.h > fp.value.y && b.x+b.w > x0 && b.x >= fp.value.x {
			limit = math.Min(limit, b.x-gap)
		}
	}
	need := fs.measure(textStyle{font: valueFont, size: vsize, track: 0.015}, value)
	avail := limit - x0
	if avail <= 0 || need*0.7 > avail {
		return fp, false
	}
	nf.value = pxRect{x0, fp.value.y, math.Min(avail, math.Max(fp.value.w, need*1.05)), fp.value.h}
	return nf, true
}

// shiftFields moves each field block by up to share of the card's width
// and height, keeping it inside the card and clear of the other fields and
// of the obstacles. A field that finds no free place in 60 tries stays.
func shiftFields(d *idv.DocumentDefinition, side string, lay *sideLayout, share float64, fs *fonts, g *rng) {
	w, h := sideSize(d)
	W, H := float64(w), float64(h)
	obs := obstacles(d, side)
	names := layoutOrder(d, side, lay)
	for _, k := range g.r.Perm(len(names)) {
		name := names[k]
		fp := lay.fields[name]
		for try := 0; try < 60; try++ {
			s := share
			if try >= 30 {
				s = share / 2
			}
			dx, dy := g.rangef(-s, s)*W, g.rangef(-s, s)*H
			nf := fp.moved(dx, dy)
			b := nf.block(fs).norm(w, h)
			if !inside(b) || hits(padded(b, 0.006), obs) {
				continue
			}
			clear := true
			for other, op := range lay.fields {
				if other != name && padded(op.block(fs).norm(w, h), 0.006).overlaps(b) {
					clear = false
					break
				}
			}
			if clear {
				lay.fields[name] = nf
				break
			}
		}
	}
}

func hits(r frect, obs []frect) bool {
	for _, o := range obs {
		if o.overlaps(r) {
			return true
		}
	}
	return false
}

// columnLayout re-sets a side's fields in two columns over the area they
// occupied, captions small above values, row by row; a value too long for
// half the width takes a whole row. Cells over the photo, signature or
// other obstacles are skipped. When the fields do not fit, the side keeps
// its arrangement.
func columnLayout(d *idv.DocumentDefinition, side string, lay *sideLayout, p cardPlan, fs *fonts, values map[string]string, g *rng) {
	w, h := sideSize(d)
	W := float64(w)
	names := layoutOrder(d, side, lay)
	if len(names) < 3 {
		return
	}
	// the area the fields used, widened to the right where nothing prints
	var area pxRect
	var zh []float64
	for i, n := range names {
		b := lay.fields[n].block(fs)
		if i == 0 {
			area = b
		} else {
			area = area.union(b)
		}
		zh = append(zh, lay.fields[n].value.h)
	}
	obs := obstacles(d, side)
	// two pixels inside the margin: a cell ending exactly on it fails
	// inside by rounding, and the right column would never be used
	right := (1-cardMarginX)*W - 2
	area.w = math.Min(area.w, right-area.x)
	for x1 := right; x1 > area.x+area.w; x1 -= 0.01 * W {
		ext := pxRect{area.x + area.w, area.y, x1 - area.x - area.w, area.h}.norm(w, h)
		if !hits(ext, obs) {
			area.w = x1 - area.x
			break
		}
	}
	vh := median(zh) * g.rangef(0.9, 1.05)
	ratio := p.smallLabel
	if ratio == 0 {
		ratio = 0.5
	}
	for attempt := 0; attempt < 4; attempt++ {
		vsize := vh * 0.58 / capHeight
		lsize := math.Max(vsize*ratio, minLabelEm)
		rowH := lsize*(capHeight+0.25) + vh*1.08
		rows := int(area.h / rowH)
		gapX := 0.03 * W
		colW := (area.w - gapX) / 2
		placed := map[string]fieldPlace{}
		row, col := 0, 0
		ok := true
		for _, n := range names {
			fp := lay.fields[n]
			need := fs.measure(textStyle{font: lay.st.valueFont, size: vsize, track: 0.015}, values[n])
			span := need*0.8 > colW*0.98
			for {
				if row >= rows {
					ok = false
					break
				}
				if span && col == 1 {
					row, col = row+1, 0
					continue
				}
				cw := colW
				if span {
					cw = area.w
				}
				x := area.x + float64(col)*(colW+gapX)
				y := area.y + float64(row)*rowH
				nf := fp
				nf.label.size = lsize
				nf.label.x = x
				nf.label.y = y + lsize*capHeight
				if nf.label.text == "" {
					nf.label.y = y
				}
				nf.value = pxRect{x, y + lsize*(capHeight+0.25), cw, vh}
				if !hits(padded(nf.block(fs).norm(w, h), 0.004), obs) && inside(nf.block(fs).norm(w, h)) {
					placed[n] = nf
					if span {
						row, col = row+1, 0
					} else if col++; col == 2 {
						row, col = row+1, 0
					}
					break
				}
				if col++; col == 2 || span {
					row, col = row+1, 0
				}
			}
			if !ok {
				break
			}
		}
		if ok {
			for n, fp := range placed {
				lay.fields[n] = fp
			}
			return
		}
		vh *= 0.88
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// occupiedBy lists what a side prints under a layout: the base lists the
// zones as it always did; a variant lists where its fields went.
func occupiedBy(d *idv.DocumentDefinition, side string, lay *sideLayout, fs *fonts) []frect {
	if lay.static {
		return occupied(d, side)
	}
	w, h := sideSize(d)
	occ := obstacles(d, side)
	for _, f := range fieldsOn(d, side) {
		if fp, ok := lay.fields[f.Name]; ok && f.Fixed == "" {
			occ = append(occ, fp.block(fs).norm(w, h))
		}
	}
	return occ
}

// LayoutTruth is where a variant printed each field, in normalised side
// coordinates, for readers that want to score finding as well as reading.
type LayoutTruth struct {
	Variant string                      `json:"variant"`
	Fields  map[string]FieldLayoutTruth `json:"fields"`
}

// FieldLayoutTruth is one field's caption and value boxes.
type FieldLayoutTruth struct {
	Side  string `json:"side"`
	Label string `json:"label,omitempty"`
	// LabelBox and ValueBox are x, y, w, h as shares of the side.
	LabelBox [4]float64 `json:"label_box,omitempty"`
	ValueBox [4]float64 `json:"value_box"`
}

func (lay *sideLayout) truth(d *idv.DocumentDefinition, side string, fs *fonts, into map[string]FieldLayoutTruth) {
	w, h := sideSize(d)
	box := func(r pxRect) [4]float64 {
		return [4]float64{round3(r.x / float64(w)), round3(r.y / float64(h)), round3(r.w / float64(w)), round3(r.h / float64(h))}
	}
	for name, fp := range lay.fields {
		f, _ := d.Field(name)
		if f.Fixed != "" {
			continue
		}
		ft := FieldLayoutTruth{Side: side, Label: fp.label.text, ValueBox: box(fp.value)}
		if fp.label.text != "" {
			ft.LabelBox = box(fp.labelBox(fs))
		}
		into[name] = ft
	}
}
