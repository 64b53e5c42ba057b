package mrz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // captures arrive as JPEG or PNG
	_ "image/png"

	"github.com/tambua/tambua/checks/internal/mrzdata"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/mrz"
)

// Reasons the mrz_parsing check gives.
const (
	ReasonChecksFailed = "mrz_checks_failed"
	ReasonNotFound     = "mrz_not_found"
)

func init() {
	idv.Register(idv.CheckMRZ, func(s idv.Settings) (idv.Check, error) {
		return NewCheck(mrz.NewReader(mrz.WithFont(s.Get("ocrb_font", mrz.DefaultFont)))), nil
	})
}

// Check is the mrz_parsing check: it reads the MRZ from the rectified card
// (or the raw capture when no earlier check rectified it), parses it with
// OCR repair, fills mrz_parsed and leaves the parsed MRZ on the Case.
type Check struct {
	reader *mrz.Reader
}

var _ idv.Check = (*Check)(nil)

// NewCheck returns the check reading with r.
func NewCheck(r *mrz.Reader) *Check { return &Check{reader: r} }

// Name implements idv.Check.
func (*Check) Name() string { return idv.CheckMRZ }

// Cost implements idv.Check.
func (*Check) Cost() int { return idv.CostOf(idv.CheckMRZ) }

// Run implements idv.Check.
func (ck *Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	if err := ck.reader.Prepare(); err != nil {
		return idv.Outcome{}, err
	}
	sides := []struct{ derived, slot string }{
		{idv.ImageBackRectified, idv.SlotBack},
		{idv.ImageFrontRectified, idv.SlotFront},
	}
	// The side the definition prints its MRZ on goes first.
	if c.Definition != nil && c.Definition.MRZ != nil && c.Definition.MRZ.Zone.Side == "front" {
		sides[0], sides[1] = sides[1], sides[0]
	}
	var zone *idv.Zone
	if c.Definition != nil && c.Definition.MRZ != nil && c.Definition.MRZ.Zone.W > 0 && c.Definition.MRZ.Zone.H > 0 {
		zone = &c.Definition.MRZ.Zone
	}
	// Candidates in order of trust: the definition's MRZ band on the
	// rectified card, the whole rectified card, the raw capture. The first
	// reading whose check digits pass wins; otherwise the first reading.
	var candidates []image.Image
	var decodeErr error
	for _, sd := range sides {
		if img, ok := c.Derived(sd.derived); ok {
			if zone != nil && zone.Side == sideOf(sd.slot) {
				candidates = append(candidates, cropZone(img, *zone))
			}
			candidates = append(candidates, img)
		}
		capture, has := c.Images[sd.slot]
		if !has || len(capture.Data) == 0 {
			continue
		}
		img, _, err := image.Decode(bytes.NewReader(capture.Data))
		if err != nil {
			decodeErr = fmt.Errorf("mrz: decoding the %s capture: %w", sd.slot, err)
			continue
		}
		candidates = append(candidates, img)
	}
	var rd *mrz.Reading
	var m *mrz.MRZ
	for _, img := range candidates {
		r, err := ck.reader.Read(ctx, img)
		if errors.Is(err, mrz.ErrNotFound) {
			continue
		}
		if err != nil {
			return idv.Outcome{}, err
		}
		parsed, err := mrz.Parse(r.Lines, mrz.Options{Now: c.Now, Repair: true})
		if err != nil {
			continue
		}
		if rd == nil || parsed.AllChecksPass {
			rd, m = r, parsed
		}
		if parsed.AllChecksPass {
			break
		}
	}
	if rd == nil {
		hasMRZ := c.Definition == nil || c.Definition.MRZ != nil
		c.SetSection("mrz_parsed", map[string]any{"status": "not_found",
			"document_number": "", "date_of_birth": "", "sex": "", "all_checks_pass": false})
		if !hasMRZ {
			// The document prints no MRZ: nothing to hold against the holder.
			return idv.Outcome{Status: idv.StatusPassed, Flags: []string{"mrz_not_on_document"}}, nil
		}
		if decodeErr != nil {
			return idv.Outcome{}, decodeErr
		}
		return idv.Failed(ReasonNotFound), nil
	}
	c.SetMRZ(mrzdata.From(m))
	c.SetSection("mrz_parsed", section(m))
	pieces := []idv.ScorePiece{{Name: "glyph_correlation", Value: rd.Confidence, Weight: 1,
		Note: "mean template correlation of the characters read"}}
	var flags []string
	if c.Definition != nil && c.Definition.MRZ != nil && c.Definition.MRZ.Format != "" && c.Definition.MRZ.Format != m.Format {
		// Another kind of document than declared, or a misread band:
		// informational, the check digits decide.
		flags = append(flags, "mrz_format_unexpected")
	}
	if !m.AllChecksPass {
		out := idv.Failed(ReasonChecksFailed)
		out.Pieces, out.Flags = pieces, flags
		return out, nil
	}
	out := idv.Passed(rd.Confidence, pieces...)
	out.Flags = flags
	if len(m.Repaired) > 0 {
		out.Flags = append(out.Flags, "mrz_repaired")
	}
	return out, nil
}

// section is the mrz_parsed result object: the spec's four keys and the
// other parsed fields.
func section(m *mrz.MRZ) map[string]any {
	return map[string]any{
		"document_number": m.DocumentNumber,
		"date_of_birth":   m.DateOfBirth,
		"sex":             m.Sex,
		"all_checks_pass": m.AllChecksPass,
		"format":          m.Format,
		"document_code":   m.DocumentCode,
		"issuing_state":   m.IssuingState,
		"date_of_expiry":  m.DateOfExpiry,
		"nationality":     m.Nationality,
		"surname":         m.Surname,
		"given_names":     m.GivenNames,
		"optional_data":   m.OptionalData,
		"checks":          m.Checks.Map(),
		"repaired":        m.Repaired,
	}
}

func sideOf(slot string) string {
	if slot == idv.SlotBack {
		return "back"
	}
	return "front"
}

// cropZone returns the part of a rectified card that a zone names, grown
// by half its height on every side to allow for rectification error.
func cropZone(img image.Image, z idv.Zone) image.Image {
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return img
	}
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	m := z.H / 2
	r := image.Rect(
		b.Min.X+int((z.X-m)*w), b.Min.Y+int((z.Y-m)*h),
		b.Min.X+int((z.X+z.W+m)*w), b.Min.Y+int((z.Y+z.H+m)*h),
	).Intersect(b)
	if r.Empty() {
		return img
	}
	return sub.SubImage(r)
}
