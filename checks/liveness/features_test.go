package liveness

import (
	"errors"
	"image"
	"image/color"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// fill makes a w x h image whose pixel (x, y) is f(x, y).
func fill(w, h int, f func(x, y int) color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, f(x, y))
		}
	}
	return img
}

func grey(v float64) color.NRGBA {
	u := uint8(math.Max(0, math.Min(255, math.Round(v))))
	return color.NRGBA{u, u, u, 255}
}

func flat(w, h int, v float64) *image.NRGBA {
	return fill(w, h, func(int, int) color.NRGBA { return grey(v) })
}

func noisy(w, h int, mean, sd float64, seed uint64) *image.NRGBA {
	r := rand.New(rand.NewPCG(seed, 1))
	return fill(w, h, func(int, int) color.NRGBA { return grey(mean + sd*r.NormFloat64()) })
}

// grating is a sinusoid of the given period (px) along x.
func grating(w, h int, period float64) *image.NRGBA {
	return fill(w, h, func(x, _ int) color.NRGBA { return grey(128 + 60*math.Sin(2*math.Pi*float64(x)/period)) })
}

// smooth is a soft diagonal ramp: a blurred room.
func smooth(w, h int) *image.NRGBA {
	return fill(w, h, func(x, y int) color.NRGBA { return grey(60 + 120*float64(x+y)/float64(w+h)) })
}

func checker(w, h, cell int) *image.NRGBA {
	return fill(w, h, func(x, y int) color.NRGBA {
		if (x/cell+y/cell)%2 == 0 {
			return grey(40)
		}
		return grey(220)
	})
}

func planeOf(img *image.NRGBA) *plane { return greyOf(img) }

func TestFFT(t *testing.T) {
	tests := []struct {
		name string
		in   []complex128
		want []complex128
	}{
		{"impulse", []complex128{1, 0, 0, 0}, []complex128{1, 1, 1, 1}},
		{"constant", []complex128{1, 1, 1, 1}, []complex128{4, 0, 0, 0}},
		{"alternating", []complex128{1, -1, 1, -1, 1, -1, 1, -1}, []complex128{0, 0, 0, 0, 8, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := append([]complex128(nil), tc.in...)
			fft(x)
			for i := range x {
				if cmplx.Abs(x[i]-tc.want[i]) > 1e-9 {
					t.Fatalf("got %v, want %v", x, tc.want)
				}
			}
		})
	}
	// against the definition on a random vector
	r := rand.New(rand.NewPCG(3, 4))
	n := 32
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(r.NormFloat64(), r.NormFloat64())
	}
	got := append([]complex128(nil), x...)
	fft(got)
	for k := 0; k < n; k++ {
		var s complex128
		for j := 0; j < n; j++ {
			s += x[j] * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/float64(n)))
		}
		if cmplx.Abs(s-got[k]) > 1e-9 {
			t.Fatalf("bin %d: %v, want %v", k, got[k], s)
		}
	}
}

func TestSpectral(t *testing.T) {
	const n = 128
	tests := []struct {
		name                 string
		img                  *image.NRGBA
		minHigh, maxHigh     float64
		minPeak, maxPeak     float64
		minMid, maxMidShared float64
	}{
		// a smooth ramp has its energy at the lowest frequencies
		{"smooth", smooth(n, n), 0, 0.1, -1, 100, 0, 0.1},
		// white noise spreads energy evenly: the share above half Nyquist
		// is the area of that ring in the disc, 3/4; no frequency stands out
		{"noise", noisy(n, n, 128, 20, 1), 0.6, 0.85, 0, 3.5, 0, 1},
		// a halftone-like grating of period 3 px sits at 2/3 Nyquist: a
		// sharp peak in the high band
		{"grating 3px", grating(n, n, 3), 0.9, 1, 6, 100, 0, 0.1},
		// period 6 px: 1/3 Nyquist, in the mid band
		{"grating 6px", grating(n, n, 6), 0, 0.1, 6, 100, 0.9, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spectral(window(tc.img, image.Pt(n/2, n/2), n), n)
			t.Logf("%+v", s)
			if s.HighShare < tc.minHigh || s.HighShare > tc.maxHigh {
				t.Errorf("HighShare %.3f outside [%v, %v]", s.HighShare, tc.minHigh, tc.maxHigh)
			}
			if s.Peak < tc.minPeak || s.Peak > tc.maxPeak {
				t.Errorf("Peak %.3f outside [%v, %v]", s.Peak, tc.minPeak, tc.maxPeak)
			}
			if s.MidShare < tc.minMid || s.MidShare > tc.maxMidShared {
				t.Errorf("MidShare %.3f outside [%v, %v]", s.MidShare, tc.minMid, tc.maxMidShared)
			}
		})
	}
	if s := spectral(window(flat(n, n, 90), image.Pt(n/2, n/2), n), n); s != (Spectral{}) {
		t.Errorf("flat image: %+v, want zeros", s)
	}
}

