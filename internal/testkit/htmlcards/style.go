package htmlcards

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"

	"github.com/tambua/tambua/idv"
)

// Style is one of the independent families of templates.
type Style string

const (
	// Dev is the style a reader may be developed against: values under
	// their captions, Roboto type, wave-band security print.
	Dev Style = "dev"
	// Eval is held out: captions beside their values in label-value
	// tables, Open Sans and Cantarell type, rosette security print. Its
	// cards are measured, never tuned on (docs/synth.md).
	Eval Style = "eval"
	// Dev2 is a second tuning style: label-value tables, the photo at the
	// right on most ID-1 cards, small letter-spaced captions in light
	// inks, Lato and Liberation Sans Narrow type, rosette and guilloche
	// security print (style_dev2.go, layouts_dev2.go, art_dev2.go). It
	// was added when the reader read dev far better than eval, so that
	// development meets the kinds of arrangement eval's figures and
	// description point at, without anyone looking at eval.
	Dev2 Style = "dev2"
)

// Styles are every style: the tuning ones first, the held-out one last.
var Styles = []Style{Dev, Dev2, Eval}

// ParseStyle reads a style name.
func ParseStyle(s string) (Style, error) {
	switch Style(s) {
	case Dev, Dev2, Eval:
		return Style(s), nil
	}
	return "", fmt.Errorf("htmlcards: unknown style %q (dev, dev2 or eval)", s)
}

// look is the typography, inks and spacing of one card: the style's
// choices, some drawn per card.
type look struct {
	style Style

	valueFont, captionFont, titleFont string
	valueWeight, captionWeight        int
	valuePx                           float64
	// captionRatio is the caption's size over the value's (0.4 to 0.8)
	captionRatio    float64
	captionSpacing  float64 // em
	valueSpacing    float64 // em
	captionExtraCSS string
	captionCase     string // asis, upper, title, lower
	colon           string // keep, add, drop
	// captionMin is the smallest caption in px (0: 12)
	captionMin float64
	// valueCase is how names and places print: "" as the definition's
	// values (upper case), or "mixed" (Wanjiku Kamau, Kakamega)
	valueCase string

	titlePx, countryPx, smallPx float64

	valueInk, captionInk, titleInk, countryInk string

	photoFilter, photoBack string
	photoRadius            float64 // mm

	spread                         bool
	rowGap                         float64 // mm between rows when they are not spread
	colGap, inlineGap, tableRowGap float64 // px
	extraCSS                       string
}

func (l *look) captionPx() float64 {
	floor := l.captionMin
	if floor == 0 {
		floor = 12
	}
	return max(floor, l.valuePx*l.captionRatio)
}

