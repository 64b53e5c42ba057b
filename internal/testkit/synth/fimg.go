package synth

import (
	"image"
	"math"
	"sync"

	"github.com/tambua/tambua/internal/geom"
)

// fimg is a float RGB picture (0..255, interleaved) for the photographic
// stages, where rounding after every step would band the gradients.
type fimg struct {
	w, h int
	pix  []float32
}

func newFimg(w, h int) *fimg { return &fimg{w: w, h: h, pix: make([]float32, w*h*3)} }

func (f *fimg) fill(c rgb) {
	for i := 0; i < len(f.pix); i += 3 {
		f.pix[i], f.pix[i+1], f.pix[i+2] = float32(c.R), float32(c.G), float32(c.B)
	}
}

// toRGBA rounds to 8 bits.
func (f *fimg) toRGBA() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
	for i, j := 0, 0; i < len(f.pix); i, j = i+3, j+4 {
		img.Pix[j] = clamp8(f.pix[i])
		img.Pix[j+1] = clamp8(f.pix[i+1])
		img.Pix[j+2] = clamp8(f.pix[i+2])
		img.Pix[j+3] = 255
	}
	return img
}

// fimgFromRGBA converts an opaque picture.
func fimgFromRGBA(img *image.RGBA) *fimg {
	b := img.Bounds()
	f := newFimg(b.Dx(), b.Dy())
	for y := 0; y < f.h; y++ {
		si := img.PixOffset(b.Min.X, b.Min.Y+y)
		di := y * f.w * 3
		for x := 0; x < f.w; x++ {
			f.pix[di] = float32(img.Pix[si])
			f.pix[di+1] = float32(img.Pix[si+1])
			f.pix[di+2] = float32(img.Pix[si+2])
			si += 4
			di += 3
		}
	}
	return f
}

// boxBlurH blurs each row with a box of radius r (running sum).
func boxBlurH(src, dst []float32, w, h, ch, r int) {
	if r <= 0 {
		copy(dst, src)
		return
	}
	inv := 1 / float32(2*r+1)
	for y := 0; y < h; y++ {
		row := src[y*w*ch : (y+1)*w*ch]
		out := dst[y*w*ch : (y+1)*w*ch]
		for c := 0; c < ch; c++ {
			var acc float32
			// edge-extended window
			for k := -r; k <= r; k++ {
				acc += row[clampi(k, 0, w-1)*ch+c]
			}
			for x := 0; x < w; x++ {
				out[x*ch+c] = acc * inv
				acc += row[clampi(x+r+1, 0, w-1)*ch+c] - row[clampi(x-r, 0, w-1)*ch+c]
			}
		}
	}
}

// boxBlurV blurs each column.
func boxBlurV(src, dst []float32, w, h, ch, r int) {
	if r <= 0 {
		copy(dst, src)
		return
	}
	inv := 1 / float32(2*r+1)
	stride := w * ch
	acc := make([]float32, stride)
	for k := -r; k <= r; k++ {
		row := src[clampi(k, 0, h-1)*stride:]
		for i := 0; i < stride; i++ {
			acc[i] += row[i]
		}
	}
	for y := 0; y < h; y++ {
		out := dst[y*stride : (y+1)*stride]
		add := src[clampi(y+r+1, 0, h-1)*stride:]
		sub := src[clampi(y-r, 0, h-1)*stride:]
		for i := 0; i < stride; i++ {
			out[i] = acc[i] * inv
			acc[i] += add[i] - sub[i]
		}
	}
}

