package synth

import (
	"image"
	"math"
)

// Fonts a forger reprinting an MRZ line finds on their own computer: a free
// OCR-B (the same design as the issuer's, from another file), or a
// monospace face (DejaVu Sans Mono, Liberation Mono, FreeMono, a Courier
// look-alike). Loaded when present; a face that is not falls back to OCR-B.
const (
	fontMono     = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
	fontLibMono  = "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf"
	fontFreeMono = "/usr/share/fonts/truetype/freefont/FreeMono.ttf"
)

var forgerMonoFonts = []string{fontMono, fontMonoBold, fontLibMono, fontLibMonoBold, fontFreeMono}

// mrzReprint is how a forger who recomputed the MRZ put the changed lines
// back on the card: the old line covered (a patch, or the background
// restored), the new one printed with their own means. The lines the edit
// did not change keep the issuer's print. Every choice is drawn from the
// strength: 0 a careful forger (OCR-B, size and pitch within a percent or
// two, on the line, black ink, the background restored), 1 a careless one.
type mrzReprint struct {
	old      []string // the lines as the issuer printed them
	strength float64
	font     string  // the forger's face
	size     float64 // glyph size, of the issuer's
	pitch    float64 // character pitch, of the issuer's
	shift    vec     // of the line's start and baseline, px
	angle    float64 // radians
	// weight is how much bolder (> 0) or lighter (< 0) the forger's
	// printer sets a stroke, in px of outline moved.
	weight float64
	blur   float64 // the forger's printer's edge softness, px
	ink    rgb
	inkA   float64 // ink opacity
	// restored: the old line removed and the background put back (with
	// the softening a clone tool leaves, restoreBlur px); otherwise a flat
	// patch in the band's tint lightened by patchLift, at patchA.
	restored    bool
	restoreBlur float64
	patchLift   float64
	patchA      float64
}

// drawMRZReprint draws how the forger reprints the changed MRZ lines.
func drawMRZReprint(g *rng, old []string) *mrzReprint {
	s := g.float()
	p := &mrzReprint{old: old, strength: round3(s)}
	p.font = fontOCRB
	if g.chance(0.15 + 0.7*s) {
		p.font = pick(g, forgerMonoFonts)
	} else if g.chance(0.3) {
		p.font = fontOCRBS
	}
	p.size = 1 + g.sign()*g.rangef(0.01, 0.03+0.12*s)
	p.pitch = 1 + g.sign()*g.rangef(0.004, 0.012+0.05*s)
	p.shift = vec{round2(g.sign() * g.rangef(0, 0.5+3*s)), round2(g.sign() * g.rangef(0.2, 0.5+3*s))}
	p.angle = g.sign() * g.rangef(0.02, 0.05+0.7*s) * math.Pi / 180
	p.weight = g.sign() * g.rangef(0.1, 0.2+0.6*s)
	p.blur = g.rangef(0.2*s, 0.4+1.0*s)
	p.ink = rgb{18, 18, 20}.mix(pick(g, []rgb{{45, 42, 52}, {28, 32, 75}, {60, 48, 38}, {5, 5, 5}}), g.rangef(0.1, 0.3+0.7*s))
	p.inkA = g.rangef(0.88, 0.97)
	p.restored = g.chance(0.7 - 0.5*s)
	p.restoreBlur = g.rangef(0.5, 1+2*s)
	p.patchLift = g.rangef(0, 0.05+0.25*s)
	p.patchA = g.rangef(0.85, 1)
	return p
}

