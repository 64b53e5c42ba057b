package docauth

import (
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
