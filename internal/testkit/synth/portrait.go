package synth

import (
	"image"
	"math"

	xdraw "golang.org/x/image/draw"
)

// Portrait is how a face photo was staged into a picture.
type Portrait struct {
	Backdrop  [2][3]int `json:"backdrop"`
	Clothing  [3]int    `json:"clothing"`
	FaceScale float64   `json:"face_scale"` // face chip width over picture width
	CentreX   float64   `json:"centre_x"`   // face centre, fraction of width
	CentreY   float64   `json:"centre_y"`   // fraction of height
	RollDeg   float64   `json:"roll_deg"`
	Hair      [3]int    `json:"hair"`
}

// drawHair picks a hair colour, or the skin's own for a bald crown.
func drawHair(g *rng, face *image.RGBA) [3]int {
	if g.chance(0.25) {
		return toInts(skinTone(face).scale(0.8))
	}
	return toInts(pick(g, []rgb{{25, 20, 18}, {45, 35, 28}, {70, 55, 40}, {110, 100, 95}, {150, 140, 130}}))
}

func toInts(c rgb) [3]int   { return [3]int{int(c.R), int(c.G), int(c.B)} }
func fromInts(c [3]int) rgb { return rgb{float64(c[0]), float64(c[1]), float64(c[2])} }

// skinTone averages the cheeks of a face chip.
func skinTone(face *image.RGBA) rgb {
	b := face.Bounds()
	w, h := b.Dx(), b.Dy()
	var sum rgb
	n := 0.0
	for _, rx := range [][2]float64{{0.2, 0.3}, {0.7, 0.8}} {
		for y := int(0.45 * float64(h)); y < int(0.6*float64(h)); y++ {
			for x := int(rx[0] * float64(w)); x < int(rx[1]*float64(w)); x++ {
				i := face.PixOffset(b.Min.X+x, b.Min.Y+y)
				sum.R += float64(face.Pix[i])
				sum.G += float64(face.Pix[i+1])
				sum.B += float64(face.Pix[i+2])
				n++
			}
		}
	}
	if n == 0 {
		return rgb{150, 110, 90}
	}
	return sum.scale(1 / n)
}

// portrait stages a tight face chip as a head-and-shoulders photo: a
// backdrop, clothing, a neck in the face's skin tone and the face itself
// faded out at an oval edge.
func portrait(face *image.RGBA, w, h int, p Portrait) *image.RGBA {
	return portraitOn(nil, face, w, h, p)
}

