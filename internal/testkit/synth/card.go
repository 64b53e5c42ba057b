package synth

import (
	"fmt"
	"hash/fnv"
	"image"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/boombuler/barcode/pdf417"
	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	xdraw "golang.org/x/image/draw"

	"github.com/tambua/tambua/idv"
)

// pxPerMM is the card resolution: 12 px/mm makes an ID-1 card 1027 px
// wide, about what a phone photo of a card resolves.
const pxPerMM = 12.0

// sideSize is a document side's size in pixels.
func sideSize(d *idv.DocumentDefinition) (int, int) {
	return int(math.Round(d.Size.WidthMM * pxPerMM)), int(math.Round(d.Size.HeightMM * pxPerMM))
}

// rectPx converts a normalised zone to pixels.
func rectPx(z idv.Zone, w, h int) (x, y, zw, zh float64) {
	return z.X * float64(w), z.Y * float64(h), z.W * float64(w), z.H * float64(h)
}

// frect is a rectangle in normalised side coordinates.
type frect struct{ x0, y0, x1, y1 float64 }

func zoneRect(z idv.Zone) frect { return frect{z.X, z.Y, z.X + z.W, z.Y + z.H} }

func (a frect) overlaps(b frect) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// sideEdits are the per-sample changes an attack makes to a side.
type sideEdits struct {
	swap *swapPlan // another face put over the photo
	edit *editPlan // a printed value altered
}

// labelLayout is where a field's caption goes.
type labelLayout struct {
	x, y, size float64 // baseline origin and em size, in pixels
	text       string
}

// staticSide is the part of a side that every card of a definition
// shares: background, security print, captions, titles. It is drawn once
// per definition and side and copied for each sample.
type staticSide struct {
	img  *image.RGBA
	tint rgb // the background's main colour, for patches
}

type renderer struct {
	fonts *fonts
}

var sharedStatic = struct {
	sync.Mutex
	m map[string]*staticSide
}{m: map[string]*staticSide{}}

