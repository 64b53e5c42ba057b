package address

import (
	"image"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/tambua/tambua/internal/geom"
	"github.com/tambua/tambua/vision"
)

// Tesseract reads grey levels only, so a page is handled in grey from the
// photo on: a JPEG's luminance plane is used as it is, and the page is
// warped and scaled once, in one channel, to the size its print needs.

// luminance returns the image's grey levels (ITU-R 601 weights, as
// tesseract's own conversion). A JPEG decodes to YCbCr whose Y plane is
// exactly that and is shared, not copied. Transparent pixels count as
// white paper.
func luminance(img image.Image) *image.Gray {
	switch m := img.(type) {
	case *image.Gray:
		return m
	case *image.YCbCr:
		return &image.Gray{Pix: m.Y, Stride: m.YStride, Rect: m.Rect}
	}
	b := img.Bounds()
	g := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := g.Pix[(y-b.Min.Y)*g.Stride:]
		for x := b.Min.X; x < b.Max.X; x++ {
			r, gr, bl, a := img.At(x, y).RGBA()
			// Premultiplied: add the white that shows through.
			r, gr, bl = r+0xffff-a, gr+0xffff-a, bl+0xffff-a
			row[x-b.Min.X] = uint8((19595*r + 38470*gr + 7471*bl + 1<<15) >> 24)
		}
	}
	return g
}