// detail records the reprint in attack_detail.
func (p *mrzReprint) detail(d map[string]any, lines []string) {
	var changed []int
	for i := range lines {
		if i < len(p.old) && lines[i] != p.old[i] {
			changed = append(changed, i+1)
		}
	}
	cover := "patch"
	if p.restored {
		cover = "background_restored"
	}
	d["mrz_reprint"] = map[string]any{
		"lines":      changed,
		"strength":   p.strength,
		"grade":      gradeOf(p.strength),
		"font":       baseName(p.font),
		"size":       round3(p.size),
		"pitch":      round3(p.pitch),
		"shift_px":   []float64{p.shift.X, p.shift.Y},
		"angle_deg":  round2(p.angle * 180 / math.Pi),
		"weight_px":  round2(p.weight),
		"blur_px":    round2(p.blur),
		"ink":        []float64{round2(p.ink.R), round2(p.ink.G), round2(p.ink.B)},
		"cover":      cover,
		"patch_lift": round3(p.patchLift),
	}
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// mrzGeometry is where drawMRZ sets the lines: the character pitch, the em
// size, the line pitch and the first line's top.
type mrzGeometry struct {
	x, pitch, size, lineH, top float64
}

func (r *renderer) mrzGeometry(lines []string, x, y, zw, zh float64) mrzGeometry {
	n := len(lines[0])
	pitch := zw * 0.97 / float64(n)
	adv := r.fonts.measure(textStyle{font: fontOCRB, size: 100}, "0") / 100
	size := pitch / adv
	lineH := zh / float64(len(lines))
	if size*capHeight > lineH*0.62 {
		size = lineH * 0.62 / capHeight
	}
	// ICAO line pitch is about 1.7 character pitches; centre the block
	if lineH > pitch*1.75 {
		lineH = pitch * 1.75
	}
	return mrzGeometry{x: x + zw*0.015, pitch: pitch, size: size, lineH: lineH, top: y + (zh-lineH*float64(len(lines)))/2}
}

// baseline is line i's baseline y.
func (m mrzGeometry) baseline(i int) float64 {
	return m.top + m.lineH*(float64(i)+0.5) + m.size*capHeight/2
}

// drawMRZForged prints the issuer's lines, then covers each line the
// forger changed and prints it again their way.
func (r *renderer) drawMRZForged(c *canvas, static *image.RGBA, p *mrzReprint, lines []string, x, y, zw, zh float64) {
	if len(p.old) != len(lines) {
		r.drawMRZ(c, lines, x, y, zw, zh)
		return
	}
	r.drawMRZ(c, p.old, x, y, zw, zh)
	gm := r.mrzGeometry(lines, x, y, zw, zh)
	for i, line := range lines {
		if line == p.old[i] {
			continue
		}
		// the band the old line filled, a little wider and taller
		by := gm.baseline(i)
		capH := gm.size * capHeight
		band := image.Rect(int(gm.x-gm.pitch*0.6), int(by-capH*1.45), int(gm.x+gm.pitch*(float64(len(line))+0.4)), int(by+capH*0.5)).Intersect(image.Rect(0, 0, c.w, c.h))
		if p.restored {
			restoreBand(c, static, band, p.restoreBlur)
		} else {
			patchBand(c, band, p.patchLift, p.patchA)
		}
		font := p.font
		if _, ok := r.fonts.byPath[font]; !ok {
			font = fontOCRB
		}
		ts := textStyle{font: font, size: gm.size * p.size}
		// a face other than OCR-B is sized to the cap height, then set in
		// cells of the forger's pitch, each glyph centred in its cell
		adv := r.fonts.measure(textStyle{font: fontOCRB, size: gm.size}, "0")
		pitch := gm.pitch * p.pitch
		m := rotate(p.angle).then(translate(gm.x+p.shift.X, by+p.shift.Y))
		var path path
		for j, ch := range line {
			cw := r.fonts.measure(ts, string(ch))
			off := (adv*p.size - cw) / 2
			r.fonts.text(&path, ts, string(ch), translate(float64(j)*pitch+off, 0).then(m))
		}
		printLayer(c, &path, p.ink, p.inkA, p.weight, p.blur)
	}
}

// restoreBand puts the side's background (drawn before any value) back in
// a band, softened as a clone or heal tool leaves it.
func restoreBand(c *canvas, static *image.RGBA, band image.Rectangle, blur float64) {
	if static == nil || band.Empty() {
		return
	}
	w, h := band.Dx(), band.Dy()
	buf := make([]float32, 3*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			si := static.PixOffset(band.Min.X+x, band.Min.Y+y)
			for k := 0; k < 3; k++ {
				buf[3*(y*w+x)+k] = float32(static.Pix[si+k])
			}
		}
	}
	boxBlur3(buf, w, h, blur)
	// the edges of the band feathered into what is there
	feather := 2.0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			e := math.Min(math.Min(float64(x), float64(w-1-x)), math.Min(float64(y), float64(h-1-y)))
			a := float32(clamp((e+0.5)/feather, 0, 1))
			di := c.img.PixOffset(band.Min.X+x, band.Min.Y+y)
			for k := 0; k < 3; k++ {
				v := float32(c.img.Pix[di+k])
				c.img.Pix[di+k] = clamp8(v + (buf[3*(y*w+x)+k]-v)*a)
			}
		}
	}
}

