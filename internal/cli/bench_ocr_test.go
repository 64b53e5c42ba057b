package cli

import (
	"testing"

	"github.com/tambua/tambua/docdefs"
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
