package docauth

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
)

// CodeCaptureEdited: a patch of the captured picture was compressed once
// where the rest was compressed twice: pasted in before the picture was
// saved again.
const CodeCaptureEdited = "doc_capture_edited"

// editLayer looks in the front capture's JPEG compression for a patch
// pasted in before the picture was saved again. What it can and cannot
// see is in docs/docauth.md.
func editLayer(in *inputs) layerResult {
	lr := layerResult{name: layerEdit, score: 1}
	r, ok := recompressedPatch(in.captureData, in.capture)
	if !ok {
		lr.skipped = "the front capture is not a JPEG picture whose compression could be read"
		return lr
	}
	lr.stats = map[string]float64{"earlier_compression_freqs": float64(r.Frequencies), "patch_blocks": float64(r.Patch),
		"patch_share": round3(r.Share), "patch_level": round3(r.Level)}
	if r.found() {
		lr.score = 0.3
		lr.findings = append(lr.findings, finding{code: CodeCaptureEdited,
			note: fmt.Sprintf("a patch of the stored capture (%d x %d px at %d,%d; %.1f%% of the picture) was compressed once where the rest shows two compressions: pasted in before the picture was saved again",
				r.Box.Dx(), r.Box.Dy(), r.Box.Min.X, r.Box.Min.Y, 100*r.Share)})
	}
	return lr
}

// A photo edited in a picture editor and saved again as JPEG carries two
// compressions: the camera's, then the editor's. Where the grid of 8 x 8
// blocks stays in place (no crop, no resize: an editor pasting a face over
// the portrait keeps it), each DCT coefficient of the final file was
// quantised twice, by the camera's step q1 and by the editor's q2, and its
// values crowd on the integers that requantising multiples of q1 can give:
// where q1 > q2 some values can no longer occur at all. A face pasted in
// before the second save was quantised only once by that grid (its own
// source's grid, if any, is warped away), so its blocks show values the
// rest of the picture cannot have. This is aligned double-JPEG evidence
// (as in Lin et al., "Fast, automatic and fine-grained tampered JPEG image
// detection via DCT coefficient analysis", Pattern Recognition 2009; the
// model and thresholds here are ours). A picture compressed once, or
// twice throughout, shows no patch; an edit saved at a quality as high as
// the camera's or lower leaves the values crowding too faintly to see.

