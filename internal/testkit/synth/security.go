package synth

import (
	"math"
)

// The security print of a card: tinted gradient, guilloche line families,
// rosettes, microtext, seals and the hologram patch. All sizes are in card
// pixels; ppm is pixels per millimetre.

// gradientBase fills the card with a tint that moves through cols along a
// direction, with a soft lighter bloom, the way offset-printed card stock
// looks.
func gradientBase(c *canvas, cols []rgb, angle float64, bloom vec, g *rng) {
	if len(cols) == 0 {
		cols = []rgb{{238, 236, 228}}
	}
	dx, dy := math.Cos(angle), math.Sin(angle)
	w, h := float64(c.w), float64(c.h)
	span := math.Abs(dx)*w + math.Abs(dy)*h
	off := math.Min(0, dx*w) + math.Min(0, dy*h)
	n := len(cols)
	lut := make([]rgb, 256)
	for i := range lut {
		t := float64(i) / 255 * float64(n-1)
		k := int(t)
		if k >= n-1 {
			lut[i] = cols[n-1]
			continue
		}
		// smoothstep between neighbouring stops
		f := t - float64(k)
		f = f * f * (3 - 2*f)
		lut[i] = cols[k].mix(cols[k+1], f)
	}
	br := 0.55 * math.Hypot(w, h)
	pix := c.img.Pix
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			t := ((float64(x)*dx + float64(y)*dy) - off) / span
			col := lut[int(clamp(t, 0, 1)*255)]
			d := math.Hypot(float64(x)-bloom.X, float64(y)-bloom.Y) / br
			lift := 0.10 * math.Exp(-d*d*2.5)
			i := y*c.img.Stride + x*4
			pix[i] = clamp8(float32(col.R + (255-col.R)*lift))
			pix[i+1] = clamp8(float32(col.G + (255-col.G)*lift))
			pix[i+2] = clamp8(float32(col.B + (255-col.B)*lift))
			pix[i+3] = 255
		}
	}
}

// waveFamily draws n sinusoidal lines across the rectangle, each shifted in
// phase from the last, which gives the interlaced lens shapes of banknote
// backgrounds. Two calls with opposite phase steps make the crossings.
func waveFamily(c *canvas, x0, y0, w, h float64, n int, amp, wavelength, phaseStep, width float64, col rgb, opacity float64) {
	var p path
	step := 3.0
	pts := make([]vec, 0, int(w/step)+2)
	for i := 0; i < n; i++ {
		base := y0 + h*float64(i)/float64(n-1)
		ph := float64(i) * phaseStep
		pts = pts[:0]
		for x := x0; x <= x0+w+step; x += step {
			t := 2 * math.Pi * (x - x0) / wavelength
			y := base + amp*math.Sin(t+ph) + amp*0.35*math.Sin(2.3*t-ph*0.7)
			pts = append(pts, vec{x, y})
		}
		p.stroke(pts, width)
	}
	c.fill(&p, col, opacity)
}

// rosette draws a guilloche rosette: n closed curves r(θ) = R(1 + a·sin(kθ
// + φ_j)) with a second harmonic, each rotated a little from the last.
func rosette(c *canvas, centre vec, r float64, n, k int, a float64, width float64, col rgb, opacity float64) {
	var p path
	segs := 64 * k
	if segs > 900 {
		segs = 900
	}
	pts := make([]vec, segs+1)
	for j := 0; j < n; j++ {
		ph := 2 * math.Pi * float64(j) / float64(n) / float64(k)
		for i := 0; i <= segs; i++ {
			th := 2 * math.Pi * float64(i) / float64(segs)
			rr := r * (1 - a + a*math.Sin(float64(k)*th+ph*float64(k)) + 0.25*a*math.Sin(float64(2*k+1)*th-ph))
			s, co := math.Sincos(th + ph)
			pts[i] = vec{centre.X + rr*co, centre.Y + rr*s}
		}
		p.stroke(pts, width)
	}
	c.fill(&p, col, opacity)
}

// spirograph draws a hypotrochoid band, another classic guilloche motif.
func spirograph(c *canvas, centre vec, R, r, d float64, turns int, width float64, col rgb, opacity float64) {
	var p path
	n := turns * 360
	pts := make([]vec, 0, n+1)
	for i := 0; i <= n; i++ {
		t := 2 * math.Pi * float64(i) / 360
		x := (R-r)*math.Cos(t) + d*math.Cos((R-r)/r*t)
		y := (R-r)*math.Sin(t) - d*math.Sin((R-r)/r*t)
		pts = append(pts, vec{centre.X + x, centre.Y + y})
	}
	p.stroke(pts, width)
	c.fill(&p, col, opacity)
}

// microtext repeats s along a line of the given width: at card resolution
// it reads as a fine dotted rule, as real microprint does in a photo.
func microtext(c *canvas, fs *fonts, x, y, w, size float64, s string, col rgb, opacity float64) {
	st := textStyle{font: fontCondBold, size: size}
	unit := fs.measure(st, s+" ")
	if unit <= 0 {
		return
	}
	var p path
	for off := 0.0; off < w; off += unit {
		fs.text(&p, st, s, translate(x+off, y))
	}
	// clip is implicit: the canvas bounds; the run may overshoot w by one word
	c.fill(&p, col, opacity)
}

