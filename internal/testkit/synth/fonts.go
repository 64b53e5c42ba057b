package synth

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Font files from Debian's fonts-dejavu-core, fonts-liberation2 and
// fonts-ocr-b (scripts/setup.sh installs them).
const (
	fontSans     = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
	fontSansBold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
	// the condensed cuts are DejaVu Sans narrowed, since the condensed
	// files are in fonts-dejavu-extra, which setup does not install
	fontCond         = "DejaVuSans narrowed"
	fontCondBold     = "DejaVuSans-Bold narrowed"
	fontLibSans      = "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"
	fontLibSansBold  = "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf"
	fontLibSerif     = "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf"
	fontLibSerifBold = "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf"
	fontOCRB         = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"
	// fontOCRBS has the same design; x/image's CFF reader cannot read the
	// flex hints OCRB.otf uses in '<' and '8', so those come from here.
	fontOCRBS = "/usr/share/fonts/opentype/ocr-b/OCRBS.otf"
)

// Fonts only layout variants use (variant.go): other DejaVu and Liberation
// cuts for the type family (fonts-dejavu-core, fonts-dejavu-extra,
// fonts-liberation2), and families only the held-out variant uses
// (fonts-freefont-ttf, fonts-crosextra-carlito).
const (
	fontSerif         = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
	fontSerifBold     = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
	fontDejaCond      = "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf"
	fontDejaCondBold  = "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf"
	fontMonoBold      = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
	fontLibMonoBold   = "/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf"
	fontFreeSans      = "/usr/share/fonts/truetype/freefont/FreeSans.ttf"
	fontFreeSansBold  = "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf"
	fontFreeSerif     = "/usr/share/fonts/truetype/freefont/FreeSerif.ttf"
	fontFreeSerifBold = "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf"
	fontCarlito       = "/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf"
	fontCarlitoBold   = "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf"
)

// variantFonts are loaded when present; a generator of a variant that
// needs them checks they are (Generator.New).
var variantFonts = []string{fontSerif, fontSerifBold, fontDejaCond, fontDejaCondBold, fontMonoBold, fontLibMonoBold,
	fontFreeSans, fontFreeSansBold, fontFreeSerif, fontFreeSerifBold, fontCarlito, fontCarlitoBold}

// narrowed are fonts drawn from another file at a horizontal scale.
var narrowed = map[string]struct {
	file  string
	scale float64
}{fontCond: {fontSans, 0.86}, fontCondBold: {fontSansBold, 0.86}}

// fallbacks name, per font, a font of the same design to take a glyph from
// when the first cannot be read.
var fallbacks = map[string]string{fontOCRB: fontOCRBS}

var fontCache sync.Map // path -> *sfnt.Font

// loadFont parses a font file once per process.
func loadFont(path string) (*sfnt.Font, error) {
	if f, ok := fontCache.Load(path); ok {
		return f.(*sfnt.Font), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("synth: font %s (install fonts-dejavu-core, fonts-dejavu-extra, fonts-liberation2, fonts-ocr-b, fonts-freefont-ttf, fonts-crosextra-carlito): %w", path, err)
	}
	f, err := sfnt.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("synth: font %s: %w", path, err)
	}
	actual, _ := fontCache.LoadOrStore(path, f)
	return actual.(*sfnt.Font), nil
}

// fonts is the set of faces one renderer uses, with its own glyph buffer
// (sfnt.Buffer is not safe for concurrent use).
type fonts struct {
	byPath map[string]*sfnt.Font
	buf    sfnt.Buffer
}

func newFonts() (*fonts, error) {
	fs := &fonts{byPath: map[string]*sfnt.Font{}}
	for _, p := range []string{fontSans, fontSansBold, fontLibSans, fontLibSansBold,
		fontLibSerif, fontLibSerifBold, fontOCRB, fontOCRBS} {
		f, err := loadFont(p)
		if err != nil {
			return nil, err
		}
		fs.byPath[p] = f
	}
	for _, p := range append(append([]string(nil), variantFonts...), forgerMonoFonts...) {
		if f, err := loadFont(p); err == nil {
			fs.byPath[p] = f
		}
	}
	for name, n := range narrowed {
		fs.byPath[name] = fs.byPath[n.file]
	}
	return fs, nil
}

