package docauth

import (
	"bytes"
	"image"
	"image/jpeg"
	pngenc "image/png"
	"testing"

	"github.com/disintegration/imaging"
)

// jpegBytes encodes img at quality q and decodes it again.
func jpegBytes(t testing.TB, img image.Image, q int) ([]byte, image.Image) {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), dec
}

// The luminance table read from the file is the one the encoder wrote:
// Go's encoder scales the standard table (16, 11, 10, 16... in natural
// order) to the quality.
func TestJPEGLumaQuant(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	for _, tc := range []struct {
		q    int
		want [4]int // natural order 0, 1, 2, 8
	}{{50, [4]int{16, 11, 10, 12}}, {75, [4]int{8, 6, 5, 6}}, {100, [4]int{1, 1, 1, 1}}} {
		b, _ := jpegBytes(t, img, tc.q)
		q, ok := jpegLumaQuant(b)
		if !ok || [4]int{q[0], q[1], q[2], q[8]} != tc.want {
			t.Errorf("quality %d: table starts %v (ok %v), want %v", tc.q, [4]int{q[0], q[1], q[2], q[8]}, ok, tc.want)
		}
	}
	for _, bad := range [][]byte{nil, {0xFF, 0xD8}, {0x89, 'P', 'N', 'G'}, {0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00}} {
		if _, ok := jpegLumaQuant(bad); ok {
			t.Errorf("%x: a table read from a broken file", bad)
		}
	}
}

// A real passport page as its file was saved (the "camera"), opened
// again, another specimen's portrait pasted over its own and saved at 85:
// the pasted portrait is the patch compressed once. The page saved again
// whole (a messenger re-encoding it), and a page first saved as PNG then
// as JPEG, show none.
func TestRecompressedPatch(t *testing.T) {
	page := loadSpecimen(t, "passeye_100_pass-bdr.jpg")
	png := loadSpecimen(t, "passeye_100_pass-fin.png")
	swapped := swappedPortrait(t, page, page.img)
	_, camera := jpegBytes(t, page.img, 70)
	// saved at 75 first: the editor's 85 shows the earlier step at two
	// frequencies only, and the pasted portrait is a patch of 16 % of
	// the page
	_, camera75 := jpegBytes(t, page.img, 75)
	swapped75 := swappedPortrait(t, page, imaging.Clone(camera75))
	// a small page saved at 80 and again at 85 shows a false patch of 97
	// blocks at one frequency: 2.5 % of the page, too few blocks
	_, small := jpegBytes(t, specimenImage(t, "passeye_100_pass-hrv.jpg"), 80)

	cases := []struct {
		name  string
		img   image.Image
		q     int
		found bool
	}{
		{"portrait pasted and saved again", swapped, 85, true},
		{"portrait pasted after a save at 75, saved again at 85", swapped75, 85, true},
		{"saved again whole", page.img, 85, false},
		{"saved again whole, twice", camera, 90, false},
		{"a small page saved again whole, twice", small, 85, false},
		{"saved once", png.img, 85, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, dec := jpegBytes(t, tc.img, tc.q)
			r, ok := recompressedPatch(b, dec)
			if !ok {
				t.Fatal("not examined")
			}
			if r.found() != tc.found {
				t.Fatalf("found %v (%+v), want %v", r.found(), r, tc.found)
			}
			if tc.found {
				in := r.Box.Intersect(page.photo)
				if in.Dx()*in.Dy() < page.photo.Dx()*page.photo.Dy()/2 {
					t.Errorf("patch at %v, the portrait at %v", r.Box, page.photo)
				}
			}
		})
	}
	// every real specimen, saved again whole at a lower and a higher
	// quality than most files are: no patch
	for _, name := range []string{"passeye_0_pass-lva.jpg", "passeye_100_id-che.jpg", "passeye_100_id-rou.jpg", "passeye_100_id-si.jpg",
		"passeye_100_id-usa.jpg", "passeye_100_pass-chn.jpg", "passeye_100_pass-cze2.jpg", "passeye_100_pass-hrv.jpg", "passeye_100_pass-lux.jpg",
		"passeye_100_pass-polx.jpg", "passeye_100_visa-polx.jpg", "passeye_100_visa-usa.jpg", "passeye_passport-td2.jpg", "passeye_passport-td3.jpg",
		"arg0s_id_cards__Spain.png", "arg0s_passports__Ukraine.png"} {
		img := specimenImage(t, name)
		for _, q := range []int{75, 95} {
			b, dec := jpegBytes(t, img, q)
			if r, _ := recompressedPatch(b, dec); r.found() {
				t.Errorf("%s saved again whole at %d: a patch (%+v)", name, q, r)
			}
		}
	}
	// a PNG is no JPEG: not examined
	var b bytes.Buffer
	if err := (&pngenc.Encoder{}).Encode(&b, png.img); err != nil {
		t.Fatal(err)
	}
	if _, ok := recompressedPatch(b.Bytes(), png.img); ok {
		t.Error("a PNG examined as a JPEG")
	}
}

// BenchmarkRecompressedPatch: a 1600 x 1200 capture of the tuning corpus
// shape (a card photographed, its portrait pasted over, saved again).
func BenchmarkRecompressedPatch(b *testing.B) { benchRecompressed(b, 75, 90) }

// benchRecompressed times recompressedPatch on a 1600 x 1200 page saved
// at the camera's quality, then again at the editor's.
func benchRecompressed(b *testing.B, camera, editor int) {
	page := loadSpecimen(b, "passeye_100_pass-bdr.jpg")
	img := imaging.Resize(page.img, 1600, 1200, imaging.Linear)
	_, saved := jpegBytes(b, img, camera)
	data, dec := jpegBytes(b, saved, editor)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recompressedPatch(data, dec)
	}
}

// The layer reports the patch as a review finding, is silent on a
// picture saved twice throughout, and skips a capture that is no JPEG.
func TestEditLayer(t *testing.T) {
	page := loadSpecimen(t, "passeye_100_pass-bdr.jpg")
	swapped := swappedPortrait(t, page, page.img)
	edited, editedImg := jpegBytes(t, swapped, 85)
	whole, wholeImg := jpegBytes(t, page.img, 85)
	var png bytes.Buffer
	if err := (&pngenc.Encoder{}).Encode(&png, page.img); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		img     image.Image
		finding bool
		skipped bool
	}{
		{"edited", edited, editedImg, true, false},
		{"saved again whole", whole, wholeImg, false, false},
		{"png", png.Bytes(), page.img, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := editLayer(&inputs{captureData: tc.data, capture: tc.img})
			if (lr.skipped != "") != tc.skipped {
				t.Fatalf("skipped %q", lr.skipped)
			}
			got := len(lr.findings) == 1 && lr.findings[0].code == CodeCaptureEdited && !lr.findings[0].fail
			if got != tc.finding || (!tc.finding && len(lr.findings) > 0) {
				t.Errorf("findings %+v, want the review finding: %v", lr.findings, tc.finding)
			}
		})
	}
}

// BenchmarkRecompressedPatchLowQuality: the editor's save at quality 60
// (large steps: the most earlier steps to try).
func BenchmarkRecompressedPatchLowQuality(b *testing.B) { benchRecompressed(b, 50, 60) }
