package liveness

import (
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/internal/facerec"
)

// FaceSide is the side of the square the face region is resampled to for
// the colour, texture and blur features, so that they do not depend on
// the capture's resolution.
const FaceSide = 128

// FrameSide is the longer side of the whole frame for the geometry and
// line features.
const FrameSide = 320

// maxWindow bounds the spectral windows taken at the capture's own
// resolution (a print's halftone or a screen's pixel grid is lost by any
// resampling, so these are never resized).
const maxWindow = 256

// ErrNoFace is returned by Extract for a face rectangle outside the image.
var ErrNoFace = errors.New("liveness: face rectangle outside the image")

// FeatureNames names the entries of a feature vector, in order. A model
// records the names it was trained on, and loading refuses a model whose
// names differ, so a change here forces retraining.
var FeatureNames = []string{
	// blur and sharpness of the face (Wen et al. 2015; a print or a replay
	// is one more optical pass, and a camera focused on a sheet held close)
	"face_laplacian", "face_blur",
	// chromatic moments of the face in HSV (Wen et al. 2015: printing and
	// screens narrow and shift the gamut)
	"face_h_mean", "face_h_std", "face_h_skew",
	"face_s_mean", "face_s_std", "face_s_skew",
	"face_v_mean", "face_v_std", "face_v_skew",
	// colour diversity (Wen et al. 2015)
	"face_colours", "face_top100",
	// specular reflection (glossy paper, screen glass)
	"spec_share", "spec_excess", "spec_std",
	// uniform LBP(8,1) texture histogram of the face (Maatta et al. 2011)
	"lbp_0", "lbp_1", "lbp_2", "lbp_3", "lbp_4", "lbp_5", "lbp_6", "lbp_7", "lbp_8", "lbp_other",
	// sensor noise at native resolution (Immerkaer 1996), so that the
	// classifier can tell noise from texture
	"face_noise",
	// frequency domain at native resolution: face and the region below it
	"face_hf", "face_mf", "face_peak",
	"below_hf", "below_mf", "below_peak",
	// tonal range: a print cannot be darker than its ink nor brighter
	// than its paper, a screen lifts its blacks; measured on the face and
	// on the ring around it (the room in a selfie, the printed or shown
	// room in a recapture)
	"face_v_p02", "face_v_p98", "ring_v_p02", "ring_v_p98", "ring_s_mean", "ring_s_p98",
	// face-to-frame geometry
	"face_width", "face_height", "face_cx", "face_cy", "face_margin",
	// the frame: straight edges of a sheet or a device, dark bezel, paper
	// white, and how the frame's border differs from the face's surround
	"line_longest", "line_count", "dark_share", "paper_share", "border_contrast",
}

// NumFeatures is the length of a feature vector.
var NumFeatures = len(FeatureNames)

// plane is a grey image in float64, values 0..255.
type plane struct {
	w, h int
	p    []float64
}

func (g *plane) at(x, y int) float64 {
	x = min(max(x, 0), g.w-1)
	y = min(max(y, 0), g.h-1)
	return g.p[y*g.w+x]
}

func greyOf(img *image.NRGBA) *plane {
	b := img.Bounds()
	g := &plane{w: b.Dx(), h: b.Dy(), p: make([]float64, b.Dx()*b.Dy())}
	for y := 0; y < g.h; y++ {
		row := img.Pix[(y)*img.Stride:]
		for x := 0; x < g.w; x++ {
			i := x * 4
			g.p[y*g.w+x] = 0.299*float64(row[i]) + 0.587*float64(row[i+1]) + 0.114*float64(row[i+2])
		}
	}
	return g
}

// window copies the n x n square of img (native resolution) centred at c,
// moved inside the image, as grey.
func window(img *image.NRGBA, c image.Point, n int) []float64 {
	b := img.Bounds()
	x0 := min(max(c.X-n/2, b.Min.X), b.Max.X-n)
	y0 := min(max(c.Y-n/2, b.Min.Y), b.Max.Y-n)
	out := make([]float64, n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			i := img.PixOffset(x0+x, y0+y)
			out[y*n+x] = 0.299*float64(img.Pix[i]) + 0.587*float64(img.Pix[i+1]) + 0.114*float64(img.Pix[i+2])
		}
	}
	return out
}

// pow2Below is the largest power of two <= v, capped at maxWindow; 0 when
// v < 16 (too few samples for a spectrum).
func pow2Below(v int) int {
	if v < 16 {
		return 0
	}
	n := 16
	for n*2 <= v && n*2 <= maxWindow {
		n *= 2
	}
	return n
}

