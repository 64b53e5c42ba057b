// Package cardtest renders simple identity cards from a document definition
// for the tests of vision and checks/ocr: the values printed in their zones
// with their labels, a photo block, an MRZ when the definition has one, and
// phone-photo conditions (a textured background, perspective, rotation,
// blur, glare). It is deliberately plain; the corpus generator in
// internal/testkit/synth is the realistic one.
package cardtest

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/regexgen"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Font files (Debian fonts-dejavu-core). The MRZ is set in DejaVu Sans
// Mono: x/image's CFF rasteriser silently drops some glyphs of Debian's
// OCRB.otf ("<" and "8" among them).
const (
	FontBold  = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
	FontPlain = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
	FontMRZ   = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
)

var (
	fontsOnce sync.Once
	fonts     map[string]*opentype.Font
	fontsErr  error
)

func loadFonts() (map[string]*opentype.Font, error) {
	fontsOnce.Do(func() {
		fonts = map[string]*opentype.Font{}
		for _, p := range []string{FontBold, FontPlain, FontMRZ} {
			b, err := os.ReadFile(p)
			if err != nil {
				fontsErr = err
				return
			}
			f, err := opentype.Parse(b)
			if err != nil {
				fontsErr = err
				return
			}
			fonts[p] = f
		}
	})
	return fonts, fontsErr
}

var months = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

var (
	givenNames = []string{"AMINA", "BARAKA", "JOHN", "WANJIRU", "OCHIENG", "GRACE", "PETER", "FATUMA", "KOFI",
		"AKOSUA", "THABO", "NALEDI", "MUSA", "ZAWADI", "DAVID", "ESTHER", "JOSEPH", "MARY", "SAMUEL", "HALIMA"}
	surnames = []string{"MWANGI", "OTIENO", "KAMAU", "NAMUGGA", "OKELLO", "MENSAH", "ADEYEMI", "NKOSI",
		"MOHAMED", "KIPCHOGE", "WAFULA", "ACHIENG", "BOATENG", "DLAMINI", "MUTUA", "NJOROGE"}
	places = []string{"NAIROBI", "KISUMU", "MOMBASA", "KAMPALA", "GULU", "ACCRA", "KUMASI", "LAGOS", "DURBAN",
		"ARUSHA", "DODOMA", "NAKURU", "ELDORET", "JINJA", "MBALE", "KIAMBU"}
)

// Values draws a plausible value for every read field of def: the printed
// text and the normalised truth (what ocr_extraction must return).
func Values(def *idv.DocumentDefinition, r *rand.Rand) (printed, truth map[string]string) {
	printed, truth = map[string]string{}, map[string]string{}
	for _, f := range def.Fields {
		if f.Fixed != "" {
			truth[f.Name] = f.Fixed
			continue
		}
		var p, t string
		switch {
		case f.Type == idv.FieldDate:
			y, m, d := 1950+r.IntN(55), 1+r.IntN(12), 1+r.IntN(28)
			switch {
			case strings.Contains(f.Name, "expiry"):
				y = 2027 + r.IntN(10)
			case strings.Contains(f.Name, "issue"):
				y = 2012 + r.IntN(13)
			}
			t = fmt.Sprintf("%02d.%02d.%04d", d, m, y)
			switch f.Format {
			case "DD/MM/YYYY":
				p = fmt.Sprintf("%02d/%02d/%04d", d, m, y)
			case "DD-MM-YYYY":
				p = fmt.Sprintf("%02d-%02d-%04d", d, m, y)
			case "DD MMM YYYY", "any":
				p = fmt.Sprintf("%02d %s %04d", d, months[m-1], y)
			default:
				p = t
			}
		case f.Type == idv.FieldSex:
			t = []string{"M", "F"}[r.IntN(2)]
			p = t
			if f.Format == "word" {
				p = map[string]string{"M": "MALE", "F": "FEMALE"}[t]
			}
		case strings.Contains(f.Pattern, "[A-Z '-]"):
			switch {
			case strings.Contains(f.Name, "full_name"):
				t = givenNames[r.IntN(len(givenNames))] + " " + givenNames[r.IntN(len(givenNames))] + " " + surnames[r.IntN(len(surnames))]
			case strings.Contains(f.Name, "given"):
				t = givenNames[r.IntN(len(givenNames))]
			case strings.Contains(f.Name, "surname"):
				t = surnames[r.IntN(len(surnames))]
			default:
				t = places[r.IntN(len(places))]
			}
			p = t
		default:
			// A pattern regexgen cannot draw leaves the field empty, as
			// a card that does not print it.
			t, _ = regexgen.Draw(r, f.Pattern)
			p = t
		}
		printed[f.Name], truth[f.Name] = p, t
	}
	return printed, truth
}