// portraitOn stages the face over bg (w x h) when given, else over the
// plain backdrop of p.
func portraitOn(bg *image.RGBA, face *image.RGBA, w, h int, p Portrait) *image.RGBA {
	c := newCanvas(w, h)
	top, bot := fromInts(p.Backdrop[0]), fromInts(p.Backdrop[1])
	if bg != nil {
		copy(c.img.Pix, bg.Pix)
	}
	for y := 0; y < h && bg == nil; y++ {
		t := float64(y) / float64(h-1)
		for x := 0; x < w; x++ {
			dx := (float64(x)/float64(w) - p.CentreX) * 1.4
			col := top.mix(bot, t).scale(1.04 - 0.1*dx*dx)
			i := y*c.img.Stride + x*4
			c.img.Pix[i], c.img.Pix[i+1], c.img.Pix[i+2], c.img.Pix[i+3] = clamp8(float32(col.R)), clamp8(float32(col.G)), clamp8(float32(col.B)), 255
		}
	}
	fw := p.FaceScale * float64(w)
	cx, cy := p.CentreX*float64(w), p.CentreY*float64(h)
	skin := skinTone(face)
	// the neck, then shoulders over its base like a crew-neck shirt
	clothing := fromInts(p.Clothing)
	var neck path
	neck.polygon([]vec{{cx - fw*0.18, cy + fw*0.3}, {cx + fw*0.18, cy + fw*0.3}, {cx + fw*0.21, cy + fw*0.95}, {cx - fw*0.21, cy + fw*0.95}})
	c.fillFunc(&neck, 1, func(x, y int) rgb {
		// in shade under the chin, lighter lower down, rounded at the sides
		t := clamp((float64(y)-(cy+fw*0.4))/(fw*0.4), 0, 1)
		side := math.Abs(float64(x)-cx) / (fw * 0.21)
		return skin.scale((0.6 + 0.22*t) * (1 - 0.2*side*side))
	})
	for i, k := range []float64{1.06, 1.04, 1.02, 1} {
		var sh path
		sh.ellipse(vec{cx, cy + fw*1.12}, fw*1.12*k, fw*0.46*k, 64)
		sh.rect(cx-fw*1.12*k, cy+fw*1.12, fw*2.24*k, float64(h))
		c.fill(&sh, clothing, []float64{0.25, 0.4, 0.6, 1}[i])
	}
	// the neckline: a darker curve where the shirt meets the neck
	var nl path
	var arc []vec
	for i := 0; i <= 20; i++ {
		a := math.Pi * float64(i) / 20
		arc = append(arc, vec{cx - fw*0.24*math.Cos(a), cy + fw*0.7 + fw*0.1*math.Sin(a)})
	}
	nl.stroke(arc, fw*0.035)
	c.fill(&nl, clothing.scale(0.7), 0.8)
	// hair (or a bald crown) behind the top of the face oval, soft-edged
	hairCol := fromInts(p.Hair)
	for i := 0; i < 8; i++ {
		k := 1.08 - 0.03*float64(i)
		var hair path
		hair.ellipse(vec{cx, cy - fw*0.16}, fw*0.46*k, fw*0.42*k, 48)
		c.fill(&hair, hairCol, 0.18+0.1*float64(i))
	}
	// the face chip, scaled and rolled, faded outside an oval
	fb := face.Bounds()
	fs := fw / float64(fb.Dx())
	size := int(math.Ceil(fw * 1.05))
	chip := image.NewRGBA(image.Rect(0, 0, size, size))
	xdraw.CatmullRom.Scale(chip, image.Rect(0, 0, int(fw), int(fw*float64(fb.Dy())/float64(fb.Dx()))), face, fb, xdraw.Src, nil)
	_ = fs
	roll := p.RollDeg * math.Pi / 180
	sr, cr := math.Sincos(roll)
	x0, y0 := int(cx-fw*0.75), int(cy-fw*0.75)
	x1, y1 := int(cx+fw*0.75), int(cy+fw*0.75)
	for y := max(y0, 0); y < min(y1, h); y++ {
		for x := max(x0, 0); x < min(x1, w); x++ {
			// picture -> chip coordinates (rotate about the face centre)
			dx, dy := float64(x)-cx, float64(y)-cy
			u := dx*cr + dy*sr
			v := -dx*sr + dy*cr
			// oval mask in chip units, centred a little above the chip middle
			ex := u / (fw * 0.45)
			ey := (v - fw*0.02) / (fw * 0.52)
			d := math.Sqrt(ex*ex + ey*ey)
			a := smooth((1 - d) / 0.28)
			if a <= 0 {
				continue
			}
			sx, sy := u+fw/2, v+fw/2
			if sx < 0 || sy < 0 || sx >= fw-1 || sy >= fw-1 {
				continue
			}
			s := sampleRGBA(chip, sx, sy)
			i := y*c.img.Stride + x*4
			pp := c.img.Pix[i : i+3 : i+3]
			for k := 0; k < 3; k++ {
				pp[k] = clamp8(float32(float64(pp[k]) + (s[k]-float64(pp[k]))*a))
			}
		}
	}
	return c.img
}

// sampleRGBA reads an opaque picture bilinearly.
func sampleRGBA(img *image.RGBA, x, y float64) [3]float64 {
	b := img.Bounds()
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, b.Dx()-1), min(y0+1, b.Dy()-1)
	fx, fy := x-float64(x0), y-float64(y0)
	var out [3]float64
	for k := 0; k < 3; k++ {
		a := float64(img.Pix[img.PixOffset(x0, y0)+k])
		bb := float64(img.Pix[img.PixOffset(x1, y0)+k])
		c := float64(img.Pix[img.PixOffset(x0, y1)+k])
		d := float64(img.Pix[img.PixOffset(x1, y1)+k])
		top := a + (bb-a)*fx
		bot := c + (d-c)*fx
		out[k] = top + (bot-top)*fy
	}
	return out
}

// cardPortrait draws the staging of an ID photo: plain light backdrop,
// dark clothing, face centred in the upper half.
func cardPortrait(g *rng, face *image.RGBA) Portrait {
	backdrops := [][2]rgb{{{225, 230, 238}, {200, 208, 220}}, {{238, 238, 236}, {215, 215, 212}}, {{190, 210, 235}, {160, 185, 220}}, {{230, 228, 222}, {205, 200, 192}}}
	b := pick(g, backdrops)
	clothes := []rgb{{30, 32, 40}, {45, 50, 70}, {70, 60, 55}, {20, 20, 22}, {90, 95, 110}, {120, 40, 40}}
	return Portrait{
		Backdrop: [2][3]int{toInts(b[0]), toInts(b[1])}, Clothing: toInts(pick(g, clothes)),
		FaceScale: round3(g.rangef(0.86, 0.96)), CentreX: 0.5, CentreY: round3(g.rangef(0.4, 0.45)),
		RollDeg: round2(g.rangef(-2, 2)), Hair: drawHair(g, face),
	}
}
