package docauth

import (
	"image"
	"math"
	"sort"
)

// colourTexture measures fine colour structure in the smooth parts of the
// rectified card: the opponent channels (R-G, (R+G)/2-B) minus their
// local mean over a 5x5 window, as a root mean square per 16x16 block,
// taken over the blocks whose luminance is smoothest (the lower half by
// the luminance's own high-pass energy: the card's background, not its
// print). It returns the median of those blocks' colour energy and of
// their luminance energy.
//
// Why it separates recaptures: a card's background is printed in smooth
// tints and a camera's sensor noise is mostly luminance after
// demosaicking and JPEG's colour subsampling, so colour barely varies
// from pixel to pixel; a display's red, green and blue subpixels and a
// colour print's cyan, magenta and yellow dots put colour into every few
// pixels, which survives the capture as colour moiré or speckle.
//
// n is the rectified card as NRGBA at its origin (substrate converts it
// once for all its cues).
func colourTexture(n *image.NRGBA) (colour, luma float64) {
	return colourTextureOf(n, 0.5)
}

// colourTextureOf is colourTexture over the share of the blocks whose
// luminance is smoothest.
func colourTextureOf(n *image.NRGBA, share float64) (colour, luma float64) {
	// A 5x5 window keeps the subpixel and halftone pitch (2 to 4 px on a
	// rectified card) and takes out the print's strokes' broader shape;
	// 16x16 blocks are small enough to find plain background between them.
	const radius, bs = 2, 16
	b := n.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < 64 || h < 64 {
		return 0, 0
	}
	rg := make([]float32, w*h)
	yb := make([]float32, w*h)
	ly := make([]float32, w*h)
	for y := 0; y < h; y++ {
		row := n.Pix[y*n.Stride:]
		for x := 0; x < w; x++ {
			p := row[4*x:]
			r, g, bl := float32(p[0]), float32(p[1]), float32(p[2])
			i := y*w + x
			rg[i], yb[i], ly[i] = r-g, (r+g)/2-bl, 0.299*r+0.587*g+0.114*bl
		}
	}
	hp := func(c []float32) []float32 { return highPass(c, w, h, radius) }
	rgh, ybh, lyh := hp(rg), hp(yb), hp(ly)
	type block struct{ l, c float64 }
	var blocks []block
	// The outer 4% is left out: the outline may include background.
	mx, my := w/25, h/25
	for by := my; by+bs <= h-my; by += bs {
		for bx := mx; bx+bs <= w-mx; bx += bs {
			var sl, sc float64
			for y := by; y < by+bs; y++ {
				for x := bx; x < bx+bs; x++ {
					i := y*w + x
					sl += float64(lyh[i] * lyh[i])
					sc += float64(rgh[i]*rgh[i] + ybh[i]*ybh[i])
				}
			}
			n := float64(bs * bs)
			blocks = append(blocks, block{math.Sqrt(sl / n), math.Sqrt(sc / n)})
		}
	}
	if len(blocks) < 8 {
		return 0, 0
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].l < blocks[j].l })
	smooth := blocks[:max(1, int(share*float64(len(blocks))))]
	cs := make([]float64, len(smooth))
	ls := make([]float64, len(smooth))
	for i, bk := range smooth {
		cs[i], ls[i] = bk.c, bk.l
	}
	sort.Float64s(cs)
	sort.Float64s(ls)
	return cs[len(cs)/2], ls[len(ls)/2]
}

// highPass is c minus its mean over a (2r+1)^2 window (a horizontal then a
// vertical box sum, edges clamped; running sums, so the cost does not grow
// with r).
func highPass(c []float32, w, h, r int) []float32 {
	tmp := make([]float32, len(c))
	out := make([]float32, len(c))
	k := float32(2*r + 1)
	for y := 0; y < h; y++ {
		row := c[y*w : y*w+w]
		var s float32
		for d := -r; d <= r; d++ {
			s += row[min(max(d, 0), w-1)]
		}
		for x := 0; x < w; x++ {
			tmp[y*w+x] = s / k
			s += row[min(x+r+1, w-1)] - row[max(x-r, 0)]
		}
	}
	// the vertical sums of every column at once, row by row
	col := make([]float32, w)
	for d := -r; d <= r; d++ {
		row := tmp[min(max(d, 0), h-1)*w:]
		for x := 0; x < w; x++ {
			col[x] += row[x]
		}
	}
	for y := 0; y < h; y++ {
		add := tmp[min(y+r+1, h-1)*w:]
		sub := tmp[max(y-r, 0)*w:]
		for x := 0; x < w; x++ {
			i := y*w + x
			out[i] = c[i] - col[x]/k
			col[x] += add[x] - sub[x]
		}
	}
	return out
}