func between(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// newLook draws the card's look in style s for definition d. big is the
// passport page (a larger side, larger type).
func newLook(r *rand.Rand, s Style, d *idv.DocumentDefinition) *look {
	big := d.Size.WidthMM > 100
	inks := countryInks[d.Country]
	if inks == nil {
		inks = countryInks["UTO"]
	}
	l := &look{style: s}
	switch s {
	case Dev:
		l.valueFont = `"Roboto"`
		l.valueWeight = 500
		if r.Float64() < 0.4 {
			l.valueFont, l.valueWeight = `"Roboto Condensed"`, 700
		}
		l.captionFont, l.captionWeight = `"Roboto Condensed"`, 400
		l.titleFont = `"Roboto"`
		l.valuePx = between(r, 30, 34)
		l.captionRatio = between(r, 0.55, 0.8)
		l.captionCase = oneOf(r, []string{"asis", "asis", "upper"})
		l.colon = oneOf(r, []string{"keep", "keep", "drop"})
		if r.Float64() < 0.3 {
			l.captionSpacing = 0.04
		}
		l.valueInk = oneOf(r, []string{"#111418", "#1b1d22", "#0f1a2a"})
		l.captionInk = inks[0]
		l.titleInk, l.countryInk = inks[0], "#1a1a1a"
		l.photoFilter = "saturate(.85) contrast(1.05)"
		l.photoBack = "#dfe6ea"
		l.photoRadius = 0.6
		l.spread = true
		l.colGap, l.inlineGap, l.tableRowGap = 14, 10, 6
	case Dev2:
		l.dev2(r, d, inks)
	case Eval:
		l.valueFont, l.valueWeight = `"Open Sans"`, 600
		if r.Float64() < 0.45 {
			l.valueFont, l.valueWeight = `"Cantarell"`, 700
		}
		l.captionFont, l.captionWeight = `"Cantarell"`, 400
		if r.Float64() < 0.35 {
			l.captionFont = `"Open Sans"`
			l.captionExtraCSS = "font-style:italic;"
		}
		l.titleFont = `"Open Sans"`
		l.valuePx = between(r, 28, 32)
		l.captionRatio = between(r, 0.4, 0.6)
		l.captionCase = oneOf(r, []string{"title", "upper", "asis"})
		l.colon = oneOf(r, []string{"add", "drop", "keep"})
		if r.Float64() < 0.5 {
			l.captionSpacing = between(r, 0.08, 0.2)
		}
		if r.Float64() < 0.3 {
			l.valueSpacing = 0.03
		}
		l.valueInk = oneOf(r, []string{"#14213d", "#2b1d14", "#202020"})
		l.captionInk = oneOf(r, []string{"#5f5f66", inks[1], "#7a2e2e", "#1f5f66"})
		l.titleInk, l.countryInk = inks[1], inks[0]
		l.photoFilter = "grayscale(1) contrast(1.1)"
		if r.Float64() < 0.4 {
			l.photoFilter = "sepia(.25) contrast(1.02)"
		}
		l.photoBack = "#e9e4da"
		l.photoRadius = 2
		l.spread = r.Float64() < 0.5
		l.rowGap = between(r, 0.8, 2.4)
		l.colGap, l.inlineGap, l.tableRowGap = 18, 14, between(r, 4, 10)
	}
	if big {
		l.valuePx *= 1.12
	}
	l.titlePx = l.valuePx * 1.1
	l.countryPx = l.valuePx * 0.72
	l.smallPx = max(12, l.valuePx*0.45)
	return l
}

// countryInks are two print colours per issuer: a dark one for captions
// and a second for titles.
var countryInks = map[string][]string{
	"KEN": {"#0b4d2a", "#8c1c13"},
	"UGA": {"#3d2b00", "#9e1b1b"},
	"NGA": {"#0a5c36", "#2f4f2f"},
	"GHA": {"#6b1d1d", "#0f5132"},
	"ZAF": {"#1b3a6b", "#2f6b3a"},
	"TZA": {"#0d4d63", "#1f6e2e"},
	"UTO": {"#23395d", "#6d214f"},
}

// flags are the colours of the issuer's flag, for stripes and bands.
var flags = map[string][]string{
	"KEN": {"#000000", "#bb0000", "#006600"},
	"UGA": {"#000000", "#fcdc04", "#d90000"},
	"NGA": {"#008751", "#ffffff", "#008751"},
	"GHA": {"#ce1126", "#fcd116", "#006b3f"},
	"ZAF": {"#007a4d", "#ffb612", "#de3831", "#002395"},
	"TZA": {"#1eb53a", "#fcd116", "#000000", "#00a3dd"},
	"UTO": {"#1d4e89", "#d9d9d9", "#1d4e89"},
}

// swahiliWords mark captions in Kiswahili: printed only on Kenyan and
// Tanzanian documents (the definitions list them for every East African
// card, as a reader may meet them).
var swahiliWords = []string{"JINA", "MAJINA", "TAREHE", "JINSIA", "URAIA", "MAHALI", "NAMBA", "MSIMBO", "MAMLAKA", "NAMBARI"}

func swahili(s string) bool {
	u := strings.ToUpper(s)
	for _, w := range swahiliWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// captionFor picks the caption of field f in the card's look: the
// definition's label most of the time, another of its spellings
// otherwise; then the look's case and colon.
func (l *look) captionFor(r *rand.Rand, d *idv.DocumentDefinition, f idv.FieldDef, lang []string) string {
	all := f.AllLabels()
	if len(all) == 0 {
		return ""
	}
	c := all[0]
	if d.Layout == idv.LayoutGeneric {
		c = genericCaption(f, all, lang)
	} else if len(all) > 1 && r.Float64() < 0.3 {
		var alt []string
		for _, a := range all[1:] {
			if d.Country == "KEN" || d.Country == "TZA" || !swahili(a) {
				alt = append(alt, a)
			}
		}
		if len(alt) > 0 {
			c = oneOf(r, alt)
		}
	}
	return l.dress(c)
}

// dress applies the look's case and colon to a caption.
func (l *look) dress(c string) string {
	switch l.colon {
	case "add":
		if !strings.HasSuffix(c, ":") && !strings.HasSuffix(c, ".") {
			c += ":"
		}
	case "drop":
		c = strings.TrimSuffix(c, ":")
	}
	switch l.captionCase {
	case "upper":
		c = strings.ToUpper(c)
	case "title":
		c = titleCase(c)
	case "lower":
		c = lowerCase(c)
	}
	return c
}

// lowerCase lowers a caption but keeps its acronyms (NIN, ID, D.O.B.),
// as cards that print "date of birth" still print "NIN".
func lowerCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if u := strings.ToUpper(w); u == w && (acronyms[strings.Trim(u, ":./")] || dotted.MatchString(u)) {
			continue
		}
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, " ")
}