// patchBand covers a band with a flat tint: the band's own background
// (its brighter half) lightened toward white by lift.
func patchBand(c *canvas, band image.Rectangle, lift, opacity float64) {
	if band.Empty() {
		return
	}
	var hist [3][256]int
	n := 0
	for y := band.Min.Y; y < band.Max.Y; y++ {
		for x := band.Min.X; x < band.Max.X; x++ {
			i := c.img.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				hist[k][c.img.Pix[i+k]]++
			}
			n++
		}
	}
	// the 75th percentile of each channel: the paper, not the ink
	var tint [3]float64
	for k := 0; k < 3; k++ {
		acc := 0
		for v := 0; v < 256; v++ {
			acc += hist[k][v]
			if acc >= n*3/4 {
				tint[k] = float64(v)
				break
			}
		}
	}
	col := rgb{tint[0], tint[1], tint[2]}.mix(rgb{250, 250, 246}, lift)
	var pp path
	pp.rect(float64(band.Min.X), float64(band.Min.Y), float64(band.Dx()), float64(band.Dy()))
	c.fill(&pp, col, opacity)
}

// printLayer prints a path the way another printer does: its stroke
// thickened or thinned by weight px, its edges softened by blur px.
func printLayer(c *canvas, p *path, ink rgb, opacity, weight, blur float64) {
	r, m := c.coverage(p)
	if m == nil {
		return
	}
	x0 := int(math.Floor(p.minX)) - 1
	y0 := int(math.Floor(p.minY)) - 1
	stride := c.mask.Stride
	// a margin for the grown and blurred print
	pad := 3
	rr := r.Inset(-pad).Intersect(image.Rect(0, 0, c.w, c.h))
	w, h := rr.Dx(), rr.Dy()
	cov := make([]float32, w*h)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cov[(y-rr.Min.Y)*w+x-rr.Min.X] = float32(m[(y-y0)*stride+x-x0]) / 255
		}
	}
	// grow or shrink by whole and fractional pixels: a 3x3 max (min)
	// filter applied floor(|weight|) times, and mixed in by the rest
	for left := math.Abs(weight); left > 0; left-- {
		t := float32(math.Min(1, left))
		next := morph(cov, w, h, weight > 0)
		for i := range cov {
			cov[i] += (next[i] - cov[i]) * t
		}
	}
	blurred := make([]float32, len(cov))
	copy(blurred, cov)
	boxBlur1(blurred, w, h, blur)
	op := float32(opacity)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := blurred[y*w+x] * op
			if a <= 0 {
				continue
			}
			di := c.img.PixOffset(rr.Min.X+x, rr.Min.Y+y)
			px := c.img.Pix[di : di+3 : di+3]
			px[0] = clamp8(float32(px[0]) + (float32(ink.R)-float32(px[0]))*a)
			px[1] = clamp8(float32(px[1]) + (float32(ink.G)-float32(px[1]))*a)
			px[2] = clamp8(float32(px[2]) + (float32(ink.B)-float32(px[2]))*a)
		}
	}
}

// morph is one 3x3 (cross) dilation (grow) or erosion of a coverage map.
func morph(cov []float32, w, h int, grow bool) []float32 {
	out := make([]float32, len(cov))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := cov[y*w+x]
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				xx, yy := x+d[0], y+d[1]
				u := float32(0)
				if xx >= 0 && yy >= 0 && xx < w && yy < h {
					u = cov[yy*w+xx]
				}
				if grow {
					v = max(v, u)
				} else {
					v = min(v, u)
				}
			}
			out[y*w+x] = v
		}
	}
	return out
}

// boxBlur1 softens a one-channel map: a three-tap blur whose side weights
// follow radius (0 none, 1 a full box), applied ceil(radius) times.
func boxBlur1(v []float32, w, h int, radius float64) {
	blurChannels(v, w, h, 1, radius)
}

// boxBlur3 is boxBlur1 on interleaved RGB.
func boxBlur3(v []float32, w, h int, radius float64) {
	blurChannels(v, w, h, 3, radius)
}

func blurChannels(v []float32, w, h, ch int, radius float64) {
	tmp := make([]float32, len(v))
	for left := radius; left > 0; left-- {
		s := float32(math.Min(1, left)) / 3
		c := 1 - 2*s
		for pass := 0; pass < 2; pass++ {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					for k := 0; k < ch; k++ {
						i := (y*w+x)*ch + k
						var a, b float32
						if pass == 0 {
							a, b = v[(y*w+max(0, x-1))*ch+k], v[(y*w+min(w-1, x+1))*ch+k]
						} else {
							a, b = v[(max(0, y-1)*w+x)*ch+k], v[(min(h-1, y+1)*w+x)*ch+k]
						}
						tmp[i] = c*v[i] + s*(a+b)
					}
				}
			}
			copy(v, tmp)
		}
	}
}
