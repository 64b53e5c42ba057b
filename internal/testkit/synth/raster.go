package synth

import (
	"image"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// rgb is a colour with components in 0..255.
type rgb struct{ R, G, B float64 }

func hexRGB(s string) (rgb, bool) {
	if len(s) > 0 && s[0] == '#' {
		s = s[1:]
	}
	if len(s) != 6 {
		return rgb{}, false
	}
	var v [3]float64
	for i := 0; i < 3; i++ {
		var b int
		for _, ch := range s[2*i : 2*i+2] {
			b <<= 4
			switch {
			case ch >= '0' && ch <= '9':
				b |= int(ch - '0')
			case ch >= 'a' && ch <= 'f':
				b |= int(ch-'a') + 10
			case ch >= 'A' && ch <= 'F':
				b |= int(ch-'A') + 10
			default:
				return rgb{}, false
			}
		}
		v[i] = float64(b)
	}
	return rgb{v[0], v[1], v[2]}, true
}

func (c rgb) mix(o rgb, t float64) rgb {
	return rgb{c.R + (o.R-c.R)*t, c.G + (o.G-c.G)*t, c.B + (o.B-c.B)*t}
}

func (c rgb) scale(f float64) rgb { return rgb{c.R * f, c.G * f, c.B * f} }

// hsv builds a colour from hue (0..1, wraps), saturation and value (0..1).
func hsv(h, s, v float64) rgb {
	h -= math.Floor(h)
	h *= 6
	i := math.Floor(h)
	f := h - i
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch int(i) % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return rgb{r * 255, g * 255, b * 255}
}

type vec struct{ X, Y float64 }

func (a vec) add(b vec) vec         { return vec{a.X + b.X, a.Y + b.Y} }
func (a vec) sub(b vec) vec         { return vec{a.X - b.X, a.Y - b.Y} }
func (a vec) mul(f float64) vec     { return vec{a.X * f, a.Y * f} }
func (a vec) length() float64       { return math.Hypot(a.X, a.Y) }
func (a vec) rot(th float64) vec    { s, c := math.Sincos(th); return vec{a.X*c - a.Y*s, a.X*s + a.Y*c} }
func lerpv(a, b vec, t float64) vec { return vec{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t} }

// affine maps (x, y) to (A*x + B*y + C, D*x + E*y + F).
type affine struct{ A, B, C, D, E, F float64 }

var identityAffine = affine{A: 1, E: 1}

func (m affine) apply(p vec) vec {
	return vec{m.A*p.X + m.B*p.Y + m.C, m.D*p.X + m.E*p.Y + m.F}
}

// then returns the transform that applies m first and n second.
func (m affine) then(n affine) affine {
	return affine{
		A: n.A*m.A + n.B*m.D, B: n.A*m.B + n.B*m.E, C: n.A*m.C + n.B*m.F + n.C,
		D: n.D*m.A + n.E*m.D, E: n.D*m.B + n.E*m.E, F: n.D*m.C + n.E*m.F + n.F,
	}
}

func translate(x, y float64) affine { return affine{A: 1, E: 1, C: x, F: y} }
func rotate(th float64) affine {
	s, c := math.Sincos(th)
	return affine{A: c, B: -s, D: s, E: c}
}

// path is a list of closed contours kept with their bounds, so that filling
// it only touches the pixels it can cover.
type path struct {
	ops                    []pathOp
	started                bool
	minX, minY, maxX, maxY float64
}

type pathOp struct {
	kind byte // 'M', 'L', 'Q', 'C'
	p    [3]vec
}

func (p *path) grow(v vec) {
	if !p.started {
		p.started = true
		p.minX, p.maxX, p.minY, p.maxY = v.X, v.X, v.Y, v.Y
		return
	}
	p.minX = math.Min(p.minX, v.X)
	p.maxX = math.Max(p.maxX, v.X)
	p.minY = math.Min(p.minY, v.Y)
	p.maxY = math.Max(p.maxY, v.Y)
}

func (p *path) moveTo(v vec) { p.grow(v); p.ops = append(p.ops, pathOp{kind: 'M', p: [3]vec{v}}) }
func (p *path) lineTo(v vec) { p.grow(v); p.ops = append(p.ops, pathOp{kind: 'L', p: [3]vec{v}}) }
func (p *path) quadTo(a, b vec) {
	p.grow(a)
	p.grow(b)
	p.ops = append(p.ops, pathOp{kind: 'Q', p: [3]vec{a, b}})
}
func (p *path) cubeTo(a, b, c vec) {
	p.grow(a)
	p.grow(b)
	p.grow(c)
	p.ops = append(p.ops, pathOp{kind: 'C', p: [3]vec{a, b, c}})
}

// polygon adds a closed polygon.
func (p *path) polygon(pts []vec) {
	if len(pts) < 3 {
		return
	}
	p.moveTo(pts[0])
	for _, q := range pts[1:] {
		p.lineTo(q)
	}
	p.lineTo(pts[0])
}

// stroke adds a polyline of the given width as one quad per segment. All
// quads wind the same way, so overlaps add up and clamp instead of cancel.
func (p *path) stroke(pts []vec, width float64) {
	hw := width / 2
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		d := b.sub(a)
		l := d.length()
		if l < 1e-9 {
			continue
		}
		n := vec{-d.Y / l * hw, d.X / l * hw}
		// extend a little along the segment so joints do not leave gaps
		e := d.mul(hw * 0.5 / l)
		a, b = a.sub(e), b.add(e)
		p.moveTo(a.add(n))
		p.lineTo(b.add(n))
		p.lineTo(b.sub(n))
		p.lineTo(a.sub(n))
		p.lineTo(a.add(n))
	}
}

