package vision

import (
	"image"
	"math"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/idv"
)

// Reasons the quality measures turn into. They join the decision_reasons
// vocabulary of the checks that use them.
const (
	ReasonCardNotFound  = "card_not_found"
	ReasonCardClipped   = "card_not_fully_in_frame"
	ReasonBlurry        = "image_too_blurry"
	ReasonGlare         = "glare_on_fields"
	ReasonTooDark       = "image_too_dark"
	ReasonOverexposed   = "image_overexposed"
	ReasonLowResolution = "card_resolution_too_low"
	ReasonNotDecodable  = "image_not_decodable"
	ReasonImageTooLarge = "image_too_large"
	ReasonImageTooSmall = "image_too_small"
	ReasonImageMissing  = "image_missing"
	ReasonUnreadable    = "document_unreadable"
	ReasonWrongDocument = "document_type_mismatch"
	ReasonMRZConflict   = "mrz_field_conflict"
	ReasonFieldsUnread  = "fields_unread"
)

// Thresholds of the quality reasons; docs/vision.md explains each.
const (
	// MinSharpness: below it the strongest edges of the card are spread
	// over more than about three canonical pixels and small print merges.
	MinSharpness = 0.25
	// MaxFieldGlare: share of clipped pixels in a field zone above which
	// the field is reported under glare.
	MaxFieldGlare = 0.15
	// Exposure limits on the mean luminance of the card.
	MinBrightness = 55
	MaxBrightness = 235
	// MinSourceWidth: the card's long side in capture pixels below which
	// print is too small to read (about 5 px/mm for ID-1).
	MinSourceWidthMM = 5.0
)

// Quality are the capture measures of one rectified side.
type Quality struct {
	// Sharpness (0..1) is the steepness of the card's strongest edges
	// relative to its contrast: a perfect step scores near 1.
	Sharpness float64 `json:"sharpness"`
	// Glare is the share of clipped (specular) pixels on the card;
	// GlareFields names the fields whose zone is over MaxFieldGlare.
	Glare       float64  `json:"glare"`
	GlareFields []string `json:"glare_fields,omitempty"`
	// Brightness is the mean luminance (0..255).
	Brightness float64 `json:"brightness"`
	// Resolution is the card's source resolution in pixels per millimetre.
	Resolution float64 `json:"resolution_px_per_mm"`
	// Reasons are the documented reasons the measures amount to.
	Reasons []string `json:"reasons"`
}

// Measure computes the quality of a rectified card side.
func Measure(c *Card, def *idv.DocumentDefinition, side string) Quality {
	img := c.Image
	g := luma(img)
	q := Quality{Reasons: []string{}}
	if def.Size.WidthMM > 0 {
		q.Resolution = c.SourceWidth / def.Size.WidthMM
	}
	q.Sharpness = sharpness(g)
	var sum float64
	for _, v := range g.p {
		sum += float64(v)
	}
	q.Brightness = sum / float64(len(g.p))
	q.Glare = clippedShare(img, img.Bounds())
	for _, f := range def.Fields {
		if f.Zone.Side != side || f.Fixed != "" || !f.HasZone() {
			continue
		}
		r := zoneRect(img.Bounds(), f.Zone)
		if clippedShare(img, r) > MaxFieldGlare {
			q.GlareFields = append(q.GlareFields, f.Name)
		}
	}
	if q.Sharpness < MinSharpness {
		q.Reasons = append(q.Reasons, ReasonBlurry)
	}
	if len(q.GlareFields) > 0 {
		q.Reasons = append(q.Reasons, ReasonGlare)
	}
	if q.Brightness < MinBrightness {
		q.Reasons = append(q.Reasons, ReasonTooDark)
	}
	if q.Brightness > MaxBrightness {
		q.Reasons = append(q.Reasons, ReasonOverexposed)
	}
	if c.Clipped {
		q.Reasons = append(q.Reasons, ReasonCardClipped)
	}
	if q.Resolution > 0 && q.Resolution < MinSourceWidthMM {
		q.Reasons = append(q.Reasons, ReasonLowResolution)
	}
	return q
}

func zoneRect(b image.Rectangle, z idv.Zone) image.Rectangle {
	return image.Rect(
		b.Min.X+int(z.X*float64(b.Dx())), b.Min.Y+int(z.Y*float64(b.Dy())),
		b.Min.X+int((z.X+z.W)*float64(b.Dx())), b.Min.Y+int((z.Y+z.H)*float64(b.Dy())),
	).Intersect(b)
}

// clippedShare is the share of pixels in r that are near white in every
// channel: card stock is tinted and print is dark, so clipped white is the
// sensor saturating on a reflection.
func clippedShare(img *image.NRGBA, r image.Rectangle) float64 {
	if r.Empty() {
		return 0
	}
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[(y-img.Rect.Min.Y)*img.Stride:]
		for x := r.Min.X; x < r.Max.X; x++ {
			p := row[4*(x-img.Rect.Min.X):]
			if p[0] >= 250 && p[1] >= 250 && p[2] >= 250 {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

// sharpness measures edge steepness: the 99.5th percentile of the Sobel
// magnitude over four times the card's contrast (a one-pixel step of
// contrast C gives 4C). Blur of sigma s divides it by about s*2.5.
// Percentiles come from histograms: this runs on a megapixel per side.
func sharpness(g *plane) float64 {
	var vh [256]int
	var mh [1024]int
	n := 0
	for y := 1; y < g.h-1; y += 2 {
		for x := 1; x < g.w-1; x++ {
			gx, gy := g.sobelAt(x, y)
			m := int(math.Sqrt(float64(gx*gx + gy*gy)))
			if m > 1023 {
				m = 1023
			}
			mh[m]++
			vh[clamp8(g.p[y*g.w+x])]++
			n++
		}
	}
	if n == 0 {
		return 0
	}
	pct := func(h []int, p float64) int {
		t, s := int(p*float64(n)), 0
		for i, c := range h {
			s += c
			if s > t {
				return i
			}
		}
		return len(h) - 1
	}
	contrast := float64(pct(vh[:], 0.98) - pct(vh[:], 0.02))
	if contrast < 10 {
		return 0
	}
	return math.Min(1, float64(pct(mh[:], 0.995))/(4*contrast))
}

// Thumbnail reduces img to at most side pixels on its long side (for
// derived images stored with the result).
func Thumbnail(img image.Image, side int) *image.NRGBA {
	return imaging.Fit(img, side, side, imaging.Lanczos)
}
