package synth

import (
	"fmt"
	"math"
)

// Difficulty sets the ranges the capture simulator draws from.
type Difficulty string

// Difficulties.
const (
	Easy   Difficulty = "easy"
	Medium Difficulty = "medium"
	Hard   Difficulty = "hard"
)

// ParseDifficulty accepts easy, medium or hard.
func ParseDifficulty(s string) (Difficulty, error) {
	switch Difficulty(s) {
	case Easy, Medium, Hard:
		return Difficulty(s), nil
	}
	return "", fmt.Errorf("synth: difficulty %q is not easy, medium or hard", s)
}

// ranges are the bounds of every capture parameter for one difficulty.
type ranges struct {
	tilt              float64    // max degrees about each axis
	rotation          float64    // max in-plane degrees either way (360: any)
	quarterTurn       float64    // chance of adding a multiple of 90 degrees
	fill              [2]float64 // card long edge over photo long edge
	uneven            [2]float64 // light gradient strength
	vignette          [2]float64
	exposure          [2]float64
	glareP            float64
	glare             [2]float64
	defocus           [2]float64 // Gaussian sigma in px
	motionP           float64
	motion            [2]float64 // length in px
	noise             [2]float64 // sensor noise sd in 0..255 units
	jpeg              [2]float64 // quality 0..1
	colourTemperature float64
	portrait          bool    // always shoot in portrait orientation
	thumbP            float64 // chance of a thumb over the edge
	exifP             float64 // chance the JPEG stores turned pixels with an EXIF orientation
}

var skinTones = []rgb{{92, 60, 45}, {120, 80, 60}, {150, 105, 80}, {175, 130, 100}, {200, 155, 125}, {225, 185, 160}}

var difficultyRanges = map[Difficulty]ranges{
	Easy: {tilt: 5, rotation: 6, fill: [2]float64{0.62, 0.9}, uneven: [2]float64{0, 0.12}, vignette: [2]float64{0, 0.12},
		exposure: [2]float64{0.95, 1.06}, glareP: 0.15, glare: [2]float64{0.15, 0.35}, defocus: [2]float64{0, 0.6},
		motionP: 0, noise: [2]float64{1, 3}, jpeg: [2]float64{0.85, 0.95}, colourTemperature: 0.3, thumbP: 0.1, exifP: 0},
	Medium: {tilt: 12, rotation: 25, quarterTurn: 0.2, fill: [2]float64{0.45, 0.85}, uneven: [2]float64{0.08, 0.3},
		vignette: [2]float64{0.05, 0.25}, exposure: [2]float64{0.82, 1.1}, glareP: 0.4, glare: [2]float64{0.25, 0.6},
		defocus: [2]float64{0.3, 1.4}, motionP: 0.3, motion: [2]float64{2, 6}, noise: [2]float64{2, 6},
		jpeg: [2]float64{0.7, 0.92}, colourTemperature: 0.6, thumbP: 0.25, exifP: 0.15},
	Hard: {tilt: 20, rotation: 360, fill: [2]float64{0.3, 0.75}, uneven: [2]float64{0.2, 0.5}, vignette: [2]float64{0.1, 0.4},
		exposure: [2]float64{0.7, 1.15}, glareP: 0.7, glare: [2]float64{0.4, 0.9}, defocus: [2]float64{0.8, 2.4},
		motionP: 0.5, motion: [2]float64{3, 11}, noise: [2]float64{4, 10}, jpeg: [2]float64{0.5, 0.8}, colourTemperature: 1, thumbP: 0.35, exifP: 0.3},
}

// Glare is a specular highlight on the card.
type Glare struct {
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	RX       float64 `json:"rx"`
	RY       float64 `json:"ry"`
	AngleDeg float64 `json:"angle_deg"`
	Strength float64 `json:"strength"`
}