// ellipse adds an ellipse approximated by n segments.
func (p *path) ellipse(c vec, rx, ry float64, n int) {
	pts := make([]vec, n)
	for i := range pts {
		s, co := math.Sincos(2 * math.Pi * float64(i) / float64(n))
		pts[i] = vec{c.X + rx*co, c.Y + ry*s}
	}
	p.polygon(pts)
}

// ring adds an annulus (outer contour one way, inner the other).
func (p *path) ring(c vec, r0, r1 float64, n int) {
	outer := make([]vec, n)
	inner := make([]vec, n)
	for i := 0; i < n; i++ {
		s, co := math.Sincos(2 * math.Pi * float64(i) / float64(n))
		outer[i] = vec{c.X + r1*co, c.Y + r1*s}
		inner[n-1-i] = vec{c.X + r0*co, c.Y + r0*s}
	}
	p.polygon(outer)
	p.polygon(inner)
}

func (p *path) rect(x, y, w, h float64) {
	p.polygon([]vec{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}})
}

// roundRect adds a rectangle with circular corners of radius r.
func (p *path) roundRect(x, y, w, h, r float64) { p.polygon(roundRectPts(x, y, w, h, r)) }

// roundRectHole adds the same outline wound the other way, to cut a hole.
func (p *path) roundRectHole(x, y, w, h, r float64) {
	pts := roundRectPts(x, y, w, h, r)
	for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
		pts[i], pts[j] = pts[j], pts[i]
	}
	p.polygon(pts)
}

func roundRectPts(x, y, w, h, r float64) []vec {
	r = math.Min(r, math.Min(w, h)/2)
	var pts []vec
	corner := func(cx, cy, a0 float64) {
		for i := 0; i <= 6; i++ {
			s, c := math.Sincos(a0 + float64(i)/6*math.Pi/2)
			pts = append(pts, vec{cx + r*c, cy + r*s})
		}
	}
	corner(x+w-r, y+r, -math.Pi/2)
	corner(x+w-r, y+h-r, 0)
	corner(x+r, y+h-r, math.Pi/2)
	corner(x+r, y+r, math.Pi)
	return pts
}

// canvas is an opaque RGBA picture with a scratch rasterizer.
type canvas struct {
	img  *image.RGBA
	w, h int
	ras  vector.Rasterizer
	mask image.Alpha
	clip image.Rectangle // when not empty, fills stay inside it
}

func newCanvas(w, h int) *canvas {
	return &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h)), w: w, h: h}
}

func (c *canvas) fillAll(col rgb) {
	r, g, b := clamp8(float32(col.R)), clamp8(float32(col.G)), clamp8(float32(col.B))
	pix := c.img.Pix
	for i := 0; i < len(pix); i += 4 {
		pix[i], pix[i+1], pix[i+2], pix[i+3] = r, g, b, 255
	}
}

