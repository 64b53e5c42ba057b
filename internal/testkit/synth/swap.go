package synth

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
)

// Photo swap methods: how a fraudster put another face on the card.
const (
	// SwapPaste is the physical swap: a photo printed on paper, cut out
	// and glued over the portrait, on top of the card or under a laminate
	// put back over it.
	SwapPaste = "paste"
	// SwapDigital is the edited picture: the photo of the card opened in
	// an editor, a face pasted over the portrait, the picture saved again.
	SwapDigital = "digital"
)

// Grades of an attack's strength, for reports: a subtle attack is made
// with care (the card's colour mode, aligned, matched), an obvious one
// without.
const (
	GradeSubtle  = "subtle"
	GradeMedium  = "medium"
	GradeObvious = "obvious"
)

// gradeOf names a strength in [0, 1).
func gradeOf(s float64) string {
	switch {
	case s < 1.0/3:
		return GradeSubtle
	case s < 2.0/3:
		return GradeMedium
	}
	return GradeObvious
}

// swapPlan is how one photo swap was made. Every choice is drawn from the
// strength: 0 is a careful forger, 1 a careless one.
type swapPlan struct {
	method   string
	strength float64
	face     *image.RGBA
	pose     Portrait
	// otherMode: printed in the other colour mode than the card prints
	// its portrait (a colour photo on an engraved card, the usual mistake).
	otherMode bool
	offset    vec     // card px, of the new photo's centre from the zone's
	angle     float64 // radians
	scale     float64 // of the zone's size
	blur      float64 // softness of the print or of the pasted source, card px
	// paste
	rim      float64 // width (px) of the paper's white core at the cut
	rimAlpha float64
	shadow   float64 // opacity of the shadow the paper's edge casts
	grain    float64 // print grain, grey levels
	onTop    bool    // glued over the card's laminate and hologram
	// digital
	feather       float64 // px over which the pasted face is blended in
	fade          bool    // the card's own fade at the portrait's edge imitated
	srcQuality    float64 // JPEG quality of the pasted face's source; 0 none
	matchTone     bool    // brightness and colour matched to what it covers
	matchCapture  bool    // the capture's blur and noise imitated
	exportQuality float64 // the edited picture saved again
}

// drawSwap plans a photo swap of face (staged as pose).
func drawSwap(g *rng, face *image.RGBA, pose Portrait) swapPlan {
	s := g.float()
	p := swapPlan{strength: round3(s), face: face, pose: pose, method: SwapPaste}
	if g.chance(0.5) {
		p.method = SwapDigital
	}
	p.otherMode = g.chance(0.15 + 0.7*s)
	th := g.rangef(0, 2*math.Pi)
	if p.method == SwapPaste {
		// cut by hand a little larger than the portrait, to cover it
		r := g.rangef(0.3, 1) * (1 + 5*s)
		p.offset = vec{round2(r * math.Cos(th)), round2(r * math.Sin(th))}
		p.angle = g.sign() * g.rangef(0.1, 0.3+2.2*s) * math.Pi / 180
		p.scale = 1 + g.rangef(0.005, 0.02+0.04*s)
		p.rim = g.rangef(0.4, 0.8+1.2*s)
		p.rimAlpha = 0.2 + 0.6*s*g.float()
		p.shadow = 0.08 + 0.4*s*g.float()
		p.grain = 1 + 8*s*g.float()
		p.blur = g.rangef(0.3, 0.9)
		p.onTop = g.chance(0.3 + 0.6*s)
		return p
	}
	r := g.float() * (0.5 + 2.5*s)
	p.offset = vec{round2(r * math.Cos(th)), round2(r * math.Sin(th))}
	p.angle = g.rangef(-0.3, 0.3) * s * math.Pi / 180
	p.scale = 1 + g.rangef(-0.01, 0.03)
	p.feather = 1.5 + 10*(1-s)*g.float()
	p.fade = g.chance(0.8 * (1 - s))
	if g.chance(0.5 + 0.4*s) {
		p.srcQuality = g.rangef(0.35, 0.9-0.4*s)
	}
	p.blur = g.rangef(0, 0.4+1.2*s)
	p.matchTone = g.chance(1 - 0.8*s)
	p.matchCapture = g.chance(1 - 0.9*s)
	p.exportQuality = g.rangef(0.8, 0.95)
	return p
}

// detail records the plan in attack_detail.
func (p swapPlan) detail(d map[string]any) {
	d["method"] = p.method
	d["strength"] = p.strength
	d["grade"] = gradeOf(p.strength)
	d["other_colour_mode"] = p.otherMode
	d["offset_px"] = []float64{p.offset.X, p.offset.Y}
	d["angle_deg"] = round2(p.angle * 180 / math.Pi)
	d["scale"] = round3(p.scale)
	d["blur_px"] = round2(p.blur)
	if p.method == SwapPaste {
		d["paper_rim_px"] = round2(p.rim)
		d["paper_rim_opacity"] = round3(p.rimAlpha)
		d["edge_shadow"] = round3(p.shadow)
		d["print_grain"] = round2(p.grain)
		d["over_laminate"] = p.onTop
		return
	}
	d["feather_px"] = round2(p.feather)
	d["imitates_fade"] = p.fade
	d["source_jpeg_quality"] = round3(p.srcQuality)
	d["tone_matched"] = p.matchTone
	d["capture_matched"] = p.matchCapture
	d["export_jpeg_quality"] = round3(p.exportQuality)
}