// Capture is every parameter the phone simulator drew for one photo.
type Capture struct {
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	Background  string  `json:"background"`
	RotationDeg float64 `json:"rotation_deg"`
	TiltXDeg    float64 `json:"tilt_x_deg"`
	TiltYDeg    float64 `json:"tilt_y_deg"`
	FocalPx     float64 `json:"focal_px"`
	// Fill is the card's projected long edge over the photo's long edge;
	// AreaFraction the share of the photo the card covers.
	Fill         float64 `json:"fill"`
	AreaFraction float64 `json:"area_fraction"`
	// Corners are where the document's top-left, top-right, bottom-right
	// and bottom-left corners landed in the photo, in pixels.
	Corners          [4][2]float64 `json:"corners"`
	ShadowDX         float64       `json:"shadow_dx"`
	ShadowDY         float64       `json:"shadow_dy"`
	ShadowBlur       float64       `json:"shadow_blur"`
	ShadowOpacity    float64       `json:"shadow_opacity"`
	LightGradient    float64       `json:"light_gradient"`
	LightAngleDeg    float64       `json:"light_angle_deg"`
	Vignette         float64       `json:"vignette"`
	Exposure         float64       `json:"exposure"`
	ColourTemp       float64       `json:"colour_temperature"`
	Glare            *Glare        `json:"glare"`
	DefocusSigma     float64       `json:"defocus_sigma"`
	MotionLength     float64       `json:"motion_length"`
	MotionAngleDeg   float64       `json:"motion_angle_deg"`
	Noise            float64       `json:"noise"`
	JPEGQuality      float64       `json:"jpeg_quality"`
	BackgroundSeed   uint64        `json:"background_seed,string"`
	NoiseSeed        uint64        `json:"noise_seed,string"`
	HologramHueShift float64       `json:"hologram_hue_shift"`
	// Thumb is the holder's thumb over the document's edge, when drawn.
	Thumb *Thumb `json:"thumb"`
	// EXIFOrientation is the orientation tag of the stored JPEG (1, 3, 6
	// or 8); every coordinate above is of the picture as displayed.
	EXIFOrientation int `json:"exif_orientation"`
}

// Thumb is a thumb holding the document: its tip reaches Depth (a share
// of the document's short side) in from edge Edge (0 top, 1 right, 2
// bottom, 3 left, of the document) at position T along it.
type Thumb struct {
	Edge     int     `json:"edge"`
	T        float64 `json:"t"`
	Depth    float64 `json:"depth"`
	AngleDeg float64 `json:"angle_deg"`
	Skin     [3]int  `json:"skin"`
}

// drawCapture draws capture parameters for a document of the given pixel
// size. The corners are placed so the whole document is in frame.
func drawCapture(g *rng, d Difficulty, docW, docH int) Capture {
	return drawCaptureR(g, difficultyRanges[d], docW, docH)
}

// heldRanges are the ranges for a picture held up to the camera (a print
// or a screen in a presentation attack): upright, filling the frame.
func heldRanges(d Difficulty) ranges {
	rg := difficultyRanges[d]
	rg.rotation = 8
	rg.quarterTurn = 0
	rg.tilt = math.Min(rg.tilt, 15)
	rg.fill = [2]float64{0.72, 0.95}
	rg.glareP *= 0.5
	rg.portrait = true
	rg.exifP = 0 // the recaptured selfie is stored upright
	return rg
}

