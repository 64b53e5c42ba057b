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
	var buf maxBuf
	for y := 0; y < h; y++ {
		buf.slide(g.Pix[y*g.Stride:y*g.Stride+w], tmp.Pix[y*tmp.Stride:y*tmp.Stride+w], r)
	}
	// The vertical pass runs the same blocks over whole rows: reading
	// the image down its columns one pixel at a time left most of the
	// filter's time to cache misses.
	k := 2*r + 1
	m := h + 2*r
	m += (k - m%k) % k
	pre := make([]uint8, m*w)
	suf := make([]uint8, m*w)
	row := func(buf []uint8, j int) []uint8 { return buf[j*w : (j+1)*w] }
	src := func(j int) []uint8 {
		if y := j - r; y >= 0 && y < h {
			return tmp.Pix[y*tmp.Stride : y*tmp.Stride+w]
		}
		return nil // zero padding: no paper beyond the edge
	}
	for start := 0; start < m; start += k {
		copy(row(pre, start), src(start))
		for j := start + 1; j < start+k; j++ {
			maxRow(row(pre, j), row(pre, j-1), src(j))
		}
		copy(row(suf, start+k-1), src(start+k-1))
		for j := start + k - 2; j >= start; j-- {
			maxRow(row(suf, j), row(suf, j+1), src(j))
		}
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		maxRow(out.Pix[y*out.Stride:y*out.Stride+w], row(suf, y), row(pre, y+k-1))
	}
	return out
}

// maxRow sets dst to the larger of a and b at each place; a nil b counts
// as zeros.
func maxRow(dst, a, b []uint8) {
	if b == nil {
		copy(dst, a)
		return
	}
	b = b[:len(a)]
	dst = dst[:len(a)]
	for i, v := range a {
		dst[i] = max(v, b[i])
	}
}

// slidingMax writes into dst the maximum of src over [i-r, i+r] for each
// i, with a monotonic queue (linear in the length, whatever r is).
func slidingMax(src, dst []uint8, r int) {
	var buf maxBuf
	buf.slide(src, dst, r)
}

// maxBuf holds slidingMax's work rows, kept from one row to the next.
type maxBuf struct{ pad, pre, suf []uint8 }

func (mb *maxBuf) slide(src, dst []uint8, r int) {
	// van Herk and Gil-Werman: the window [i-r, i+r] of the source padded
	// with zeros (no paper beyond the edge) is the suffix maximum of one
	// block of width k = 2r+1 joined to the prefix maximum of the next,
	// about three comparisons a pixel whatever r is.
	n, k := len(src), 2*r+1
	m := n + 2*r
	m += (k - m%k) % k
	if cap(mb.pad) < m {
		mb.pad, mb.pre, mb.suf = make([]uint8, m), make([]uint8, m), make([]uint8, m)
	}
	pad, pre, suf := mb.pad[:m], mb.pre[:m], mb.suf[:m]
	clear(pad)
	copy(pad[r:], src)
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
