package server

import (
	"slices"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// customDefs is a registry of custom definitions only.
type customDefs []string

func (c customDefs) Definition(config string) (*idv.DocumentDefinition, bool) {
	if slices.Contains(c, config) {
		return &idv.DocumentDefinition{Config: config}, true
	}
	return nil, false
}

func (c customDefs) Configs() []string { return c }

func TestDemoDocumentTypes(t *testing.T) {
	if got, want := DemoDocumentTypes(docdefs.Default()), []string{"kenya_national_id", "ke_maisha_card", "ke_passport", "generic_passport"}; !slices.Equal(got, want) {
		t.Errorf("built-in definitions: %v, want %v", got, want)
	}
	custom := customDefs{"acme_badge", "acme_card"}
	if got := DemoDocumentTypes(custom); !slices.Equal(got, []string(custom)) {
		t.Errorf("custom definitions only: %v, want them all", got)
	}
}

func TestDemoChecks(t *testing.T) {
	got := DemoChecks()
	if len(got) == 0 || got[0] != idv.CheckOCR {
		t.Fatalf("%v: OCR extraction is not first", got)
	}
	for _, c := range []string{idv.CheckAddress, idv.CheckCustomWebhook, idv.CheckSanctions} {
		if slices.Contains(got, c) {
			t.Errorf("%v holds %s, which needs more than a document and a selfie", got, c)
		}
	}
}
