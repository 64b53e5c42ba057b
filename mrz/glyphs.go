package mrz

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// DefaultFont is where Debian's fonts-ocr-b installs OCR-B, the typeface
// ICAO 9303 prescribes for the MRZ.
const DefaultFont = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"

// alphabet is the MRZ character set; a class is an index into it.
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"

// The sampling grid of one character cell, in units of the cap height H:
// gridW x gridH samples covering cellU H either side of the cell centre
// horizontally and cellV H above and below the middle of the capitals.
const (
	gridW = 14
	gridH = 22
	cellU = 0.5
	cellV = 0.78
	// shift is how many samples a template may slide each way to meet a
	// glyph that the pitch grid placed slightly off.
	shift = 1
)

// template is one rendering of one character: zero-mean, unit-norm samples.
type template struct {
	class int
	v     []float32
}

// glyphSet holds the templates of every class.
type glyphSet struct {
	byClass [][]template
}

// loadGlyphs renders every MRZ character from the OCR-B font at a high
// resolution and reduces each to the sampling grid, in a few stroke weights
// and blurs, so that the classifier meets thin and bold prints, sharp scans
// and soft phone photos.
//
// golang.org/x/image/font/sfnt does not implement the CFF flex1 operator,
// which OCRB.otf uses in 8 and <; those glyphs come from OCR-B Sharp
// (OCRBS.otf, same package, same metrics) when it lies beside the font.
func loadGlyphs(path string) (*glyphSet, error) {
	primary, err := openFace(path)
	if err != nil {
		return nil, err
	}
	defer primary.face.Close()
	faces := []*ocrFace{primary}
	if alt, err := openFace(filepath.Join(filepath.Dir(path), "OCRBS.otf")); err == nil {
		defer alt.face.Close()
		faces = append(faces, alt)
	}
	hb, _, ok := primary.face.GlyphBounds('H')
	if !ok {
		return nil, fmt.Errorf("mrz: OCR-B font %s has no H", path)
	}
	capH := float64(hb.Max.Y-hb.Min.Y) / 64
	capMid := float64(hb.Min.Y+hb.Max.Y) / 128 // relative to the baseline (negative: above)
	adv, _ := primary.face.GlyphAdvance('H')
	advance := float64(adv) / 64

	gs := &glyphSet{byClass: make([][]template, len(alphabet))}
	W, Hh := int(advance*2+capH), int(capH*3)
	for ci := 0; ci < len(alphabet); ci++ {
		r := rune(alphabet[ci])
		var face font.Face
		for _, f := range faces {
			if f.renders(r) {
				face = f.face
				break
			}
		}
		if face == nil {
			return nil, fmt.Errorf("mrz: OCR-B font %s cannot render %q", path, r)
		}
		canvas := image.NewGray(image.Rect(0, 0, W, Hh))
		ox := float64(W)/2 - advance/2
		oy := float64(Hh)/2 - capMid
		d := font.Drawer{Dst: canvas, Src: image.White, Face: face,
			Dot: fixed.Point26_6{X: fixed.Int26_6(ox * 64), Y: fixed.Int26_6(oy * 64)}}
		d.DrawString(string(r))
		ink := make([]float32, W*Hh)
		for i, p := range canvas.Pix {
			ink[i] = float32(p) / 255
		}
		cx, cy := float64(W)/2, float64(Hh)/2
		// Stroke weights: as rendered, and thickened by 4 % of H (inks
		// spread, photos bloom).
		for _, grow := range []int{0, int(math.Round(capH * 0.04))} {
			m := ink
			if grow > 0 {
				m = dilate(ink, W, Hh, grow)
			}
			base := sampleBox(m, W, Hh, cx, cy, capH)
			for _, sigma := range []float64{0, 0.9} {
				v := base
				if sigma > 0 {
					v = blurGrid(base, sigma)
				}
				gs.byClass[ci] = append(gs.byClass[ci], template{class: ci, v: normalize(v)})
			}
		}
	}
	return gs, nil
}

type ocrFace struct {
	font *sfnt.Font
	face font.Face
}

func openFace(path string) (*ocrFace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mrz: OCR-B font: %w", err)
	}
	f, err := opentype.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("mrz: OCR-B font %s: %w", path, err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 120, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, fmt.Errorf("mrz: OCR-B face %s: %w", path, err)
	}
	return &ocrFace{font: f, face: face}, nil
}

// renders reports whether the font can draw r (its outline loads).
func (f *ocrFace) renders(r rune) bool {
	var b sfnt.Buffer
	idx, err := f.font.GlyphIndex(&b, r)
	if err != nil || idx == 0 {
		return false
	}
	_, err = f.font.LoadGlyph(&b, idx, fixed.I(100), nil)
	return err == nil
}