// blurred returns img blurred by a 5 x 5 box, three times (close to a
// Gaussian).
func blurred(img *image.NRGBA) *image.NRGBA {
	g := planeOf(img)
	for pass := 0; pass < 3; pass++ {
		out := make([]float64, len(g.p))
		for y := 0; y < g.h; y++ {
			for x := 0; x < g.w; x++ {
				var s float64
				for dy := -2; dy <= 2; dy++ {
					for dx := -2; dx <= 2; dx++ {
						s += g.at(x+dx, y+dy)
					}
				}
				out[y*g.w+x] = s / 25
			}
		}
		g.p = out
	}
	return fill(g.w, g.h, func(x, y int) color.NRGBA { return grey(g.p[y*g.w+x]) })
}

func TestBlurMeasures(t *testing.T) {
	sharp := checker(FaceSide, FaceSide, 8)
	soft := blurred(sharp)
	ps, pb := planeOf(sharp), planeOf(soft)
	if ls, lb := laplacian(ps), laplacian(pb); ls <= lb+1 {
		t.Errorf("laplacian: sharp %.2f, blurred %.2f; want sharp clearly larger", ls, lb)
	}
	bs, bb := creteBlur(ps), creteBlur(pb)
	if bs < 0 || bs > 0.5 || bb < 0.5 || bb > 1 {
		t.Errorf("Crete blur: sharp %.3f (want < 0.5), blurred %.3f (want > 0.5)", bs, bb)
	}
	if b := creteBlur(planeOf(flat(32, 32, 100))); b != 1 {
		t.Errorf("Crete blur of a flat image %.3f, want 1 (nothing to lose)", b)
	}
}

func TestLBP(t *testing.T) {
	tests := []struct {
		name string
		img  *image.NRGBA
		want map[int]float64 // bin -> share; other bins 0
	}{
		// every neighbour equals the centre: all bits set, no transition
		{"flat", flat(20, 20, 77), map[int]float64{8: 1}},
		// a one-pixel checkerboard: a dark centre sees light orthogonal
		// and equal diagonal neighbours (all set, bin 8); a light centre
		// sees set diagonals and clear orthogonals, 8 transitions
		// (non-uniform)
		{"checker 1px", checker(21, 21, 1), map[int]float64{8: 0.5, 9: 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := lbpHist(planeOf(tc.img))
			for i, v := range h {
				if math.Abs(v-tc.want[i]) > 0.01 {
					t.Fatalf("histogram %v, want %v", h, tc.want)
				}
			}
		})
	}
}

func TestColourFeatures(t *testing.T) {
	red := fill(16, 16, func(int, int) color.NRGBA { return color.NRGBA{200, 40, 40, 255} })
	m := hsvMoments(red)
	// hue of pure-ish red is 0, turned by half a circle to 0.5
	want := []float64{0.5, 0, 0, 0.8, 0, 0, 200.0 / 255, 0, 0}
	for i := range want {
		if math.Abs(m[i]-want[i]) > 1e-6 {
			t.Fatalf("HSV moments %v, want %v", m, want)
		}
	}
	if d := colourDiversity(red); math.Abs(d[0]-1.0/256) > 1e-9 || d[1] != 1 {
		t.Errorf("diversity of one colour %v, want [1/256 1]", d)
	}
	ramp := fill(64, 64, func(x, y int) color.NRGBA { return color.NRGBA{uint8(x * 4), uint8(y * 4), 128, 255} })
	if d := colourDiversity(ramp); d[0] < 0.2 || d[1] > 0.5 {
		t.Errorf("diversity of a colour ramp %v: want many colours, top 100 a minority", d)
	}
	// a skin-coloured face with a 4 % white highlight
	skin := fill(50, 50, func(x, y int) color.NRGBA {
		if x >= 20 && x < 30 && y >= 20 && y < 30 {
			return color.NRGBA{250, 245, 240, 255}
		}
		return color.NRGBA{180, 120, 90, 255}
	})
	s := specular(skin)
	if math.Abs(s[0]-0.04) > 1e-9 || s[1] < 0.5 || s[2] != 0 {
		t.Errorf("specular %v, want share 0.04, a large excess, no spread", s)
	}
	if s := specular(red); s[0] != 0 {
		t.Errorf("specular of a flat colour %v, want none", s)
	}
}