func drawCaptureR(g *rng, rg ranges, docW, docH int) Capture {
	c := Capture{Width: 1600, Height: 1200}
	rot := g.rangef(-rg.rotation, rg.rotation)
	if rg.rotation >= 360 {
		rot = g.rangef(0, 360)
	} else if g.chance(rg.quarterTurn) {
		rot += float64(90 * g.between(1, 3))
	}
	rot = math.Mod(rot+360, 360)
	c.RotationDeg = rot
	// a card turned on its side is mostly shot in portrait
	side := math.Abs(math.Sin(rot * math.Pi / 180))
	if rg.portrait || (side > 0.7 && g.chance(0.75)) || (side <= 0.7 && g.chance(0.12)) {
		c.Width, c.Height = 1200, 1600
	}
	c.Background = pick(g, backgroundKinds)
	c.TiltXDeg = g.rangef(-rg.tilt, rg.tilt)
	c.TiltYDeg = g.rangef(-rg.tilt, rg.tilt)
	c.FocalPx = g.rangef(1.0, 1.4) * float64(max(c.Width, c.Height))
	fill := g.rangef(rg.fill[0], rg.fill[1])
	long := float64(max(c.Width, c.Height))
	s := fill * long / float64(max(docW, docH))
	quad := projectCard(docW, docH, s, c)
	minX, minY, maxX, maxY := bounds(quad)
	margin := 0.02 * long
	fitW := (float64(c.Width) - 2*margin) / (maxX - minX)
	fitH := (float64(c.Height) - 2*margin) / (maxY - minY)
	if f := math.Min(fitW, fitH); f < 1 {
		s *= f
		quad = projectCard(docW, docH, s, c)
		minX, minY, maxX, maxY = bounds(quad)
	}
	// place the card anywhere it fits, biased to the centre
	slackX := float64(c.Width) - 2*margin - (maxX - minX)
	slackY := float64(c.Height) - 2*margin - (maxY - minY)
	ox := margin - minX + slackX*(0.5+0.5*clamp(g.norm()*0.45, -1, 1))
	oy := margin - minY + slackY*(0.5+0.5*clamp(g.norm()*0.45, -1, 1))
	for i := range quad {
		quad[i] = quad[i].add(vec{ox, oy})
		c.Corners[i] = [2]float64{round2(quad[i].X), round2(quad[i].Y)}
	}
	longest := 0.0
	for i := 0; i < 4; i++ {
		longest = math.Max(longest, quad[i].sub(quad[(i+1)%4]).length())
	}
	c.Fill = round3(longest / long)
	c.AreaFraction = round3(quadArea(quad) / float64(c.Width*c.Height))
	c.ShadowDX = g.rangef(-1, 1) * 0.012 * long
	c.ShadowDY = g.rangef(0.2, 1) * 0.012 * long
	c.ShadowBlur = g.rangef(4, 14)
	c.ShadowOpacity = g.rangef(0.15, 0.45)
	c.LightGradient = g.rangef(rg.uneven[0], rg.uneven[1])
	c.LightAngleDeg = g.rangef(0, 360)
	c.Vignette = g.rangef(rg.vignette[0], rg.vignette[1])
	c.Exposure = g.rangef(rg.exposure[0], rg.exposure[1])
	c.ColourTemp = g.rangef(-rg.colourTemperature, rg.colourTemperature)
	if g.chance(rg.glareP) {
		u, v := g.rangef(0.12, 0.88), g.rangef(0.12, 0.88)
		p := lerpv(lerpv(quad[0], quad[1], u), lerpv(quad[3], quad[2], u), v)
		r := longest * g.rangef(0.06, 0.22)
		c.Glare = &Glare{X: round2(p.X), Y: round2(p.Y), RX: round2(r * g.rangef(1, 2.2)), RY: round2(r),
			AngleDeg: round2(g.rangef(0, 180)), Strength: round3(g.rangef(rg.glare[0], rg.glare[1]))}
	}
	c.DefocusSigma = g.rangef(rg.defocus[0], rg.defocus[1])
	if g.chance(rg.motionP) {
		c.MotionLength = g.rangef(rg.motion[0], rg.motion[1])
		c.MotionAngleDeg = g.rangef(0, 180)
	}
	c.Noise = g.rangef(rg.noise[0], rg.noise[1])
	c.JPEGQuality = g.rangef(rg.jpeg[0], rg.jpeg[1])
	if g.chance(rg.thumbP) {
		c.Thumb = &Thumb{Edge: g.intn(4), T: round3(g.rangef(0.2, 0.8)), Depth: round3(g.rangef(0.02, 0.07)),
			AngleDeg: round2(g.rangef(-25, 25)), Skin: toInts(pick(g, skinTones))}
	}
	c.EXIFOrientation = 1
	if g.chance(rg.exifP) {
		c.EXIFOrientation = pick(g, []int{3, 6, 6, 8})
	}
	c.BackgroundSeed = g.r.Uint64()
	c.NoiseSeed = g.r.Uint64() | 1
	c.HologramHueShift = (c.TiltXDeg*0.7 + c.TiltYDeg*0.5) / 40
	for _, p := range []*float64{&c.RotationDeg, &c.TiltXDeg, &c.TiltYDeg, &c.FocalPx, &c.ShadowDX, &c.ShadowDY,
		&c.ShadowBlur, &c.LightAngleDeg, &c.DefocusSigma, &c.MotionLength, &c.MotionAngleDeg, &c.Noise} {
		*p = round2(*p)
	}
	for _, p := range []*float64{&c.ShadowOpacity, &c.LightGradient, &c.Vignette, &c.Exposure, &c.ColourTemp,
		&c.JPEGQuality, &c.HologramHueShift} {
		*p = round3(*p)
	}
	return c
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func bounds(q [4]vec) (minX, minY, maxX, maxY float64) {
	minX, minY, maxX, maxY = q[0].X, q[0].Y, q[0].X, q[0].Y
	for _, p := range q[1:] {
		minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
		minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
	}
	return
}

func quadArea(q [4]vec) float64 {
	a := 0.0
	for i := 0; i < 4; i++ {
		j := (i + 1) % 4
		a += q[i].X*q[j].Y - q[j].X*q[i].Y
	}
	return math.Abs(a) / 2
}

// projectCard places the document's corners: turned in its plane, tilted
// about the camera's axes and projected through a pinhole with the given
// focal length, centred on the origin.
func projectCard(w, h int, s float64, c Capture) [4]vec {
	hw, hh := float64(w)*s/2, float64(h)*s/2
	corners := [4]vec{{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}}
	th := c.RotationDeg * math.Pi / 180
	ax, ay := c.TiltXDeg*math.Pi/180, c.TiltYDeg*math.Pi/180
	f := c.FocalPx
	var out [4]vec
	for i, p := range corners {
		p = p.rot(th)
		y := p.Y * math.Cos(ax)
		z := p.Y * math.Sin(ax)
		x := p.X*math.Cos(ay) + z*math.Sin(ay)
		z = -p.X*math.Sin(ay) + z*math.Cos(ay)
		out[i] = vec{f * x / (f + z), f * y / (f + z)}
	}
	return out
}

// renderCapture photographs doc (premultiplied RGBA, transparent outside
// its outline) with the parameters c.
func renderCapture(doc *rgba4, c Capture) *fimg {
	bg := background(c.Background, c.Width, c.Height, newRNG(c.BackgroundSeed, 1))
	var quad [4]vec
	for i, p := range c.Corners {
		quad[i] = vec{p[0], p[1]}
	}
	castShadow(bg, quad, c)
	cover := warpOnto(bg, doc, quad)
	if c.Thumb != nil {
		drawThumb(bg, quad, *c.Thumb)
	}
	light(bg, cover, c)
	gaussBlur(bg.pix, bg.w, bg.h, 3, c.DefocusSigma)
	motionBlur(bg, c.MotionLength, c.MotionAngleDeg*math.Pi/180)
	addNoise(bg, c.Noise, c.NoiseSeed)
	return bg
}

// castShadow darkens the background under a shifted, blurred copy of the
// document outline.
func castShadow(bg *fimg, quad [4]vec, c Capture) {
	if c.ShadowOpacity <= 0 {
		return
	}
	const k = 4
	lw, lh := (bg.w+k-1)/k, (bg.h+k-1)/k
	cv := newCanvas(lw, lh)
	var p path
	var pts []vec
	for _, q := range quad {
		pts = append(pts, vec{(q.X + c.ShadowDX) / k, (q.Y + c.ShadowDY) / k})
	}
	p.polygon(pts)
	r, m := cv.coverage(&p)
	mask := make([]float32, lw*lh)
	if m != nil {
		x0 := int(math.Floor(p.minX)) - 1
		y0 := int(math.Floor(p.minY)) - 1
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				mask[y*lw+x] = float32(m[(y-y0)*cv.mask.Stride+x-x0]) / 255
			}
		}
	}
	gaussBlur(mask, lw, lh, 1, c.ShadowBlur/k)
	// only the shadow's box, grown by the blur, can change
	minX, minY, maxX, maxY := bounds(quad)
	grow := 4*c.ShadowBlur + math.Abs(c.ShadowDX) + math.Abs(c.ShadowDY) + 8
	bx0, by0 := clampi(int(minX-grow), 0, bg.w), clampi(int(minY-grow), 0, bg.h)
	bx1, by1 := clampi(int(maxX+grow), 0, bg.w), clampi(int(maxY+grow), 0, bg.h)
	op := float32(c.ShadowOpacity)
	for y := by0; y < by1; y++ {
		fy := (float32(y)+0.5)/k - 0.5
		if fy < 0 {
			fy = 0
		}
		y0 := min(int(fy), lh-1)
		y1 := min(y0+1, lh-1)
		ty := fy - float32(y0)
		for x := bx0; x < bx1; x++ {
			fx := (float32(x)+0.5)/k - 0.5
			if fx < 0 {
				fx = 0
			}
			x0 := min(int(fx), lw-1)
			x1 := min(x0+1, lw-1)
			tx := fx - float32(x0)
			a := mask[y0*lw+x0] + (mask[y0*lw+x1]-mask[y0*lw+x0])*tx
			b := mask[y1*lw+x0] + (mask[y1*lw+x1]-mask[y1*lw+x0])*tx
			v := 1 - op*(a+(b-a)*ty)
			i := (y*bg.w + x) * 3
			bg.pix[i] *= v
			bg.pix[i+1] *= v
			bg.pix[i+2] *= v
		}
	}
}

