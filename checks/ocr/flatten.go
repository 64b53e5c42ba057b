package ocr

import (
	"encoding/binary"
	"image"
)

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
			dst[x] = divided[pb[min(x/2, hw-1)]][src[x]]
		}
	}
	return out
}

// divided[p][v] is v divided by the paper level p, scaled to 255:
// min(255, v*255/max(p, 1)). A table lookup costs a fraction of an
// integer division a pixel (flatten).
var divided = func() *[256][256]uint8 {
	var t [256][256]uint8
	for p := range t {
		for v := range t[p] {
			t[p][v] = uint8(min(255, v*255/max(p, 1)))
		}
	}
	return &t
}()

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
	n := len(a)
	b, dst = b[:n], dst[:n]
	// Eight places at a time in a 64-bit word (maxBytes), which is
	// several times faster than one byte at a time.
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], maxBytes(binary.LittleEndian.Uint64(a[i:]), binary.LittleEndian.Uint64(b[i:])))
	}
	for ; i < n; i++ {
		dst[i] = max(a[i], b[i])
	}
}

// maxBytes is the larger of x and y in each of their eight bytes.
func maxBytes(x, y uint64) uint64 {
	const hi = 0x8080808080808080
	// Each byte of d has its top bit set when x's low seven bits are at
	// least y's ((x|0x80) - (y&0x7f) borrows from no other byte); with
	// the top bits themselves, ge has 0x80 where x >= y.
	d := (x | hi) - (y &^ hi)
	ge := (x&^y | ^(x^y)&d) & hi
	m := (ge >> 7) * 0xff
	return x&m | y&^m
}

// slidingMax writes into dst the maximum of src over [i-r, i+r] for each
// i, with a monotonic queue (linear in the length, whatever r is).
func slidingMax(src, dst []uint8, r int) {
	var buf maxBuf
	buf.slide(src, dst, r)
}

// maxBuf holds slidingMax's work rows, kept from one row to the next.
type maxBuf struct{ a, b []uint8 }

func (mb *maxBuf) slide(src, dst []uint8, r int) {
	// By doubling: over the source padded with r zeros each side (no
	// paper beyond the edge), the maximum of each run of s places gives
	// that of each run of 2s from two of them, up to the largest power
	// of two p within the window k = 2r+1; the window is then two runs
	// of p that overlap. Each step compares two rows place by place,
	// eight at a time (maxRow): 1.6 against 7.6 ms for the chained
	// comparisons of a van Herk/Gil-Werman pass over a 1500 x 1056 side
	// at r 8, though it makes log2(p)+1 passes.
	n, k := len(src), 2*r+1
	m := n + 2*r
	if cap(mb.a) < m {
		mb.a, mb.b = make([]uint8, m), make([]uint8, m)
	}
	cur, next := mb.a[:m], mb.b[:m]
	clear(cur[:r])
	copy(cur[r:], src)
	clear(cur[r+n:])
	p := 1
	for l := m; 2*p <= k; p *= 2 {
		// cur[j] is the maximum of the padded row over [j, j+p).
		l -= p
		maxRow(next[:l], cur[:l], cur[p:p+l])
		cur, next = next, cur
	}
	maxRow(dst[:n], cur[:n], cur[k-p:k-p+n])
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