func clampi(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// f32Pool recycles the large scratch buffers of the photographic stages,
// which would otherwise dominate the garbage per sample.
var f32Pool sync.Pool

func getF32(n int) []float32 {
	if p, ok := f32Pool.Get().(*[]float32); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

func putF32(b []float32) { f32Pool.Put(&b) }

// gaussBlur approximates a Gaussian of the given sigma by three box
// passes in each direction.
func gaussBlur(pix []float32, w, h, ch int, sigma float64) {
	if sigma < 0.3 {
		return
	}
	tmp := getF32(len(pix))
	defer putF32(tmp)
	for _, r := range boxRadii(sigma) {
		boxBlurH(pix, tmp, w, h, ch, r)
		boxBlurV(tmp, pix, w, h, ch, r)
	}
}

// boxRadii returns three box radii whose convolution has about the
// standard deviation sigma.
func boxRadii(sigma float64) [3]int {
	wIdeal := math.Sqrt(12*sigma*sigma/3 + 1)
	wl := int(math.Floor(wIdeal))
	if wl%2 == 0 {
		wl--
	}
	wu := wl + 2
	m := int(math.Round((12*sigma*sigma - 3*float64(wl*wl) - 12*float64(wl) - 9) / (-4*float64(wl) - 4)))
	var r [3]int
	for i := range r {
		if i < m {
			r[i] = (wl - 1) / 2
		} else {
			r[i] = (wu - 1) / 2
		}
		if r[i] < 0 {
			r[i] = 0
		}
	}
	return r
}

// motionBlur averages taps along the direction angle over length px. The
// taps sit on whole pixels; averaging hides the rounding.
func motionBlur(f *fimg, length, angle float64) {
	if length < 1 {
		return
	}
	taps := int(math.Ceil(length)) + 1
	dx, dy := math.Cos(angle), math.Sin(angle)
	src := getF32(len(f.pix))
	defer putF32(src)
	copy(src, f.pix)
	offs := make([][2]int, taps)
	for i := range offs {
		t := (float64(i)/float64(taps-1) - 0.5) * length
		offs[i] = [2]int{int(math.Round(t * dx)), int(math.Round(t * dy))}
	}
	inv := 1 / float32(taps)
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			var r, g, b float32
			for _, o := range offs {
				i := (clampi(y+o[1], 0, f.h-1)*f.w + clampi(x+o[0], 0, f.w-1)) * 3
				r += src[i]
				g += src[i+1]
				b += src[i+2]
			}
			i := (y*f.w + x) * 3
			f.pix[i], f.pix[i+1], f.pix[i+2] = r*inv, g*inv, b*inv
		}
	}
}

// bilinearF samples an RGB float picture with edge clamping.
func bilinearF(pix []float32, w, h int, x, y float64) (float32, float32, float32) {
	if x < 0 {
		x = 0
	}
	if y < 0 {
		y = 0
	}
	if x > float64(w-1) {
		x = float64(w - 1)
	}
	if y > float64(h-1) {
		y = float64(h - 1)
	}
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	i00, i10 := (y0*w+x0)*3, (y0*w+x1)*3
	i01, i11 := (y1*w+x0)*3, (y1*w+x1)*3
	var out [3]float32
	for c := 0; c < 3; c++ {
		top := pix[i00+c] + (pix[i10+c]-pix[i00+c])*fx
		bot := pix[i01+c] + (pix[i11+c]-pix[i01+c])*fx
		out[c] = top + (bot-top)*fy
	}
	return out[0], out[1], out[2]
}

// resizeF scales a float picture with bilinear sampling after box
// prefiltering when shrinking, so fine lines do not alias.
func resizeF(f *fimg, w, h int) *fimg {
	src := f
	for src.w >= 2*w && src.h >= 2*h {
		src = halveF(src)
	}
	out := newFimg(w, h)
	sx, sy := float64(src.w)/float64(w), float64(src.h)/float64(h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b := bilinearF(src.pix, src.w, src.h, (float64(x)+0.5)*sx-0.5, (float64(y)+0.5)*sy-0.5)
			i := (y*w + x) * 3
			out.pix[i], out.pix[i+1], out.pix[i+2] = r, g, b
		}
	}
	return out
}