// Side renders one side of def at pxPerMM with the printed values; mrz are
// the MRZ lines printed when the side carries the MRZ.
func Side(def *idv.DocumentDefinition, side string, printed map[string]string, mrz []string, pxPerMM float64) (*image.NRGBA, error) {
	fs, err := loadFonts()
	if err != nil {
		return nil, err
	}
	w, h := int(def.Size.WidthMM*pxPerMM), int(def.Size.HeightMM*pxPerMM)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	bg := color.NRGBA{0xee, 0xf0, 0xe8, 255}
	if cs := def.Colours[side]; len(cs) > 0 {
		bg = hexColour(cs[0], bg)
	}
	draw.Draw(img, img.Bounds(), &image.Uniform{bg}, image.Point{}, draw.Src)
	// A light guilloche: interleaved sine bands, fainter than print.
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := math.Sin(float64(x)/17+3*math.Sin(float64(y)/23)) * math.Sin(float64(y)/11)
			if v > 0.92 {
				p := img.Pix[y*img.Stride+4*x:]
				p[0], p[1], p[2] = p[0]-18, p[1]-10, p[2]-14
			}
		}
	}
	zr := func(z idv.Zone) image.Rectangle {
		return image.Rect(int(z.X*float64(w)), int(z.Y*float64(h)), int((z.X+z.W)*float64(w)), int((z.Y+z.H)*float64(h)))
	}
	if def.Photo != nil && def.Photo.Side == side {
		r := zr(*def.Photo)
		draw.Draw(img, r, &image.Uniform{color.NRGBA{0x9a, 0xa4, 0xb0, 255}}, image.Point{}, draw.Src)
		cx, cy := float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y)+float64(r.Dy())*0.42
		rx, ry := float64(r.Dx())*0.28, float64(r.Dy())*0.25
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
				sh := (float64(x)-cx)/(rx*1.9)*(float64(x)-cx)/(rx*1.9) + (float64(y)-float64(r.Max.Y))/(ry*1.6)*(float64(y)-float64(r.Max.Y))/(ry*1.6)
				if dx*dx+dy*dy < 1 {
					img.Set(x, y, color.NRGBA{0xc9, 0x9e, 0x82, 255})
				} else if sh < 1 {
					img.Set(x, y, color.NRGBA{0x33, 0x3a, 0x4a, 255})
				}
			}
		}
	}
	ink := color.NRGBA{0x12, 0x14, 0x1c, 255}
	labelInk := color.NRGBA{0x3a, 0x4a, 0x6a, 255}
	if kw := def.Keywords[side]; len(kw) > 0 {
		title := kw[0]
		if title == "P<" && len(kw) > 1 {
			title = kw[1]
		}
		if err := text(img, fs[FontBold], title, float64(w)*0.22, float64(h)*0.085, float64(h)*0.055, ink); err != nil {
			return nil, err
		}
	}
	for _, f := range def.Fields {
		if f.Zone.Side != side || f.Fixed != "" {
			continue
		}
		r := zr(f.Zone)
		if f.Label != "" {
			lh := float64(r.Dy()) * 0.45
			if err := text(img, fs[FontPlain], f.Label, float64(r.Min.X), float64(r.Min.Y)-lh*0.3, lh, labelInk); err != nil {
				return nil, err
			}
		}
		v := printed[f.Name]
		size := float64(r.Dy()) * 0.62
		// Shrink long values to the zone's width, as issuers do.
		face, _ := opentype.NewFace(fs[FontBold], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		adv := font.MeasureString(face, v).Round()
		_ = face.Close()
		if adv > r.Dx()*95/100 && adv > 0 {
			size *= float64(r.Dx()) * 0.95 / float64(adv)
		}
		if err := text(img, fs[FontBold], v, float64(r.Min.X)+2, float64(r.Max.Y)-float64(r.Dy())*0.22, size, ink); err != nil {
			return nil, err
		}
	}
	if def.MRZ != nil && def.MRZ.Zone.Side == side && len(mrz) > 0 {
		r := zr(def.MRZ.Zone)
		lh := float64(r.Dy()) / float64(len(mrz))
		size := lh * 0.62
		face, _ := opentype.NewFace(fs[FontMRZ], &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		adv := font.MeasureString(face, mrz[0]).Round()
		_ = face.Close()
		if adv > r.Dx() {
			size *= float64(r.Dx()) / float64(adv)
		}
		for i, ln := range mrz {
			if err := text(img, fs[FontMRZ], ln, float64(r.Min.X), float64(r.Min.Y)+lh*(float64(i)+0.78), size, ink); err != nil {
				return nil, err
			}
		}
	}
	return img, nil
}

func text(img *image.NRGBA, f *opentype.Font, s string, x, baseline, size float64, c color.Color) error {
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return err
	}
	defer face.Close()
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face,
		Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(baseline * 64)}}
	d.DrawString(s)
	return nil
}

func hexColour(s string, def color.NRGBA) color.NRGBA {
	var r, g, b uint8
	if _, err := fmt.Sscanf(strings.TrimPrefix(s, "#"), "%02x%02x%02x", &r, &g, &b); err != nil {
		return def
	}
	return color.NRGBA{r, g, b, 255}
}
