package docauthbench

import (
	"image"
	"image/color"
	"reflect"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// What ocr_extraction leaves on a Case comes back from the cache as it
// was, for the same capture bytes only.
func TestOCRCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	reg := docdefs.Default()
	def, ok := reg.Definition("ke_passport")
	if !ok {
		t.Fatal("no ke_passport")
	}
	s := Sample{Front: []byte("front"), Back: []byte("back")}
	c := idv.NewCase(nil)
	c.Definition = def
	c.SetDocumentType(def.Config)
	c.SetFields([]string{"surname", "passport_number"}, map[string]string{"surname": "OUMA", "passport_number": "AK1234567"})
	q := idv.OCRQuality{Score: 0.9, Coverage: 1, Agreement: 0.5, MRZTrusted: true, Conflicts: []string{"surname"}, Unread: []string{}}
	idv.ValueOCRQuality.Set(c, q)
	idv.ValueMRZText.Set(c, "P<KENOUMA\nAK12345678")
	rd := idv.OCRReadings{Fields: map[string]idv.FieldReading{"surname": {Side: "front", How: "label", Conf: 96, Box: [4]float64{0.1, 0.2, 0.3, 0.04}}},
		Words: map[string][][4]float64{"front": {{0.1, 0.2, 0.3, 0.04}}}}
	idv.ValueOCRReadings.Set(c, rd)
	img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 2, color.NRGBA{10, 20, 30, 255})
	c.SetDerived(idv.ImageFrontRectified, img)
	out := idv.Outcome{Status: idv.StatusReview, Reasons: []string{"mrz_conflict"}}
	if err := saveOCR(dir, s, c, out); err != nil {
		t.Fatal(err)
	}

	if _, ok, err := loadOCR(dir, Sample{Front: []byte("front"), Back: []byte("other back")}, idv.NewCase(nil), reg.Definition); ok || err != nil {
		t.Errorf("another capture's bytes: ok=%v err=%v, want not found", ok, err)
	}
	got := idv.NewCase(nil)
	gout, ok, err := loadOCR(dir, s, got, reg.Definition)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	if gout.Status != out.Status || !reflect.DeepEqual(gout.Reasons, out.Reasons) {
		t.Errorf("outcome %+v, want %+v", gout, out)
	}
	if got.Definition != def || got.DocumentType() != def.Config {
		t.Errorf("definition %v, type %q", got.Definition, got.DocumentType())
	}
	gs, gf := got.Fields()
	ws, wf := c.Fields()
	if !reflect.DeepEqual(gs, ws) || !reflect.DeepEqual(gf, wf) {
		t.Errorf("fields %v %v, want %v %v", gs, gf, ws, wf)
	}
	if v, _ := idv.ValueOCRQuality.Get(got); !reflect.DeepEqual(v, q) {
		t.Errorf("quality %+v, want %+v", v, q)
	}
	if v, _ := idv.ValueMRZText.Get(got); v != "P<KENOUMA\nAK12345678" {
		t.Errorf("mrz text %q", v)
	}
	if v, _ := idv.ValueOCRReadings.Get(got); !reflect.DeepEqual(v, rd) {
		t.Errorf("readings %+v, want %+v", v, rd)
	}
	gi, ok := got.Derived(idv.ImageFrontRectified)
	if !ok || gi.Bounds() != img.Bounds() || gi.At(1, 2) != img.At(1, 2) {
		t.Errorf("front_rectified %v", gi)
	}
}