// warpOnto composites doc into bg through the homography that takes the
// document's corners to quad. It returns the document's coverage per
// photo pixel.
func warpOnto(bg *fimg, doc *rgba4, quad [4]vec) []float32 {
	// shrink the source first so a far-away card does not alias
	area := quadArea(quad)
	for doc.w > 8 && area/float64(doc.w*doc.h) < 0.3 {
		doc = doc.halve()
	}
	src := [4]vec{{0, 0}, {float64(doc.w), 0}, {float64(doc.w), float64(doc.h)}, {0, float64(doc.h)}}
	hm, ok := homographyFrom(src, quad)
	cover := make([]float32, bg.w*bg.h)
	if !ok {
		return cover
	}
	inv := hm.inverse()
	minX, minY, maxX, maxY := bounds(quad)
	x0, y0 := clampi(int(minX)-1, 0, bg.w-1), clampi(int(minY)-1, 0, bg.h-1)
	x1, y1 := clampi(int(maxX)+2, 0, bg.w), clampi(int(maxY)+2, 0, bg.h)
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			p := inv.apply(vec{float64(x) + 0.5, float64(y) + 0.5})
			if p.X < -1 || p.Y < -1 || p.X > float64(doc.w)+1 || p.Y > float64(doc.h)+1 {
				continue
			}
			s := doc.sample(p.X, p.Y)
			a := s[3] / 255
			if a <= 0 {
				continue
			}
			i := (y*bg.w + x) * 3
			bg.pix[i] = s[0] + bg.pix[i]*(1-a)
			bg.pix[i+1] = s[1] + bg.pix[i+1]*(1-a)
			bg.pix[i+2] = s[2] + bg.pix[i+2]*(1-a)
			cover[y*bg.w+x] = a
		}
	}
	return cover
}

