package htmlcards

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/tambua/tambua/idv"
)

// The dev2 style's type and inks. Families that no other renderer of the
// project draws: Lato (fonts-lato) for values and captions, Liberation
// Sans Narrow (fonts-liberation) as the condensed face some cards set
// their values or captions in. Dev has Roboto, eval Open Sans and
// Cantarell, synth DejaVu, Liberation Sans/Serif/Mono, FreeFont and
// Carlito.

// dev2CaptionInks are the light caption inks of label-value cards: greys,
// teal, brown, purple. The issuer's dark colour is the other choice.
var dev2CaptionInks = []string{"#5f6670", "#7a7f86", "#2e7d7a", "#3f7f8c", "#7b5a3c", "#8a6a4a", "#6a4c8c", "#5d4a7e"}

func (l *look) dev2(r *rand.Rand, d *idv.DocumentDefinition, inks []string) {
	l.valueFont, l.valueWeight = `"Lato"`, oneOf(r, []int{700, 700, 800, 900})
	if r.Float64() < 0.3 {
		l.valueFont, l.valueWeight = `"Liberation Sans Narrow"`, 700
	}
	l.captionFont, l.captionWeight = `"Lato"`, oneOf(r, []int{400, 400, 500, 300})
	if r.Float64() < 0.2 {
		l.captionFont, l.captionWeight = `"Liberation Sans Narrow"`, 400
	}
	if r.Float64() < 0.2 {
		l.captionExtraCSS = "font-style:italic;"
	}
	l.titleFont = `"Lato"`
	l.valuePx = between(r, 28, 34)
	// captions 0.38 to 0.6 of the value: the small print of label-value
	// cards; the floor keeps a caption at about 0.9 mm cap height
	l.captionRatio = between(r, 0.38, 0.6)
	l.captionMin = 11
	l.captionCase = oneOf(r, []string{"upper", "upper", "title", "title", "lower", "asis"})
	l.colon = oneOf(r, []string{"keep", "add", "drop", "drop"})
	if r.Float64() < 0.5 {
		l.captionSpacing = between(r, 0.1, 0.3)
	}
	if r.Float64() < 0.35 {
		l.valueCase = "mixed"
	}
	if r.Float64() < 0.25 {
		l.valueSpacing = between(r, 0.02, 0.06)
	}
	l.valueInk = oneOf(r, []string{"#141414", "#1c2230", "#10243e", "#2a1f14"})
	l.captionInk = inks[0]
	if r.Float64() < 0.6 {
		l.captionInk = oneOf(r, dev2CaptionInks)
	}
	l.titleInk, l.countryInk = inks[1], inks[0]
	switch x := r.Float64(); {
	case x < 0.4:
		// laser engraved: greyscale
		l.photoFilter = "grayscale(1) contrast(1.12) brightness(1.04)"
		l.photoBack = "#e6e6e3"
	case x < 0.65:
		l.photoFilter = "sepia(.85) contrast(1.05) saturate(.9)"
		l.photoBack = "#ebe2cf"
	default:
		l.photoFilter = "saturate(1.05) contrast(1.02)"
		l.photoBack = oneOf(r, []string{"#d7e3ee", "#e9ecef", "#dfe9df"})
	}
	l.photoRadius = oneOf(r, []float64{0, 0.4, 1.2, 2})
	// rows spread over the field block on most cards; the others stack
	// them from the top with a gap of their own. Tables always spread
	// (below), over a small least gap.
	l.spread = r.Float64() < 0.7
	l.rowGap = between(r, 1.2, 2.4)
	l.colGap, l.inlineGap, l.tableRowGap = between(r, 12, 22), between(r, 8, 14), between(r, 4, 9)
	// table captions sit on the value's baseline, or at the top of their
	// row on some cards (a small caption over the line's cap height)
	var css strings.Builder
	css.WriteString(".tbl{align-content:space-between}\n")
	// two pairs a row: each caption column takes at most a sixth of the
	// card (a fifth of the larger formats, whose captions come in up to
	// three languages), longer captions wrap
	share := 0.16
	if d.Size.WidthMM > 100 {
		share = 0.2
	}
	fmt.Fprintf(&css, ".tbl.two .c{max-width:%.0fpx}\n", d.Size.WidthMM*pxPerMM*share)
	if r.Float64() < 0.3 {
		css.WriteString(".tbl{align-items:start}.tbl .c{padding-top:2px}\n")
	}
	// hairlines under the values, as on ruled data pages
	if r.Float64() < 0.25 {
		css.WriteString(".tbl .vw,.f.r .vw{border-bottom:1px dotted rgba(60,60,60,.35)}\n")
	}
	l.extraCSS = css.String()
}