// quadOf is the outline of a whole image (a scan, or a crop that is the
// page), as the corners of a page.
func quadOf(r image.Rectangle) vision.Quad {
	x0, y0, x1, y1 := float64(r.Min.X), float64(r.Min.Y), float64(r.Max.X), float64(r.Max.Y)
	return vision.Quad{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}

func side(q vision.Quad, i int) float64 {
	a, b := q[i], q[(i+1)%4]
	return math.Hypot(b.X-a.X, b.Y-a.Y)
}

// pageSize is the size a page outline is warped to for a long side of
// long pixels: A4's aspect when the outline was found in a photo (the
// finder fits that shape), the image's own shape for a scan.
func pageSize(q vision.Quad, long int, a4 bool) (w, h int) {
	wide, tall := (side(q, 0)+side(q, 2))/2, (side(q, 1)+side(q, 3))/2
	if a4 {
		if tall > wide {
			return int(float64(long)/vision.PageAspect + 0.5), long
		}
		return long, int(float64(long)/vision.PageAspect + 0.5)
	}
	if tall > wide {
		return max(1, int(float64(long)*wide/tall+0.5)), long
	}
	return long, max(1, int(float64(long)*tall/wide+0.5))
}

// warpGray renders the quad q of src onto a w x h grey image by bilinear
// sampling (see newWarp).
func warpGray(src *image.Gray, q vision.Quad, w, h int) (*image.Gray, bool) {
	wp, ok := newWarp(src, q, w, h)
	if !ok {
		return nil, false
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	wp.rows(out, 0, 0, h)
	return out, true
}

// warp renders the quad of a grey image onto a w x h page, rows at a time,
// so that only the rows that are read are rendered.
type warp struct {
	n    *image.Gray // the source under the quad, reduced
	hm   geom.Homography
	w, h int
}

// newWarp prepares the rendering of the quad q of src at w x h. Where the
// outline is larger than the output the part of src under q is first
// reduced to about the output's scale (by a whole factor with box means,
// then by area averaging), so that the sampling neither aliases fine print
// nor reads more source pixels than it needs.
func newWarp(src *image.Gray, q vision.Quad, w, h int) (*warp, bool) {
	minX, minY, maxX, maxY := q[0].X, q[0].Y, q[0].X, q[0].Y
	for _, p := range q[1:] {
		minX, minY = math.Min(minX, p.X), math.Min(minY, p.Y)
		maxX, maxY = math.Max(maxX, p.X), math.Max(maxY, p.Y)
	}
	b := image.Rect(int(math.Floor(minX))-2, int(math.Floor(minY))-2, int(math.Ceil(maxX))+3, int(math.Ceil(maxY))+3).Intersect(src.Bounds())
	if b.Empty() || w < 1 || h < 1 {
		return nil, false
	}
	n := src.SubImage(b).(*image.Gray)
	k, fx, fy := 1, 1.0, 1.0
	scale := math.Max((side(q, 0)+side(q, 2))/2/float64(w), (side(q, 1)+side(q, 3))/2/float64(h))
	if scale >= 2 {
		k = int(scale)
		n = shrink(n, k)
		scale /= float64(k)
	}
	// What is left over a quarter is averaged away too, so that bilinear
	// samples do not skip thin strokes.
	if scale > 1.25 {
		sw, sh := n.Rect.Dx(), n.Rect.Dy()
		n = areaReduce(n, max(1, int(float64(sw)/scale+0.5)), max(1, int(float64(sh)/scale+0.5)))
		fx, fy = float64(n.Rect.Dx())/float64(sw), float64(n.Rect.Dy())/float64(sh)
	}
	var sq [4][2]float64
	for i, p := range q {
		// Source pixel i covers [i, i+1) before the reductions; the
		// shrink divides by k, the averaging scales by fx, fy.
		sq[i] = [2]float64{(p.X - float64(b.Min.X)) / float64(k) * fx, (p.Y - float64(b.Min.Y)) / float64(k) * fy}
	}
	hm, ok := geom.HomographyFrom([4][2]float64{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}}, sq)
	if !ok || n.Rect.Dx() < 1 || n.Rect.Dy() < 1 {
		return nil, false
	}
	return &warp{n: n, hm: hm, w: w, h: h}, true
}

// rows renders page rows [y0, y1) into out from its row at.
func (wp *warp) rows(out *image.Gray, at, y0, y1 int) {
	n, hm, w := wp.n, wp.hm, wp.w
	sw, sh := n.Rect.Dx(), n.Rect.Dy()
	pix, stride, off := n.Pix, n.Stride, n.PixOffset(n.Rect.Min.X, n.Rect.Min.Y)
	for y := y0; y < y1; y++ {
		o := out.Pix[(at+y-y0)*out.Stride : (at+y-y0)*out.Stride+w]
		// The homography's numerators and denominator are linear in x:
		// stepped along the row, one division per pixel is left.
		fy := float64(y) + 0.5
		u := hm[0]*0.5 + hm[1]*fy + hm[2]
		v := hm[3]*0.5 + hm[4]*fy + hm[5]
		d := hm[6]*0.5 + hm[7]*fy + hm[8]
		for x := range o {
			dd := d
			if dd == 0 {
				dd = 1e-12
			}
			sx, sy := u/dd-0.5, v/dd-0.5
			u, v, d = u+hm[0], v+hm[3], d+hm[6]
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			ax, ay := float32(sx-float64(x0)), float32(sy-float64(y0))
			x1, y1 := x0+1, y0+1
			if x0 < 0 || y0 < 0 || x1 >= sw || y1 >= sh {
				x0, x1 = clampIdx(x0, sw), clampIdx(x1, sw)
				y0, y1 = clampIdx(y0, sh), clampIdx(y1, sh)
			}
			r0, r1 := off+y0*stride, off+y1*stride
			top := float32(pix[r0+x0]) + ax*(float32(pix[r0+x1])-float32(pix[r0+x0]))
			bot := float32(pix[r1+x0]) + ax*(float32(pix[r1+x1])-float32(pix[r1+x0]))
			o[x] = uint8(top + ay*(bot-top) + 0.5)
		}
	}
}

func clampIdx(v, n int) int {
	return min(max(v, 0), n-1)
}

// shrink reduces src by the whole factor k, each output pixel the mean of
// a k x k block (a last partial block is dropped).
func shrink(src *image.Gray, k int) *image.Gray {
	w, h := src.Rect.Dx()/k, src.Rect.Dy()/k
	out := image.NewGray(image.Rect(0, 0, w, h))
	sum := make([]int, w)
	off := src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y)
	for oy := 0; oy < h; oy++ {
		clear(sum)
		for y := oy * k; y < (oy+1)*k; y++ {
			row := src.Pix[off+y*src.Stride : off+y*src.Stride+w*k]
			for ox := range sum {
				for _, v := range row[ox*k : ox*k+k] {
					sum[ox] += int(v)
				}
			}
		}
		o := out.Pix[oy*out.Stride : oy*out.Stride+w]
		for ox, s := range sum {
			o[ox] = uint8((s + k*k/2) / (k * k))
		}
	}
	return out
}