// titleCase capitalises each word's first letter and lowers the rest,
// keeping short function words (of, ya, la, de) lower case.
func titleCase(s string) string {
	small := map[string]bool{"of": true, "ya": true, "la": true, "pa": true, "de": true, "du": true, "wa": true, "cha": true}
	orig := strings.Fields(s)
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		if i > 0 && small[w] {
			continue
		}
		// acronyms stay as they are: NIN, ID, D.O.B.
		if u := strings.ToUpper(orig[i]); u == orig[i] && (acronyms[strings.Trim(u, ":./")] || dotted.MatchString(u)) {
			words[i] = orig[i]
			continue
		}
		rs := []rune(w)
		for k, c := range rs {
			if unicode.IsLetter(c) {
				rs[k] = unicode.ToUpper(c)
				break
			}
		}
		// after a slash another language starts: capitalise it too
		for k := 1; k < len(rs); k++ {
			if rs[k-1] == '/' && unicode.IsLetter(rs[k]) {
				rs[k] = unicode.ToUpper(rs[k])
			}
		}
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}

var (
	acronyms = map[string]bool{"NIN": true, "ID": true, "NIDA": true, "EC": true}
	dotted   = regexp.MustCompile(`^([A-Z]\.)+:?$`)
)

// genericLabels are, per field of the generic definitions, the caption
// in each language a card may print (every one of them is in the
// definition's label list: the test checks it).
var genericLabels = map[string]map[string]string{
	"document_type":   {"en": "Type", "fr": "Type", "es": "Tipo", "pt": "Tipo", "de": "Typ", "sw": "Aina"},
	"issuing_state":   {"en": "Code", "fr": "Code du pays", "es": "Código", "pt": "Código do país", "de": "Ausstellungsstaat", "sw": "Msimbo"},
	"document_number": {"en": "Document No.", "fr": "Numéro de document", "es": "Numero del documento", "de": "Documentnummer"},
	"passport_number": {"en": "Passport No.", "de": "Passnummer"},
	"surname":         {"en": "Surname", "fr": "Nom", "es": "Apellidos", "pt": "Apelido", "de": "Familienname", "sw": "Jina la Ukoo"},
	"given_names":     {"en": "Given names", "fr": "Prénoms", "es": "Nombres", "pt": "Nomes", "de": "Vornamen", "sw": "Majina"},
	"nationality":     {"en": "Nationality", "fr": "Nationalité", "es": "Nacionalidad", "pt": "Nacionalidade", "de": "Staatsangehörigkeit", "sw": "Uraia"},
	"sex":             {"en": "Sex", "fr": "Sexe", "es": "Sexo", "pt": "Sexo", "de": "Geschlecht", "sw": "Jinsia"},
	"date_of_birth":   {"en": "Date of birth", "fr": "Date de naissance", "es": "Fecha de nacimiento", "pt": "Data de nascimento", "de": "Geburtsdatum", "sw": "Tarehe ya Kuzaliwa"},
	"date_of_expiry":  {"en": "Date of expiry", "fr": "Date d'expiration", "es": "Fecha de caducidad", "pt": "Data de validade", "de": "Gültig bis", "sw": "Tarehe ya Kuisha"},
	"date_of_issue":   {"en": "Date of issue", "fr": "Date de délivrance", "es": "Fecha de expedición", "pt": "Data de emissão", "de": "Ausstellungsdatum", "sw": "Tarehe ya Kutolewa"},
	"place_of_birth":  {"en": "Place of birth", "fr": "Lieu de naissance", "es": "Lugar de nacimiento", "pt": "Local de nascimento", "de": "Geburtsort", "sw": "Mahali pa Kuzaliwa"},
	"authority":       {"en": "Authority", "fr": "Autorité", "es": "Autoridad", "pt": "Autoridade", "de": "Behörde", "sw": "Mamlaka"},
}

// genericLanguages are the language sets a generic document's captions
// come in: one language, or the bilingual captions many issuers print
// (Surname/Nom), joined by a slash.
var genericLanguages = [][]string{{"en"}, {"en", "fr"}, {"fr", "en"}, {"es", "en"}, {"pt", "en"}, {"de", "en", "fr"}, {"sw", "en"}}

func genericCaption(f idv.FieldDef, all []string, lang []string) string {
	m := genericLabels[f.Name]
	if m == nil {
		return all[0]
	}
	var parts []string
	for _, l := range lang {
		// a language the definition gives no caption in is left out
		if c := m[l]; c != "" && containsFold(all, c) && !containsFold(parts, c) {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return all[0]
	}
	return strings.Join(parts, " / ")
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