// swapPicture is the new portrait as it is put on the card: staged like an
// ID photo, in the colour mode the plan says, softened as its source is.
// w and h are its size in card px.
func (p swapPlan) swapPicture(w, h int, grey bool) *fimg {
	pic := fimgFromRGBA(portrait(p.face, w, h, p.pose))
	for i := 0; i < len(pic.pix); i += 3 {
		r, g, b := float64(pic.pix[i]), float64(pic.pix[i+1]), float64(pic.pix[i+2])
		if grey {
			l := 0.299*r + 0.587*g + 0.114*b
			r, g, b = 30+l*0.8, 28+l*0.78, 26+l*0.74
		} else {
			r, g, b = 12+r*0.9, 12+g*0.9, 14+b*0.9
		}
		pic.pix[i], pic.pix[i+1], pic.pix[i+2] = float32(r), float32(g), float32(b)
	}
	gaussBlur(pic.pix, pic.w, pic.h, 3, p.blur)
	if p.srcQuality > 0 {
		pic = jpegRoundTrip(pic, p.srcQuality)
	}
	return pic
}

// jpegRoundTrip compresses and decodes a picture, leaving the blocks and
// ringing of that quality in it.
func jpegRoundTrip(f *fimg, quality float64) *fimg {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, f.toRGBA(), &jpeg.Options{Quality: int(math.Round(quality * 100))}); err != nil {
		return f
	}
	img, err := jpeg.Decode(&buf)
	if err != nil {
		return f
	}
	b := img.Bounds()
	out := newFimg(b.Dx(), b.Dy())
	for y := 0; y < out.h; y++ {
		for x := 0; x < out.w; x++ {
			r, g, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := (y*out.w + x) * 3
			out.pix[i], out.pix[i+1], out.pix[i+2] = float32(r>>8), float32(g>>8), float32(bb>>8)
		}
	}
	return out
}

// inside is how far (px) a point of the card lies inside the swapped
// photo's rectangle (negative outside), and the point in the picture's own
// coordinates.
func (p swapPlan) inside(pt vec, x, y, zw, zh float64) (float64, vec) {
	pw, ph := zw*p.scale, zh*p.scale
	c := vec{x + zw/2 + p.offset.X, y + zh/2 + p.offset.Y}
	u := pt.sub(c).rot(-p.angle)
	d := math.Min(pw/2-math.Abs(u.X), ph/2-math.Abs(u.Y))
	return d, vec{u.X + pw/2, u.Y + ph/2}
}

// drawPaste glues the printed photo over the zone (x, y, zw, zh) of the
// card: a hard cut edge with the paper's white core showing in a thin rim,
// a faint shadow where the paper's edge stands off the card, the print's
// grain.
func (p swapPlan) drawPaste(c *canvas, x, y, zw, zh float64, grey bool, g *rng) {
	pw, ph := int(math.Round(zw*p.scale)), int(math.Round(zh*p.scale))
	pic := p.swapPicture(pw, ph, grey)
	fn := &fastNoise{s: g.r.Uint64() | 1}
	for i := 0; i < len(pic.pix); i += 3 {
		n := fn.gauss() * float32(p.grain)
		cn := fn.gauss() * float32(p.grain) * 0.4
		pic.pix[i] += n + cn
		pic.pix[i+1] += n
		pic.pix[i+2] += n - cn
	}
	paper := [3]float64{246, 244, 239}
	// the shadow falls away from a light above left
	sh := vec{1.2, 1.4}
	reach := math.Hypot(zw, zh)*p.scale/2 + 6
	cx, cy := x+zw/2+p.offset.X, y+zh/2+p.offset.Y
	x0, y0 := max(int(cx-reach), 0), max(int(cy-reach), 0)
	x1, y1 := min(int(cx+reach)+1, c.w), min(int(cy+reach)+1, c.h)
	for py := y0; py < y1; py++ {
		for px := x0; px < x1; px++ {
			pt := vec{float64(px) + 0.5, float64(py) + 0.5}
			d, uv := p.inside(pt, x, y, zw, zh)
			ds, _ := p.inside(pt.sub(sh), x, y, zw, zh)
			cov := clamp(d+0.5, 0, 1)
			shade := clamp(clamp(ds+0.5, 0, 1)-cov, 0, 1) * p.shadow
			if cov <= 0 && shade <= 0 {
				continue
			}
			i := py*c.img.Stride + px*4
			px3 := c.img.Pix[i : i+3 : i+3]
			var col [3]float64
			if cov > 0 {
				r, gg, b := bilinearF(pic.pix, pic.w, pic.h, clamp(uv.X-0.5, 0, float64(pic.w-1)), clamp(uv.Y-0.5, 0, float64(pic.h-1)))
				col = [3]float64{float64(r), float64(gg), float64(b)}
				if t := clamp(p.rim-d, 0, 1) * p.rimAlpha; t > 0 {
					for k := range col {
						col[k] += (paper[k] - col[k]) * t
					}
				}
			}
			for k := 0; k < 3; k++ {
				v := float64(px3[k])*(1-shade*0.8)*(1-cov) + col[k]*cov
				px3[k] = clamp8(float32(v))
			}
		}
	}
}

