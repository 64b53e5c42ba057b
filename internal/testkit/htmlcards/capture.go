package htmlcards

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/internal/geom"
)

// A phone photograph of a flat document, simulated here (not synth's
// capture): the card is turned in 3-D, projected through a pinhole onto
// a 1600x1200 frame over a procedural surface, lit unevenly, perhaps
// caught by a glare on its laminate, defocused, shaken, given sensor
// noise and saved as a JPEG.

// Difficulty is a capture level.
type Difficulty string

const (
	Easy   Difficulty = "easy"
	Medium Difficulty = "medium"
)

// ParseDifficulty reads a level name.
func ParseDifficulty(s string) (Difficulty, error) {
	switch Difficulty(s) {
	case Easy, Medium:
		return Difficulty(s), nil
	}
	return "", fmt.Errorf("htmlcards: unknown difficulty %q (easy or medium)", s)
}

const photoW, photoH = 1600, 1200

// levelRanges are the draws of each level, comparable to synth's table
// in docs/synth.md (card long edge 0.45 to 0.9 of the photo, tilt up to
// 12 degrees at medium) but drawn by this code.
type levelRanges struct {
	tilt         float64    // degrees about each axis, at most
	roll         float64    // in-plane rotation, +-degrees
	quarterTurn  float64    // chance of a further 90/180/270
	fill         [2]float64 // card long edge over photo long edge
	light        [2]float64 // strength of the light gradient
	glareChance  float64
	glare        [2]float64
	defocus      [2]float64 // Gaussian sigma, px
	motionChance float64
	motion       [2]float64 // px
	noise        [2]float64 // sigma of 255
	quality      [2]int
}

var levels = map[Difficulty]levelRanges{
	Easy: {tilt: 5, roll: 6, fill: [2]float64{0.62, 0.9}, light: [2]float64{0, 0.12}, glareChance: 0.1,
		glare: [2]float64{0.12, 0.3}, defocus: [2]float64{0, 0.6}, noise: [2]float64{1, 3}, quality: [2]int{85, 95}},
	Medium: {tilt: 12, roll: 25, quarterTurn: 0.15, fill: [2]float64{0.45, 0.85}, light: [2]float64{0.08, 0.3},
		glareChance: 0.4, glare: [2]float64{0.25, 0.55}, defocus: [2]float64{0.3, 1.3}, motionChance: 0.25,
		motion: [2]float64{2, 5}, noise: [2]float64{2, 6}, quality: [2]int{70, 92}},
}

// Capture is how one photo was taken.
type Capture struct {
	// Corners are where the document's top-left, top-right, bottom-right
	// and bottom-left corners landed in the photo (px).
	Corners     [4][2]float64 `json:"corners"`
	Surface     string        `json:"surface"`
	TiltX       float64       `json:"tilt_x_deg"`
	TiltY       float64       `json:"tilt_y_deg"`
	Roll        float64       `json:"roll_deg"`
	Fill        float64       `json:"fill"`
	Light       float64       `json:"light"`
	Glare       float64       `json:"glare"`
	Defocus     float64       `json:"defocus_sigma"`
	Motion      float64       `json:"motion_px"`
	Noise       float64       `json:"noise_sigma"`
	JPEGQuality int           `json:"jpeg_quality"`
}