// textOnCircle sets s around a circle of radius r, letters upright to the
// centre, starting at angle a0 (radians, 0 = right, clockwise positive).
func textOnCircle(p *path, fs *fonts, st textStyle, s string, centre vec, r, a0 float64) {
	for _, ch := range s {
		cs := string(ch)
		adv := fs.measure(st, cs)
		th := a0 + adv/2/r
		// glyph centred on its advance, baseline on the circle
		m := translate(-adv/2, 0).then(rotate(th + math.Pi/2)).then(translate(centre.X+r*math.Cos(th), centre.Y+r*math.Sin(th)))
		fs.text(p, st, cs, m)
		a0 += (adv + st.track*st.size) / r
	}
}

// seal draws a round stamp: two rings, the issuer's name around the edge,
// a star and fine radial rays, in one ink.
func seal(c *canvas, fs *fonts, centre vec, r float64, name string, col rgb, opacity float64, g *rng) {
	var p path
	p.ring(centre, r*0.95, r, 120)
	p.ring(centre, r*0.70, r*0.73, 120)
	st := textStyle{font: fontSansBold, size: r * 0.18}
	// spread the name over about 300 degrees, starting at the lower left
	circ := 2 * math.Pi * r * 0.78
	w := fs.measure(st, name)
	if w > 0 && w < circ*0.85 {
		st.track = (circ*0.82 - w) / float64(len([]rune(name))) / st.size
	} else if w > 0 {
		st.size *= circ * 0.85 / w
	}
	textOnCircle(&p, fs, st, name, centre, r*0.78, math.Pi*0.62)
	// star
	k := g.between(5, 8)
	var star []vec
	for i := 0; i < 2*k; i++ {
		rr := r * 0.38
		if i%2 == 1 {
			rr = r * 0.16
		}
		a := -math.Pi/2 + math.Pi*float64(i)/float64(k)
		star = append(star, vec{centre.X + rr*math.Cos(a), centre.Y + rr*math.Sin(a)})
	}
	p.polygon(star)
	for i := 0; i < 48; i++ {
		a := 2 * math.Pi * float64(i) / 48
		d := vec{math.Cos(a), math.Sin(a)}
		p.stroke([]vec{centre.add(d.mul(r * 0.44)), centre.add(d.mul(r * 0.66))}, math.Max(0.6, r*0.012))
	}
	c.fill(&p, col, opacity)
}

// emblem draws a procedural coat of arms: a shield split into bands, two
// crossed spears behind it, supporters as rounded shapes and a motto
// ribbon. It is not any real country's arms; it only has their shape.
func emblem(c *canvas, fs *fonts, centre vec, h float64, pal []rgb, motto string, g *rng, opacity float64) {
	w := h * 0.62
	top := centre.Y - h*0.42
	ink := rgb{40, 35, 30}
	// spears
	var sp path
	for _, s := range []float64{-1, 1} {
		a := vec{centre.X - s*w*0.75, top + h*0.9}
		b := vec{centre.X + s*w*0.75, top - h*0.05}
		sp.stroke([]vec{a, b}, math.Max(1, h*0.025))
		d := b.sub(a).mul(1 / b.sub(a).length())
		n := vec{-d.Y, d.X}
		tip := b.add(d.mul(h * 0.12))
		sp.polygon([]vec{b.add(n.mul(h * 0.04)), tip, b.sub(n.mul(h * 0.04))})
	}
	c.fill(&sp, ink, opacity)
	// supporters: two upright ovals with a head, suggestive of animals
	var su path
	for _, s := range []float64{-1, 1} {
		cx := centre.X + s*w*0.78
		su.ellipse(vec{cx, centre.Y + h*0.05}, w*0.18, h*0.30, 40)
		su.ellipse(vec{cx + s*w*0.05, centre.Y - h*0.28}, w*0.12, h*0.09, 30)
	}
	c.fill(&su, pal[len(pal)-1].mix(rgb{150, 110, 60}, 0.6), opacity*0.9)
	// shield outline
	shield := func(inset float64) []vec {
		var pts []vec
		x0, x1 := centre.X-w/2+inset, centre.X+w/2-inset
		y0 := top + inset
		yb := top + h*0.62
		pts = append(pts, vec{x0, y0}, vec{x1, y0})
		for i := 0; i <= 16; i++ {
			t := float64(i) / 16
			// right side curving into the point at the bottom
			a := t * math.Pi / 2
			pts = append(pts, vec{centre.X + (x1-centre.X)*math.Cos(a), yb + (top+h*0.86-inset-yb)*math.Sin(a)})
		}
		for i := 15; i >= 0; i-- {
			t := float64(i) / 16
			a := t * math.Pi / 2
			pts = append(pts, vec{centre.X - (centre.X-x0)*math.Cos(a), yb + (top+h*0.86-inset-yb)*math.Sin(a)})
		}
		return pts
	}
	var outer path
	outer.polygon(shield(0))
	c.fill(&outer, ink, opacity)
	inner := shield(h * 0.025)
	// bands clipped to the inner shield, drawn as horizontal strips of it
	nb := len(pal)
	for i := 0; i < nb; i++ {
		y0 := top + h*0.86*float64(i)/float64(nb)
		y1 := top + h*0.86*float64(i+1)/float64(nb)
		strip := clipPolyY(inner, y0, y1)
		var sp path
		sp.polygon(strip)
		c.fill(&sp, pal[i], opacity)
	}
	// a central device: a small disc with a star
	var dev path
	dev.ellipse(vec{centre.X, top + h*0.40}, w*0.16, w*0.16, 32)
	c.fill(&dev, rgb{250, 246, 235}, opacity)
	var st path
	var pts []vec
	for i := 0; i < 10; i++ {
		rr := w * 0.12
		if i%2 == 1 {
			rr = w * 0.05
		}
		a := -math.Pi/2 + math.Pi*float64(i)/5
		pts = append(pts, vec{centre.X + rr*math.Cos(a), top + h*0.40 + rr*math.Sin(a)})
	}
	st.polygon(pts)
	c.fill(&st, ink, opacity)
	// motto ribbon
	var rb path
	ry := top + h*0.93
	rb.polygon([]vec{{centre.X - w*0.95, ry - h*0.05}, {centre.X + w*0.95, ry - h*0.05}, {centre.X + w*1.05, ry + h*0.06}, {centre.X - w*1.05, ry + h*0.06}})
	c.fill(&rb, rgb{235, 215, 150}, opacity)
	if motto != "" {
		mst := textStyle{font: fontSansBold, size: h * 0.075}
		mw := fs.measure(mst, motto)
		if mw > w*1.8 {
			mst.size *= w * 1.8 / mw
			mw = w * 1.8
		}
		var mt path
		fs.text(&mt, mst, motto, translate(centre.X-mw/2, ry+mst.size*0.35))
		c.fill(&mt, ink, opacity)
	}
}

