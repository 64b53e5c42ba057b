package synth

import (
	"fmt"
	"image"
	"math"
)

// Attack kinds. print and screen_replay present the selfie; the others
// tamper with the document's front.
const (
	AttackPrint       = "print"
	AttackScreen      = "screen_replay"
	AttackPhotoSwap   = "photo_swap"
	AttackEditedField = "edited_field"
	AttackPhotocopy   = "photocopy"
	AttackScreenshot  = "screenshot"
	// AttackDocScreen shows the document on a phone screen and photographs
	// the screen; AttackColourPrint prints it in colour on paper and
	// photographs the print. Both present front and back.
	AttackDocScreen   = "document_screen"
	AttackColourPrint = "colour_print"
)

// AttackKinds lists the attacks --attacks cycles through by default, in
// that order. The document recaptures (AttackDocScreen, AttackColourPrint)
// came later and are asked for by name (Options.AttackKinds), so that
// the corpora of every earlier seed stay byte-identical.
var AttackKinds = []string{AttackPrint, AttackScreen, AttackPhotoSwap, AttackEditedField, AttackPhotocopy, AttackScreenshot}

// AllAttackKinds lists every attack the generator can render.
var AllAttackKinds = append(append([]string(nil), AttackKinds...), AttackDocScreen, AttackColourPrint, AttackEditedMRZ)

// onBackground composites a card with rounded (transparent) corners over
// an opaque colour, so that a print or a screen shows the background
// there instead of reading empty pixels as black ink or light.
func onBackground(card *image.RGBA, bg rgb, scale int) *image.RGBA {
	b := card.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()*scale, b.Dy()*scale))
	for y := 0; y < out.Rect.Dy(); y++ {
		for x := 0; x < out.Rect.Dx(); x++ {
			i := card.PixOffset(b.Min.X+x/scale, b.Min.Y+y/scale)
			a := 1 - float64(card.Pix[i+3])/255
			o := out.PixOffset(x, y)
			out.Pix[o] = uint8(clamp(float64(card.Pix[i])+bg.R*a, 0, 255))
			out.Pix[o+1] = uint8(clamp(float64(card.Pix[i+1])+bg.G*a, 0, 255))
			out.Pix[o+2] = uint8(clamp(float64(card.Pix[i+2])+bg.B*a, 0, 255))
			out.Pix[o+3] = 255
		}
	}
	return out
}

// printSheet prints a picture on paper: halftone or ordered dither,
// limited ink density, paper tint and fibre, a white margin. The result is
// the sheet as premultiplied RGBA (opaque, square corners).
func printSheet(scene *image.RGBA, g *rng) (*rgba4, map[string]any) {
	b := scene.Bounds()
	w, h := b.Dx(), b.Dy()
	method := "halftone"
	if g.chance(0.3) {
		method = "dither"
	}
	cell := g.rangef(4, 7)
	paper := rgb{g.rangef(238, 248), g.rangef(236, 245), g.rangef(225, 238)}
	inkMax := g.rangef(0.82, 0.92)
	margin := int(float64(w) * g.rangef(0.04, 0.09))
	sw, sh := w+2*margin, h+2*margin
	out := &rgba4{w: sw, h: sh, pix: make([]float32, sw*sh*4)}
	angles := [3]float64{15 * math.Pi / 180, 75 * math.Pi / 180, 0}
	bayer := [4][4]float64{{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}}
	fn := &fastNoise{s: g.r.Uint64() | 1}
	for y := 0; y < sh; y++ {
		for x := 0; x < sw; x++ {
			o := (y*sw + x) * 4
			col := [3]float64{paper.R, paper.G, paper.B}
			fib := float64(fn.gauss()) * 2.5
			sx, sy := x-margin, y-margin
			if sx >= 0 && sy >= 0 && sx < w && sy < h {
				i := scene.PixOffset(sx, sy)
				for c := 0; c < 3; c++ {
					ink := (1 - float64(scene.Pix[i+c])/255) * inkMax
					var on float64
					if method == "halftone" {
						s, co := math.Sincos(angles[c])
						u := (float64(x)*co + float64(y)*s) / cell
						v := (-float64(x)*s + float64(y)*co) / cell
						t := 0.5 - 0.25*(math.Cos(2*math.Pi*u)+math.Cos(2*math.Pi*v))
						if ink > t {
							on = 1
						}
					} else {
						if ink*16 > bayer[y%4][x%4]+0.5 {
							on = 1
						}
					}
					col[c] = col[c] * (1 - on*0.93)
				}
			}
			out.pix[o] = float32(col[0] + fib)
			out.pix[o+1] = float32(col[1] + fib)
			out.pix[o+2] = float32(col[2] + fib)
			out.pix[o+3] = 255
		}
	}
	// ink spreads into the paper a little
	spreadRGBA4(out, 0.7)
	return out, map[string]any{"method": method, "cell_px": round2(cell), "ink_max": round3(inkMax), "margin_px": margin}
}