// photograph takes a phone photo of card (rounded corners of radius
// cornerPx) at level lv.
func photograph(r *rand.Rand, card *image.RGBA, cornerPx float64, lv Difficulty) ([]byte, *Capture, error) {
	L := levels[lv]
	c := &Capture{}
	c.TiltX = between(r, -L.tilt, L.tilt)
	c.TiltY = between(r, -L.tilt, L.tilt)
	c.Roll = between(r, -L.roll, L.roll)
	if r.Float64() < L.quarterTurn {
		c.Roll += float64(90 * (1 + r.IntN(3)))
	}
	c.Fill = between(r, L.fill[0], L.fill[1])
	cw, ch := float64(card.Bounds().Dx()), float64(card.Bounds().Dy())

	// the card in 3-D, centred, turned, projected by a pinhole whose focal
	// length is about a long edge and a quarter
	focal := cw * between(r, 1.1, 1.5)
	ax, ay, az := c.TiltX*math.Pi/180, c.TiltY*math.Pi/180, c.Roll*math.Pi/180
	src := [4][2]float64{{0, 0}, {cw, 0}, {cw, ch}, {0, ch}}
	var dst [4][2]float64
	for i, p := range src {
		x, y, z := p[0]-cw/2, p[1]-ch/2, 0.0
		// about x, then y, then the optical axis
		y, z = y*math.Cos(ax)-z*math.Sin(ax), y*math.Sin(ax)+z*math.Cos(ax)
		x, z = x*math.Cos(ay)+z*math.Sin(ay), -x*math.Sin(ay)+z*math.Cos(ay)
		x, y = x*math.Cos(az)-y*math.Sin(az), x*math.Sin(az)+y*math.Cos(az)
		s := focal / (focal + z)
		dst[i] = [2]float64{x * s, y * s}
	}
	// scale so the long edge is fill of the photo's long edge, and the
	// whole card stays inside the frame with a margin
	long := (dist(dst[0], dst[1]) + dist(dst[3], dst[2])) / 2
	scale := c.Fill * photoW / long
	minX, minY, maxX, maxY := bounds(dst)
	if f := math.Min(0.96*photoW/((maxX-minX)*scale), 0.96*photoH/((maxY-minY)*scale)); f < 1 {
		scale *= f
		c.Fill *= f
	}
	w, h := (maxX-minX)*scale, (maxY-minY)*scale
	ox := between(r, 0.02*photoW, photoW-w-0.02*photoW) - minX*scale
	oy := between(r, 0.02*photoH, photoH-h-0.02*photoH) - minY*scale
	for i := range dst {
		dst[i] = [2]float64{dst[i][0]*scale + ox, dst[i][1]*scale + oy}
	}
	c.Corners = dst
	hom, ok := geom.HomographyFrom(src, dst)
	if !ok {
		return nil, nil, fmt.Errorf("htmlcards: degenerate card outline")
	}
	inv := hom.Inverse()

	photo, surface := surfaceImage(r)
	c.Surface = surface
	shadow(photo, dst, r)

	// the card: each photo pixel looks up its card point; the rounded
	// corners and the edge are antialiased by the distance to the outline
	sample := card
	if scale < 0.8 {
		// shrinking: smooth first, so bilinear lookups do not alias
		b := imaging.Blur(card, 0.5*(1/scale-1))
		sample = image.NewRGBA(b.Bounds())
		copy(sample.Pix, b.Pix)
	}
	cardAlpha := make([]float32, photoW*photoH)
	bx0, by0, bx1, by1 := bounds(dst)
	pxPerCard := 1 / scale // card px per photo px, about
	for y := max(0, int(by0)-2); y < min(photoH, int(by1)+3); y++ {
		for x := max(0, int(bx0)-2); x < min(photoW, int(bx1)+3); x++ {
			u, v := inv.Apply(float64(x)+0.5, float64(y)+0.5)
			a := roundedAlpha(u, v, cw, ch, cornerPx, pxPerCard)
			if a <= 0 {
				continue
			}
			cr, cg, cb := bilinear(sample, u-0.5, v-0.5)
			i := photo.PixOffset(x, y)
			p := photo.Pix[i : i+3 : i+3]
			p[0] = uint8(float64(p[0])*(1-a) + cr*a + 0.5)
			p[1] = uint8(float64(p[1])*(1-a) + cg*a + 0.5)
			p[2] = uint8(float64(p[2])*(1-a) + cb*a + 0.5)
			cardAlpha[y*photoW+x] = float32(a)
		}
	}

	// light: a gradient across the frame, a vignette, exposure and white
	// balance
	c.Light = between(r, L.light[0], L.light[1])
	dir := r.Float64() * 2 * math.Pi
	dx, dy := math.Cos(dir), math.Sin(dir)
	expo := between(r, 0.93, 1.06)
	wb := [3]float64{between(r, 0.97, 1.04), 1, between(r, 0.94, 1.03)}
	var glare struct{ x, y, s, r float64 }
	if r.Float64() < L.glareChance {
		c.Glare = between(r, L.glare[0], L.glare[1])
		// on the card: somewhere inside its outline
		u, v := between(r, 0.15, 0.85)*cw, between(r, 0.15, 0.85)*ch
		glare.x, glare.y = hom.Apply(u, v)
		glare.s = c.Glare
		glare.r = between(r, 0.05, 0.12) * photoW
	}
	for y := 0; y < photoH; y++ {
		ny := float64(y)/photoH - 0.5
		for x := 0; x < photoW; x++ {
			nx := float64(x)/photoW - 0.5
			g := expo * (1 + c.Light*(nx*dx+ny*dy)*1.6) * (1 - 0.35*(nx*nx+ny*ny))
			add := 0.0
			if glare.s > 0 {
				if a := float64(cardAlpha[y*photoW+x]); a > 0 {
					ddx, ddy := float64(x)-glare.x, float64(y)-glare.y
					d2 := (ddx*ddx + ddy*ddy) / (glare.r * glare.r)
					add = a * glare.s * 255 * (math.Exp(-d2*2.5) + 0.6*math.Exp(-d2*30))
				}
			}
			i := photo.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				photo.Pix[i+k] = clamp8(float64(photo.Pix[i+k])*g*wb[k] + add)
			}
		}
	}

	var img image.Image = photo
	c.Defocus = between(r, L.defocus[0], L.defocus[1])
	if c.Defocus > 0.15 {
		img = imaging.Blur(img, c.Defocus)
	}
	if r.Float64() < L.motionChance {
		c.Motion = between(r, L.motion[0], L.motion[1])
		img = motionBlur(img, c.Motion, r.Float64()*math.Pi)
	}
	c.Noise = between(r, L.noise[0], L.noise[1])
	out := imaging.Clone(img)
	for i := 0; i < len(out.Pix); i += 4 {
		// more noise in the shadows, as a small sensor gives
		lum := (float64(out.Pix[i]) + float64(out.Pix[i+1]) + float64(out.Pix[i+2])) / 765
		s := c.Noise * (1.4 - 0.7*lum)
		common := r.NormFloat64() * s * 0.6
		for k := 0; k < 3; k++ {
			out.Pix[i+k] = clamp8(float64(out.Pix[i+k]) + common + r.NormFloat64()*s*0.5)
		}
	}
	c.JPEGQuality = L.quality[0] + r.IntN(L.quality[1]-L.quality[0]+1)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: c.JPEGQuality}); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), c, nil
}

