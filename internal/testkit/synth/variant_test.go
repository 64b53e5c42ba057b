package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"sort"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

// sampleValues are long but typical values, so that layouts are checked
// against text that fills its box.
func sampleValues(d *idv.DocumentDefinition) map[string]string {
	g := newRNG(7, 1)
	out := map[string]string{}
	for _, f := range d.Fields {
		v := "SAMPLE"
		switch f.Type {
		case idv.FieldDate:
			v = "28 AUG 2034"
		case idv.FieldSex:
			v = "M"
		case idv.FieldNumber:
			v = "1234567890"
		}
		if f.Pattern != "" {
			if s, err := fromPattern(g, f.Pattern); err == nil {
				v = s
			}
		}
		if f.Name == "surname" || f.Name == "given_names" || f.Name == "full_name" || f.Name == "names" {
			v = "WANJIRU-KAMAU NJERI"
		}
		out[f.Name] = v
	}
	return out
}

// inkBoxes are the boxes a field prints on one side: its caption and its
// value as wide as the value's text (or its box, when the text is longer
// and is condensed into it).
func inkBoxes(fp fieldPlace, fs *fonts, valueFont, value string) (label, val pxRect) {
	vs := textStyle{font: valueFont, size: fp.value.h * 0.58 / capHeight, track: 0.015}
	w := math.Min(fs.measure(vs, value), fp.value.w*0.98)
	// the value's ink: cap height centred in its box, descenders below
	cap := vs.size * capHeight
	val = pxRect{fp.value.x, fp.value.y + fp.value.h/2 - cap/2, w, cap * 1.25}
	return fp.labelBox(fs), val
}

func (r pxRect) overlaps(o pxRect) bool {
	return r.w > 0 && o.w > 0 && r.x < o.x+o.w && o.x < r.x+r.w && r.y < o.y+o.h && o.y < r.y+r.h
}

// TestVariantLayoutsClear lays out every definition in every family for
// many cards and checks what a reader needs to see: no caption or value
// touches another field's, a caption does not run into its own value, all
// stays on the card, and moved fields keep off the photo, signature, MRZ,
// barcode and seals.
func TestVariantLayoutsClear(t *testing.T) {
	r, err := newRenderer()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docdefs.Default().Drawn() {
		values := sampleValues(d)
		w, h := sideSize(d)
		for _, v := range Variants[1:] {
			for seed := uint64(0); seed < 40; seed++ {
				g := newRNG(seed, 13)
				p := planCard(v, d, g)
				for _, side := range d.Sides {
					lay := variantLayout(d, side, p, r.fonts, values, g.fork(side))
					obs := obstacles(d, side)
					names := layoutOrder(d, side, lay)
					type box struct {
						name, what string
						r          pxRect
					}
					var boxes []box
					for _, n := range names {
						fp := lay.fields[n]
						lb, vb := inkBoxes(fp, r.fonts, lay.st.valueFont, values[n])
						where := fmt.Sprintf("%s %s seed %d %s", d.Config, v, seed, side)
						if fp.label.text != "" {
							if lb.overlaps(vb) {
								t.Errorf("%s: %s caption %q runs into its value", where, n, fp.label.text)
							}
							if fp.label.size < minLabelEm-1e-9 {
								t.Errorf("%s: %s caption at %.1f px", where, n, fp.label.size)
							}
							boxes = append(boxes, box{n, "caption", lb})
						}
						boxes = append(boxes, box{n, "value", vb})
						for _, b := range []pxRect{lb, vb} {
							if b.w > 0 && (b.x < 0 || b.y < 0 || b.x+b.w > float64(w) || b.y+b.h > float64(h)) {
								t.Errorf("%s: %s leaves the card: %+v", where, n, b)
							}
						}
						base := baseLayout(d, side, r.fonts).fields[n]
						if fp.value != base.value && hits(fp.block(r.fonts).norm(w, h), obs) {
							t.Errorf("%s: %s was moved onto the photo, signature or another print", where, n)
						}
					}
					for i := range boxes {
						for j := i + 1; j < len(boxes); j++ {
							a, b := boxes[i], boxes[j]
							if a.name != b.name && a.r.overlaps(b.r) {
								t.Errorf("%s %s seed %d %s: %s %s overlaps %s %s", d.Config, v, seed, side, a.name, a.what, b.name, b.what)
							}
						}
					}
				}
			}
		}
	}
}

