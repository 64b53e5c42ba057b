package ocrbench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
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
			l, u, off := CornerMatch(tc.card, &truth)
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
	fs := ScoredFields(def)
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
		got, err := ParseVariants(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseVariants(%q) error %v", tc.in, err)
			continue
		}
		if err == nil && fmt.Sprint(got) != tc.want {
			t.Errorf("ParseVariants(%q) = %v, want %s", tc.in, got, tc.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	for _, tc := range []struct {
		ds   []time.Duration
		q    float64
		want time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.95, 7 * time.Millisecond},
		{ms(4, 1, 3, 2), 0.5, 3 * time.Millisecond}, // index 1.5 rounds up
		{ms(4, 1, 3, 2), 0.95, 4 * time.Millisecond},
		{ms(4, 1, 3, 2), 0, time.Millisecond},
	} {
		in := slices.Clone(tc.ds)
		if got := Quantile(tc.ds, tc.q); got != tc.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.ds, tc.q, got, tc.want)
		}
		if !slices.Equal(in, tc.ds) {
			t.Errorf("Quantile sorted its argument: %v", tc.ds)
		}
	}
}

func TestTallyAdd(t *testing.T) {
	var a, b Tally
	a.field("surname", true)
	a.field("sex", false)
	b.field("surname", false)
	b.Cards, b.CPU = 1, []time.Duration{time.Second}
	a.Add(&b)
	if a.Fields != 3 || a.Exact != 1 || a.Cards != 1 || len(a.CPU) != 1 {
		t.Errorf("sum %+v", a)
	}
	if got := *a.ByField["surname"]; got != (FieldCount{Scored: 2, Exact: 1}) {
		t.Errorf("surname %+v", got)
	}
	if got := *a.ByField["sex"]; got != (FieldCount{Scored: 1}) {
		t.Errorf("sex %+v", got)
	}
	if got := *b.ByField["surname"]; got != (FieldCount{Scored: 1}) {
		t.Errorf("Add changed its argument: %+v", got)
	}
}

// TestRunOutlines runs the outline measure (no tesseract) on one card of
// one two-sided definition.
func TestRunOutlines(t *testing.T) {
	def, ok := docdefs.Default().Definition("ke_national_id")
	if !ok || len(def.Sides) != 2 {
		t.Fatal("ke_national_id is not a two-sided definition")
	}
	var seen []string
	levels, err := Run(context.Background(), Options{Definitions: []*idv.DocumentDefinition{def}, Levels: []string{"easy"},
		Variants: []synth.Variant{synth.VariantBase}, Source: Synth, N: 1, Seed: 1, Outlines: true},
		func(l *Level) { seen = append(seen, l.Level+" "+l.VariantName()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(levels) != 1 || fmt.Sprint(seen) != "[easy base]" {
		t.Fatalf("levels %d, reported %v", len(levels), seen)
	}
	l := levels[0]
	o := l.Overall
	if o.Cards != 1 || o.Sides != 2 || len(o.CPU) != 2 || len(o.Durations) != 2 || o.Fields != 0 {
		t.Errorf("overall %+v", o)
	}
	if o.Located > o.Sides || o.Upright > o.Located {
		t.Errorf("more found than measured: %+v", o)
	}
	if l.Tallies[0].Sides != o.Sides || l.Tallies[0].Upright != o.Upright {
		t.Errorf("overall %+v is not the one definition's %+v", o, l.Tallies[0])
	}
}

func TestRunUnknownLevel(t *testing.T) {
	def, _ := docdefs.Default().Definition("ke_national_id")
	for _, src := range []string{Synth, Cardtest} {
		_, err := Run(context.Background(), Options{Definitions: []*idv.DocumentDefinition{def}, Levels: []string{"extreme"},
			Variants: []synth.Variant{synth.VariantBase}, Source: src, N: 1}, nil)
		if !bench.IsInput(err) {
			t.Errorf("%s: error %v, want an input error", src, err)
		}
	}
}

func TestCandidates(t *testing.T) {
	reg := docdefs.Default()
	cands, err := Candidates(reg, "")
	if err != nil || len(cands) < 2 {
		t.Fatalf("generic candidates %d, %v", len(cands), err)
	}
	for _, d := range cands {
		if !d.Generic() {
			t.Errorf("%s is not generic", d.Config)
		}
	}
	if cands, err := Candidates(reg, "ke_national_id"); err != nil || len(cands) != 1 || cands[0].Config != "ke_national_id" {
		t.Errorf("named: %v, %v", cands, err)
	}
	if _, err := Candidates(reg, "nope"); !bench.IsInput(err) {
		t.Errorf("unknown definition: %v", err)
	}
}