// spreadRGBA4 blurs the colour channels of an opaque sheet.
func spreadRGBA4(r *rgba4, sigma float64) {
	f := &fimg{w: r.w, h: r.h, pix: make([]float32, r.w*r.h*3)}
	for i, j := 0, 0; i < len(r.pix); i, j = i+4, j+3 {
		f.pix[j], f.pix[j+1], f.pix[j+2] = r.pix[i], r.pix[i+1], r.pix[i+2]
	}
	gaussBlur(f.pix, f.w, f.h, 3, sigma)
	for i, j := 0, 0; i < len(r.pix); i, j = i+4, j+3 {
		r.pix[i], r.pix[i+1], r.pix[i+2] = f.pix[j], f.pix[j+1], f.pix[j+2]
	}
}

// screenDevice shows a picture on a phone screen: the picture resampled to
// the panel, RGB subpixel stripes with dark gaps, the panel's gamma and
// blue cast, a glossy reflection and a black bezel with rounded corners.
func screenDevice(scene *image.RGBA, g *rng) (*rgba4, map[string]any) {
	b := scene.Bounds()
	pitch := 3
	pw, ph := b.Dx()/pitch, b.Dy()/pitch
	panel := resizeF(fimgFromRGBA(scene), pw, ph)
	gamma := g.rangef(0.8, 0.95)
	gain := [3]float64{g.rangef(0.86, 0.95), g.rangef(0.93, 1), g.rangef(1, 1.1)}
	lift := g.rangef(8, 22)
	gammaAdjust(panel, gamma, gain, [3]float64{lift, lift, lift * 1.2})
	bez := int(float64(b.Dx()) * g.rangef(0.04, 0.07))
	top := bez * 2
	dw, dh := pw*pitch+2*bez, ph*pitch+2*top
	out := &rgba4{w: dw, h: dh, pix: make([]float32, dw*dh*4)}
	moireP := g.rangef(14, 40)
	moireA := g.rangef(0.03, 0.09)
	moireT := g.rangef(0, math.Pi)
	ms, mc := math.Sincos(moireT)
	gloss := g.rangef(0.04, 0.16)
	radius := float64(bez) * 2.2
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			o := (y*dw + x) * 4
			// bezel: near-black glass with a faint rim
			col := [3]float32{14, 14, 16}
			sx, sy := x-bez, y-top
			if sx >= 0 && sy >= 0 && sx < pw*pitch && sy < ph*pitch {
				px, py := sx/pitch, sy/pitch
				i := (py*pw + px) * 3
				sub := sx % pitch
				rowGap := float32(1)
				if sy%pitch == pitch-1 {
					rowGap = 0.35
				}
				m := float32(1 + moireA*math.Sin(2*math.Pi*(float64(x)*mc+float64(y)*ms)/moireP))
				for c := 0; c < 3; c++ {
					k := float32(0.12)
					if c == sub {
						k = 2.5
					}
					col[c] = panel.pix[i+c] * k * rowGap * m
				}
			}
			// glossy diagonal reflection over glass
			t := (float64(x)/float64(dw) + float64(y)/float64(dh)) * 1.2
			gl := float32(gloss * math.Max(0, 1-math.Abs(t-0.9)*3) * 255)
			a := float32(cornerAlpha(x, y, dw, dh, radius))
			for c := 0; c < 3; c++ {
				out.pix[o+c] = (col[c] + gl) * a
			}
			out.pix[o+3] = 255 * a
		}
	}
	return out, map[string]any{"subpixel_pitch_px": pitch, "gamma": round3(gamma), "gain": []float64{round3(gain[0]), round3(gain[1]), round3(gain[2])},
		"black_lift": round2(lift), "moire_period_px": round2(moireP), "moire_amplitude": round3(moireA), "bezel_px": bez, "gloss": round3(gloss)}
}

// cornerAlpha is the coverage of pixel (x, y) inside a w x h rectangle
// with corners of radius r.
func cornerAlpha(x, y, w, h int, r float64) float64 {
	fx, fy := float64(x)+0.5, float64(y)+0.5
	cx := math.Max(r-fx, fx-(float64(w)-r))
	cy := math.Max(r-fy, fy-(float64(h)-r))
	if cx <= 0 || cy <= 0 {
		return 1
	}
	d := math.Hypot(cx, cy)
	return clamp(r-d+0.5, 0, 1)
}

