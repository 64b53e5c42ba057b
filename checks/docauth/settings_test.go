package docauth

import (
	"testing"

	"github.com/tambua/tambua/idv"
)

// TestOCRBFontSetting: the registered check reads the MRZ with the font
// the ocrb_font setting names, as mrz_parsing and ocr_extraction do, and
// shares the default reader otherwise.
func TestOCRBFontSetting(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings idv.Settings
		shared   bool
	}{
		{"no setting", nil, true},
		{"empty setting", idv.Settings{"ocrb_font": ""}, true},
		{"a font", idv.Settings{"ocrb_font": "/elsewhere/OCRB.otf"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := idv.New(idv.WithSettings(tc.settings))
			defer eng.Close()
			c, err := eng.Check(idv.CheckDocAuth)
			if err != nil {
				t.Fatal(err)
			}
			k, ok := c.(*Check)
			if !ok {
				t.Fatalf("the registered check is a %T", c)
			}
			if got := k.mrz == sharedReader; got != tc.shared {
				t.Errorf("reader shared: %v, want %v", got, tc.shared)
			}
			if k.mrz == nil {
				t.Error("no MRZ reader")
			}
		})
	}
}
