package mrz

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/mrz"
)

func specimenBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures.Dir(t), "ids", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func blankPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 400, 250))
	for i := range img.Pix {
		img.Pix[i] = 230
	}
	// A few dark bars: something to look at that is not text.
	for y := 40; y < 60; y++ {
		for x := 30; x < 370; x++ {
			img.SetGray(x, y, color.Gray{Y: 20})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckRun(t *testing.T) {
	fixtures.Need(t, mrz.DefaultFont, "OCR-B font (fonts-ocr-b)")
	ck := NewCheck(mrz.NewReader())
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	utopia, _, err := image.Decode(bytes.NewReader(specimenBytes(t, "passeye_passport-td3.jpg")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		images     map[string]idv.Image
		derived    image.Image
		definition *idv.DocumentDefinition
		status     idv.Status
		reason     string
		docNumber  string
	}{
		{name: "passport capture", images: map[string]idv.Image{idv.SlotFront: {Data: specimenBytes(t, "passeye_passport-td3.jpg")}},
			status: idv.StatusPassed, docNumber: "L898902C3"},
		{name: "rectified image preferred over the capture", images: map[string]idv.Image{idv.SlotFront: {Data: blankPNG(t)}},
			derived: utopia, status: idv.StatusPassed, docNumber: "L898902C3"},
		{name: "rectified image read in the definition's zone", images: map[string]idv.Image{},
			derived: utopia, definition: &idv.DocumentDefinition{MRZ: &idv.MRZDef{Format: mrz.TD3,
				Zone: idv.Zone{Side: "front", X: 0.0, Y: 0.78, W: 1, H: 0.2}}},
			status: idv.StatusPassed, docNumber: "L898902C3"},
		{name: "a mrz.TD3 where the definition expects mrz.TD1", images: map[string]idv.Image{idv.SlotFront: {Data: specimenBytes(t, "passeye_passport-td3.jpg")}},
			definition: &idv.DocumentDefinition{MRZ: &idv.MRZDef{Format: mrz.TD1}}, status: idv.StatusPassed, docNumber: "L898902C3"},
		{name: "check digits printed wrong", images: map[string]idv.Image{idv.SlotFront: {Data: specimenBytes(t, "arg0s_id_cards__Malta_BAD.png")}},
			status: idv.StatusFailed, reason: ReasonChecksFailed, docNumber: "9999999"},
		{name: "no MRZ on a document that has one", images: map[string]idv.Image{idv.SlotFront: {Data: blankPNG(t)}},
			definition: &idv.DocumentDefinition{MRZ: &idv.MRZDef{Format: mrz.TD1}}, status: idv.StatusFailed, reason: ReasonNotFound},
		{name: "no MRZ on a document without one", images: map[string]idv.Image{idv.SlotFront: {Data: blankPNG(t)}},
			definition: &idv.DocumentDefinition{}, status: idv.StatusPassed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := idv.NewCase(tc.images)
			c.Now = now
			c.Definition = tc.definition
			if tc.derived != nil {
				c.SetDerived(idv.ImageFrontRectified, tc.derived)
			}
			out, err := ck.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tc.status {
				t.Fatalf("status %s (%v), want %s", out.Status, out.Reasons, tc.status)
			}
			if tc.definition != nil && tc.definition.MRZ != nil && tc.docNumber != "" && tc.definition.MRZ.Format != c.MRZ().Format {
				if len(out.Flags) == 0 || out.Flags[0] != "mrz_format_unexpected" {
					t.Errorf("flags %v, want mrz_format_unexpected", out.Flags)
				}
			}
			if tc.reason != "" && (len(out.Reasons) != 1 || out.Reasons[0] != tc.reason) {
				t.Errorf("reasons %v, want %s", out.Reasons, tc.reason)
			}
			sec, ok := c.Section("mrz_parsed")
			if !ok {
				t.Fatal("mrz_parsed not set")
			}
			if tc.docNumber == "" {
				if c.MRZ() != nil {
					t.Errorf("MRZ left on the case: %+v", c.MRZ())
				}
				return
			}
			m := c.MRZ()
			if m == nil || m.DocumentNumber != tc.docNumber {
				t.Fatalf("case MRZ %+v, want document %s", m, tc.docNumber)
			}
			s := sec.(map[string]any)
			if s["document_number"] != tc.docNumber || s["all_checks_pass"] != (tc.status == idv.StatusPassed) {
				t.Errorf("mrz_parsed %v", s)
			}
		})
	}
}

func TestCheckRegistered(t *testing.T) {
	e := idv.New()
	c, err := e.Check(idv.CheckMRZ)
	if err != nil {
		t.Fatal(err)
	}
	if c.Cost() != 1 || c.Name() != idv.CheckMRZ {
		t.Fatalf("check %s costs %d", c.Name(), c.Cost())
	}
}

// TestCheckFlagsExpiry: the Utopia specimen expires on 2012-04-15; the
// check flags it after that day and not before, and still passes it
// (judging validity is document_authenticity's).
func TestCheckFlagsExpiry(t *testing.T) {
	fixtures.Need(t, mrz.DefaultFont, "OCR-B font (fonts-ocr-b)")
	ck := NewCheck(mrz.NewReader())
	for _, tc := range []struct {
		now     time.Time
		flagged bool
	}{
		{time.Date(2012, 4, 15, 12, 0, 0, 0, time.UTC), false},
		{time.Date(2012, 4, 16, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), true},
	} {
		c := idv.NewCase(map[string]idv.Image{idv.SlotFront: {Data: specimenBytes(t, "passeye_passport-td3.jpg")}})
		c.Now = tc.now
		out, err := ck.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != idv.StatusPassed || slices.Contains(out.Flags, FlagExpired) != tc.flagged {
			t.Errorf("on %s: status %s flags %v, want passed and flagged=%v", tc.now.Format("2006-01-02"), out.Status, out.Flags, tc.flagged)
		}
	}
}