// Operating points of the recompression cue, chosen on the tuning corpora
// (synth docauth tuning, seeds 58 base and 59 columns, easy and medium)
// and on their 140 genuine fronts decoded and saved again whole at JPEG
// quality 70, 80, 90 and 95 (as an app or a messenger re-encodes a photo:
// 560 pictures compressed twice throughout, none of which may show a
// patch).
const (
	// recompMinCorr and the slope bounds: a frequency shows the earlier
	// compression when the histogram's crowding follows the pattern that
	// requantising q1 by q2 predicts (correlation, and a slope near 1:
	// as much crowding as predicted). Genuine captures compressed once
	// reached 0.8 to 1 only at slopes of 2 to 5 or under 0.3 (few
	// populated values). A step twice or thrice q2 fits the crowding of
	// another step in part (0.85 to 0.91 on re-saved genuine fronts) and
	// reads the values the two patterns disagree on as a patch compressed
	// once (a card's print, whose coefficients run large): only a fit of
	// 0.95 is taken, which true double compressions reach at several
	// frequencies.
	recompMinCorr  = 0.95
	recompMinSlope = 0.6
	recompMaxSlope = 1.5
	// recompMinFreqs: the earlier compression must show at this many
	// frequencies for a patch of recompMinPatch blocks; re-saved genuine
	// fronts with a false patch showed it at one (fewer frequencies need
	// a patch of recompWeakPatch blocks, below).
	recompMinFreqs = 3
	// recompLevel: a block (with its neighbours within recompRadius
	// blocks) whose coefficients favour one compression over two by this
	// mean log-likelihood ratio per coefficient is compressed once.
	recompLevel  = 0.4
	recompRadius = 3
	// recompMinPatch: a patch is that many blocks at least, and
	// recompMinShare of the picture's blocks. Pasted faces of the tuning
	// corpora measured 1,100 to 2,700 blocks (4 to 9 % of the picture),
	// the false patches of re-saved genuine fronts 160 to 290 (under 1 %,
	// at one frequency).
	recompMinPatch = 150
	recompMinShare = 0.004
	// recompWeakPatch, recompWeakShare: a patch the size of a pasted
	// portrait counts when only one or two frequencies show the earlier
	// compression (a camera's and an editor's steps close together, or
	// dividing at most frequencies). Fewer frequencies are weaker evidence
	// per block; a large connected patch is stronger evidence over the
	// picture, and the false patches of pictures saved again whole stay
	// small. Chosen on the tuning corpora (seeds 7201 heldout, 7202 base,
	// 7203 columns, photo_swap, easy and medium; their 252 genuine fronts
	// saved again whole at quality 70, 75, 80, 85, 90 and 95: 1,512
	// pictures) and on the real specimens of testdata/ids saved again
	// whole after a first save at 70, 80 or 90: false patches at one or
	// two frequencies measured at most 245 blocks and 0.8 % of a 1600 x
	// 1200 picture, and 97 blocks but 2.5 % of a small specimen (hence
	// both bounds); pasted faces at one or two frequencies 841 to 2,164
	// blocks (2.8 to 7.2 %) on the tuning captures (one of 358 blocks,
	// 1.2 %, stays under), 1,024 to 6,510 blocks on a specimen whose
	// portrait was replaced after a first save at 75 to 95
	// (TestRecompressedPatch).
	recompWeakPatch = 600
	recompWeakShare = 0.02
	// recompNoise: the spread (in the coefficients' units, grey levels)
	// that rounding the pixels to integers between the two compressions
	// adds to each coefficient: uniform rounding of +-0.5 per pixel is
	// 0.29 through the orthonormal DCT; the decoder's integer transform
	// and the colour conversion add some.
	recompNoise = 0.4
)

// recompression is what the cue found.
type recompression struct {
	// Frequencies is how many of the DCT frequencies examined show an
	// earlier compression (0: none, or compressed once).
	Frequencies int
	// Patch is the largest connected patch of blocks compressed once, in
	// blocks of 8 x 8 px, and Box where it lies in the stored picture.
	Patch int
	Box   image.Rectangle
	// Level is the patch's mean evidence (log-likelihood ratio per
	// coefficient, one compression over two).
	Level float64
	// Share is Patch over the picture's blocks.
	Share float64
}

// found tells whether the patch is large enough to be an edit: with the
// earlier compression seen at recompMinFreqs frequencies or more, a patch
// of recompMinPatch blocks; at fewer, one the size of a pasted portrait.
func (r recompression) found() bool {
	if r.Frequencies >= recompMinFreqs {
		return r.Patch >= recompMinPatch && r.Share >= recompMinShare
	}
	return r.Frequencies > 0 && r.Patch >= recompWeakPatch && r.Share >= recompWeakShare
}

// jpegLumaQuant is the luminance quantisation table of a JPEG file, in
// natural (row-major) order; ok is false when the data is no JPEG or
// declares none.
func jpegLumaQuant(data []byte) (q [64]int, ok bool) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return q, false
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xFF {
			return q, ok
		}
		m := data[i+1]
		if m == 0xFF {
			i++ // fill byte
			continue
		}
		if m == 0x01 || (m >= 0xD0 && m <= 0xD7) {
			i += 2
			continue
		}
		if m == 0xDA || m == 0xD9 {
			return q, ok // start of scan: the tables come before it
		}
		l := int(data[i+2])<<8 | int(data[i+3])
		if l < 2 || i+2+l > len(data) {
			return q, false
		}
		if m == 0xDB {
			seg := data[i+4 : i+2+l]
			for len(seg) > 0 {
				pq, tq := seg[0]>>4, seg[0]&15
				n := 64
				if pq != 0 {
					n = 128
				}
				if len(seg) < 1+n {
					return q, false
				}
				if tq == 0 {
					for k := 0; k < 64; k++ {
						v := int(seg[1+k])
						if pq != 0 {
							v = int(seg[1+2*k])<<8 | int(seg[2+2*k])
						}
						q[zigzag[k]] = v
					}
					ok = true
				}
				seg = seg[1+n:]
			}
		}
		i += 2 + l
	}
	return q, ok
}