func dist(a, b [2]float64) float64 { return math.Hypot(a[0]-b[0], a[1]-b[1]) }

func bounds(q [4][2]float64) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = q[0][0], q[0][1], q[0][0], q[0][1]
	for _, p := range q[1:] {
		x0, y0 = math.Min(x0, p[0]), math.Min(y0, p[1])
		x1, y1 = math.Max(x1, p[0]), math.Max(y1, p[1])
	}
	return
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// roundedAlpha is the coverage of the card at card point (u, v): 1 inside
// the rounded rectangle, 0 outside, a ramp one photo pixel wide across
// the edge.
func roundedAlpha(u, v, w, h, rad, pxPerPhoto float64) float64 {
	// signed distance to the rounded rectangle, negative inside
	qx := math.Abs(u-w/2) - (w/2 - rad)
	qy := math.Abs(v-h/2) - (h/2 - rad)
	out := math.Hypot(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0) - rad
	a := 0.5 - out/math.Max(pxPerPhoto, 0.5)
	return math.Max(0, math.Min(1, a))
}

// bilinear samples img at (x, y) in pixel centres, clamped at the edges.
func bilinear(img *image.RGBA, x, y float64) (float64, float64, float64) {
	b := img.Bounds()
	x = math.Max(0, math.Min(float64(b.Dx()-1), x))
	y = math.Max(0, math.Min(float64(b.Dy()-1), y))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, b.Dx()-1), min(y0+1, b.Dy()-1)
	fx, fy := x-float64(x0), y-float64(y0)
	var out [3]float64
	for k := 0; k < 3; k++ {
		p00 := float64(img.Pix[img.PixOffset(x0, y0)+k])
		p10 := float64(img.Pix[img.PixOffset(x1, y0)+k])
		p01 := float64(img.Pix[img.PixOffset(x0, y1)+k])
		p11 := float64(img.Pix[img.PixOffset(x1, y1)+k])
		out[k] = (p00*(1-fx)+p10*fx)*(1-fy) + (p01*(1-fx)+p11*fx)*fy
	}
	return out[0], out[1], out[2]
}

// surfaceImage is what the card lies on: a desk, wood, fabric, paper or
// a dark cloth, drawn at a quarter of the size from value noise and
// enlarged (the camera does not resolve a table's grain anyway).
func surfaceImage(r *rand.Rand) (*image.RGBA, string) {
	kinds := []string{"plain", "wood", "fabric", "paper", "dark"}
	kind := oneOf(r, kinds)
	const s = 4
	w, h := photoW/s, photoH/s
	small := image.NewRGBA(image.Rect(0, 0, w, h))
	base := map[string][3]float64{
		"plain":  {between(r, 150, 210), between(r, 150, 205), between(r, 140, 200)},
		"wood":   {between(r, 120, 170), between(r, 80, 110), between(r, 45, 70)},
		"fabric": {between(r, 40, 120), between(r, 60, 120), between(r, 80, 150)},
		"paper":  {between(r, 215, 240), between(r, 212, 236), between(r, 200, 228)},
		"dark":   {between(r, 25, 50), between(r, 25, 50), between(r, 28, 55)},
	}[kind]
	n := newNoise(r)
	freq := between(r, 0.8, 1.4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			fx, fy := float64(x)/float64(w)*8*freq, float64(y)/float64(h)*6*freq
			v := 0.0
			switch kind {
			case "wood":
				grain := math.Sin(fy*6+n.at(fx*0.6, fy*0.6)*5) * 0.5
				v = 0.16*grain + 0.08*n.at(fx*4, fy*0.5)
			case "fabric":
				v = 0.07*math.Sin(float64(x)*1.9)*math.Sin(float64(y)*1.9) + 0.08*n.at(fx*2, fy*2)
			case "paper":
				v = 0.03 * n.at(fx*3, fy*3)
			case "dark":
				v = 0.2 * n.at(fx*2.5, fy*2.5)
			default:
				v = 0.05*n.at(fx, fy) + 0.04*n.at(fx*5, fy*5)
			}
			i := small.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				small.Pix[i+k] = clamp8(base[k] * (1 + v))
			}
			small.Pix[i+3] = 255
		}
	}
	big := imaging.Resize(small, photoW, photoH, imaging.Linear)
	out := image.NewRGBA(big.Bounds())
	copy(out.Pix, big.Pix)
	return out, kind
}