// Extract computes the feature vector of img with the face at face (in
// img's coordinates, as the detector reported it).
func Extract(img image.Image, face image.Rectangle) ([]float64, error) {
	src := facerec.ToNRGBA(img) // no copy for what facerec.Decode returns
	b := src.Bounds()
	face = face.Sub(img.Bounds().Min).Intersect(b)
	if face.Dx() < 8 || face.Dy() < 8 {
		return nil, ErrNoFace
	}
	f := make([]float64, 0, NumFeatures)

	crop := imaging.Resize(imaging.Crop(src, face), FaceSide, FaceSide, imaging.Linear)
	grey := greyOf(crop)
	f = append(f, laplacian(grey), creteBlur(grey))
	f = append(f, hsvMoments(crop)...)
	f = append(f, colourDiversity(crop)...)
	f = append(f, specular(crop)...)
	f = append(f, lbpHist(greyOf(imaging.Resize(crop, FaceSide/2, FaceSide/2, imaging.Linear)))...)
	f = append(f, noiseSigma(src, face))

	f = append(f, spectralFeatures(src, centre(face), pow2Below(min(face.Dx(), face.Dy())))...)
	below := image.Pt(centre(face).X, face.Max.Y+face.Dy()/2)
	f = append(f, spectralFeatures(src, below, pow2Below(min(b.Dx(), b.Dy(), face.Dx())))...)

	f = append(f, tonalRange(crop, face, src)...)
	f = append(f, geometry(b, face)...)
	frame := imaging.Fit(src, FrameSide, FrameSide, imaging.Linear)
	k := float64(frame.Bounds().Dx()) / float64(b.Dx())
	small := image.Rect(int(float64(face.Min.X)*k), int(float64(face.Min.Y)*k),
		int(math.Ceil(float64(face.Max.X)*k)), int(math.Ceil(float64(face.Max.Y)*k)))
	f = append(f, frameFeatures(frame, small)...)
	if len(f) != NumFeatures {
		return nil, fmt.Errorf("liveness: %d features computed, %d named", len(f), NumFeatures)
	}
	for i, v := range f {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			f[i] = 0
		}
	}
	return f, nil
}

func centre(r image.Rectangle) image.Point {
	return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
}

func spectralFeatures(img *image.NRGBA, c image.Point, n int) []float64 {
	if n == 0 || n > img.Bounds().Dx() || n > img.Bounds().Dy() {
		return []float64{0, 0, 0}
	}
	s := spectral(window(img, c, n), n)
	return []float64{s.HighShare, s.MidShare, s.Peak}
}

// laplacian is the log variance of the 4-neighbour Laplacian, the usual
// focus measure.
func laplacian(g *plane) float64 {
	var sum, sq float64
	n := 0
	for y := 1; y < g.h-1; y++ {
		for x := 1; x < g.w-1; x++ {
			l := 4*g.p[y*g.w+x] - g.p[y*g.w+x-1] - g.p[y*g.w+x+1] - g.p[(y-1)*g.w+x] - g.p[(y+1)*g.w+x]
			sum += l
			sq += l * l
			n++
		}
	}
	if n == 0 {
		return 0
	}
	m := sum / float64(n)
	return math.Log1p(sq/float64(n) - m*m)
}

// creteBlur is the no-reference blur measure of Crete-Roffet et al. (2007):
// blur the image again with a 9-tap box and see how much of its
// neighbour-to-neighbour variation survives. A sharp image loses much
// (result near 0), an already blurred one little (near 1).
func creteBlur(g *plane) float64 {
	const k = 9
	dir := func(dx, dy int) float64 {
		var sF, sV float64
		for y := 1; y < g.h; y++ {
			for x := 1; x < g.w; x++ {
				var b0, b1 float64
				for t := -k / 2; t <= k/2; t++ {
					b0 += g.at(x+t*dx, y+t*dy)
					b1 += g.at(x-dx+t*dx, y-dy+t*dy)
				}
				dF := math.Abs(g.at(x, y) - g.at(x-dx, y-dy))
				dB := math.Abs(b0-b1) / k
				sF += dF
				sV += math.Max(0, dF-dB)
			}
		}
		if sF == 0 {
			return 1
		}
		return (sF - sV) / sF
	}
	return math.Max(dir(1, 0), dir(0, 1))
}

