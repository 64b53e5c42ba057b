package idv_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// typedFields is an example check that reads fields from a typed-in form
// instead of an image, standing where OCR extraction would.
type typedFields map[string]string

func (f typedFields) Name() string { return idv.CheckOCR }
func (f typedFields) Cost() int    { return 2 }
func (f typedFields) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	c.SetFields(c.Definition.FieldSchema, f)
	return idv.Passed(1), nil
}

// blocklist is an example custom check: it fails when the ID number is on
// the caller's own list.
type blocklist map[string]bool

func (b blocklist) Name() string { return "internal_blocklist" }
func (b blocklist) Cost() int    { return 1 }
func (b blocklist) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	if b[c.Field("national_id_number")] {
		return idv.Failed("blocklisted_id"), nil
	}
	return idv.Passed(1), nil
}

// Embed the engine: build it once with document definitions and checks,
// prepare a workflow, verify.
func Example() {
	eng := idv.New(
		idv.WithDefinitions(docdefs.Default()),
		idv.WithChecks(
			typedFields{"national_id_number": "23456789", "full_name": "ACHIENG ODHIAMBO"},
			blocklist{"23456789": true},
		),
	)
	defer eng.Close()

	wf, err := idv.ParseWorkflow([]byte(strings.TrimSpace(`
name: Onboarding
document_types: [kenya_national_id]
checks:
  - name: ocr_extraction
  - name: internal_blocklist
`)))
	if err != nil {
		log.Fatal(err)
	}
	prepared, err := eng.Prepare(wf)
	if err != nil {
		log.Fatal(err)
	}
	res, err := prepared.Verify(context.Background(), idv.Input{Config: "kenya_national_id"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Decision, res.DecisionReasons, res.UnitsConsumed, "units")
	fmt.Println(res.Combined["full_name"])
	// Output:
	// reject [blocklisted_id] 3 units
	// ACHIENG ODHIAMBO
}

func ExampleOriginalImageName() {
	for _, slot := range []string{idv.SlotFront, idv.SlotBack, idv.SlotSelfie, "proof_of_address"} {
		fmt.Println(slot, "->", idv.OriginalImageName(slot))
	}
	// Output:
	// front -> front_id
	// back -> back_id
	// selfie -> selfie
	// proof_of_address -> proof_of_address
}