// halveF averages 2x2 blocks.
func halveF(f *fimg) *fimg {
	w, h := f.w/2, f.h/2
	out := newFimg(w, h)
	for y := 0; y < h; y++ {
		r0 := f.pix[(2*y)*f.w*3:]
		r1 := f.pix[(2*y+1)*f.w*3:]
		for x := 0; x < w; x++ {
			i := x * 6
			o := (y*w + x) * 3
			for c := 0; c < 3; c++ {
				out.pix[o+c] = (r0[i+c] + r0[i+3+c] + r1[i+c] + r1[i+3+c]) * 0.25
			}
		}
	}
	return out
}

// homography is geom.Homography on the corpus's vec points.
type homography struct{ geom.Homography }

func (m homography) apply(p vec) vec {
	x, y := m.Apply(p.X, p.Y)
	return vec{x, y}
}

// homographyFrom solves for the homography taking src[i] to dst[i].
func homographyFrom(src, dst [4]vec) (homography, bool) {
	var s, d [4][2]float64
	for i := range src {
		s[i], d[i] = [2]float64{src[i].X, src[i].Y}, [2]float64{dst[i].X, dst[i].Y}
	}
	h, ok := geom.HomographyFrom(s, d)
	return homography{h}, ok
}

// inverse returns the inverse homography.
func (m homography) inverse() homography { return homography{m.Inverse()} }

// rgba4 is a float picture with alpha (premultiplied), used for the flat
// card with its rounded corners while it is being warped.
type rgba4 struct {
	w, h int
	pix  []float32
}

func rgba4From(img *image.RGBA) *rgba4 {
	b := img.Bounds()
	r := &rgba4{w: b.Dx(), h: b.Dy(), pix: make([]float32, b.Dx()*b.Dy()*4)}
	for y := 0; y < r.h; y++ {
		si := img.PixOffset(b.Min.X, b.Min.Y+y)
		di := y * r.w * 4
		for x := 0; x < r.w*4; x++ {
			r.pix[di+x] = float32(img.Pix[si+x])
		}
	}
	return r
}

func (r *rgba4) halve() *rgba4 {
	w, h := r.w/2, r.h/2
	out := &rgba4{w: w, h: h, pix: make([]float32, w*h*4)}
	for y := 0; y < h; y++ {
		r0 := r.pix[(2*y)*r.w*4:]
		r1 := r.pix[(2*y+1)*r.w*4:]
		for x := 0; x < w; x++ {
			i := x * 8
			o := (y*w + x) * 4
			for c := 0; c < 4; c++ {
				out.pix[o+c] = (r0[i+c] + r0[i+4+c] + r1[i+c] + r1[i+4+c]) * 0.25
			}
		}
	}
	return out
}

// sample reads premultiplied RGBA bilinearly; outside the picture is
// transparent, which anti-aliases the warped card's outline.
func (r *rgba4) sample(x, y float64) [4]float32 {
	var out [4]float32
	x -= 0.5
	y -= 0.5
	x0f, y0f := math.Floor(x), math.Floor(y)
	x0, y0 := int(x0f), int(y0f)
	fx, fy := float32(x-x0f), float32(y-y0f)
	if x0 >= 0 && y0 >= 0 && x0+1 < r.w && y0+1 < r.h {
		i := (y0*r.w + x0) * 4
		j := i + r.w*4
		p := r.pix
		for c := 0; c < 4; c++ {
			top := p[i+c] + (p[i+4+c]-p[i+c])*fx
			bot := p[j+c] + (p[j+4+c]-p[j+c])*fx
			out[c] = top + (bot-top)*fy
		}
		return out
	}
	wts := [4]float32{(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy}
	pts := [4][2]int{{x0, y0}, {x0 + 1, y0}, {x0, y0 + 1}, {x0 + 1, y0 + 1}}
	for k, p := range pts {
		if p[0] < 0 || p[1] < 0 || p[0] >= r.w || p[1] >= r.h || wts[k] == 0 {
			continue
		}
		i := (p[1]*r.w + p[0]) * 4
		for c := 0; c < 4; c++ {
			out[c] += r.pix[i+c] * wts[k]
		}
	}
	return out
}