// moments returns mean, standard deviation and skewness of v.
func moments(v []float64) (float64, float64, float64) {
	if len(v) == 0 {
		return 0, 0, 0
	}
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var m2, m3 float64
	for _, x := range v {
		d := x - m
		m2 += d * d
		m3 += d * d * d
	}
	m2 /= float64(len(v))
	m3 /= float64(len(v))
	sd := math.Sqrt(m2)
	if sd < 1e-9 {
		return m, 0, 0
	}
	return m, sd, m3 / (sd * sd * sd)
}

// hsv converts 8-bit RGB to hue, saturation and value in [0, 1). Hue is
// turned by half a circle so that skin tones, near red, sit mid-range
// instead of straddling the wrap.
func hsv(r, g, b uint8) (float64, float64, float64) {
	rf, gf, bf := float64(r)/255, float64(g)/255, float64(b)/255
	mx := math.Max(rf, math.Max(gf, bf))
	mn := math.Min(rf, math.Min(gf, bf))
	d := mx - mn
	var h float64
	switch {
	case d == 0:
		h = 0
	case mx == rf:
		h = math.Mod((gf-bf)/d, 6)
	case mx == gf:
		h = (bf-rf)/d + 2
	default:
		h = (rf-gf)/d + 4
	}
	h /= 6
	h = math.Mod(h+1.5, 1)
	s := 0.0
	if mx > 0 {
		s = d / mx
	}
	return h, s, mx
}

func hsvMoments(img *image.NRGBA) []float64 {
	n := img.Rect.Dx() * img.Rect.Dy()
	hs, ss, vs := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for i := 0; i+3 < len(img.Pix); i += 4 {
		h, s, v := hsv(img.Pix[i], img.Pix[i+1], img.Pix[i+2])
		hs, ss, vs = append(hs, h), append(ss, s), append(vs, v)
	}
	out := make([]float64, 0, 9)
	for _, c := range [][]float64{hs, ss, vs} {
		m, sd, sk := moments(c)
		out = append(out, m, sd, sk)
	}
	return out
}

// colourDiversity: with each channel quantised to 32 levels, the number
// of distinct colours per pixel and the share of pixels in the 100 most
// frequent colours. Recapture narrows the palette.
func colourDiversity(img *image.NRGBA) []float64 {
	counts := make(map[int]int)
	n := 0
	for i := 0; i+3 < len(img.Pix); i += 4 {
		k := int(img.Pix[i]>>3)<<10 | int(img.Pix[i+1]>>3)<<5 | int(img.Pix[i+2]>>3)
		counts[k]++
		n++
	}
	if n == 0 {
		return []float64{0, 0}
	}
	// a partial selection: the 100 largest counts
	top := make([]int, 0, 101)
	for _, c := range counts {
		j := len(top)
		top = append(top, c)
		for j > 0 && top[j-1] < top[j] {
			top[j-1], top[j] = top[j], top[j-1]
			j--
		}
		if len(top) > 100 {
			top = top[:100]
		}
	}
	var sum int
	for _, c := range top {
		sum += c
	}
	return []float64{float64(len(counts)) / float64(n), float64(sum) / float64(n)}
}

// specular approximates the specular reflection features of Wen et al.:
// the minimum of R, G and B is where a white highlight shows on skin-coloured
// diffuse reflection; pixels whose minimum stands two deviations above the
// face's are highlights. Gives their share, how far above the mean they are,
// and their spread.
func specular(img *image.NRGBA) []float64 {
	mins := make([]float64, 0, len(img.Pix)/4)
	for i := 0; i+3 < len(img.Pix); i += 4 {
		mins = append(mins, float64(min(img.Pix[i], img.Pix[i+1], img.Pix[i+2]))/255)
	}
	m, sd, _ := moments(mins)
	if sd < 1.0/255 {
		return []float64{0, 0, 0} // one flat tone: no highlight
	}
	th := m + 2*sd
	var hi []float64
	for _, v := range mins {
		if v > th {
			hi = append(hi, v)
		}
	}
	if len(hi) == 0 {
		return []float64{0, 0, 0}
	}
	hm, hsd, _ := moments(hi)
	return []float64{float64(len(hi)) / float64(len(mins)), hm - m, hsd}
}