// noise is smooth value noise on a lattice of random values.
type noise struct{ v [64 * 64]float64 }

func newNoise(r *rand.Rand) *noise {
	n := &noise{}
	for i := range n.v {
		n.v[i] = r.Float64()*2 - 1
	}
	return n
}

func (n *noise) at(x, y float64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	fx, fy = fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	g := func(i, j int) float64 { return n.v[((j&63)*64)+(i&63)] }
	i, j := int(x0), int(y0)
	return (g(i, j)*(1-fx)+g(i+1, j)*fx)*(1-fy) + (g(i, j+1)*(1-fx)+g(i+1, j+1)*fx)*fy
}

// shadow darkens the surface under and beside the card: the quad,
// shifted a little, filled at a quarter size, blurred and laid over.
func shadow(photo *image.RGBA, q [4][2]float64, r *rand.Rand) {
	const s = 4
	w, h := photoW/s, photoH/s
	m := image.NewGray(image.Rect(0, 0, w, h))
	ox, oy := between(r, -12, 12), between(r, 4, 16)
	var sq [4][2]float64
	for i, p := range q {
		sq[i] = [2]float64{(p[0] + ox) / s, (p[1] + oy) / s}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if inQuad(sq, float64(x)+0.5, float64(y)+0.5) {
				m.Pix[y*m.Stride+x] = 255
			}
		}
	}
	bl := imaging.Resize(imaging.Blur(m, between(r, 3, 6)), photoW, photoH, imaging.Linear)
	depth := between(r, 0.2, 0.4)
	for y := 0; y < photoH; y++ {
		for x := 0; x < photoW; x++ {
			a := float64(bl.Pix[bl.PixOffset(x, y)]) / 255 * depth
			if a <= 0 {
				continue
			}
			i := photo.PixOffset(x, y)
			for k := 0; k < 3; k++ {
				photo.Pix[i+k] = uint8(float64(photo.Pix[i+k]) * (1 - a))
			}
		}
	}
}

// inQuad reports whether (x, y) is inside the convex quad q.
func inQuad(q [4][2]float64, x, y float64) bool {
	sign := 0.0
	for i := 0; i < 4; i++ {
		a, b := q[i], q[(i+1)%4]
		c := (b[0]-a[0])*(y-a[1]) - (b[1]-a[1])*(x-a[0])
		if c != 0 {
			if sign != 0 && (c > 0) != (sign > 0) {
				return false
			}
			sign = c
		}
	}
	return true
}

// motionBlur averages copies of img shifted along angle over length px.
func motionBlur(img image.Image, length, angle float64) *image.NRGBA {
	src := imaging.Clone(img)
	out := image.NewNRGBA(src.Bounds())
	steps := max(2, int(math.Ceil(length)))
	w, h := src.Bounds().Dx(), src.Bounds().Dy()
	acc := make([]float32, len(src.Pix))
	for s := 0; s < steps; s++ {
		t := (float64(s)/float64(steps-1) - 0.5) * length
		dx, dy := int(math.Round(t*math.Cos(angle))), int(math.Round(t*math.Sin(angle)))
		for y := 0; y < h; y++ {
			sy := min(max(y+dy, 0), h-1)
			for x := 0; x < w; x++ {
				sx := min(max(x+dx, 0), w-1)
				si, di := sy*src.Stride+sx*4, y*src.Stride+x*4
				acc[di] += float32(src.Pix[si])
				acc[di+1] += float32(src.Pix[si+1])
				acc[di+2] += float32(src.Pix[si+2])
			}
		}
	}
	for i := 0; i < len(out.Pix); i += 4 {
		out.Pix[i] = uint8(acc[i] / float32(steps))
		out.Pix[i+1] = uint8(acc[i+1] / float32(steps))
		out.Pix[i+2] = uint8(acc[i+2] / float32(steps))
		out.Pix[i+3] = 255
	}
	return out
}