func newRenderer() (*renderer, error) {
	fs, err := newFonts()
	if err != nil {
		return nil, err
	}
	return &renderer{fonts: fs}, nil
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// sideColours returns the background tints of a side.
func sideColours(d *idv.DocumentDefinition, side string) []rgb {
	var cols []rgb
	for _, s := range d.Colours[side] {
		if c, ok := hexRGB(s); ok {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		for _, s := range d.Colours["front"] {
			if c, ok := hexRGB(s); ok {
				cols = append(cols, c)
			}
		}
	}
	if len(cols) == 0 {
		cols = []rgb{{236, 236, 228}, {214, 214, 200}}
	}
	if len(cols) == 1 {
		cols = append(cols, cols[0].scale(0.92))
	}
	return cols
}

// static returns (drawing once) the shared layer of a side. A variant's
// layer is its card's own and is drawn each time.
func (r *renderer) static(d *idv.DocumentDefinition, side string, lay *sideLayout) *staticSide {
	if !lay.static {
		return r.drawStatic(d, side, lay)
	}
	key := d.Config + "/" + side + "/" + fmt.Sprint(d.Size)
	sharedStatic.Lock()
	s, ok := sharedStatic.m[key]
	sharedStatic.Unlock()
	if ok {
		return s
	}
	s = r.drawStatic(d, side, lay)
	sharedStatic.Lock()
	if prev, ok := sharedStatic.m[key]; ok {
		s = prev
	} else {
		sharedStatic.m[key] = s
	}
	sharedStatic.Unlock()
	return s
}

// fieldsOn returns the fields printed on a side.
func fieldsOn(d *idv.DocumentDefinition, side string) []idv.FieldDef {
	var out []idv.FieldDef
	for _, f := range d.Fields {
		if f.Zone.Side == side {
			out = append(out, f)
		}
	}
	return out
}

// occupied lists what a side prints, in normalised coordinates, for
// finding free space for titles and captions.
func occupied(d *idv.DocumentDefinition, side string) []frect {
	var occ []frect
	for _, f := range fieldsOn(d, side) {
		occ = append(occ, zoneRect(f.Zone))
	}
	return append(occ, artZones(d, side, "guilloche")...)
}

// artZones are the zones of a side's photo, signature, MRZ, barcode and
// security features, but for the features of the kinds skipped.
func artZones(d *idv.DocumentDefinition, side string, skip ...string) []frect {
	var occ []frect
	add := func(z *idv.Zone) {
		if z != nil && z.Side == side {
			occ = append(occ, zoneRect(*z))
		}
	}
	add(d.Photo)
	add(d.Signature)
	if d.MRZ != nil {
		add(&d.MRZ.Zone)
	}
	if d.Barcode != nil {
		add(&d.Barcode.Zone)
	}
	for _, s := range d.Security {
		if !slices.Contains(skip, s.Kind) && s.Zone.Side == side {
			occ = append(occ, zoneRect(s.Zone))
		}
	}
	return occ
}

// layoutLabels puts each caption just above its value zone, as big as the
// gap to whatever is above allows.
func layoutLabels(d *idv.DocumentDefinition, side string, w, h int, fs *fonts, st style) map[string]labelLayout {
	out := map[string]labelLayout{}
	occ := occupied(d, side)
	for _, f := range fieldsOn(d, side) {
		if printedLabel(f) == "" || f.Fixed != "" {
			continue
		}
		z := zoneRect(f.Zone)
		zh := f.Zone.H * float64(h)
		size := math.Min(zh*0.46, 2.6*pxPerMM)
		// room above: nearest occupied rectangle overlapping horizontally
		top := 0.0
		for _, o := range occ {
			if o == z || o.x1 <= z.x0 || o.x0 >= z.x1 || o.y1 > z.y0+1e-9 {
				continue
			}
			top = math.Max(top, o.y1)
		}
		gap := (z.y0 - top) * float64(h)
		if need := size*capHeight + 0.12*zh; gap < need {
			size = math.Max(6, (gap-0.1*zh)/capHeight)
		}
		ls := textStyle{font: st.labelFont, size: size}
		wpx := fs.measure(ls, printedLabel(f))
		if maxW := f.Zone.W * float64(w) * 1.3; wpx > maxW && wpx > 0 {
			size *= maxW / wpx
		}
		out[f.Name] = labelLayout{x: z.x0 * float64(w), y: z.y0*float64(h) - 0.1*zh, size: size, text: printedLabel(f)}
	}
	return out
}

// freeRect finds the largest empty rectangle of the side inside the band
// [y0, y1], on a 100x100 grid.
func freeRect(occ []frect, y0, y1 float64) frect {
	const n = 100
	var grid [n][n]bool
	for _, o := range occ {
		for gy := 0; gy < n; gy++ {
			cy0, cy1 := float64(gy)/n, float64(gy+1)/n
			if cy1 <= o.y0-0.01 || cy0 >= o.y1+0.01 {
				continue
			}
			for gx := 0; gx < n; gx++ {
				cx0, cx1 := float64(gx)/n, float64(gx+1)/n
				if cx1 <= o.x0-0.01 || cx0 >= o.x1+0.01 {
					continue
				}
				grid[gy][gx] = true
			}
		}
	}
	best := frect{}
	bestA := 0.0
	heights := make([]int, n)
	gy0, gy1 := int(y0*n), int(y1*n)
	for gy := gy0; gy < gy1; gy++ {
		for gx := 0; gx < n; gx++ {
			if grid[gy][gx] {
				heights[gx] = 0
			} else {
				heights[gx]++
			}
		}
		// widest rectangle under the histogram, brute force (n is small)
		for a := 1; a < n-1; a++ { // keep off the very edges
			hmin := 1 << 30
			for b := a; b < n-1; b++ {
				hmin = min(hmin, heights[b])
				if hmin == 0 {
					break
				}
				area := float64((b-a+1)*hmin) * math.Min(1, float64(hmin)/3)
				if area > bestA {
					bestA = area
					best = frect{float64(a) / n, float64(gy-hmin+1) / n, float64(b+1) / n, float64(gy+1) / n}
				}
			}
		}
	}
	return best
}

// headerLines are the keywords a side prints that nothing else on it
// already prints (captions, titles, the MRZ).
func headerLines(d *idv.DocumentDefinition, side string) []string {
	var printed []string
	for _, f := range fieldsOn(d, side) {
		printed = append(printed, strings.ToUpper(printedLabel(f)), f.Fixed)
	}
	var out []string
	for _, k := range d.Keywords[side] {
		if strings.Contains(k, "<") {
			continue
		}
		if d.MRZ != nil && d.MRZ.Zone.Side == side && strings.HasPrefix(k, strings.TrimRight(d.MRZ.DocumentCode, "<")) && len(k) == len(strings.TrimRight(d.MRZ.DocumentCode, "<"))+3 {
			continue
		}
		dup := false
		for _, p := range printed {
			if p != "" && strings.Contains(p, strings.ToUpper(k)) {
				dup = true
			}
		}
		if !dup {
			out = append(out, k)
		}
	}
	return out
}

// drawStatic paints the shared layer of one side.
func (r *renderer) drawStatic(d *idv.DocumentDefinition, side string, lay *sideLayout) *staticSide {
	w, h := sideSize(d)
	st := lay.st
	g := newRNG(hashString(d.Config+side), 7)
	c := newCanvas(w, h)
	cols := sideColours(d, side)
	if lay.art != nil {
		cols = lay.art.palette
	}
	gradientBase(c, cols, g.rangef(-0.6, 0.6), vec{g.rangef(0.3, 0.8) * float64(w), g.rangef(0.2, 0.7) * float64(h)}, g)
	dark := cols[len(cols)-1].scale(0.72)
	accent2 := cols[0].mix(st.accent, 0.55)
	b := bookFor(d.Country)
	secs := d.Security
	if !d.HasSide(side) {
		// the page facing a one-sided data page: security print all over
		secs = []idv.Feature{{Kind: "guilloche", Zone: idv.Zone{Side: side, W: 1, H: 1}}}
	}
	for _, sec := range secs {
		if sec.Zone.Side != side {
			continue
		}
		x, y, zw, zh := rectPx(sec.Zone, w, h)
		switch sec.Kind {
		case "guilloche":
			if lay.art != nil {
				r.artGuilloche(c, lay.art, x, y, zw, zh, b.issuer)
				continue
			}
			c.clip = image.Rect(int(x), int(y), int(math.Ceil(x+zw)), int(math.Ceil(y+zh)))
			n := int(zh / 7)
			amp := zh * g.rangef(0.025, 0.05)
			wl := zw * g.rangef(0.18, 0.3)
			waveFamily(c, x-10, y-amp, zw+20, zh+2*amp, n, amp, wl, 0.22, 0.9, dark, 0.28)
			waveFamily(c, x-10, y-amp, zw+20, zh+2*amp, n, amp*1.3, wl*1.4, -0.18, 0.8, accent2, 0.22)
			// one or two rosettes and a spirograph band
			cx := x + zw*g.rangef(0.55, 0.85)
			cy := y + zh*g.rangef(0.35, 0.65)
			rr := math.Min(zw, zh) * g.rangef(0.32, 0.45)
			rosette(c, vec{cx, cy}, rr, g.between(28, 40), g.between(9, 15), g.rangef(0.18, 0.3), 0.8, accent2, 0.24)
			rosette(c, vec{cx, cy}, rr*0.55, g.between(18, 26), g.between(6, 10), g.rangef(0.2, 0.35), 0.7, dark, 0.3)
			if g.chance(0.6) {
				spirograph(c, vec{x + zw*g.rangef(0.15, 0.35), y + zh*0.5}, rr*0.8, rr*0.8/float64(g.between(5, 9)), rr*0.3, 12, 0.7, dark, 0.22)
			}
			// a faint emblem watermark
			emblem(c, r.fonts, vec{cx, cy}, rr*1.1, []rgb{accent2, dark, accent2}, "", g, 0.07)
			c.clip = image.Rectangle{}
		case "microtext":
			microtext(c, r.fonts, x, y+zh*0.75, zw, math.Max(4, zh*0.55), strings.ReplaceAll(b.issuer, " ", ""), st.accent, 0.6)
		case "seal":
			cx, cy := x+zw/2, y+zh/2
			if side == "front" {
				emblem(c, r.fonts, vec{cx, cy - zh*0.02}, math.Min(zh*0.8, zw*1.6), flagPalette(st.flag), b.motto, g, 0.95)
			} else {
				seal(c, r.fonts, vec{cx, cy}, math.Min(zw, zh)/2, b.issuer, st.accent, 0.6, g)
			}
		}
	}
	// a fine border rule and the flag stripe along the bottom where free
	occ := occupiedBy(d, side, lay, r.fonts)
	var border path
	m := 1.2 * pxPerMM
	border.roundRect(m, m, float64(w)-2*m, float64(h)-2*m, st.radiusMM*pxPerMM*0.6)
	border.roundRectHole(m+1.2, m+1.2, float64(w)-2*m-2.4, float64(h)-2*m-2.4, st.radiusMM*pxPerMM*0.6)
	c.fill(&border, accent2, 0.35)
	stripe := frect{0, 0.975, 1, 1}
	free := true
	for _, o := range occ {
		if o.overlaps(stripe) {
			free = false
		}
	}
	if free && !st.passport {
		n := len(st.flag)
		sw := float64(w) / float64(n)
		for i, col := range st.flag {
			var p path
			p.rect(float64(i)*sw, 0.978*float64(h), sw+1, 0.022*float64(h)+1)
			c.fill(&p, col, 0.85)
		}
	}
	// titles: the fixed document type in its zone, keywords in free space
	for _, f := range fieldsOn(d, side) {
		if f.Fixed == "" {
			continue
		}
		x, y, zw, zh := rectPx(f.Zone, w, h)
		ts := textStyle{font: st.titleFont, size: zh * 0.62 / capHeight * 0.85, track: 0.04}
		tw := r.fonts.measure(ts, f.Fixed)
		if tw > zw*0.96 {
			ts.size *= zw * 0.96 / tw
			tw = zw * 0.96
		}
		var p path
		r.fonts.text(&p, ts, f.Fixed, translate(x+(zw-tw)/2, y+zh/2+ts.size*capHeight/2))
		c.fill(&p, st.accent, 0.95)
	}
	if lines := headerLines(d, side); len(lines) > 0 {
		band := 0.2
		if side == "back" {
			band = 0.6
		}
		fr := freeRect(occ, 0, band)
		x0, y0 := fr.x0*float64(w), fr.y0*float64(h)
		fw, fh := (fr.x1-fr.x0)*float64(w), (fr.y1-fr.y0)*float64(h)
		if fw > 20 && fh > 10 {
			n := float64(len(lines))
			size := math.Min(fh/n*0.7/capHeight*0.8, 4.2*pxPerMM)
			for i, line := range lines {
				ts := textStyle{font: st.titleFont, size: size, track: 0.03}
				if i > 0 {
					ts.font = fontSans
					ts.size = size * 0.85
				}
				tw := r.fonts.measure(ts, line)
				if tw > fw*0.94 {
					ts.size *= fw * 0.94 / tw
					tw = fw * 0.94
				}
				var p path
				by := y0 + fh*(float64(i)+0.5)/n + ts.size*capHeight/2
				r.fonts.text(&p, ts, line, translate(x0+(fw-tw)/2, by))
				col := st.accent
				if i == 0 {
					col = st.ink
				}
				c.fill(&p, col, 0.92)
			}
		}
	}
	if !d.HasSide(side) {
		// an observations page: a title and ruled lines
		var p path
		ts := textStyle{font: st.titleFont, size: 0.045 * float64(h), track: 0.08}
		title := "OBSERVATIONS"
		tw := r.fonts.measure(ts, title)
		r.fonts.text(&p, ts, title, translate((float64(w)-tw)/2, 0.12*float64(h)))
		for i := 0; i < 9; i++ {
			y := (0.22 + 0.075*float64(i)) * float64(h)
			p.rect(0.08*float64(w), y, 0.84*float64(w), 1.2)
		}
		c.fill(&p, st.accent, 0.5)
		seal(c, r.fonts, vec{0.78 * float64(w), 0.8 * float64(h)}, 0.12*float64(h), b.issuer, st.accent, 0.25, g)
	}
	for _, name := range sortedKeys(lay.fields) {
		fp := lay.fields[name]
		if fp.label.text == "" {
			continue
		}
		l := fp.label
		var p path
		r.fonts.text(&p, textStyle{font: fp.labelFont, size: l.size, track: fp.track}, l.text, translate(l.x, l.y))
		c.fill(&p, st.labelInk, 0.9)
	}
	// MRZ zones print on a plain band: fade the security print there
	if d.MRZ != nil && d.MRZ.Zone.Side == side {
		x, y, zw, zh := rectPx(d.MRZ.Zone, w, h)
		var p path
		p.rect(x-6, y-4, zw+12, zh+8)
		c.fill(&p, cols[0].mix(rgb{250, 250, 250}, 0.4), 0.55)
	}
	return &staticSide{img: c.img, tint: cols[0]}
}

func flagPalette(f []rgb) []rgb {
	var out []rgb
	for _, c := range f {
		if c != white {
			out = append(out, c)
		}
	}
	if len(out) < 2 {
		out = append(out, gold)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// sideInput is what one sample puts on a side.
type sideInput struct {
	id       *identity
	face     *image.RGBA // the holder's face chip
	pose     Portrait    // how the ID photo was staged
	ghost    *image.RGBA // the face chip the ghost image shows (the original holder)
	hueShift float64     // hologram colour at this viewing angle
	edits    sideEdits
	sigSeed  uint64
	wear     Wear
	lay      *sideLayout // nil for the definition's own layout
	// reprint is the forger's print of the MRZ lines an edit changed, on
	// whichever side the MRZ is
	reprint *mrzReprint
}

// renderSide draws one side of a document for an identity. The result is
// premultiplied RGBA, transparent outside the rounded outline.
func (r *renderer) renderSide(d *idv.DocumentDefinition, side string, in sideInput) (*image.RGBA, error) {
	lay := in.lay
	if lay == nil {
		lay = baseLayout(d, side, r.fonts)
	}
	st := lay.st
	w, h := sideSize(d)
	static := r.static(d, side, lay)
	c := newCanvas(w, h)
	copy(c.img.Pix, static.img.Pix)
	g := newRNG(in.sigSeed, 3)

	if d.Photo != nil && d.Photo.Side == side && in.face != nil {
		x, y, zw, zh := rectPx(*d.Photo, w, h)
		r.drawPhoto(c, portrait(in.face, int(zw), int(zh), in.pose), x, y, zw, zh, st, 1, false)
		if sw := in.edits.swap; sw != nil && sw.method == SwapPaste && !sw.onTop {
			// glued on, then the laminate put back over it
			sw.drawPaste(c, x, y, zw, zh, st.greyPhoto != sw.otherMode, newRNG(in.sigSeed, 7))
		}
	}
	for _, sec := range d.Security {
		if sec.Zone.Side != side {
			continue
		}
		x, y, zw, zh := rectPx(sec.Zone, w, h)
		switch sec.Kind {
		case "ghost_image":
			if in.ghost != nil {
				r.drawPhoto(c, portrait(in.ghost, int(zw), int(zh), in.pose), x, y, zw, zh, style{greyPhoto: true, softPhoto: true}, 0.3, false)
			}
		}
	}
	if d.Signature != nil && d.Signature.Side == side {
		x, y, zw, zh := rectPx(*d.Signature, w, h)
		signature(c, x, y, zw, zh, g)
	}
	for _, f := range fieldsOn(d, side) {
		if f.Fixed != "" {
			continue
		}
		fp := lay.fields[f.Name]
		x, y, zw, zh := fp.value.x, fp.value.y, fp.value.w, fp.value.h
		text := in.id.printed[f.Name]
		ts := textStyle{font: st.valueFont, size: zh * 0.58 / capHeight, track: 0.015}
		m := identityAffine
		ink := st.ink
		if e := in.edits.edit; e != nil && f.Name == e.field {
			// the old value scraped off (a flat tint where it was, unless
			// the background was restored) and the new one printed, in
			// the forger's font, size and ink, a little off the baseline
			if e.patch > 0 {
				var patch path
				tw := r.fonts.measure(ts, text)
				patch.rect(x-2, y+zh*0.05, math.Min(zw, tw)+6, zh*0.9)
				c.fill(&patch, static.tint.mix(rgb{245, 245, 240}, 0.3), e.patch)
			}
			text = e.value
			if e.font != "" {
				ts.font = e.font
				ts.track = 0
			}
			ts.size *= e.size
			m = rotate(e.angle).then(translate(e.shift.X, e.shift.Y))
			ink = ink.mix(e.inkTo, e.ink)
		}
		tw := r.fonts.measure(ts, text)
		if tw > zw*0.98 {
			// condense first, then shrink, as card printers do
			ts.scaleX = math.Max(0.78, zw*0.98/tw)
			tw = r.fonts.measure(ts, text)
			if tw > zw*0.98 {
				ts.size *= zw * 0.98 / tw
			}
		}
		var p path
		r.fonts.text(&p, ts, text, m.then(translate(x+0.01*zh, y+zh/2+ts.size*capHeight/2)))
		c.fill(&p, ink, 0.96)
	}
	if d.MRZ != nil && d.MRZ.Zone.Side == side && in.id.mrz != nil {
		lines, err := in.id.mrz.lines()
		if err != nil {
			return nil, err
		}
		x, y, zw, zh := rectPx(d.MRZ.Zone, w, h)
		if in.reprint != nil {
			r.drawMRZForged(c, static.img, in.reprint, lines, x, y, zw, zh)
		} else {
			r.drawMRZ(c, lines, x, y, zw, zh)
		}
	}
	if d.Barcode != nil && d.Barcode.Zone.Side == side && in.id.barcode != "" {
		x, y, zw, zh := rectPx(d.Barcode.Zone, w, h)
		if err := drawBarcode(c, d.Barcode.Kind, in.id.barcode, x, y, zw, zh); err != nil {
			return nil, err
		}
	}
	for _, sec := range d.Security {
		if sec.Kind == "hologram" && sec.Zone.Side == side {
			x, y, zw, zh := rectPx(sec.Zone, w, h)
			hologram(c, x, y, zw, zh, in.hueShift, 0.38, newRNG(hashString(d.Config), 5))
		}
	}
	applyWear(c, in.wear)
	laminate(c, st.laminateFx, g)
	if sw := in.edits.swap; sw != nil && sw.method == SwapPaste && sw.onTop && d.Photo != nil && d.Photo.Side == side {
		// glued over the card's surface, hologram and all
		x, y, zw, zh := rectPx(*d.Photo, w, h)
		sw.drawPaste(c, x, y, zw, zh, st.greyPhoto != sw.otherMode, newRNG(in.sigSeed, 7))
	}
	// the card's edge catches the light
	rad := st.radiusMM * pxPerMM
	var rim path
	rim.roundRect(0, 0, float64(w), float64(h), rad)
	rim.roundRectHole(2.2, 2.2, float64(w)-4.4, float64(h)-4.4, rad-2.2)
	c.fill(&rim, rgb{255, 255, 252}, 0.35)
	roundCorners(c.img, rad)
	return c.img, nil
}

// drawPhoto prints a face into a zone, cropping it to the zone's aspect.
func (r *renderer) drawPhoto(c *canvas, face *image.RGBA, x, y, zw, zh float64, st style, opacity float64, hardEdge bool) {
	fb := face.Bounds()
	fw, fh := float64(fb.Dx()), float64(fb.Dy())
	aspect := zw / zh
	cw, ch := fw, fw/aspect
	if ch > fh {
		ch, cw = fh, fh*aspect
	}
	crop := image.Rect(int((fw-cw)/2), int((fh-ch)/2*0.6), int((fw+cw)/2), int((fh-ch)/2*0.6+ch))
	dw, dh := int(math.Round(zw)), int(math.Round(zh))
	if dw < 2 || dh < 2 {
		return
	}
	scaled := image.NewRGBA(image.Rect(0, 0, dw, dh))
	xdraw.CatmullRom.Scale(scaled, scaled.Bounds(), face, crop.Add(fb.Min), xdraw.Src, nil)
	ox, oy := int(math.Round(x)), int(math.Round(y))
	for py := 0; py < dh; py++ {
		for px := 0; px < dw; px++ {
			tx, ty := ox+px, oy+py
			if tx < 0 || ty < 0 || tx >= c.w || ty >= c.h {
				continue
			}
			si := py*scaled.Stride + px*4
			rr, gg, bb := float64(scaled.Pix[si]), float64(scaled.Pix[si+1]), float64(scaled.Pix[si+2])
			if st.greyPhoto {
				l := 0.299*rr + 0.587*gg + 0.114*bb
				// engraved portraits are a little warm and low in contrast
				rr, gg, bb = 30+l*0.8, 28+l*0.78, 26+l*0.74
			} else {
				rr, gg, bb = 12+rr*0.9, 12+gg*0.9, 14+bb*0.9
			}
			a := opacity
			if st.softPhoto && !hardEdge {
				// fade the outer edge into the card
				ex := math.Min(float64(px), float64(dw-1-px)) / (0.12 * float64(dw))
				ey := math.Min(float64(py), float64(dh-1-py)) / (0.12 * float64(dh))
				a *= clamp(math.Min(ex, ey), 0, 1)
			}
			di := ty*c.img.Stride + tx*4
			p := c.img.Pix[di : di+3 : di+3]
			p[0] = clamp8(float32(float64(p[0]) + (rr-float64(p[0]))*a))
			p[1] = clamp8(float32(float64(p[1]) + (gg-float64(p[1]))*a))
			p[2] = clamp8(float32(float64(p[2]) + (bb-float64(p[2]))*a))
		}
	}
}

// drawMRZ sets the lines in OCR-B, monospaced to fill the zone's width
// the way ICAO 9303 spaces them.
func (r *renderer) drawMRZ(c *canvas, lines []string, x, y, zw, zh float64) {
	gm := r.mrzGeometry(lines, x, y, zw, zh)
	var p path
	for i, line := range lines {
		by := gm.baseline(i)
		for j, ch := range line {
			r.fonts.text(&p, textStyle{font: fontOCRB, size: gm.size}, string(ch), translate(gm.x+float64(j)*gm.pitch, by))
		}
	}
	c.fill(&p, rgb{18, 18, 20}, 0.97)
}

// drawBarcode encodes text as a QR code or PDF417 symbol filling the zone.
func drawBarcode(c *canvas, kind, text string, x, y, zw, zh float64) error {
	var cols, rows int
	var at func(mx, my int) bool
	switch kind {
	case "qr":
		hints := map[gozxing.EncodeHintType]any{gozxing.EncodeHintType_MARGIN: 1}
		bm, err := qrcode.NewQRCodeWriter().Encode(text, gozxing.BarcodeFormat_QR_CODE, 1, 1, hints)
		if err != nil {
			return fmt.Errorf("synth: QR code: %w", err)
		}
		cols, rows = bm.GetWidth(), bm.GetHeight()
		at = bm.Get
		side := math.Min(zw, zh)
		x += (zw - side) / 2
		y += (zh - side) / 2
		zw, zh = side, side
	case "pdf417":
		bc, err := pdf417.Encode(text, 3)
		if err != nil {
			return fmt.Errorf("synth: PDF417: %w", err)
		}
		b := bc.Bounds()
		cols, rows = b.Dx(), b.Dy()
		at = func(mx, my int) bool {
			r, _, _, _ := bc.At(mx, my).RGBA()
			return r < 0x8000
		}
		// keep modules at least three times taller than wide, as readers expect
		mw := zw / float64(cols+4)
		if zh/float64(rows) < 2*mw {
			mw = zh / float64(rows) / 2
		}
		bw := mw * float64(cols)
		x += (zw - bw) / 2
		zw = bw
	default:
		return fmt.Errorf("synth: barcode kind %q", kind)
	}
	// a white quiet zone, then the modules as filled rectangles
	var bg path
	bg.rect(x-4, y-4, zw+8, zh+8)
	c.fill(&bg, rgb{248, 248, 246}, 0.95)
	mw, mh := zw/float64(cols), zh/float64(rows)
	var p path
	for my := 0; my < rows; my++ {
		for mx := 0; mx < cols; {
			if !at(mx, my) {
				mx++
				continue
			}
			run := mx
			for run < cols && at(run, my) {
				run++
			}
			p.rect(x+float64(mx)*mw, y+float64(my)*mh, float64(run-mx)*mw, mh)
			mx = run
		}
	}
	c.fill(&p, rgb{15, 15, 18}, 1)
	return nil
}

// signature scribbles a cursive-looking line in blue-black ink: a spline
// through control points that climb and fall like handwriting, with a
// capital loop at the start and an underline.
func signature(c *canvas, x, y, w, h float64, g *rng) {
	var ctrl []vec
	px := x + w*g.rangef(0.04, 0.12)
	base := y + h*0.62
	// capital: a tall loop
	ctrl = append(ctrl, vec{px, base}, vec{px + w*0.03, y + h*0.08}, vec{px + w*0.07, base - h*0.1}, vec{px + w*0.02, base + h*0.05})
	px += w * 0.08
	end := x + w*g.rangef(0.72, 0.95)
	up := true
	for px < end {
		step := w * g.rangef(0.025, 0.06)
		px += step
		amp := h * g.rangef(0.1, 0.35)
		if g.chance(0.15) {
			amp = h * g.rangef(0.4, 0.55) // an ascender
		}
		yy := base - amp
		if !up {
			yy = base + h*g.rangef(-0.05, 0.12)
		}
		ctrl = append(ctrl, vec{px, yy})
		up = !up
		base -= h * 0.015 // writing drifts upward
	}
	pts := catmullRom(ctrl, 10)
	var p path
	width := math.Max(1.3, h*0.035)
	p.stroke(pts, width)
	if g.chance(0.7) {
		var q []vec
		x0, x1 := x+w*g.rangef(0.05, 0.2), x+w*g.rangef(0.6, 0.9)
		for i := 0; i <= 30; i++ {
			t := float64(i) / 30
			q = append(q, vec{x0 + (x1-x0)*t, y + h*(0.86+0.06*math.Sin(t*2.5)) - h*0.1*t})
		}
		p.stroke(q, width*0.85)
	}
	c.fill(&p, rgb{25, 30, 90}, 0.85)
}

// catmullRom samples a Catmull-Rom spline through pts, n points per span.
func catmullRom(pts []vec, n int) []vec {
	if len(pts) < 2 {
		return pts
	}
	var out []vec
	for i := 0; i < len(pts)-1; i++ {
		p0 := pts[max(i-1, 0)]
		p1, p2 := pts[i], pts[i+1]
		p3 := pts[min(i+2, len(pts)-1)]
		for k := 0; k < n; k++ {
			t := float64(k) / float64(n)
			t2, t3 := t*t, t*t*t
			f := func(a, b, c, d float64) float64 {
				return 0.5 * (2*b + (-a+c)*t + (2*a-5*b+4*c-d)*t2 + (-a+3*b-3*c+d)*t3)
			}
			out = append(out, vec{f(p0.X, p1.X, p2.X, p3.X), f(p0.Y, p1.Y, p2.Y, p3.Y)})
		}
	}
	return append(out, pts[len(pts)-1])
}

// laminate adds the faint sheen and grain of a plastic card.
func laminate(c *canvas, strength float64, g *rng) {
	if strength <= 0 {
		return
	}
	fn := &fastNoise{s: g.r.Uint64() | 1}
	k := float32(3 * strength)
	for i := 0; i < len(c.img.Pix); i += 4 {
		d := fn.gauss() * k
		c.img.Pix[i] = clamp8(float32(c.img.Pix[i]) + d)
		c.img.Pix[i+1] = clamp8(float32(c.img.Pix[i+1]) + d)
		c.img.Pix[i+2] = clamp8(float32(c.img.Pix[i+2]) + d)
	}
}

// roundCorners makes the corners transparent outside a radius r, with an
// anti-aliased edge, premultiplying the colour.
func roundCorners(img *image.RGBA, r float64) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	ri := int(math.Ceil(r))
	for y := 0; y < ri; y++ {
		for x := 0; x < ri; x++ {
			d := math.Hypot(r-float64(x)-0.5, r-float64(y)-0.5)
			a := clamp(r-d+0.5, 0, 1)
			if a >= 1 {
				continue
			}
			for _, p := range [][2]int{{x, y}, {w - 1 - x, y}, {x, h - 1 - y}, {w - 1 - x, h - 1 - y}} {
				i := img.PixOffset(p[0], p[1])
				for k := 0; k < 4; k++ {
					img.Pix[i+k] = uint8(float64(img.Pix[i+k])*a + 0.5)
				}
			}
		}
	}
}