// lbpHist is the normalised histogram of uniform LBP(8,1) codes: bins 0..8
// count the set bits of codes with at most two 0/1 transitions (spots,
// edges, corners, flat areas), bin 9 all other codes. A print's halftone
// and a screen's grid raise the non-uniform share.
func lbpHist(g *plane) []float64 {
	off := [8][2]int{{-1, -1}, {0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}}
	h := make([]float64, 10)
	n := 0
	for y := 1; y < g.h-1; y++ {
		for x := 1; x < g.w-1; x++ {
			c := g.p[y*g.w+x]
			var bitsOn, trans int
			var prev bool
			for k := 0; k <= 8; k++ {
				o := off[k%8]
				on := g.p[(y+o[1])*g.w+x+o[0]] >= c
				if k > 0 && on != prev {
					trans++
				}
				if k < 8 && on {
					bitsOn++
				}
				prev = on
			}
			if trans <= 2 {
				h[bitsOn]++
			} else {
				h[9]++
			}
			n++
		}
	}
	if n > 0 {
		for i := range h {
			h[i] /= float64(n)
		}
	}
	return h
}

// geometry: the face's size and place in the frame. A selfie at arm's
// length has a large face; a print or a phone held up to the camera shows
// the face smaller, inside the sheet or device.
func geometry(b, face image.Rectangle) []float64 {
	w, h := float64(b.Dx()), float64(b.Dy())
	c := centre(face)
	margin := min(face.Min.X-b.Min.X, face.Min.Y-b.Min.Y, b.Max.X-face.Max.X, b.Max.Y-face.Max.Y)
	return []float64{
		float64(face.Dx()) / w, float64(face.Dy()) / h,
		float64(c.X) / w, float64(c.Y) / h,
		float64(margin) / float64(face.Dx()),
	}
}

// frameFeatures measures the whole (reduced) frame: straight edges, dark
// and paper-white areas, and the contrast between the frame's border and
// the face's surround.
func frameFeatures(img *image.NRGBA, face image.Rectangle) []float64 {
	g := greyOf(img)
	longest, count := lines(g)
	var dark, paper int
	n := img.Rect.Dx() * img.Rect.Dy()
	for i := 0; i+3 < len(img.Pix); i += 4 {
		_, s, v := hsv(img.Pix[i], img.Pix[i+1], img.Pix[i+2])
		if v < 0.12 {
			dark++
		}
		if v > 0.85 && s < 0.08 {
			paper++
		}
	}
	return []float64{longest, count, float64(dark) / float64(n), float64(paper) / float64(n), borderContrast(img, face)}
}

// lines finds straight edges with a Hough transform over the gradient
// direction and returns the longest line's length (as a share of the
// frame's longer side) and how many lines are at least a third of it.
// The edges of a sheet or a phone are long and straight; a room behind a
// person is out of focus and a body's outline is curved.
func lines(g *plane) (float64, float64) {
	const nTheta = 90
	diag := int(math.Ceil(math.Hypot(float64(g.w), float64(g.h))))
	acc := make([]float64, nTheta*(2*diag+1))
	cos, sin := make([]float64, nTheta), make([]float64, nTheta)
	for t := 0; t < nTheta; t++ {
		sin[t], cos[t] = math.Sincos(float64(t) * math.Pi / nTheta)
	}
	for y := 1; y < g.h-1; y++ {
		for x := 1; x < g.w-1; x++ {
			gx := (g.at(x+1, y-1) + 2*g.at(x+1, y) + g.at(x+1, y+1) - g.at(x-1, y-1) - 2*g.at(x-1, y) - g.at(x-1, y+1)) / 8
			gy := (g.at(x-1, y+1) + 2*g.at(x, y+1) + g.at(x+1, y+1) - g.at(x-1, y-1) - 2*g.at(x, y-1) - g.at(x+1, y-1)) / 8
			// 12 grey levels per pixel: a sharp edge, not the room's blur
			if gx*gx+gy*gy < 12*12 {
				continue
			}
			a := math.Atan2(gy, gx)
			if a < 0 {
				a += math.Pi
			}
			t0 := int(math.Round(a/math.Pi*nTheta)) % nTheta
			for dt := -1; dt <= 1; dt++ {
				t := (t0 + dt + nTheta) % nTheta
				r := int(math.Round(float64(x)*cos[t]+float64(y)*sin[t])) + diag
				acc[t*(2*diag+1)+r]++
			}
		}
	}
	long := float64(max(g.w, g.h))
	var best float64
	for _, v := range acc {
		best = math.Max(best, v)
	}
	// count peaks: local maxima over a 5x5 neighbourhood above a third of
	// the frame's side
	var count float64
	rows := 2*diag + 1
	for t := 0; t < nTheta; t++ {
		for r := 0; r < rows; r++ {
			v := acc[t*rows+r]
			if v < long/3 {
				continue
			}
			peak := true
			for dt := -2; dt <= 2 && peak; dt++ {
				for dr := -2; dr <= 2; dr++ {
					tt, rr := t+dt, r+dr
					if (dt == 0 && dr == 0) || tt < 0 || tt >= nTheta || rr < 0 || rr >= rows {
						continue
					}
					if w := acc[tt*rows+rr]; w > v || (w == v && (dt < 0 || (dt == 0 && dr < 0))) {
						peak = false
						break
					}
				}
			}
			if peak {
				count++
			}
		}
	}
	return best / long, math.Min(count, 8)
}

