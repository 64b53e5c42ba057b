package bills

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestAddressed checks that a readdressed case prints the new name where
// the drawn one was, in every family, and leaves the original untouched.
func TestAddressed(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, fam := range append(append([]string{}, TuningFamilies...), HeldOut) {
		c := Generate(fam, 1, 3, now)[0]
		const printed = "Ms Zawadi Q. Testname"
		got := c.Addressed("ZAWADI QUINTA TESTNAME", printed)
		pdf := got.textPDF()
		if !bytes.Contains(bytes.ToUpper(pdf), []byte(strings.ToUpper(printed))) {
			t.Errorf("%s: %q not printed", fam, printed)
		}
		if bytes.Contains(pdf, []byte(pdfEscape(c.PrintedName))) || bytes.Contains(pdf, []byte(pdfEscape(strings.ToUpper(c.PrintedName)))) {
			t.Errorf("%s: the drawn name %q is still printed", fam, c.PrintedName)
		}
		if !bytes.Contains(c.textPDF(), []byte(pdfEscape(c.PrintedName))) && !bytes.Contains(c.textPDF(), []byte(pdfEscape(strings.ToUpper(c.PrintedName)))) {
			t.Errorf("%s: the original case lost its name", fam)
		}
		if got.HolderOnID != "ZAWADI QUINTA TESTNAME" || got.PrintedName != printed {
			t.Errorf("%s: truth not updated: %+v", fam, got)
		}
	}
}
