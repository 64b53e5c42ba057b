package idv_test

import (
	"context"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// BenchmarkVerify measures the engine's own overhead per verification: a
// prepared five-check workflow whose checks do no work, and the result
// marshalled to JSON as the server returns it.
func BenchmarkVerify(b *testing.B) {
	fields := &scripted{name: idv.CheckOCR, cost: 2, out: idv.Passed(1), fn: func(c *idv.Case) {
		c.SetFields(c.Definition.FieldSchema, map[string]string{"full_name": "AMINA WANJIRU"})
	}}
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(fields,
		check(idv.CheckMRZ, idv.Passed(1), nil), check(idv.CheckFace, conf(idv.StatusPassed, 0.9), nil),
		check(idv.CheckLiveness, conf(idv.StatusPassed, 0.9), nil), check(idv.CheckAge, idv.Passed(1), nil)))
	wf := &idv.Workflow{Name: "bench", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{
		{Name: idv.CheckOCR}, {Name: idv.CheckMRZ}, {Name: idv.CheckFace}, {Name: idv.CheckLiveness}, {Name: idv.CheckAge}}}
	p, err := eng.Prepare(wf)
	if err != nil {
		b.Fatal(err)
	}
	in := idv.Input{Config: "kenya_national_id"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := p.Verify(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := res.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