// TestVariantsDeterministic renders the same card of each family twice
// and once from another seed.
func TestVariantsDeterministic(t *testing.T) {
	d, _ := docdefs.Default().Definition("ke_passport")
	for _, v := range []Variant{VariantShift, VariantColumns, VariantHeldout} {
		a := newTestGenerator(t, Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 5, Difficulty: Easy, Variant: v})
		b := newTestGenerator(t, Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 5, Difficulty: Easy, Variant: v})
		c := newTestGenerator(t, Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 6, Difficulty: Easy, Variant: v})
		sa, err := a.Sample(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.Sample(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := c.Sample(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(sa.Truth)
		jb, _ := json.Marshal(sb.Truth)
		jc, _ := json.Marshal(sc.Truth)
		if !bytes.Equal(sa.Front, sb.Front) || !bytes.Equal(sa.Back, sb.Back) || !bytes.Equal(ja, jb) {
			t.Errorf("%s: the same seed gives different samples", v)
		}
		if bytes.Equal(ja, jc) {
			t.Errorf("%s: seeds 5 and 6 give the same sample", v)
		}
		if sa.Truth.Layout == nil || sa.Truth.Layout.Variant != string(v) || len(sa.Truth.Layout.Fields) == 0 {
			t.Errorf("%s: truth has no layout: %+v", v, sa.Truth.Layout)
		}
	}
}

// TestHeldoutMakesItsOwnChoices checks the held-out family shares no font
// and no security pattern with the families one may tune on, and that its
// cards are not the other families' holders.
func TestHeldoutMakesItsOwnChoices(t *testing.T) {
	tuned := map[string]bool{}
	for _, f := range append(append([]string{}, typeValueFonts...), typeLabelFonts...) {
		tuned[f] = true
	}
	for _, d := range docdefs.Default().Drawn() {
		st := styleFor(d)
		tuned[st.valueFont], tuned[st.labelFont], tuned[st.titleFont] = true, true, true
	}
	for _, f := range append(append([]string{}, heldoutValueFonts...), heldoutLabelFonts...) {
		if tuned[f] {
			t.Errorf("held-out font %s is also used by a tuned family", f)
		}
	}
	patterns := map[bool]map[string]bool{true: {}, false: {}}
	for s := uint64(0); s < 200; s++ {
		for _, ho := range []bool{false, true} {
			patterns[ho][drawArt(newRNG(s, 1), ho).pattern] = true
		}
	}
	for p := range patterns[true] {
		if patterns[false][p] {
			t.Errorf("pattern %s is drawn by both art and heldout", p)
		}
	}
	d, _ := docdefs.Default().Definition("generic_id_card")
	defs := []*idv.DocumentDefinition{d}
	a := newTestGenerator(t, Options{Definitions: defs, Seed: 3, Difficulty: Easy, Variant: VariantShift})
	b := newTestGenerator(t, Options{Definitions: defs, Seed: 3, Difficulty: Easy, Variant: VariantHeldout})
	sa, err := a.Sample(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := b.Sample(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if sa.Truth.Seed == sb.Truth.Seed || sa.Truth.Printed["document_number"] == sb.Truth.Printed["document_number"] {
		t.Errorf("heldout card 0 of seed 3 is the shift family's holder")
	}
}

// TestArtLeavesTextLegible draws the security print of the families that
// repaint it and measures, under every value's box, the darkest
// background (5th percentile of luma): values print in ink of luma 60 or
// less and captions in 52 to 80, so a background darker than 150 there
// would start to hide them.
func TestArtLeavesTextLegible(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 100 shared layers")
	}
	r, err := newRenderer()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docdefs.Default().Drawn() {
		for _, v := range []Variant{VariantArt, VariantColumns, VariantHeldout} {
			for seed := uint64(0); seed < 2; seed++ {
				g := newRNG(seed, 13)
				p := planCard(v, d, g)
				for _, side := range d.Sides {
					lay := variantLayout(d, side, p, r.fonts, sampleValues(d), g.fork(side))
					img := r.drawStatic(d, side, lay).img
					for _, n := range layoutOrder(d, side, lay) {
						b := lay.fields[n].value
						var ls []float64
						for y := int(b.y); y < int(b.y+b.h); y++ {
							for x := int(b.x); x < int(b.x+b.w); x++ {
								if !(image.Point{x, y}.In(img.Bounds())) {
									continue
								}
								i := img.PixOffset(x, y)
								ls = append(ls, 0.299*float64(img.Pix[i])+0.587*float64(img.Pix[i+1])+0.114*float64(img.Pix[i+2]))
							}
						}
						if len(ls) == 0 {
							continue
						}
						sort.Float64s(ls)
						if p05 := ls[len(ls)/20]; p05 < 150 {
							t.Errorf("%s %s seed %d %s: background under %s as dark as luma %.0f", d.Config, v, seed, side, n, p05)
						}
					}
				}
			}
		}
	}
}
