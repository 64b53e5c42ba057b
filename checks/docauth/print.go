package docauth

import (
	"fmt"
	"image"
	"math"
	"sort"

	"github.com/tambua/tambua/idv"
)

// CodeValuePrint: a printed value does not stand like the values printed
// beside it: its letters are turned off their line.
const CodeValuePrint = "doc_value_print_inconsistent"

// printed is one value's print with its tilt against the others'.
type printed struct {
	field string
	vp    valuePrint
	tilt  float64
}

// valuePrintLayer compares each printed value with the other values of
// its side: an issuer prints them in one run, each square to the card; a
// forger who scrapes one off and prints another by hand or in an editor
// seldom sets it as straight. It needs the reader's account of where each
// value was found (ocr_extraction's readings) and at least four values on
// the side.
func valuePrintLayer(in *inputs) layerResult {
	lr := layerResult{name: layerValuePrint, score: 1}
	if in.readings == nil {
		lr.skipped = "the reader did not say where it found the values"
		return lr
	}
	stats := map[string]float64{}
	examined := 0
	for _, side := range []string{"front", "back"} {
		l := in.luma(side)
		if l == nil {
			continue
		}
		ps := sidePrints(l, side, in.readings)
		if len(ps) < 4 {
			continue
		}
		examined += len(ps)
		deviations(ps)
		for _, p := range ps {
			stats[p.field+".tilt"] = round3(p.vp.Tilt)
			stats[p.field+".glyphs"] = float64(p.vp.Glyphs)
			if why := oddPrint(p); why != "" {
				lr.score = math.Min(lr.score, 0.3)
				lr.findings = append(lr.findings, finding{code: CodeValuePrint,
					note: fmt.Sprintf("%s is printed unlike the other values on the %s: %s", p.field, side, why)})
			}
		}
	}
	lr.stats = stats
	if examined == 0 {
		lr.skipped = "could not examine: fewer than four values were found where they are printed"
	}
	return lr
}

// sidePrints measures the values the reader found on one side, whose
// luminance is l.
func sidePrints(l *plane, side string, r *idv.OCRReadings) []printed {
	W, H := float64(l.w), float64(l.h)
	names := make([]string, 0, len(r.Fields))
	for name := range r.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []printed
	for _, name := range names {
		fr := r.Fields[name]
		if fr.Side != side || fr.How == "" || fr.How == "mrz" || fr.Box[2] <= 0 || fr.Box[3] <= 0 {
			continue
		}
		f := fr.Box
		box := image.Rect(int(f[0]*W), int(f[1]*H), int((f[0]+f[2])*W), int((f[1]+f[3])*H))
		if vp, ok := measureValue(l, box); ok {
			out = append(out, printed{field: name, vp: vp})
		}
	}
	return out
}

// deviations sets each value's tilt against the median of the others'.
func deviations(ps []printed) {
	for i := range ps {
		var v []float64
		for j, q := range ps {
			if j != i && q.vp.Glyphs >= printMinGlyphs/2 {
				v = append(v, q.vp.Tilt)
			}
		}
		if len(v) == 0 {
			continue
		}
		sort.Float64s(v)
		ps[i].tilt = ps[i].vp.Tilt - v[len(v)/2]
	}
}

// oddPrint says how a value's print stands apart from the others', or ""
// when it does not.
func oddPrint(p printed) string {
	if p.vp.Glyphs >= printMinGlyphs && math.Abs(p.tilt) >= printMaxTilt {
		return fmt.Sprintf("its letters stand %.2f degrees off the others' line", p.tilt)
	}
	return ""
}

// Operating point of the print cue, chosen on the tuning corpora of
// edited fields (seed 58 base and 59 columns families, easy and medium,
// tambua synth --attacks --attack-kinds photo_swap,edited_field,
// edited_field_mrz): the tilt of a value of eight glyphs or more against
// the median of the others' of its side. Genuine values measured up to
// 0.87 degrees (one card of 134 at 0.5 and over), edited ones 0 to 1.5
// (their forgers' hands: 0.05 to 1.45 degrees drawn); shorter values
// measure too coarsely (genuine ones of five or six glyphs reached 2
// degrees).
const (
	printMinGlyphs = 8
	printMaxTilt   = 0.5
)