// coverage rasterizes p and returns its anti-aliased coverage in the
// returned rectangle (mask pixels are 0..255, row stride rect width).
func (c *canvas) coverage(p *path) (image.Rectangle, []uint8) {
	if len(p.ops) == 0 {
		return image.Rectangle{}, nil
	}
	x0 := int(math.Floor(p.minX)) - 1
	y0 := int(math.Floor(p.minY)) - 1
	x1 := int(math.Ceil(p.maxX)) + 1
	y1 := int(math.Ceil(p.maxY)) + 1
	r := image.Rect(x0, y0, x1, y1).Intersect(image.Rect(0, 0, c.w, c.h))
	if !c.clip.Empty() {
		r = r.Intersect(c.clip)
	}
	if r.Empty() {
		return r, nil
	}
	// The rasterizer works in the full path box so that contours clipped by
	// the canvas edge still close properly; only r is read back.
	bw, bh := x1-x0, y1-y0
	c.ras.Reset(bw, bh)
	c.ras.DrawOp = draw.Src
	ox, oy := float32(x0), float32(y0)
	for _, op := range p.ops {
		switch op.kind {
		case 'M':
			c.ras.MoveTo(float32(op.p[0].X)-ox, float32(op.p[0].Y)-oy)
		case 'L':
			c.ras.LineTo(float32(op.p[0].X)-ox, float32(op.p[0].Y)-oy)
		case 'Q':
			c.ras.QuadTo(float32(op.p[0].X)-ox, float32(op.p[0].Y)-oy, float32(op.p[1].X)-ox, float32(op.p[1].Y)-oy)
		case 'C':
			c.ras.CubeTo(float32(op.p[0].X)-ox, float32(op.p[0].Y)-oy, float32(op.p[1].X)-ox, float32(op.p[1].Y)-oy, float32(op.p[2].X)-ox, float32(op.p[2].Y)-oy)
		}
	}
	c.ras.ClosePath()
	if cap(c.mask.Pix) < bw*bh {
		c.mask.Pix = make([]uint8, bw*bh)
	}
	c.mask.Pix = c.mask.Pix[:bw*bh]
	c.mask.Stride = bw
	c.mask.Rect = image.Rect(0, 0, bw, bh)
	c.ras.Draw(&c.mask, c.mask.Rect, image.Opaque, image.Point{})
	return r, c.mask.Pix
}

// fill paints p with col at the given opacity.
func (c *canvas) fill(p *path, col rgb, opacity float64) {
	r, m := c.coverage(p)
	if m == nil {
		return
	}
	x0 := int(math.Floor(p.minX)) - 1
	y0 := int(math.Floor(p.minY)) - 1
	stride := c.mask.Stride
	op := float32(opacity) / 255
	cr, cg, cb := float32(col.R), float32(col.G), float32(col.B)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		mrow := m[(y-y0)*stride:]
		di := c.img.PixOffset(r.Min.X, y)
		for x := r.Min.X; x < r.Max.X; x, di = x+1, di+4 {
			a := float32(mrow[x-x0]) * op
			if a <= 0 {
				continue
			}
			px := c.img.Pix[di : di+3 : di+3]
			px[0] = uint8(float32(px[0]) + (cr-float32(px[0]))*a + 0.5)
			px[1] = uint8(float32(px[1]) + (cg-float32(px[1]))*a + 0.5)
			px[2] = uint8(float32(px[2]) + (cb-float32(px[2]))*a + 0.5)
		}
	}
}

// fillFunc paints p with a colour computed per pixel.
func (c *canvas) fillFunc(p *path, opacity float64, col func(x, y int) rgb) {
	r, m := c.coverage(p)
	if m == nil {
		return
	}
	x0 := int(math.Floor(p.minX)) - 1
	y0 := int(math.Floor(p.minY)) - 1
	stride := c.mask.Stride
	op := float32(opacity) / 255
	for y := r.Min.Y; y < r.Max.Y; y++ {
		mrow := m[(y-y0)*stride:]
		di := c.img.PixOffset(r.Min.X, y)
		for x := r.Min.X; x < r.Max.X; x, di = x+1, di+4 {
			a := float32(mrow[x-x0]) * op
			if a <= 0 {
				continue
			}
			k := col(x, y)
			px := c.img.Pix[di : di+3 : di+3]
			px[0] = clamp8(float32(px[0]) + (float32(k.R)-float32(px[0]))*a)
			px[1] = clamp8(float32(px[1]) + (float32(k.G)-float32(px[1]))*a)
			px[2] = clamp8(float32(px[2]) + (float32(k.B)-float32(px[2]))*a)
		}
	}
}