// light applies uneven illumination, vignetting, exposure, white balance
// and the glare spot.
func light(f *fimg, cover []float32, c Capture) {
	cx, cy := float64(f.w)/2, float64(f.h)/2
	diag := math.Hypot(cx, cy)
	la := c.LightAngleDeg * math.Pi / 180
	dx, dy := math.Cos(la), math.Sin(la)
	kr := float32(1 + 0.07*c.ColourTemp)
	kb := float32(1 - 0.07*c.ColourTemp)
	var gc, gs, grx, gry float64
	if c.Glare != nil {
		gs, gc = math.Sincos(c.Glare.AngleDeg * math.Pi / 180)
		grx, gry = c.Glare.RX, c.Glare.RY
	}
	invD2 := 1 / (diag * diag)
	for y := 0; y < f.h; y++ {
		py := float64(y) - cy
		rowL := c.LightGradient * py * dy / diag
		for x := 0; x < f.w; x++ {
			px := float64(x) - cx
			r2 := (px*px + py*py) * invD2
			l := c.Exposure * (1 + rowL + c.LightGradient*px*dx/diag) * (1 - c.Vignette*r2)
			i := (y*f.w + x) * 3
			lf := float32(l)
			f.pix[i] *= lf * kr
			f.pix[i+1] *= lf
			f.pix[i+2] *= lf * kb
			if c.Glare != nil {
				a := cover[y*f.w+x]
				if a > 0 {
					gx, gy := float64(x)-c.Glare.X, float64(y)-c.Glare.Y
					u := (gx*gc + gy*gs) / grx
					v := (-gx*gs + gy*gc) / gry
					d := u*u + v*v
					if d < 9 {
						// a bright core with a soft halo
						s := c.Glare.Strength * (0.65*math.Exp(-d*1.2) + 0.35*math.Exp(-d*0.25))
						if s > 1 {
							s = 1
						}
						t := float32(s) * a
						f.pix[i] += (252 - f.pix[i]) * t
						f.pix[i+1] += (252 - f.pix[i+1]) * t
						f.pix[i+2] += (250 - f.pix[i+2]) * t
					}
				}
			}
		}
	}
}

