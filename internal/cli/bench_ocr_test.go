package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

func TestCornerMatch(t *testing.T) {
	truth := [4][2]float64{{100, 100}, {1100, 100}, {1100, 730}, {100, 730}}
	quad := func(shift int, dx float64) vision.Quad {
		var q vision.Quad
		for i := range q {
			c := truth[(i+shift)%4]
			q[i] = vision.Point{X: c[0] + dx, Y: c[1]}
		}
		return q
	}
	card := func(q vision.Quad, rot int) *vision.Card {
		return &vision.Card{Detection: vision.Detection{Quad: q, Found: true}, Rotation: rot}
	}
	cases := []struct {
		name             string
		card             *vision.Card
		located, upright bool
	}{
		{"exact", card(quad(0, 0), 0), true, true},
		{"within tolerance", card(quad(0, 15), 0), true, true},
		{"found upside down, turned", card(quad(2, 0), 180), true, true},
		{"found upside down, not turned", card(quad(2, 0), 0), true, false},
		{"three percent off", card(quad(0, 30), 0), false, false},
		{"not found", &vision.Card{}, false, false},
		{"no card", nil, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, u, off := cornerMatch(tc.card, &truth)
			if l != tc.located || u != tc.upright {
				t.Errorf("located %v upright %v (off %.3f), want %v %v", l, u, off, tc.located, tc.upright)
			}
		})
	}
}

func TestBenchFieldsLeaveOutFixed(t *testing.T) {
	def, ok := docdefs.Default().Definition("uganda_national_id_old")
	if !ok {
		t.Fatal("no definition")
	}
	fs := benchFields(def)
	if len(fs) != len(def.FieldSchema)-1 {
		t.Fatalf("%d fields scored, want %d", len(fs), len(def.FieldSchema)-1)
	}
	for _, f := range fs {
		if f.Fixed != "" {
			t.Errorf("fixed field %s scored", f.Name)
		}
	}
}

func TestParseVariants(t *testing.T) {
	cases := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"base", "[base]", false},
		{"base, heldout,base", "[base heldout]", false},
		{"all", fmt.Sprint(synth.Variants), false},
		{"", "[base]", false},
		{"base,nope", "", true},
	}
	for _, tc := range cases {
		got, err := parseVariants(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseVariants(%q) error %v", tc.in, err)
			continue
		}
		if err == nil && fmt.Sprint(got) != tc.want {
			t.Errorf("parseVariants(%q) = %v, want %s", tc.in, got, tc.want)
		}
	}
}

func TestPrintFamilies(t *testing.T) {
	var buf bytes.Buffer
	printFamilies(&buf, []familyRow{
		{variant: "base", level: "easy", t: benchTally{fields: 10, exact: 9}},
		{variant: "base", level: "medium", t: benchTally{fields: 10, exact: 8}},
		{variant: "heldout", level: "easy", t: benchTally{fields: 4, exact: 1}},
	})
	out := buf.String()
	for _, want := range []string{"variant\teasy\tmedium", "base\t90.0% (9/10)\t80.0% (8/10)", "heldout\t25.0% (1/4)\t-"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