// sampleBox reduces a high resolution ink map to the grid by averaging
// the source pixels under each sample.
func sampleBox(ink []float32, w, h int, cx, cy, capH float64) []float32 {
	out := make([]float32, gridW*gridH)
	sx := 2 * cellU * capH / gridW
	sy := 2 * cellV * capH / gridH
	for gy := 0; gy < gridH; gy++ {
		y0 := cy - cellV*capH + float64(gy)*sy
		for gx := 0; gx < gridW; gx++ {
			x0 := cx - cellU*capH + float64(gx)*sx
			var sum float32
			n := 0
			for y := int(y0); y < int(y0+sy); y++ {
				for x := int(x0); x < int(x0+sx); x++ {
					if x >= 0 && y >= 0 && x < w && y < h {
						sum += ink[y*w+x]
					}
					n++
				}
			}
			if n > 0 {
				out[gy*gridW+gx] = sum / float32(n)
			}
		}
	}
	return out
}

func dilate(ink []float32, w, h, r int) []float32 {
	tmp := make([]float32, len(ink))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var m float32
			for dx := -r; dx <= r; dx++ {
				if xx := x + dx; xx >= 0 && xx < w && ink[y*w+xx] > m {
					m = ink[y*w+xx]
				}
			}
			tmp[y*w+x] = m
		}
	}
	out := make([]float32, len(ink))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var m float32
			for dy := -r; dy <= r; dy++ {
				if yy := y + dy; yy >= 0 && yy < h && tmp[yy*w+x] > m {
					m = tmp[yy*w+x]
				}
			}
			out[y*w+x] = m
		}
	}
	return out
}

// blurGrid applies a Gaussian blur of sigma samples to a grid.
func blurGrid(v []float32, sigma float64) []float32 {
	r := int(math.Ceil(2 * sigma))
	k := make([]float32, 2*r+1)
	var ks float32
	for i := -r; i <= r; i++ {
		k[i+r] = float32(math.Exp(-float64(i*i) / (2 * sigma * sigma)))
		ks += k[i+r]
	}
	for i := range k {
		k[i] /= ks
	}
	tmp := make([]float32, len(v))
	out := make([]float32, len(v))
	for y := 0; y < gridH; y++ {
		for x := 0; x < gridW; x++ {
			var s float32
			for i := -r; i <= r; i++ {
				xx := min(max(x+i, 0), gridW-1)
				s += k[i+r] * v[y*gridW+xx]
			}
			tmp[y*gridW+x] = s
		}
	}
	for y := 0; y < gridH; y++ {
		for x := 0; x < gridW; x++ {
			var s float32
			for i := -r; i <= r; i++ {
				yy := min(max(y+i, 0), gridH-1)
				s += k[i+r] * tmp[yy*gridW+x]
			}
			out[y*gridW+x] = s
		}
	}
	return out
}

// normalize returns v minus its mean, scaled to unit length, so that a dot
// product of two normalised vectors is their correlation.
func normalize(v []float32) []float32 {
	var mean float64
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	out := make([]float32, len(v))
	var ss float64
	for i, x := range v {
		d := float64(x) - mean
		out[i] = float32(d)
		ss += d * d
	}
	if ss == 0 {
		return out
	}
	n := float32(1 / math.Sqrt(ss))
	for i := range out {
		out[i] *= n
	}
	return out
}

// classScores holds the best correlation of a cell with every class.
type classScores [len(alphabet)]float32

// score correlates a sampled cell (gridW+2*shift by gridH+2*shift) with the
// templates of the allowed classes at every shift.
func (g *glyphSet) score(cell []float32, allowed string) classScores {
	return g.scoreWith(cell, allowed, 2*shift, -1)
}

// scoreWith is score restricted to vertical shifts up to maxDY and, when
// variant >= 0, to one template variant per class (for quick calibration).
func (g *glyphSet) scoreWith(cell []float32, allowed string, maxDY, variant int) classScores {
	var sc classScores
	for i := range sc {
		sc[i] = -2
	}
	const cw = gridW + 2*shift
	win := make([]float32, gridW*gridH)
	dy0 := shift - maxDY/2
	for dy := dy0; dy <= dy0+maxDY; dy++ {
		for dx := 0; dx <= 2*shift; dx++ {
			for y := 0; y < gridH; y++ {
				copy(win[y*gridW:(y+1)*gridW], cell[(y+dy)*cw+dx:(y+dy)*cw+dx+gridW])
			}
			w := normalize(win)
			for i := 0; i < len(allowed); i++ {
				ci := classIndex(allowed[i])
				ts := g.byClass[ci]
				if variant >= 0 {
					ts = ts[variant : variant+1]
				}
				for _, t := range ts {
					if s := dot(t.v, w); s > sc[ci] {
						sc[ci] = s
					}
				}
			}
		}
	}
	return sc
}

func classIndex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 36
}

// dot is the inner product of two equally long vectors, in four running
// sums (the hot loop of the classifier).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
