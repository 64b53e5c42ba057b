package synth_test

import (
	"context"
	"fmt"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func ExampleGenerator_Sample() {
	d, _ := docdefs.Default().Definition("ke_national_id")
	gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 7, Difficulty: synth.Easy})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := gen.Sample(context.Background(), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Truth.Config, len(s.Truth.Combined) == len(d.FieldSchema), len(s.Truth.MRZLines), s.Truth.MRZParsed["all_checks_pass"])
	// Output: ke_national_id true 3 true
}
