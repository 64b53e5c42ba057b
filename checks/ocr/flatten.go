package ocr

import "image"

// flatten divides a grey side by an estimate of its paper: the brightest
// level near each pixel (a maximum filter wide enough to remove any
// stroke), smoothed. What is left is the print's own contrast against the
// paper right behind it, so a caption printed light on a tinted band, a
// shadow across half the card or the fall-off of a phone's flash no
// longer decide what tesseract's single global threshold keeps. On a
// synth medium ghana_voter_id whose page reading had found two of seven
// values whole, the flattened side gave all seven.
//
// The filter radius is a sixtieth of the side's height (11 px on a
// 650 px card side; computed at half size), about twice the stroke width of the boldest value
// print on the synth cards and the specimens; the smoothing is twice
// that. Both scale with the side, so they hold for any capture size.
func flatten(g *image.Gray) *image.Gray {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	// The paper varies slowly: it is estimated at half resolution, which
	// quarters the cost (about 30 ms a side at full resolution).
	half := halve(g)
	r := max(1, h/120)
	bg := boxBlur(maxFilter(half, r), 2*r)
	hw, hh := bg.Bounds().Dx(), bg.Bounds().Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		src := g.Pix[y*g.Stride : y*g.Stride+w]
		pb := bg.Pix[min(y/2, hh-1)*bg.Stride:]
		dst := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := range src {
			p := max(int(pb[min(x/2, hw-1)]), 1)
			dst[x] = uint8(min(255, int(src[x])*255/p))
		}
	}
	return out
}

// halve is g at half its size, each pixel the mean of a 2 x 2 block.
func halve(g *image.Gray) *image.Gray {
	w, h := g.Bounds().Dx()/2, g.Bounds().Dy()/2
	out := image.NewGray(image.Rect(0, 0, max(w, 1), max(h, 1)))
	for y := 0; y < h; y++ {
		a := g.Pix[2*y*g.Stride:]
		c := g.Pix[(2*y+1)*g.Stride:]
		for x := 0; x < w; x++ {
			out.Pix[y*out.Stride+x] = uint8((int(a[2*x]) + int(a[2*x+1]) + int(c[2*x]) + int(c[2*x+1]) + 2) / 4)
		}
	}
	return out
}

// maxFilter is the brightest value in a (2r+1)-square window, computed
// as two one-dimensional passes. g starts at the origin, as every grey
// image of this package does.
func maxFilter(g *image.Gray, r int) *image.Gray {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		slidingMax(g.Pix[y*g.Stride:y*g.Stride+w], tmp.Pix[y*tmp.Stride:y*tmp.Stride+w], r)
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	col := make([]uint8, h)
	res := make([]uint8, h)
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			col[y] = tmp.Pix[y*tmp.Stride+x]
		}
		slidingMax(col, res, r)
		for y := 0; y < h; y++ {
			out.Pix[y*out.Stride+x] = res[y]
		}
	}
	return out
}

// slidingMax writes into dst the maximum of src over [i-r, i+r] for each
// i, with a monotonic queue (linear in the length, whatever r is).
func slidingMax(src, dst []uint8, r int) {
	// van Herk and Gil-Werman: the window [i-r, i+r] of the source padded
	// with zeros (no paper beyond the edge) is the suffix maximum of one
	// block of width k = 2r+1 joined to the prefix maximum of the next,
	// about three comparisons a pixel whatever r is.
	n, k := len(src), 2*r+1
	m := n + 2*r
	m += (k - m%k) % k
	pad := make([]uint8, m)
	copy(pad[r:], src)
	pre := make([]uint8, m)
	suf := make([]uint8, m)
	for start := 0; start < m; start += k {
		pre[start] = pad[start]
		for j := start + 1; j < start+k; j++ {
			pre[j] = max(pre[j-1], pad[j])
		}
		suf[start+k-1] = pad[start+k-1]
		for j := start + k - 2; j >= start; j-- {
			suf[j] = max(suf[j+1], pad[j])
		}
	}
	for i := 0; i < n; i++ {
		dst[i] = max(suf[i], pre[i+k-1])
	}
}

// boxBlur is the mean over a (2r+1)-square window (clipped at the
// edges), from running sums; g starts at the origin.
func boxBlur(g *image.Gray, r int) *image.Gray {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := make([]int32, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		boxLine(row, tmp[y*w:(y+1)*w], r)
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	col := make([]int32, h)
	res := make([]int32, h)
	for x := 0; x < w; x++ {
		for y := 0; y < h; y++ {
			col[y] = tmp[y*w+x]
		}
		boxLine(col, res, r)
		for y := 0; y < h; y++ {
			out.Pix[y*out.Stride+x] = uint8(res[y])
		}
	}
	return out
}

// boxLine is the clipped window mean of one line of values.
func boxLine[T uint8 | int32](src []T, dst []int32, r int) {
	n := len(src)
	var sum int64
	lo, hi := 0, -1 // window [lo, hi] of src summed
	for i := 0; i < n; i++ {
		for hi < n-1 && hi < i+r {
			hi++
			sum += int64(src[hi])
		}
		for lo < i-r {
			sum -= int64(src[lo])
			lo++
		}
		dst[i] = int32(sum / int64(hi-lo+1))
	}
}
