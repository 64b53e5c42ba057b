package synth

import (
	"math"
)

// valueNoise is smooth lattice noise seeded per picture.
type valueNoise struct {
	perm [512]uint8
	vals [256]float32
}

func newValueNoise(g *rng) *valueNoise {
	n := &valueNoise{}
	p := make([]int, 256)
	for i := range p {
		p[i] = i
	}
	for i := 255; i > 0; i-- {
		j := g.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	for i := 0; i < 512; i++ {
		n.perm[i] = uint8(p[i&255])
	}
	for i := range n.vals {
		n.vals[i] = float32(g.float())
	}
	return n
}

func (n *valueNoise) lattice(x, y int) float32 {
	return n.vals[n.perm[int(n.perm[x&255])+(y&255)]]
}

// at returns noise in 0..1 at (x, y), lattice spacing 1.
func (n *valueNoise) at(x, y float64) float32 {
	xf, yf := math.Floor(x), math.Floor(y)
	xi, yi := int(xf), int(yf)
	fx, fy := float32(x-xf), float32(y-yf)
	fx = fx * fx * (3 - 2*fx)
	fy = fy * fy * (3 - 2*fy)
	a := n.lattice(xi, yi)
	b := n.lattice(xi+1, yi)
	c := n.lattice(xi, yi+1)
	d := n.lattice(xi+1, yi+1)
	top := a + (b-a)*fx
	bot := c + (d-c)*fx
	return top + (bot-top)*fy
}

// fbm sums octaves of noise (about 0..1).
func (n *valueNoise) fbm(x, y float64, octaves int) float32 {
	var sum, amp, norm float32 = 0, 1, 0
	for i := 0; i < octaves; i++ {
		sum += n.at(x, y) * amp
		norm += amp
		amp *= 0.5
		x, y = x*2.03+17.1, y*2.03+9.7
	}
	return sum / norm
}

// Background kinds for captures.
var backgroundKinds = []string{"wood", "fabric", "paper", "stone", "desk", "carpet"}

// background paints a surface a card might lie on: the coarse structure
// at quarter resolution, then full-resolution grain.
func background(kind string, w, h int, g *rng) *fimg {
	n := newValueNoise(g)
	n2 := newValueNoise(g)
	lw, lh := (w+3)/4, (h+3)/4
	low := newFimg(lw, lh)
	var base, alt rgb
	switch kind {
	case "wood":
		tones := [][2]rgb{{{150, 98, 58}, {105, 62, 34}}, {{196, 150, 105}, {160, 112, 70}}, {{92, 58, 38}, {60, 36, 22}}, {{210, 180, 140}, {176, 140, 100}}}
		t := pick(g, tones)
		base, alt = t[0], t[1]
		ang := g.rangef(-0.2, 0.2)
		if g.chance(0.5) {
			ang += math.Pi / 2
		}
		s, c := math.Sincos(ang)
		freq := g.rangef(0.04, 0.09)
		for y := 0; y < lh; y++ {
			for x := 0; x < lw; x++ {
				u := float64(x)*c + float64(y)*s
				v := -float64(x)*s + float64(y)*c
				warp := float64(n.fbm(u*0.01, v*0.06, 3)) * 14
				ring := 0.5 + 0.5*math.Sin((v+warp)*freq*2*math.Pi)
				ring = math.Pow(ring, 3)
				fine := float64(n2.fbm(u*0.3, v*0.02, 2))
				t := clamp(0.35*ring+0.45*fine+0.1, 0, 1)
				col := base.mix(alt, t)
				low.set(x, y, col)
			}
		}
	case "fabric":
		base = pick(g, []rgb{{60, 70, 110}, {120, 40, 45}, {70, 90, 70}, {180, 170, 150}, {40, 40, 45}, {150, 120, 160}})
		for y := 0; y < lh; y++ {
			for x := 0; x < lw; x++ {
				fold := float64(n.fbm(float64(x)*0.01, float64(y)*0.008, 3))
				col := base.scale(0.65 + 0.6*fold)
				low.set(x, y, col)
			}
		}
	case "paper":
		base = pick(g, []rgb{{236, 234, 226}, {244, 242, 238}, {228, 226, 214}})
		for y := 0; y < lh; y++ {
			for x := 0; x < lw; x++ {
				t := float64(n.fbm(float64(x)*0.02, float64(y)*0.02, 4))
				low.set(x, y, base.scale(0.9+0.12*t))
			}
		}
	case "stone":
		base = pick(g, []rgb{{190, 186, 180}, {90, 88, 86}, {210, 200, 185}, {60, 58, 60}})
		alt = base.scale(0.6)
		for y := 0; y < lh; y++ {
			for x := 0; x < lw; x++ {
				t := float64(n.fbm(float64(x)*0.05, float64(y)*0.05, 4))
				v := float64(n2.fbm(float64(x)*0.012, float64(y)*0.012, 3))
				low.set(x, y, base.mix(alt, clamp(t*0.3+v*0.15-0.1, 0, 1)).scale(0.95+0.1*v))
			}
		}
	case "carpet":
		base = pick(g, []rgb{{120, 100, 80}, {80, 80, 90}, {140, 60, 50}, {100, 110, 90}})
		for y := 0; y < lh; y++ {
			for x := 0; x < lw; x++ {
				t := float64(n.fbm(float64(x)*0.03, float64(y)*0.03, 3))
				low.set(x, y, base.scale(0.85+0.25*t))
			}
		}
	default: // desk: a plain laminate with a broad sheen
		base = pick(g, []rgb{{235, 235, 232}, {40, 42, 46}, {180, 180, 176}, {200, 190, 170}, {25, 25, 28}})
		for y := 0; y < lh; y++ {
			for x := 0; x < lw; x++ {
				t := float64(n.fbm(float64(x)*0.006, float64(y)*0.006, 2))
				low.set(x, y, base.scale(0.88+0.22*t))
			}
		}
	}
	f := resizeUp(low, w, h)
	// full-resolution grain: weave for cloth, fibres for paper, speckle
	fn := &fastNoise{s: g.r.Uint64() | 1}
	switch kind {
	case "fabric":
		p := g.rangef(3, 6)
		ang := g.rangef(0, math.Pi)
		s, c := math.Sincos(ang)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				u := (float64(x)*c + float64(y)*s) / p
				v := (-float64(x)*s + float64(y)*c) / p
				wv := math.Sin(u*2*math.Pi) * math.Sin(v*2*math.Pi)
				k := float32(1 + 0.12*wv)
				i := (y*w + x) * 3
				nz := 1 + 0.05*fn.gauss()
				f.pix[i] *= k * nz
				f.pix[i+1] *= k * nz
				f.pix[i+2] *= k * nz
			}
		}
	case "stone":
		// granite: flecks of dark, light and tinted mineral a few px wide
		flecks := []rgb{base.scale(0.35), base.scale(1.35), base.mix(rgb{150, 110, 90}, 0.5), base.scale(0.6)}
		for y := 0; y < h; y += 2 {
			for x := 0; x < w; x += 2 {
				r := fn.next()
				if r%100 >= 14 {
					continue
				}
				col := flecks[int(r>>8)%len(flecks)]
				sz := 1 + int(r>>16)%3
				for dy := 0; dy < sz && y+dy < h; dy++ {
					for dx := 0; dx < sz && x+dx < w; dx++ {
						i := ((y+dy)*w + x + dx) * 3
						f.pix[i], f.pix[i+1], f.pix[i+2] = float32(col.R), float32(col.G), float32(col.B)
					}
				}
			}
		}
		gaussBlur(f.pix, w, h, 3, 0.7)
	case "carpet":
		for i := 0; i < len(f.pix); i += 3 {
			d := 14 * fn.gauss()
			f.pix[i] += d
			f.pix[i+1] += d
			f.pix[i+2] += d
		}
	default:
		for i := 0; i < len(f.pix); i += 3 {
			d := 2.5 * fn.gauss()
			f.pix[i] += d
			f.pix[i+1] += d
			f.pix[i+2] += d
		}
	}
	return f
}

