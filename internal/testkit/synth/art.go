package synth

import (
	"image"
	"math"
)

// artStyle is another security print for a side: tint, pattern, inks and
// a watermark emblem. The art family draws from waves, rings and rosette
// fields; the held-out family from meshes and sunbursts, and tints of its
// own lightness band.
type artStyle struct {
	palette  []rgb  // background tints, light to dark
	pattern  string // waves, rings, rosettes (art); mesh, sunburst (held out)
	density  float64
	amp      float64
	opacity  float64
	line     rgb
	line2    rgb
	labelInk rgb
	accent   rgb
	// watermark: a large faint emblem or seal somewhere behind the text
	mark        string // emblem, seal, none
	markAt      vec    // normalised centre
	markSize    float64
	markOpacity float64
	seed        uint64
}

// drawArt draws an art style; heldout draws from the held-out ranges.
func drawArt(g *rng, heldout bool) *artStyle {
	a := &artStyle{seed: g.r.Uint64()}
	var hue, sat, val float64
	if heldout {
		hue = g.float()
		sat = g.rangef(0.12, 0.22)
		val = g.rangef(0.88, 0.93)
		a.pattern = pick(g, []string{"mesh", "sunburst"})
		a.mark = pick(g, []string{"seal", "none"})
		a.labelInk = pick(g, []rgb{{60, 40, 100}, {90, 50, 30}, {30, 70, 50}})
		a.accent = pick(g, []rgb{{60, 30, 90}, {100, 60, 20}, {30, 60, 30}})
	} else {
		hue = g.float()
		sat = g.rangef(0.04, 0.12)
		val = g.rangef(0.92, 0.97)
		a.pattern = pick(g, []string{"waves", "rings", "rosettes"})
		a.mark = pick(g, []string{"emblem", "emblem", "none"})
		a.labelInk = pick(g, []rgb{{20, 20, 24}, {30, 50, 120}, {130, 30, 30}, {20, 90, 60}})
		a.accent = pick(g, []rgb{{20, 40, 100}, {140, 30, 30}, {20, 80, 50}, {40, 40, 40}})
	}
	a.palette = []rgb{hsv(hue, sat, val), hsv(hue+g.rangef(-0.08, 0.08), sat*1.6, val*0.93)}
	a.line = hsv(hue+g.rangef(-0.15, 0.15), g.rangef(0.3, 0.6), g.rangef(0.45, 0.7))
	a.line2 = hsv(hue+0.5+g.rangef(-0.1, 0.1), g.rangef(0.3, 0.6), g.rangef(0.5, 0.75))
	a.density = g.rangef(0.6, 1.6)
	a.amp = g.rangef(0.5, 1.6)
	a.opacity = g.rangef(0.16, 0.28)
	a.markAt = vec{g.rangef(0.35, 0.75), g.rangef(0.35, 0.7)}
	a.markSize = g.rangef(0.35, 0.6)
	a.markOpacity = g.rangef(0.05, 0.1)
	return a
}

// artGuilloche paints an art style's pattern into a zone (pixels).
func (r *renderer) artGuilloche(c *canvas, a *artStyle, x, y, zw, zh float64, issuer string) {
	g := newRNG(a.seed, 17)
	c.clip = image.Rect(int(x), int(y), int(math.Ceil(x+zw)), int(math.Ceil(y+zh)))
	defer func() { c.clip = image.Rectangle{} }()
	switch a.pattern {
	case "waves":
		n := int(zh / 7 * a.density)
		amp := zh * 0.035 * a.amp
		wl := zw * g.rangef(0.12, 0.4)
		waveFamily(c, x-10, y-amp, zw+20, zh+2*amp, max(n, 8), amp, wl, g.rangef(0.1, 0.35), 0.9, a.line, a.opacity)
		waveFamily(c, x-10, y-amp, zw+20, zh+2*amp, max(n, 8), amp*1.4, wl*1.3, -g.rangef(0.1, 0.3), 0.8, a.line2, a.opacity*0.8)
	case "rings":
		// concentric rings around two centres: moiré where they cross
		for k := 0; k < 2; k++ {
			ctr := vec{x + zw*g.rangef(0, 1), y + zh*g.rangef(0, 1)}
			step := 7 / a.density
			var p path
			for rr := step; rr < math.Hypot(zw, zh); rr += step {
				p.ring(ctr, rr, rr+0.8, max(24, int(rr/2)))
			}
			col := a.line
			if k == 1 {
				col = a.line2
			}
			c.fill(&p, col, a.opacity)
		}
	case "rosettes":
		n := 2 + g.intn(3)
		for k := 0; k < n; k++ {
			ctr := vec{x + zw*g.rangef(0.1, 0.9), y + zh*g.rangef(0.15, 0.85)}
			rr := math.Min(zw, zh) * g.rangef(0.2, 0.4)
			rosette(c, ctr, rr, g.between(20, 36), g.between(6, 14), g.rangef(0.15, 0.3), 0.8, a.line, a.opacity)
		}
		waveFamily(c, x-10, y, zw+20, zh, int(zh/12*a.density)+4, zh*0.02, zw*0.3, 0.2, 0.7, a.line2, a.opacity*0.7)
	case "mesh":
		// two families of straight fine lines crossing at an angle
		for k, ang := range []float64{g.rangef(0.3, 0.7), -g.rangef(0.3, 0.7)} {
			step := 6 / a.density
			dx, dy := math.Cos(ang), math.Sin(ang)
			nx, ny := -dy, dx
			diag := math.Hypot(zw, zh)
			var p path
			ctr := vec{x + zw/2, y + zh/2}
			for o := -diag; o < diag; o += step {
				a0 := vec{ctr.X + nx*o - dx*diag, ctr.Y + ny*o - dy*diag}
				a1 := vec{ctr.X + nx*o + dx*diag, ctr.Y + ny*o + dy*diag}
				p.stroke([]vec{a0, a1}, 0.7)
			}
			col := a.line
			if k == 1 {
				col = a.line2
			}
			c.fill(&p, col, a.opacity*0.8)
		}
	case "sunburst":
		ctr := vec{x + zw*pick(g, []float64{-0.1, 1.1}), y + zh*g.rangef(-0.2, 1.2)}
		var p path
		n := int(360 * a.density)
		far := 2 * math.Hypot(zw, zh)
		for i := 0; i < n; i++ {
			th := 2 * math.Pi * float64(i) / float64(n)
			p.stroke([]vec{ctr, {ctr.X + far*math.Cos(th), ctr.Y + far*math.Sin(th)}}, 0.8)
		}
		c.fill(&p, a.line, a.opacity)
		// a band of fine waves across the middle
		waveFamily(c, x-10, y+zh*0.3, zw+20, zh*0.4, int(zh/14)+4, zh*0.015, zw*0.2, 0.25, 0.6, a.line2, a.opacity*0.7)
	}
	if a.mark != "none" {
		ctr := vec{x + zw*a.markAt.X, y + zh*a.markAt.Y}
		size := math.Min(zw, zh) * a.markSize
		switch a.mark {
		case "emblem":
			emblem(c, r.fonts, ctr, size, []rgb{a.line, a.line2, a.line}, "", g, a.markOpacity)
		case "seal":
			seal(c, r.fonts, ctr, size/2, issuer, a.line, a.markOpacity*1.5, g)
		}
	}
}