// photocopy copies a card on a greyscale copier: the card on white paper,
// blurred, levels pushed so pale security print drops out, toner specks.
// The copy is cut out with a paper margin and square corners.
func photocopy(card *image.RGBA, g *rng) (*rgba4, map[string]any) {
	b := card.Bounds()
	margin := int(g.rangef(1.5, 4) * pxPerMM)
	w, h := b.Dx()+2*margin, b.Dy()+2*margin
	f := newFimg(w, h)
	paper := float32(g.rangef(238, 250))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := paper
			sx, sy := x-margin, y-margin
			if sx >= 0 && sy >= 0 && sx < b.Dx() && sy < b.Dy() {
				i := card.PixOffset(sx, sy)
				a := float32(card.Pix[i+3]) / 255
				l := 0.299*float32(card.Pix[i]) + 0.587*float32(card.Pix[i+1]) + 0.114*float32(card.Pix[i+2])
				// premultiplied: composite over paper
				v = l + paper*(1-a)
			}
			j := (y*w + x) * 3
			f.pix[j], f.pix[j+1], f.pix[j+2] = v, v, v
		}
	}
	blur := g.rangef(0.7, 1.4)
	gaussBlur(f.pix, f.w, f.h, 3, blur)
	black, white := g.rangef(40, 80), g.rangef(185, 210)
	gamma := g.rangef(0.8, 1.1)
	fn := &fastNoise{s: g.r.Uint64() | 1}
	out := &rgba4{w: w, h: h, pix: make([]float32, w*h*4)}
	for i, j := 0, 0; j < len(f.pix); i, j = i+4, j+3 {
		t := clamp((float64(f.pix[j])-black)/(white-black), 0, 1)
		v := float32(math.Pow(t, gamma)) * paper
		if fn.next()%1800 == 0 {
			v *= 0.3 // toner speck
		}
		v += fn.gauss() * 3
		out.pix[i], out.pix[i+1], out.pix[i+2], out.pix[i+3] = v, v, v*0.985, 255
	}
	return out, map[string]any{"paper_margin_px": margin, "blur_sigma": round2(blur), "black_point": round2(black),
		"white_point": round2(white), "gamma": round3(gamma)}
}

// screenshot frames a flat card image as a phone screenshot of a photo
// viewer: status bar, title bar, black viewer, navigation bar.
func screenshot(card *image.RGBA, fs *fonts, g *rng) (*fimg, map[string]any) {
	w, h := 738, 1600
	c := newCanvas(w, h)
	dark := g.chance(0.6)
	bg, fg := rgb{0, 0, 0}, rgb{235, 235, 235}
	bar := rgb{18, 18, 20}
	if !dark {
		bg, fg, bar = rgb{245, 245, 245}, rgb{30, 30, 30}, rgb{255, 255, 255}
	}
	c.fillAll(bg)
	var sb path
	sb.rect(0, 0, float64(w), 150)
	c.fill(&sb, bar, 1)
	hour, minute := g.between(6, 22), g.intn(60)
	clock := fmt.Sprintf("%d:%02d", hour, minute)
	var t path
	fs.text(&t, textStyle{font: fontSansBold, size: 26}, clock, translate(28, 40))
	// signal bars and battery
	for i := 0; i < 4; i++ {
		t.rect(float64(w-150+i*12), float64(40-8-i*6), 8, float64(8+i*6))
	}
	t.rect(float64(w-80), 18, 44, 22)
	c.fill(&t, fg, 1)
	var batt path
	batt.rect(float64(w-78), 20, 40*g.rangef(0.2, 1), 18)
	c.fill(&batt, rgb{80, 200, 90}, 1)
	name := fmt.Sprintf("IMG-2026%02d%02d-WA%04d.jpg", g.between(1, 12), g.between(1, 28), g.intn(10000))
	var title path
	fs.text(&title, textStyle{font: fontSans, size: 28}, "<", translate(24, 115))
	fs.text(&title, textStyle{font: fontSans, size: 26}, name, translate(70, 115))
	c.fill(&title, fg, 1)
	// the card, fitted to the width
	cb := card.Bounds()
	cw := float64(w) - 2*g.rangef(0, 30)
	scale := cw / float64(cb.Dx())
	chh := float64(cb.Dy()) * scale
	ox := (float64(w) - cw) / 2
	oy := (float64(h)-chh)/2 + g.rangef(-120, 120)
	f := fimgFromRGBA(c.img)
	src := rgba4From(card)
	for src.w > 2*int(cw) {
		src = src.halve()
	}
	k := float64(src.w) / cw
	for y := int(oy); y < int(oy+chh)+1 && y < h; y++ {
		for x := int(ox); x < int(ox+cw)+1 && x < w; x++ {
			s := src.sample((float64(x)-ox+0.5)*k, (float64(y)-oy+0.5)*k)
			a := s[3] / 255
			if a <= 0 {
				continue
			}
			i := (y*w + x) * 3
			for ch := 0; ch < 3; ch++ {
				f.pix[i+ch] = s[ch] + f.pix[i+ch]*(1-a)
			}
		}
	}
	// navigation bar
	nav := newCanvas(w, 90)
	nav.fillAll(bar)
	var icons path
	icons.ring(vec{float64(w) / 2, 45}, 14, 17, 32)
	icons.rect(float64(w)/4-14, 31, 28, 28)
	icons.polygon([]vec{{float64(w)*3/4 + 12, 30}, {float64(w)*3/4 - 12, 45}, {float64(w)*3/4 + 12, 60}})
	nav.fill(&icons, fg, 0.8)
	navF := fimgFromRGBA(nav.img)
	copy(f.pix[(h-90)*w*3:], navF.pix)
	return f, map[string]any{"width": w, "height": h, "dark_theme": dark, "clock": clock, "file_name": name,
		"card_box": []float64{round2(ox), round2(oy), round2(cw), round2(chh)}}
}