func (f *fimg) set(x, y int, c rgb) {
	i := (y*f.w + x) * 3
	f.pix[i], f.pix[i+1], f.pix[i+2] = float32(c.R), float32(c.G), float32(c.B)
}

// resizeUp enlarges with bilinear interpolation, with the column weights
// computed once.
func resizeUp(f *fimg, w, h int) *fimg {
	out := newFimg(w, h)
	sx, sy := float64(f.w)/float64(w), float64(f.h)/float64(h)
	x0s := make([]int, w)
	x1s := make([]int, w)
	fxs := make([]float32, w)
	for x := 0; x < w; x++ {
		fx := (float64(x)+0.5)*sx - 0.5
		if fx < 0 {
			fx = 0
		}
		x0 := int(fx)
		if x0 > f.w-1 {
			x0 = f.w - 1
		}
		x0s[x], x1s[x], fxs[x] = x0*3, min(x0+1, f.w-1)*3, float32(fx-float64(x0))
	}
	for y := 0; y < h; y++ {
		fy := (float64(y)+0.5)*sy - 0.5
		if fy < 0 {
			fy = 0
		}
		y0 := min(int(fy), f.h-1)
		y1 := min(y0+1, f.h-1)
		ty := float32(fy - float64(y0))
		r0 := f.pix[y0*f.w*3 : (y0+1)*f.w*3]
		r1 := f.pix[y1*f.w*3 : (y1+1)*f.w*3]
		o := out.pix[y*w*3 : (y+1)*w*3]
		for x := 0; x < w; x++ {
			a, b, tx := x0s[x], x1s[x], fxs[x]
			for c := 0; c < 3; c++ {
				top := r0[a+c] + (r0[b+c]-r0[a+c])*tx
				bot := r1[a+c] + (r1[b+c]-r1[a+c])*tx
				o[x*3+c] = top + (bot-top)*ty
			}
		}
	}
	return out
}