// areaReduce scales src down to w x h, each output pixel the mean of the
// source area it covers (rows first, then columns).
func areaReduce(src *image.Gray, w, h int) *image.Gray {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	across, down := areaTaps(w, sw), areaTaps(h, sh)
	off := src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y)
	tmp := make([]float32, w*sh)
	for y := 0; y < sh; y++ {
		row := src.Pix[off+y*src.Stride : off+y*src.Stride+sw]
		t := tmp[y*w : (y+1)*w]
		for x, tp := range across {
			var s float32
			for i, wt := range tp.wt {
				s += wt * float32(row[tp.from+i])
			}
			t[x] = s
		}
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	acc := make([]float32, w)
	for y, tp := range down {
		clear(acc)
		for i, wt := range tp.wt {
			t := tmp[(tp.from+i)*w : (tp.from+i+1)*w]
			for x, v := range t {
				acc[x] += wt * v
			}
		}
		o := out.Pix[y*out.Stride : y*out.Stride+w]
		for x, v := range acc {
			o[x] = uint8(min(255, v+0.5))
		}
	}
	return out
}

// areaTap is the run of source pixels from "from" averaged into one
// output pixel, with each one's share.
type areaTap struct {
	from int
	wt   []float32
}

// areaTaps maps n source pixels onto m output pixels (m <= n), each
// output pixel weighting the source pixels by how much of each it covers.
func areaTaps(m, n int) []areaTap {
	taps := make([]areaTap, m)
	step := float64(n) / float64(m)
	for i := range taps {
		lo, hi := float64(i)*step, float64(i+1)*step
		from, to := int(lo), min(n, int(math.Ceil(hi)))
		wt := make([]float32, to-from)
		for j := range wt {
			a, b := math.Max(lo, float64(from+j)), math.Min(hi, float64(from+j+1))
			wt[j] = float32((b - a) / step)
		}
		taps[i] = areaTap{from: from, wt: wt}
	}
	return taps
}

// textHeight measures the height of the page's print, in pixels of g: the
// median height of the runs of inked rows within narrow vertical strips.
// Within a strip a printed line is a run of rows with ink, from the top of
// its tallest letter to the foot of its lowest, so the median over the page
// is the height of its body text; rules, borders and pictures make runs
// too thin or too tall to count. It returns 0 when no print was seen.
func textHeight(g *image.Gray) float64 { return heightOf(g.Rect.Dx(), g.Rect.Dy(), inkMask(g)) }

func heightOf(w, h int, ink []bool) float64 {
	// The outer 3 % of the page is left out: the page's edge and the desk
	// beyond it, which a warp from a photo keeps a sliver of, make runs of
	// their own in every strip.
	mx, my := w*3/100, h*3/100
	// Strips of 1/24 of the page width: a few letters of body text, narrow
	// enough that lines beside each other at different heights (two
	// columns) rarely share one, wide enough to hold a stroke of every line.
	sw := max(4, (w-2*mx)/24)
	var runs []int
	for x0 := mx; x0+sw <= w-mx; x0 += sw {
		run, rule := 0, false
		for y := my; y <= h-my; y++ {
			n := 0
			if y < h-my {
				for _, v := range ink[y*w+x0 : y*w+x0+sw] {
					if v {
						n++
					}
				}
			}
			if n > 0 {
				run++
				// A row inked across nine tenths of the strip is a rule
				// or a filled band, not letters, which leave gaps.
				rule = rule || n*10 >= sw*9
				continue
			}
			// Runs under 4 pixels are rules, dots and noise (9-point
			// print, the smallest on the tuning bills, is 8 px high at
			// probeSide); over a twentieth of the page, pictures,
			// vertical rules and borders.
			if run >= 4 && run <= h/20 && !rule {
				runs = append(runs, run)
			}
			run, rule = 0, false
		}
	}
	if len(runs) < 5 {
		return 0
	}
	// The mean of the middle half: the median's robustness, finer than
	// whole pixels.
	sort.Ints(runs)
	sum := 0
	mid := runs[len(runs)/4 : len(runs)-len(runs)/4]
	for _, r := range mid {
		sum += r
	}
	return float64(sum) / float64(len(mid))
}

// margins are the rows and columns at each side of a page that belong to
// its edge rather than its print.
type margins struct{ left, top, right, bottom int }

