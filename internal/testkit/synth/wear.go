package synth

import "math"

// Wear is how used a document looks: hairline scratches in the laminate,
// greasy smudges and faded print.
type Wear struct {
	Scratches int     `json:"scratches"`
	Smudges   int     `json:"smudges"`
	Fade      float64 `json:"fade"`
	Seed      uint64  `json:"seed,string"`
}

func drawWear(g *rng, d Difficulty) Wear {
	w := Wear{Seed: g.r.Uint64()}
	switch d {
	case Easy:
		w.Scratches, w.Smudges, w.Fade = g.between(0, 3), g.between(0, 1), round3(g.rangef(0, 0.04))
	case Medium:
		w.Scratches, w.Smudges, w.Fade = g.between(0, 10), g.between(0, 2), round3(g.rangef(0, 0.1))
	default:
		w.Scratches, w.Smudges, w.Fade = g.between(4, 20), g.between(1, 4), round3(g.rangef(0.03, 0.18))
	}
	return w
}

// applyWear marks a side with its wear.
func applyWear(c *canvas, w Wear) {
	g := newRNG(w.Seed, 11)
	if w.Fade > 0 {
		f := float32(w.Fade)
		for i := 0; i < len(c.img.Pix); i += 4 {
			c.img.Pix[i] = clamp8(float32(c.img.Pix[i]) + (246-float32(c.img.Pix[i]))*f)
			c.img.Pix[i+1] = clamp8(float32(c.img.Pix[i+1]) + (245-float32(c.img.Pix[i+1]))*f)
			c.img.Pix[i+2] = clamp8(float32(c.img.Pix[i+2]) + (238-float32(c.img.Pix[i+2]))*f)
		}
	}
	W, H := float64(c.w), float64(c.h)
	for i := 0; i < w.Smudges; i++ {
		cx, cy := g.rangef(0.1, 0.9)*W, g.rangef(0.1, 0.9)*H
		r := g.rangef(0.04, 0.12) * W
		ang := g.rangef(0, math.Pi)
		for k := 0; k < 5; k++ {
			var p path
			s := 1 - 0.15*float64(k)
			var pts []vec
			for j := 0; j < 32; j++ {
				a := 2 * math.Pi * float64(j) / 32
				pts = append(pts, vec{r * s * math.Cos(a), r * s * 0.6 * math.Sin(a)}.rot(ang).add(vec{cx, cy}))
			}
			p.polygon(pts)
			c.fill(&p, rgb{120, 110, 95}, 0.018)
		}
	}
	for i := 0; i < w.Scratches; i++ {
		x, y := g.rangef(0, W), g.rangef(0, H)
		ang := g.rangef(0, math.Pi)
		l := g.rangef(0.05, 0.35) * W
		bend := g.rangef(-0.1, 0.1)
		var pts []vec
		for j := 0; j <= 12; j++ {
			t := float64(j) / 12
			pts = append(pts, vec{x, y}.add(vec{t * l, bend * l * math.Sin(t*math.Pi)}.rot(ang)))
		}
		var p path
		p.stroke(pts, g.rangef(0.5, 1.1))
		c.fill(&p, rgb{252, 252, 250}, g.rangef(0.2, 0.45))
	}
}