// clipPolyY clips a convex-ish polygon to the band y0 <= y < y1
// (Sutherland-Hodgman against two horizontal lines).
func clipPolyY(pts []vec, y0, y1 float64) []vec {
	clip := func(in []vec, keep func(vec) bool, y float64) []vec {
		var out []vec
		for i := range in {
			a, b := in[i], in[(i+1)%len(in)]
			ka, kb := keep(a), keep(b)
			if ka {
				out = append(out, a)
			}
			if ka != kb {
				t := (y - a.Y) / (b.Y - a.Y)
				out = append(out, lerpv(a, b, t))
			}
		}
		return out
	}
	out := clip(pts, func(v vec) bool { return v.Y >= y0 }, y0)
	if len(out) == 0 {
		return nil
	}
	return clip(out, func(v vec) bool { return v.Y <= y1 }, y1)
}

// hologram paints an iridescent patch: hue running with position and with
// the viewing angle (hueShift), concentric diffraction rings and a metallic
// sheen, blended over what is printed beneath.
func hologram(c *canvas, x0, y0, w, h float64, hueShift float64, opacity float64, g *rng) {
	cx, cy := x0+w/2, y0+h/2
	rings := g.rangef(0.35, 0.6)
	var p path
	shape := g.intn(3)
	switch shape {
	case 0:
		p.ellipse(vec{cx, cy}, w/2, h/2, 64)
	case 1:
		p.roundRect(x0, y0, w, h, math.Min(w, h)*0.2)
	default:
		// a star-edged patch
		var pts []vec
		for i := 0; i < 32; i++ {
			rr := 0.5
			if i%2 == 1 {
				rr = 0.42
			}
			a := 2 * math.Pi * float64(i) / 32
			pts = append(pts, vec{cx + w*rr*math.Cos(a), cy + h*rr*math.Sin(a)})
		}
		p.polygon(pts)
	}
	c.fillFunc(&p, opacity, func(x, y int) rgb {
		fx, fy := float64(x)-cx, float64(y)-cy
		d := math.Hypot(fx/w, fy/h)
		hue := hueShift + 0.9*(fx/w) + 0.6*(fy/h) + 0.25*math.Sin(d*2*math.Pi/rings*6)
		sheen := 0.82 + 0.18*math.Cos((fx+fy)/(w+h)*7+hueShift*9)
		col := hsv(hue, 0.45, sheen)
		return col.mix(rgb{228, 228, 232}, 0.35)
	})
	// fine embossed lines of the hologram's motif
	var lines path
	for i := 1; i < 6; i++ {
		f := float64(i) / 6
		lines.ring(vec{cx, cy}, math.Min(w, h)*f*0.5-0.6, math.Min(w, h)*f*0.5+0.6, 64)
	}
	c.fill(&lines, rgb{255, 255, 255}, opacity*0.7)
}
