package docdefs

import (
	"strings"
	"testing"
	"unicode"

	"github.com/tambua/tambua/idv"
)

func TestLabelKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Date of birth:", "DATEOFBIRTH"},
		{"D A T E  OF  B1RTH", "DATEOFBIRTH"},
		{"Date de délivrance", "DATEDEDELIVRANCE"},
		{"Staatsangehörigkeit", "STAATSANGEHORIGKEIT"},
		{"1D NUMBER:", "IDNUMBER"},
		{"S.COUNTY", "SCOUNTY"},
		{"$.count)", "SCOUNT"}, // S read as a dollar sign
		{"::", ""},
	}
	for _, tt := range tests {
		if got := LabelKey(tt.in); got != tt.want {
			t.Errorf("LabelKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSpellings(t *testing.T) {
	f := idv.FieldDef{Label: "Surname/Nom", Labels: []string{"Apellidos"}}
	got := strings.Join(Spellings(f), "|")
	if got != "Surname/Nom|Surname|Nom|Apellidos" {
		t.Errorf("Spellings = %q", got)
	}
}

func FuzzLabelKey(f *testing.F) {
	for _, s := range []string{"Date of birth:", "Nº du passeport", "JINA LA UKOO", "Ⅻ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := LabelKey(s)
		for _, r := range k {
			if !unicode.IsLetter(r) && !(r >= 'A' && r <= 'Z') {
				t.Fatalf("LabelKey(%q) = %q holds %q", s, k, r)
			}
		}
	})
}