func TestNoiseSigma(t *testing.T) {
	tests := []struct {
		name string
		img  *image.NRGBA
		want float64
		tol  float64
	}{
		{"flat", flat(128, 128, 100), 0, 0.01},
		{"ramp", smooth(128, 128), 0, 1},
		{"sigma 5", noisy(128, 128, 120, 5, 2), 5, 0.5},
		{"sigma 12", noisy(128, 128, 120, 12, 3), 12, 1.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := noiseSigma(tc.img, tc.img.Rect); math.Abs(got-tc.want) > tc.tol {
				t.Errorf("sigma %.3f, want %v +- %v", got, tc.want, tc.tol)
			}
		})
	}
}

func TestGeometry(t *testing.T) {
	g := geometry(image.Rect(0, 0, 1000, 2000), image.Rect(250, 500, 750, 1000))
	want := []float64{0.5, 0.25, 0.5, 0.375, 0.5}
	for i := range want {
		if math.Abs(g[i]-want[i]) > 1e-9 {
			t.Fatalf("geometry %v, want %v", g, want)
		}
	}
}

func TestLines(t *testing.T) {
	// a light sheet on a dark table: four long sharp edges
	sheet := fill(240, 320, func(x, y int) color.NRGBA {
		if x >= 30 && x < 210 && y >= 40 && y < 280 {
			return grey(230)
		}
		return grey(50)
	})
	tests := []struct {
		name                 string
		img                  *image.NRGBA
		minLongest, maxLong  float64
		minCount, maxCount   float64
		minBorder, maxBorder float64
	}{
		{"sheet", sheet, 0.5, 0.8, 4, 8, 0.5, 1},
		{"soft room", smooth(240, 320), 0, 0.01, 0, 0, 0, 0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			long, count := lines(planeOf(tc.img))
			if long < tc.minLongest || long > tc.maxLong {
				t.Errorf("longest %.3f outside [%v, %v]", long, tc.minLongest, tc.maxLong)
			}
			if count < tc.minCount || count > tc.maxCount {
				t.Errorf("count %v outside [%v, %v]", count, tc.minCount, tc.maxCount)
			}
			face := image.Rect(100, 130, 140, 180)
			if b := borderContrast(tc.img, face); b < tc.minBorder || b > tc.maxBorder {
				t.Errorf("border contrast %.3f outside [%v, %v]", b, tc.minBorder, tc.maxBorder)
			}
		})
	}
}

func TestTonalRange(t *testing.T) {
	// face mid grey, its surround a ramp from black to white
	img := fill(300, 300, func(x, y int) color.NRGBA {
		if x >= 100 && x < 200 && y >= 100 && y < 200 {
			return grey(128)
		}
		return grey(float64(x) * 255 / 299)
	})
	face := image.Rect(100, 100, 200, 200)
	got := tonalRange(flat(FaceSide, FaceSide, 128), face, img)
	if math.Abs(got[0]-128.0/255) > 1e-9 || math.Abs(got[1]-128.0/255) > 1e-9 {
		t.Errorf("face range %v, want 128/255 twice", got[:2])
	}
	if got[2] > 0.25 || got[3] < 0.75 || got[4] != 0 {
		t.Errorf("ring range %v: want a wide value range and no saturation", got[2:])
	}
}

func TestExtract(t *testing.T) {
	img := noisy(400, 500, 120, 8, 9)
	tests := []struct {
		name    string
		img     image.Image
		face    image.Rectangle
		wantErr error
	}{
		{"face inside", img, image.Rect(120, 100, 280, 300), nil},
		{"face at the edge", img, image.Rect(-20, -30, 100, 120), nil},
		{"offset bounds", img.SubImage(image.Rect(50, 50, 400, 500)), image.Rect(120, 100, 280, 300), nil},
		{"tiny image", flat(20, 20, 50), image.Rect(2, 2, 18, 18), nil},
		{"face outside", img, image.Rect(500, 600, 700, 800), ErrNoFace},
		{"face too small", img, image.Rect(10, 10, 14, 14), ErrNoFace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := Extract(tc.img, tc.face)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if len(x) != NumFeatures {
				t.Fatalf("%d features, want %d", len(x), NumFeatures)
			}
			for i, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s = %v", FeatureNames[i], v)
				}
			}
		})
	}
}

func BenchmarkExtract(b *testing.B) {
	img := noisy(960, 1280, 120, 6, 5)
	face := image.Rect(300, 350, 660, 760)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Extract(img, face); err != nil {
			b.Fatal(err)
		}
	}
}