// arrangement is a dev2 card's draw of where things go: the photo left
// or right, and how its fields are set (a table of caption and value
// cells, captions inline before their values, or captions above), with
// the card's type sizes, from which the templates judge what fits.
type arrangement struct {
	photoRight bool
	mode       string // table, right, below
	// pairs keeps two short fields a row where the template pairs them;
	// otherwise each field has a row of its own when they fit
	pairs bool
	// emblemRight puts the header's emblem at the right
	emblemRight bool
	// line, capLine, gap and tableGap are the heights (mm) of a value
	// line, a caption line and the gaps between rows of the card's look;
	// capPx and capSpacing its caption size and letter spacing, labels
	// the captions printed, cardW the card's width (mm): what the
	// templates judge fit by
	line, capLine, gap, tableGap float64
	capPx, capSpacing, cardW     float64
	labels                       map[string]string
}

// drawArrangement draws a card's arrangement: the photo at the right on
// most ID-1 cards (left on the passport page, as ICAO 9303 places it),
// tables on most cards.
func drawArrangement(r *rand.Rand, d *idv.DocumentDefinition, lk *look, labels map[string]string) arrangement {
	a := arrangement{
		line:     lk.valuePx * 1.12 / pxPerMM,
		capLine:  lk.captionPx() * 1.15 / pxPerMM,
		gap:      lk.rowGap,
		tableGap: lk.tableRowGap / pxPerMM,
		capPx:    lk.captionPx(), capSpacing: lk.captionSpacing, cardW: d.Size.WidthMM,
		labels: labels,
	}
	switch {
	case d.Kind == "passport":
		a.photoRight = false
	case d.Size.WidthMM > 100:
		a.photoRight = r.Float64() < 0.35
	default:
		a.photoRight = r.Float64() < 0.7
	}
	switch x := r.Float64(); {
	case x < 0.75:
		a.mode = "table"
	case x < 0.9:
		a.mode = "right"
	default:
		a.mode = "below"
	}
	a.pairs = r.Float64() < 0.5
	a.emblemRight = r.Float64() < 0.5
	return a
}

// tameLongCaptions sets captions of several languages (Geburtsdatum /
// Date of birth / Date de naissance) as their issuers do: small and
// without letter spacing, when the longest would otherwise run past
// 45 % of the card.
func (l *look) tameLongCaptions(d *idv.DocumentDefinition, labels map[string]string) {
	longest := 0
	for _, c := range labels {
		longest = max(longest, len([]rune(c)))
	}
	if float64(longest)*(0.6+l.captionSpacing)*l.captionPx()/pxPerMM > 0.45*d.Size.WidthMM {
		l.captionSpacing = min(l.captionSpacing, 0.04)
		l.captionRatio = min(l.captionRatio, 0.44)
	}
}

// namesAndPlaces are the fields a mixed-case card prints in mixed case.
var namesAndPlaces = map[string]bool{
	"surname": true, "given_names": true, "given_name": true, "names": true, "other_names": true,
	"first_name": true, "middle_name": true, "full_name": true, "place_of_birth": true, "place_of_issue": true,
	"district": true, "division": true, "location": true, "sub_location": true, "village": true,
	"parish": true, "county": true, "sub_county": true,
}

// mixCase prints the holder's names and places in mixed case (the
// normalised values, and so the truth, stay upper case).
func mixCase(h *holder, d *idv.DocumentDefinition) {
	for _, f := range d.Fields {
		if namesAndPlaces[f.Name] && f.Fixed == "" {
			h.printed[f.Name] = nameCase(h.printed[f.Name])
		}
	}
	h.extra["place_of_issue"] = nameCase(h.extra["place_of_issue"])
}

// nameCase capitalises each part of a name (after a space or hyphen,
// and after an apostrophe that follows one letter) and lowers the rest:
// Wa-Mwangi, O'Neill, Ndung'u.
func nameCase(s string) string {
	rs := []rune(strings.ToLower(s))
	start := true
	for i, c := range rs {
		if start && unicode.IsLetter(c) {
			rs[i] = unicode.ToUpper(c)
		}
		oneLetter := i == 1 || i > 1 && rs[i-2] == ' '
		start = c == ' ' || c == '-' || (c == '\'' && oneLetter)
	}
	return string(rs)
}