// borderContrast is the colour distance (0..1) between the mean of the
// frame's outer 5 % and the mean of the ring around the face (one face
// width out). In a live selfie both are the room; in a recapture the
// border is the table or the hand and the ring is the printed room.
func borderContrast(img *image.NRGBA, face image.Rectangle) float64 {
	b := img.Rect
	bw := max(1, min(b.Dx(), b.Dy())/20)
	inner := b.Inset(bw)
	ring := image.Rect(face.Min.X-face.Dx()/2, face.Min.Y-face.Dy()/2, face.Max.X+face.Dx()/2, face.Max.Y+face.Dy()/2).Intersect(b)
	var outer, around [3]float64
	var no, na float64
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := image.Pt(x, y)
			i := img.PixOffset(x, y)
			switch {
			case !p.In(inner):
				for c := 0; c < 3; c++ {
					outer[c] += float64(img.Pix[i+c])
				}
				no++
			case p.In(ring) && !p.In(face):
				for c := 0; c < 3; c++ {
					around[c] += float64(img.Pix[i+c])
				}
				na++
			}
		}
	}
	if no == 0 || na == 0 {
		return 0
	}
	var d float64
	for c := 0; c < 3; c++ {
		e := outer[c]/no - around[c]/na
		d += e * e
	}
	return math.Sqrt(d) / (255 * math.Sqrt(3))
}

// tonalRange gives the 2nd and 98th percentiles of value on the face crop
// and of value and saturation on the ring around the face (one face width
// out, the face excluded), at native resolution sampled on a grid of at
// most about 128 x 128 points.
func tonalRange(crop *image.NRGBA, face image.Rectangle, src *image.NRGBA) []float64 {
	var fv []float64
	for i := 0; i+3 < len(crop.Pix); i += 4 {
		_, _, v := hsv(crop.Pix[i], crop.Pix[i+1], crop.Pix[i+2])
		fv = append(fv, v)
	}
	b := src.Bounds()
	ring := image.Rect(face.Min.X-face.Dx()/2, face.Min.Y-face.Dy()/2, face.Max.X+face.Dx()/2, face.Max.Y+face.Dy()/2).Intersect(b)
	step := max(1, max(ring.Dx(), ring.Dy())/128)
	var rv, rs []float64
	for y := ring.Min.Y; y < ring.Max.Y; y += step {
		for x := ring.Min.X; x < ring.Max.X; x += step {
			if image.Pt(x, y).In(face) {
				continue
			}
			i := src.PixOffset(x, y)
			_, s, v := hsv(src.Pix[i], src.Pix[i+1], src.Pix[i+2])
			rv, rs = append(rv, v), append(rs, s)
		}
	}
	sm, _, _ := moments(rs)
	return []float64{quantile(fv, 0.02), quantile(fv, 0.98), quantile(rv, 0.02), quantile(rv, 0.98), sm, quantile(rs, 0.98)}
}

// quantile returns the q-quantile of v (sorting v); 0 for no values.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	return v[min(len(v)-1, int(q*float64(len(v))))]
}

// noiseSigma estimates the standard deviation of white noise in the face
// at native resolution with Immerkaer's operator (the difference of two
// Laplacians, blind to linear ramps), over a central window of at most
// 256 x 256.
func noiseSigma(img *image.NRGBA, face image.Rectangle) float64 {
	n := min(face.Dx(), face.Dy(), maxWindow)
	if n < 8 {
		return 0
	}
	g := window(img, centre(face), n)
	var sum float64
	for y := 1; y < n-1; y++ {
		for x := 1; x < n-1; x++ {
			at := func(dx, dy int) float64 { return g[(y+dy)*n+x+dx] }
			v := at(-1, -1) - 2*at(0, -1) + at(1, -1) - 2*at(-1, 0) + 4*at(0, 0) - 2*at(1, 0) + at(-1, 1) - 2*at(0, 1) + at(1, 1)
			sum += math.Abs(v)
		}
	}
	return math.Sqrt(math.Pi/2) * sum / (6 * float64((n-2)*(n-2)))
}