// zigzag maps the order a JPEG stores coefficients in to natural order.
var zigzag = [64]int{0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63}

// recompFreqs are the DCT frequencies examined (natural order): the low
// and middle ones, where enough coefficients are not zero to count.
var recompFreqs = [...]int{1, 8, 9, 16, 2, 17, 10, 3, 24, 11, 18, 25, 4, 32, 12, 19, 26, 33, 40, 5}

// dctBasis[u][x] is the orthonormal 8-point DCT-II basis.
var dctBasis = func() (b [8][8]float32) {
	for u := 0; u < 8; u++ {
		a := math.Sqrt(2.0 / 8)
		if u == 0 {
			a = math.Sqrt(1.0 / 8)
		}
		for x := 0; x < 8; x++ {
			b[u][x] = float32(a * math.Cos(float64(2*x+1)*float64(u)*math.Pi/16))
		}
	}
	return b
}()

// storedLuma is the stored picture's luminance as the decoder produced it,
// before any turn by the EXIF orientation (the blocks' grid is the file's).
func storedLuma(data []byte, decoded image.Image) (pix []uint8, stride, w, h int, ok bool) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, 0, false
	}
	img := decoded
	if img == nil || img.Bounds().Dx() != cfg.Width || img.Bounds().Dy() != cfg.Height || !isLuma(img) {
		if img, err = jpeg.Decode(bytes.NewReader(data)); err != nil {
			return nil, 0, 0, 0, false
		}
	}
	switch m := img.(type) {
	case *image.YCbCr:
		return m.Y[m.YOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.YStride, m.Rect.Dx(), m.Rect.Dy(), true
	case *image.Gray:
		return m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y):], m.Stride, m.Rect.Dx(), m.Rect.Dy(), true
	}
	return nil, 0, 0, 0, false
}

func isLuma(img image.Image) bool {
	switch img.(type) {
	case *image.YCbCr, *image.Gray:
		return true
	}
	return false
}