// digitalSwap edits the photo of the card: the picture as the camera saved
// it is opened, the new face is warped onto the portrait through the
// card's perspective and blended in, and the whole is returned to be saved
// again. hm takes card px to capture px; zone is the portrait in card px.
func (p swapPlan) digitalSwap(shot *fimg, cp Capture, hm homography, x, y, zw, zh float64, grey, softEdge bool, g *rng) *fimg {
	out := jpegRoundTrip(shot, cp.JPEGQuality)
	pw, ph := int(math.Round(zw*p.scale)), int(math.Round(zh*p.scale))
	pic := p.swapPicture(pw, ph, grey)
	inv := hm.inverse()
	// the capture's scale at the portrait: capture px per card px
	c0 := hm.apply(vec{x + zw/2, y + zh/2})
	c1 := hm.apply(vec{x + zw/2 + 10, y + zh/2})
	k := c1.sub(c0).length() / 10
	if p.matchCapture {
		gaussBlur(pic.pix, pic.w, pic.h, 3, cp.DefocusSigma/math.Max(k, 0.2))
	}
	// the capture pixels the new photo covers
	reach := math.Hypot(zw, zh)*p.scale/2 + p.feather + 4
	var pts [4]vec
	cx, cy := x+zw/2+p.offset.X, y+zh/2+p.offset.Y
	for i, d := range [4]vec{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		pts[i] = hm.apply(vec{cx + d.X*reach, cy + d.Y*reach})
	}
	minX, minY, maxX, maxY := bounds(pts)
	bx0, by0 := clampi(int(minX), 0, out.w), clampi(int(minY), 0, out.h)
	bx1, by1 := clampi(int(maxX)+1, 0, out.w), clampi(int(maxY)+1, 0, out.h)
	type px struct {
		i     int
		a     float32
		col   [3]float32
		under [3]float32
	}
	var cover []px
	for py := by0; py < by1; py++ {
		for qx := bx0; qx < bx1; qx++ {
			q := inv.apply(vec{float64(qx) + 0.5, float64(py) + 0.5})
			d, uv := p.inside(q, x, y, zw, zh)
			a := smooth(d / p.feather)
			if p.fade && softEdge {
				// the card's own fade: 12 % of the side, as it prints
				a *= clamp(math.Min(math.Min(uv.X, float64(pw)-uv.X)/(0.12*float64(pw)), math.Min(uv.Y, float64(ph)-uv.Y)/(0.12*float64(ph))), 0, 1)
			}
			if a <= 0 {
				continue
			}
			r, gg, b := bilinearF(pic.pix, pic.w, pic.h, clamp(uv.X-0.5, 0, float64(pic.w-1)), clamp(uv.Y-0.5, 0, float64(pic.h-1)))
			i := (py*out.w + qx) * 3
			cover = append(cover, px{i: i, a: float32(a), col: [3]float32{r, gg, b}, under: [3]float32{out.pix[i], out.pix[i+1], out.pix[i+2]}})
		}
	}
	if p.matchTone && len(cover) > 0 {
		// match each channel's mean and spread to what is covered, as an
		// editor's "match colour" does
		for ch := 0; ch < 3; ch++ {
			var sa, sb, qa, qb, n float64
			for _, c := range cover {
				if c.a < 0.99 {
					continue
				}
				sa += float64(c.col[ch])
				qa += float64(c.col[ch]) * float64(c.col[ch])
				sb += float64(c.under[ch])
				qb += float64(c.under[ch]) * float64(c.under[ch])
				n++
			}
			if n < 16 {
				continue
			}
			ma, mb := sa/n, sb/n
			va, vb := math.Sqrt(math.Max(qa/n-ma*ma, 1)), math.Sqrt(math.Max(qb/n-mb*mb, 1))
			for j := range cover {
				cover[j].col[ch] = float32(mb + (float64(cover[j].col[ch])-ma)*vb/va)
			}
		}
	}
	fn := &fastNoise{s: g.r.Uint64() | 1}
	for _, c := range cover {
		var n float32
		if p.matchCapture {
			n = fn.gauss() * float32(cp.Noise)
		}
		for ch := 0; ch < 3; ch++ {
			out.pix[c.i+ch] = c.under[ch] + (c.col[ch]+n-c.under[ch])*c.a
		}
	}
	return out
}