// edgeSlivers finds, on the ink mask of a w x h page, the sliver of the
// page's edge (and the desk beyond it) that a warp from a photo keeps when
// the outline found is a little off: at each side, the run of columns (or
// rows) from the border inward up to the first one with next to no ink.
// Left in, such a sliver (a dark line along the border, broken by the
// paper's own edge) is read by tesseract as a column of "|" glyphs that
// joins lines of print beside it into one, whose words then come out twice
// and garbled. Only the outer 3 % of each side is searched: print starts
// further in (a printer leaves 3 mm or more, 1.4 % of A4's height; bills'
// margins are wider), and where no clean column is found there the page is
// left as it is.
func edgeSlivers(w, h int, ink []bool) margins {
	// clean: a column or row with ink at no more than one pixel in 400
	// (JPEG speckle), while the sliver of an edge, even slanted across a
	// few columns, inks a long stretch of each.
	// Columns are counted without the outer 3 % of rows and rows without
	// the outer 3 % of columns, where the slivers of the other sides cross
	// them.
	mx, my := w*3/100, h*3/100
	clean := func(n, length int) bool { return n*400 <= length }
	col := func(x int) int {
		n := 0
		for y := my; y < h-my; y++ {
			if ink[y*w+x] {
				n++
			}
		}
		return n
	}
	row := func(y int) int {
		n := 0
		for _, v := range ink[y*w+mx : (y+1)*w-mx] {
			if v {
				n++
			}
		}
		return n
	}
	run := func(limit int, count func(int) int, at func(int) int, length int) int {
		for i := 0; i < limit; i++ {
			if clean(count(at(i)), length) {
				return i
			}
		}
		return 0
	}
	id := func(i int) int { return i }
	return margins{
		left:   run(mx, col, id, h-2*my),
		right:  run(mx, col, func(i int) int { return w - 1 - i }, h-2*my),
		top:    run(my, row, id, w-2*mx),
		bottom: run(my, row, func(i int) int { return h - 1 - i }, w-2*mx),
	}
}

// clearMask marks the slivers of m as paper in a w x h ink mask.
func clearMask(w, h int, ink []bool, m margins) {
	for y := 0; y < h; y++ {
		r := ink[y*w : (y+1)*w]
		if y < m.top || y >= h-m.bottom {
			clear(r)
			continue
		}
		clear(r[:m.left])
		clear(r[w-m.right:])
	}
}

// paintMargins paints the slivers m of g with the paper next to them: each
// sliver column (row) takes the grey of the first column (row) inside it,
// so that no step in the paper's shade is left for thresholding to find.
func paintMargins(g *image.Gray, m margins) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if m.left+m.right >= w || m.top+m.bottom >= h {
		return
	}
	off := g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y)
	for y := 0; y < h; y++ {
		r := g.Pix[off+y*g.Stride : off+y*g.Stride+w]
		for x := 0; x < m.left; x++ {
			r[x] = r[m.left]
		}
		for x := w - m.right; x < w; x++ {
			r[x] = r[w-m.right-1]
		}
	}
	for y := 0; y < m.top; y++ {
		copy(g.Pix[off+y*g.Stride:off+y*g.Stride+w], g.Pix[off+m.top*g.Stride:])
	}
	for y := h - m.bottom; y < h; y++ {
		copy(g.Pix[off+y*g.Stride:off+y*g.Stride+w], g.Pix[off+(h-m.bottom-1)*g.Stride:])
	}
}

// textBands returns the bands of rows of g that hold print, as [top,
// bottom) pairs, given the print's height th: rows with ink (two pixels or
// more within the page's inner 94 %) closer than two print heights form one
// band, padded by a print height. A page's blank stretches (margins, the
// space above the footer) are then left out of reading. It returns nil when
// the bands cover most of the page anyway.
func textBands(w, h int, ink []bool, th float64) [][2]int {
	mx := w * 3 / 100
	pad := int(math.Ceil(th))
	var bands [][2]int
	start, last := -1, -1
	for y := 0; y < h; y++ {
		n := 0
		for _, v := range ink[y*w+mx : y*w+w-mx] {
			if v {
				n++
			}
		}
		if n < 2 {
			continue
		}
		if start >= 0 && y-last > 2*pad {
			bands = append(bands, [2]int{max(0, start-pad), min(h, last+1+pad)})
			start = -1
		}
		if start < 0 {
			start = y
		}
		last = y
	}
	if start >= 0 {
		bands = append(bands, [2]int{max(0, start-pad), min(h, last+1+pad)})
	}
	covered := 0
	for _, b := range bands {
		covered += b[1] - b[0]
	}
	// Stacking bands pays when it leaves out a fifth of the page or more.
	if covered*5 > h*4 {
		return nil
	}
	return bands
}