// addNoise adds sensor noise: luminance noise stronger in the shadows and
// a little independent colour noise.
func addNoise(f *fimg, sd float64, seed uint64) {
	if sd <= 0 {
		return
	}
	fn := &fastNoise{s: seed | 1}
	s := float32(sd)
	for i := 0; i < len(f.pix); i += 3 {
		l := (f.pix[i]*0.3 + f.pix[i+1]*0.59 + f.pix[i+2]*0.11) / 255
		k := s * (1.3 - 0.6*l)
		n := fn.gauss() * k
		// one draw of colour noise, split between red and blue
		cn := fn.gauss() * k * 0.35
		f.pix[i] += n + cn
		f.pix[i+1] += n
		f.pix[i+2] += n - cn
	}
}

// drawThumb paints a thumb whose tip reaches over one edge of the
// document: a rounded finger shape continuing out of the frame, shaded
// across its width, with a paler nail near the tip.
func drawThumb(f *fimg, quad [4]vec, t Thumb) {
	a, b := quad[t.Edge], quad[(t.Edge+1)%4]
	p := lerpv(a, b, t.T)
	centre := lerpv(lerpv(quad[0], quad[2], 0.5), lerpv(quad[1], quad[3], 0.5), 0.5)
	long := math.Max(a.sub(b).length(), quad[(t.Edge+1)%4].sub(quad[(t.Edge+2)%4]).length())
	short := math.Min(a.sub(b).length(), quad[(t.Edge+1)%4].sub(quad[(t.Edge+2)%4]).length())
	in := centre.sub(p)
	in = in.mul(1 / in.length()).rot(t.AngleDeg * math.Pi / 180)
	width := 0.25 * long
	tip := p.add(in.mul(t.Depth * short))
	// the thumb runs from the tip back out of the frame
	out := in.mul(-1)
	exit := math.Inf(1)
	for _, ax := range [][3]float64{{tip.X, out.X, float64(f.w)}, {tip.Y, out.Y, float64(f.h)}} {
		switch {
		case ax[1] > 1e-9:
			exit = math.Min(exit, (ax[2]-ax[0])/ax[1])
		case ax[1] < -1e-9:
			exit = math.Min(exit, -ax[0]/ax[1])
		}
	}
	if math.IsInf(exit, 1) || exit < 0 {
		exit = 0
	}
	far := tip.add(out.mul(exit + width))
	across := vec{-in.Y, in.X}
	cv := &canvas{w: f.w, h: f.h}
	var sh path
	var pts []vec
	for i := 0; i <= 16; i++ {
		th := math.Pi * float64(i) / 16
		pts = append(pts, tip.sub(in.mul(width*0.5)).add(across.mul(width*0.5*math.Cos(th))).add(in.mul(width*0.5*math.Sin(th))))
	}
	// the thumb widens a little towards the hand
	// and past the knuckle opens into the hand
	knuckle := tip.add(out.mul(width * 1.6))
	palm := tip.add(out.mul(width * 2.8))
	if exit+width < width*2.8 {
		palm = far
	}
	pts = append(pts, knuckle.sub(across.mul(width*0.62)), palm.sub(across.mul(width*1.15)), far.sub(across.mul(width*1.4)),
		far.add(across.mul(width*1.1)), palm.add(across.mul(width*0.8)), knuckle.add(across.mul(width*0.62)))
	// a soft contact shadow first, then the thumb
	var shadow path
	off := vec{width * 0.06, width * 0.1}
	var spts []vec
	for _, q := range pts {
		spts = append(spts, q.add(off))
	}
	shadow.polygon(spts)
	if r, m := cv.coverage(&shadow); m != nil {
		sx0 := int(math.Floor(shadow.minX)) - 1
		sy0 := int(math.Floor(shadow.minY)) - 1
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				k := 1 - 0.3*float32(m[(y-sy0)*cv.mask.Stride+x-sx0])/255
				i := (y*f.w + x) * 3
				f.pix[i] *= k
				f.pix[i+1] *= k
				f.pix[i+2] *= k
			}
		}
	}
	sh.polygon(pts)
	r, m := cv.coverage(&sh)
	if m == nil {
		return
	}
	skin := fromInts(t.Skin)
	x0 := int(math.Floor(sh.minX)) - 1
	y0 := int(math.Floor(sh.minY)) - 1
	nailC := tip.sub(in.mul(width * 0.38))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cov := float64(m[(y-y0)*cv.mask.Stride+x-x0]) / 255
			if cov <= 0 {
				continue
			}
			q := vec{float64(x), float64(y)}.sub(tip)
			u := math.Abs(q.X*across.X+q.Y*across.Y) / (width * 0.5) // 0 on the axis, 1 at the side
			shade := 0.62 + 0.38*math.Cos(math.Min(1, u)*math.Pi/2)
			col := skin.scale(shade)
			// the nail: an oval near the tip, paler and glossier
			d := vec{float64(x), float64(y)}.sub(nailC)
			nu := (d.X*across.X + d.Y*across.Y) / (width * 0.3)
			nv := (d.X*in.X + d.Y*in.Y) / (width * 0.3)
			if nu*nu+nv*nv < 1 {
				col = col.mix(rgb{235, 200, 190}, 0.35)
			}
			i := (y*f.w + x) * 3
			k := float32(cov)
			f.pix[i] += (float32(col.R) - f.pix[i]) * k
			f.pix[i+1] += (float32(col.G) - f.pix[i+1]) * k
			f.pix[i+2] += (float32(col.B) - f.pix[i+2]) * k
		}
	}
}
