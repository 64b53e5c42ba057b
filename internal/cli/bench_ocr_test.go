package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/bench/ocrbench"
)

func TestPrintFamilies(t *testing.T) {
	var buf bytes.Buffer
	printFamilies(&buf, []*ocrbench.Level{
		{Variant: "base", Level: "easy", Overall: ocrbench.Tally{Fields: 10, Exact: 9}},
		{Variant: "base", Level: "medium", Overall: ocrbench.Tally{Fields: 10, Exact: 8}},
		{Variant: "heldout", Level: "easy", Overall: ocrbench.Tally{Fields: 4, Exact: 1}},
	})
	out := buf.String()
	for _, want := range []string{"variant\teasy\tmedium", "base\t90.0% (9/10)\t80.0% (8/10)", "heldout\t25.0% (1/4)\t-"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