// recompressedPatch looks for a patch of the stored JPEG data compressed
// once where the rest was compressed twice. decoded is the picture as
// already decoded, reused when it is the file's own luminance grid. ok is
// false when the data is no JPEG that could be examined.
func recompressedPatch(data []byte, decoded image.Image) (recompression, bool) {
	var out recompression
	q, ok := jpegLumaQuant(data)
	if !ok {
		return out, false
	}
	pix, stride, w, h, ok := storedLuma(data, decoded)
	if !ok {
		return out, false
	}

	bw, bh := w/8, h/8
	if bw < 8 || bh < 8 {
		return out, false
	}
	nb := bw * bh
	nf := len(recompFreqs)
	// each block's coefficients at the examined frequencies, in units of
	// the last quantisation step; blocks with clipped pixels are left
	// out (clipping after the first compression moves values off its
	// grid in a genuine double compression too)
	coef := make([]int16, nb*nf)
	var inv [len(recompFreqs)]float32
	for j, k := range recompFreqs {
		inv[j] = 1 / float32(max(q[k], 1))
	}
	usable := make([]bool, nb)
	var rows [8][8]float32
	for by := 0; by < bh; by++ {
		for bx := 0; bx < bw; bx++ {
			clipped := false
			for y := 0; y < 8; y++ {
				row := pix[(by*8+y)*stride+bx*8 : (by*8+y)*stride+bx*8+8]
				// the basis is even (u even) or odd (u odd) about the
				// row's middle: half the products
				var e, o [4]float32
				for x := 0; x < 4; x++ {
					a, b := float32(row[x]), float32(row[7-x])
					e[x], o[x] = a+b-256, a-b
				}
				for u := 0; u < 6; u++ {
					t := &o
					if u%2 == 0 {
						t = &e
					}
					bu := &dctBasis[u]
					rows[y][u] = bu[0]*t[0] + bu[1]*t[1] + bu[2]*t[2] + bu[3]*t[3]
				}
				for _, v := range row {
					if v >= 250 || v <= 4 {
						clipped = true
					}
				}
			}
			i := by*bw + bx
			if clipped {
				continue
			}
			usable[i] = true
			for j, k := range recompFreqs {
				u, v := k/8, k%8 // u vertical, v horizontal
				var s float32
				for y := 0; y < 8; y++ {
					s += dctBasis[u][y] * rows[y][v]
				}
				// |s| is at most 8 x 255: in units of a step of 1 or
				// more, well inside int16
				c := s * inv[j]
				if c >= 0 {
					coef[i*nf+j] = int16(c + 0.5)
				} else {
					coef[i*nf+j] = -int16(-c + 0.5)
				}
			}
		}
	}
	// per frequency: the earlier step that explains the histogram, and
	// each value's evidence for one compression over two
	const M = 40
	llr := make([]float32, nb)
	cnt := make([]float32, nb)
	for j, k := range recompFreqs {
		q2 := q[k]
		if q2 < 2 {
			continue // a step of 1 keeps no trace of an earlier one
		}
		var hist [2*M + 1]float64
		var tot float64
		for i := 0; i < nb; i++ {
			if c := int(coef[i*nf+j]); usable[i] && c != 0 && c >= -M && c <= M {
				hist[c+M]++
				tot++
			}
		}
		if tot < 300 {
			continue
		}
		l, ok := earlierStep(hist[:], q2, M)
		if !ok {
			continue
		}
		out.Frequencies++
		for i := 0; i < nb; i++ {
			if c := int(coef[i*nf+j]); usable[i] && c != 0 && c >= -M && c <= M {
				llr[i] += l[c+M]
				cnt[i]++
			}
		}
	}
	if out.Frequencies == 0 {
		return out, true
	}
	// the evidence around each block, from summed-area tables
	sl := make([]float64, (bw+1)*(bh+1))
	sc := make([]float64, (bw+1)*(bh+1))
	for y := 0; y < bh; y++ {
		var rl, rc float64
		for x := 0; x < bw; x++ {
			rl += float64(llr[y*bw+x])
			rc += float64(cnt[y*bw+x])
			sl[(y+1)*(bw+1)+x+1] = sl[y*(bw+1)+x+1] + rl
			sc[(y+1)*(bw+1)+x+1] = sc[y*(bw+1)+x+1] + rc
		}
	}
	level := make([]float32, nb)
	for y := 0; y < bh; y++ {
		for x := 0; x < bw; x++ {
			x0, y0, x1, y1 := max(x-recompRadius, 0), max(y-recompRadius, 0), min(x+recompRadius+1, bw), min(y+recompRadius+1, bh)
			a, b, c, d := y0*(bw+1)+x0, y0*(bw+1)+x1, y1*(bw+1)+x0, y1*(bw+1)+x1
			if n := sc[d] - sc[b] - sc[c] + sc[a]; n >= 10 {
				level[y*bw+x] = float32((sl[d] - sl[b] - sl[c] + sl[a]) / n)
			}
		}
	}
	// the largest 4-connected patch over recompLevel
	seen := make([]bool, nb)
	var stack []int
	for i := range level {
		if seen[i] || level[i] < recompLevel {
			continue
		}
		seen[i] = true
		stack = append(stack[:0], i)
		n, sum := 0, 0.0
		box := image.Rectangle{}
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			n++
			sum += float64(level[p])
			px, py := p%bw, p/bw
			box = box.Union(image.Rect(px*8, py*8, px*8+8, py*8+8))
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := px+d[0], py+d[1]
				if nx < 0 || ny < 0 || nx >= bw || ny >= bh {
					continue
				}
				if k := ny*bw + nx; !seen[k] && level[k] >= recompLevel {
					seen[k] = true
					stack = append(stack, k)
				}
			}
		}
		if n > out.Patch {
			out.Patch, out.Box, out.Level = n, box, sum/float64(n)
		}
	}
	out.Share = float64(out.Patch) / float64(nb)
	return out, true
}

