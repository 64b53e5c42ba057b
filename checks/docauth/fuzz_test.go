package docauth

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
)

// FuzzOutsideText feeds the parts of the check that read text from the
// document (a barcode's content, values OCR read) with anything: they must
// not panic, and a value always matches a text made of it.
func FuzzOutsideText(f *testing.F) {
	f.Add("ke_maisha_card|date_of_birth=01.02.1990", "01.02.1990")
	f.Add("", "")
	f.Add("\xff\xfe", "31.02.1990")
	f.Fuzz(func(t *testing.T, text, value string) {
		_ = containsValue(text, value)
		if value != "" && !containsValue(value, value) {
			t.Errorf("%q does not contain itself", value)
		}
		fields := map[string]string{"date_of_birth": value, "date_of_issue": text, "date_of_expiry": value}
		_ = validity(collectDates(&idv.MRZData{DateOfBirth: text, DateOfExpiry: value,
			Checks: map[string]bool{"date_of_birth": true, "date_of_expiry": true}}, fields), time.Now())
	})
}

// FuzzPictureCues feeds the portrait and print measures pictures and boxes
// of any size and content (a capture is outside input; the reader's boxes
// and the definition's zones may lie anywhere): they must not panic.
func FuzzPictureCues(f *testing.F) {
	f.Add(uint8(40), uint8(30), []byte{0, 255, 128, 7}, int16(5), int16(5), int16(20), int16(20))
	f.Add(uint8(1), uint8(1), []byte{}, int16(-3), int16(0), int16(100), int16(2))
	f.Add(uint8(90), uint8(60), []byte{255, 0}, int16(80), int16(50), int16(10), int16(30))
	f.Fuzz(func(t *testing.T, w, h uint8, pix []byte, x, y, bw, bh int16) {
		W, H := int(w)+1, int(h)+1
		img := image.NewNRGBA(image.Rect(0, 0, W, H))
		for i := range img.Pix {
			if len(pix) > 0 {
				img.Pix[i] = pix[i%len(pix)] ^ byte(i*31)
			}
		}
		r := image.Rect(int(x), int(y), int(x)+int(bw), int(y)+int(bh))
		l := lumaOf(img)
		_, _, _ = pastedTurn(sideEdges(l, r))
		_ = faceChroma(img, r, r.Inset(2))
		_, _ = measureValue(l, r)
		_, _ = compareGhost(l, r, l, 0.6, []image.Rectangle{r})
		_ = printOver(&idv.OCRReadings{Words: map[string][][4]float64{"front": {{float64(x) / 100, float64(y) / 100, float64(bw) / 100, float64(bh) / 100}}}},
			idv.Zone{Side: "front", X: 0.1, Y: 0.1, W: float64(bw) / 100, H: float64(bh) / 100})
	})
}

// FuzzCaptureCompression feeds the JPEG compression reader anything as a
// stored capture (outside input): it must not panic.
func FuzzCaptureCompression(f *testing.F) {
	var b bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 72, 64))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 37 % 251)
	}
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00})
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = jpegLumaQuant(data)
		_, _ = recompressedPatch(data, nil)
	})
}