// stacked is a page with its blank stretches left out: its bands of print
// one under another, gap rows of paper between them.
type stacked struct {
	img *image.Gray
	// from[i] is the page row band i starts at, at[i] the row of img.
	from, at []int
}

// stack copies the bands of g (rows of g) into one image, gap rows apart.
func stack(g *image.Gray, bands [][2]int, gap int) *stacked {
	return stackRows(g.Rect.Dx(), bands, gap, func(out *image.Gray, at, y0, y1 int) {
		for r := y0; r < y1; r++ {
			copy(out.Pix[(at+r-y0)*out.Stride:(at+r-y0)*out.Stride+g.Rect.Dx()], g.Pix[g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y+r):])
		}
	})
}

// stackRows renders the bands of a page w pixels wide (rows of it, drawn
// by rows into out from its row at) into one image, gap rows apart. A gap
// has the grey of the paper above it (the median of the band's last row,
// padding): white gaps between bands of darker paper would be steps that
// tesseract's thresholding could take for print.
func stackRows(w int, bands [][2]int, gap int, rows func(out *image.Gray, at, y0, y1 int)) *stacked {
	total := 0
	for i, b := range bands {
		total += b[1] - b[0]
		if i > 0 {
			total += gap
		}
	}
	out := image.NewGray(image.Rect(0, 0, w, total))
	st := &stacked{img: out}
	y := 0
	for i, b := range bands {
		st.from, st.at = append(st.from, b[0]), append(st.at, y)
		rows(out, y, b[0], b[1])
		y += b[1] - b[0]
		if i == len(bands)-1 {
			break
		}
		last := append([]uint8(nil), out.Pix[(y-1)*out.Stride:(y-1)*out.Stride+w]...)
		slices.Sort(last)
		paper := last[len(last)/2]
		for r := 0; r < gap; r++ {
			row := out.Pix[y*out.Stride : y*out.Stride+w]
			for x := range row {
				row[x] = paper
			}
			y++
		}
	}
	return st
}

// toPage moves a box on the stacked image back to the page.
func (s *stacked) toPage(r image.Rectangle) image.Rectangle {
	i := sort.SearchInts(s.at, r.Min.Y+1) - 1
	if i < 0 {
		i = 0
	}
	return r.Add(image.Pt(0, s.from[i]-s.at[i]))
}

// inkMask marks pixels clearly darker than the paper around them: below
// the mean of the surrounding window by more than inkContrast of it. A
// local mean follows the light falling across a photographed page.
func inkMask(g *image.Gray) []bool {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	off := g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y)
	// Integral image, one row and column of zeros in front.
	sum := make([]int64, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var rs int64
		row := g.Pix[off+y*g.Stride : off+y*g.Stride+w]
		for x, v := range row {
			rs += int64(v)
			sum[(y+1)*(w+1)+x+1] = sum[y*(w+1)+x+1] + rs
		}
	}
	// The window: a few text heights of body print at the probe size, so
	// that a letter's strokes are compared with the paper around them.
	r := max(4, max(w, h)/60)
	ink := make([]bool, w*h)
	for y := 0; y < h; y++ {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		row := g.Pix[off+y*g.Stride : off+y*g.Stride+w]
		for x, v := range row {
			x0, x1 := max(0, x-r), min(w, x+r+1)
			s := sum[y1*(w+1)+x1] - sum[y0*(w+1)+x1] - sum[y1*(w+1)+x0] + sum[y0*(w+1)+x0]
			n := int64((y1 - y0) * (x1 - x0))
			// ink when v < mean * (1 - inkContrast), in integers.
			ink[y*w+x] = int64(v)*n*100 < s*(100-inkContrast)
		}
	}
	return ink
}

// inkContrast, in percent: print is at least this much darker than the
// paper's local mean. Body print on the tuning photos is 40 % and more
// darker at the probe size; JPEG ringing and paper texture stay within 10 %.
const inkContrast = 25

// grayPGM encodes a grey image as a binary PGM, which leptonica reads
// without a codec.
func grayPGM(g *image.Gray) []byte {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	head := "P5\n" + strconv.Itoa(w) + " " + strconv.Itoa(h) + "\n255\n"
	out := make([]byte, 0, len(head)+w*h)
	out = append(out, head...)
	off := g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y)
	for y := 0; y < h; y++ {
		out = append(out, g.Pix[off+y*g.Stride:off+y*g.Stride+w]...)
	}
	return out
}