// textStyle says how a run of text is set.
type textStyle struct {
	font    string  // file path, one of the font constants
	size    float64 // em size in pixels
	track   float64 // extra space between letters, in em
	scaleX  float64 // horizontal stretch (1 when zero)
	oblique float64 // shear, for a hand-set look
}

// measure returns the advance width of s in pixels.
func (fs *fonts) measure(st textStyle, s string) float64 {
	f := fs.byPath[st.font]
	ppem := fixed.Int26_6(64 * 64)
	k := st.size / 64
	sx := st.scaleX
	if sx == 0 {
		sx = 1
	}
	if n, ok := narrowed[st.font]; ok {
		sx *= n.scale
	}
	var w float64
	prev := sfnt.GlyphIndex(0)
	n := 0
	for _, r := range s {
		gi, err := f.GlyphIndex(&fs.buf, r)
		if err != nil || gi == 0 {
			gi, _ = f.GlyphIndex(&fs.buf, '?')
		}
		if prev != 0 {
			if kern, err := f.Kern(&fs.buf, prev, gi, ppem, font.HintingNone); err == nil {
				w += float64(kern) / 64 * k
			}
		}
		adv, err := f.GlyphAdvance(&fs.buf, gi, ppem, font.HintingNone)
		if err == nil {
			w += float64(adv) / 64 * k
		}
		prev = gi
		n++
	}
	if n > 1 {
		w += float64(n-1) * st.track * st.size
	}
	return w * sx
}

// text adds the outlines of s to p, with the baseline origin at (0, 0)
// mapped through m. It returns the advance width before m.
func (fs *fonts) text(p *path, st textStyle, s string, m affine) float64 {
	f := fs.byPath[st.font]
	// Outlines are loaded at 64 ppem and scaled, which keeps them unhinted
	// and resolution independent.
	ppem := fixed.Int26_6(64 * 64)
	k := st.size / 64 / 64
	sx := st.scaleX
	if sx == 0 {
		sx = 1
	}
	if n, ok := narrowed[st.font]; ok {
		sx *= n.scale
	}
	var x float64
	prev := sfnt.GlyphIndex(0)
	for _, r := range s {
		gi, err := f.GlyphIndex(&fs.buf, r)
		if err != nil || gi == 0 {
			gi, _ = f.GlyphIndex(&fs.buf, '?')
		}
		if prev != 0 {
			if kern, err := f.Kern(&fs.buf, prev, gi, ppem, font.HintingNone); err == nil {
				x += float64(kern) * k
			}
		}
		gf, ggi := f, gi
		segs, err := f.LoadGlyph(&fs.buf, gi, ppem, nil)
		if err != nil {
			if fb, ok := fs.byPath[fallbacks[st.font]]; ok {
				if i2, err2 := fb.GlyphIndex(&fs.buf, r); err2 == nil && i2 != 0 {
					gf, ggi = fb, i2
					segs, err = fb.LoadGlyph(&fs.buf, i2, ppem, nil)
				}
			}
		}
		if err == nil {
			g := affine{A: k * sx, B: -st.oblique * k, C: x * sx, E: k}.then(m)
			pt := func(q fixed.Point26_6) vec { return g.apply(vec{float64(q.X), float64(q.Y)}) }
			var start vec
			open := false
			for _, sg := range segs {
				switch sg.Op {
				case sfnt.SegmentOpMoveTo:
					if open {
						p.lineTo(start)
					}
					start = pt(sg.Args[0])
					p.moveTo(start)
					open = true
				case sfnt.SegmentOpLineTo:
					p.lineTo(pt(sg.Args[0]))
				case sfnt.SegmentOpQuadTo:
					p.quadTo(pt(sg.Args[0]), pt(sg.Args[1]))
				case sfnt.SegmentOpCubeTo:
					p.cubeTo(pt(sg.Args[0]), pt(sg.Args[1]), pt(sg.Args[2]))
				}
			}
			if open {
				p.lineTo(start)
			}
		}
		adv, err := gf.GlyphAdvance(&fs.buf, ggi, ppem, font.HintingNone)
		if err == nil {
			x += float64(adv) * k
		}
		x += st.track * st.size
		prev = gi
	}
	return x * sx
}

// capHeight is the height of capital letters as a fraction of the em size,
// close enough for DejaVu, Liberation and OCR-B.
const capHeight = 0.72
