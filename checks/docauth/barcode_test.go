package docauth

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/tambua/tambua/idv"
)

// qrCard is a white 600 x 380 side with text's QR code in the zone
// (0.36, 0.20, 0.28, 0.44).
func qrCard(t *testing.T, text string) image.Image {
	t.Helper()
	bm, err := qrcode.NewQRCodeWriter().Encode(text, gozxing.BarcodeFormat_QR_CODE, 1, 1,
		map[gozxing.EncodeHintType]any{gozxing.EncodeHintType_MARGIN: 1})
	if err != nil {
		t.Fatal(err)
	}
	im := image.NewGray(image.Rect(0, 0, 600, 380))
	for i := range im.Pix {
		im.Pix[i] = 255
	}
	const x0, y0, side = 220, 80, 160
	n := bm.GetWidth()
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			if bm.Get(x*n/side, y*n/side) {
				im.SetGray(x0+x, y0+y, color.Gray{})
			}
		}
	}
	return im
}

// A printed name the barcode holds with a letter misread is the reader's
// misread ("KWESIT KWADWO" for KWESI KWADWO, genuine, seed 6113); another
// name, or a number off by a digit, is a mismatch.
func TestBarcodeNameMisread(t *testing.T) {
	def := &idv.DocumentDefinition{
		Fields: []idv.FieldDef{
			{Name: "other_names", Type: "text", Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ '-"},
			{Name: "voter_id_number", Type: "number", Charset: "0123456789"},
			{Name: "polling_station_code", Type: "text", Charset: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
		},
		Barcode: &idv.BarcodeDef{Kind: "qr", Zone: idv.Zone{Side: "front", X: 0.36, Y: 0.20, W: 0.28, H: 0.44},
			Fields: []string{"other_names", "voter_id_number", "polling_station_code"}},
	}
	front := qrCard(t, "ghana_voter_id|voter_id_number=7575656543|other_names=KWESI KWADWO|polling_station_code=V051246")
	for _, tc := range []struct {
		name   string
		fields map[string]string
		want   bool
	}{
		{"as printed", map[string]string{"other_names": "KWESI KWADWO", "voter_id_number": "7575656543"}, false},
		{"a letter misread", map[string]string{"other_names": "KWESIT KWADWO", "voter_id_number": "7575656543"}, false},
		{"another name", map[string]string{"other_names": "KOFI KWADWO", "voter_id_number": "7575656543"}, true},
		{"a number off by a digit", map[string]string{"other_names": "KWESI KWADWO", "voter_id_number": "7575656544"}, true},
		{"a code off by a character", map[string]string{"other_names": "KWESI KWADWO", "polling_station_code": "V051247"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := barcode(context.Background(), inputs{def: def, front: front, fields: tc.fields})
			if lr.skipped != "" {
				t.Fatalf("skipped: %s", lr.skipped)
			}
			if got := len(lr.findings) > 0; got != tc.want {
				t.Errorf("findings %+v, want a mismatch %v", lr.findings, tc.want)
			}
		})
	}
}
