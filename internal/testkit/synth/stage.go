package synth

import (
	"image"
)

// smooth is smoothstep on [0, 1].
func smooth(t float64) float64 {
	if t <= 0 {
		return 0
	}
	if t >= 1 {
		return 1
	}
	return t * t * (3 - 2*t)
}

// sharpen applies an unsharp mask, for chips enlarged several times.
func sharpen(img *image.RGBA, sigma, amount float64) {
	f := fimgFromRGBA(img)
	bl := &fimg{w: f.w, h: f.h, pix: append([]float32(nil), f.pix...)}
	gaussBlur(bl.pix, bl.w, bl.h, 3, sigma)
	am := float32(amount)
	for i, j := 0, 0; i < len(f.pix); i, j = i+3, j+4 {
		for k := 0; k < 3; k++ {
			img.Pix[j+k] = clamp8(f.pix[i+k] + (f.pix[i+k]-bl.pix[i+k])*am)
		}
	}
}