// earlierStep finds the earlier quantisation step q1 whose requantisation
// by q2 explains the histogram hist (values -M..M, 0 left out) and
// returns, per value, the log-likelihood ratio of one compression over
// two: log(nbar/n) where n is how many multiples of q1 round to the value
// and nbar its mean around it (Lin's model: one compression spreads the
// values evenly over a period, two crowd them as n does). ok is false
// when no step explains it.
func earlierStep(hist []float64, q2, M int) ([]float32, bool) {
	bestC := 0.0
	var best []float32
	n := make([]float64, 2*M+1)
	for q1 := 1; q1 <= 3*q2+2; q1++ {
		if q1 == q2 {
			continue
		}
		period := q1 / gcd(q1, q2) // of the crowding, in values
		if period < 2 || period > 12 {
			continue
		}
		for i := range n {
			n[i] = 0
		}
		// each multiple of q1, blurred by the rounding of the pixels
		// between the two compressions, spread over the values it rounds to
		reach := (M+1)*q2/q1 + 1 // multiples that round inside -M..M
		for m := -reach; m <= reach; m++ {
			x := float64(m * q1)
			c0 := int(math.Floor((x-3*recompNoise)/float64(q2) + 0.5))
			c1 := int(math.Floor((x+3*recompNoise)/float64(q2) + 0.5))
			for c := max(c0, -M); c <= min(c1, M); c++ {
				lo := ((float64(c)-0.5)*float64(q2) - x) / recompNoise
				hi := ((float64(c)+0.5)*float64(q2) - x) / recompNoise
				n[c+M] += 0.5 * (math.Erf(hi/math.Sqrt2) - math.Erf(lo/math.Sqrt2))
			}
		}
		l := make([]float32, 2*M+1)
		var sw, sx, sy, sxx, syy, sxy float64
		for c := -M + period; c <= M-period; c++ {
			lo, hi := c-period/2, c-period/2+period-1
			if c == 0 || lo <= 0 && hi >= 0 {
				continue // the window around 0 holds the zeros left out
			}
			var e, nb float64
			for j := lo; j <= hi; j++ {
				e += hist[j+M]
				nb += n[j+M]
			}
			e /= float64(period)
			nb /= float64(period)
			if nb == 0 {
				continue
			}
			x := n[c+M] / nb
			l[c+M] = float32(math.Log(1.05 / (x + 0.05)))
			if e < 8 {
				continue
			}
			y := hist[c+M] / e
			sw += e
			sx += e * x
			sy += e * y
			sxx += e * x * x
			syy += e * y * y
			sxy += e * x * y
		}
		if sw < 1000 {
			continue
		}
		mx, my := sx/sw, sy/sw
		vx, vy := sxx/sw-mx*mx, syy/sw-my*my
		if vx < 0.05 || vy <= 0 {
			continue
		}
		cov := sxy/sw - mx*my
		corr, slope := cov/math.Sqrt(vx*vy), cov/vx
		if corr > bestC && slope >= recompMinSlope && slope <= recompMaxSlope {
			bestC, best = corr, l
		}
	}
	if bestC < recompMinCorr {
		return nil, false
	}
	return best, true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
