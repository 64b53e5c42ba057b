package htmlcards

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tambua/tambua/idv"
)

// DefaultFacesDir holds dlib's example face photos (libdlib-dev).
const DefaultFacesDir = "/usr/share/doc/libdlib19.1/examples/johns"

// Options configure a Generator.
type Options struct {
	// Definitions to draw; sample i is of Definitions[i % len].
	Definitions []*idv.DocumentDefinition
	Style       Style
	Seed        uint64
	Difficulty  Difficulty // default medium
	FacesDir    string     // default DefaultFacesDir
	// FlatOnly leaves out the photographs (Front and Back stay nil): for
	// tests of the templates, which need only the flat documents.
	FlatOnly bool
}

// Generator renders samples with one headless Chromium. Close it when
// done. Its methods may be called from several goroutines; pages are
// rendered one at a time.
type Generator struct {
	opts   Options
	people []string
	photos map[string][]string
	br     *browser
}

// New starts the browser and lists the face photos.
func New(ctx context.Context, o Options) (*Generator, error) {
	if len(o.Definitions) == 0 {
		return nil, errors.New("htmlcards: no document definitions")
	}
	if _, err := ParseStyle(string(o.Style)); err != nil {
		return nil, err
	}
	if o.Difficulty == "" {
		o.Difficulty = Medium
	}
	if _, err := ParseDifficulty(string(o.Difficulty)); err != nil {
		return nil, err
	}
	if o.FacesDir == "" {
		o.FacesDir = DefaultFacesDir
	}
	for _, d := range o.Definitions {
		for _, side := range d.Sides {
			if _, ok := sideLayout(o.Style, d, side, []string{"en"}, arrangement{mode: "table"}); !ok {
				return nil, fmt.Errorf("htmlcards: style %s has no template for %s %s", o.Style, d.Config, side)
			}
		}
	}
	g := &Generator{opts: o, photos: map[string][]string{}}
	ents, err := os.ReadDir(o.FacesDir)
	if err != nil {
		return nil, fmt.Errorf("htmlcards: face photos (install libdlib-dev): %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(o.FacesDir, e.Name(), "*.jpg"))
		if len(files) > 0 {
			sort.Strings(files)
			g.people = append(g.people, e.Name())
			g.photos[e.Name()] = files
		}
	}
	if len(g.people) == 0 {
		return nil, fmt.Errorf("htmlcards: no face photos in %s", o.FacesDir)
	}
	sort.Strings(g.people)
	if g.br, err = newBrowser(ctx); err != nil {
		return nil, err
	}
	return g, nil
}

// Close stops the browser.
func (g *Generator) Close() { g.br.close() }

// Sample is one document: its photos, its flat sides and its truth.
type Sample struct {
	Front, Back         []byte // JPEG photos; Back is nil for a one-sided document
	FrontCard, BackCard *image.RGBA
	Truth               Truth
}

// Truth is truth.json.
type Truth struct {
	Config      string `json:"config"`
	DisplayName string `json:"display_name"`
	Country     string `json:"country"`
	Renderer    string `json:"renderer"` // "html": which corpus made it
	Style       string `json:"style"`
	Index       int    `json:"index"`
	Seed        uint64 `json:"seed,string"`
	Difficulty  string `json:"difficulty"`
	// Sides are the sides photographed (front, and back when the
	// document has one).
	Sides       []string `json:"sides"`
	FieldSchema []string `json:"field_schema"`
	// Combined is each field as the ocr_extraction check should return
	// it (DD.MM.YYYY, M/F, upper case); Printed is as the card prints it.
	Combined map[string]string `json:"combined"`
	Printed  map[string]string `json:"printed"`
	MRZLines []string          `json:"mrz_lines"`
	Barcode  *BarcodeTruth     `json:"barcode"`
	Person   PersonTruth       `json:"person"`
	// Layout is where each field's caption and value were printed, and
	// the caption's text.
	Layout  map[string]FieldLayout `json:"layout"`
	Capture map[string]*Capture    `json:"capture"`
}

// BarcodeTruth is what the barcode encodes.
type BarcodeTruth struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// PersonTruth names the face photo on the card.
type PersonTruth struct {
	Name  string `json:"name"`
	Photo string `json:"photo"`
}

// FieldLayout is one field on its side: the caption printed and the
// boxes of caption and value as shares of the side (x, y, w, h).
type FieldLayout struct {
	Side     string     `json:"side"`
	Label    string     `json:"label"`
	LabelBox [4]float64 `json:"label_box"`
	ValueBox [4]float64 `json:"value_box"`
}

// stream is an independent random stream of one sample: the draws of one
// part (holder, look, capture) do not move when another part changes.
func (g *Generator) stream(index int, part string) *rand.Rand {
	h := fnv.New64a()
	d := g.opts.Definitions[index%len(g.opts.Definitions)]
	h.Write([]byte(string(g.opts.Style) + "/" + d.Config + "/" + part))
	return rand.New(rand.NewPCG(g.opts.Seed^h.Sum64(), uint64(index)))
}

// Sample renders sample index.
func (g *Generator) Sample(ctx context.Context, index int) (*Sample, error) {
	d := g.opts.Definitions[index%len(g.opts.Definitions)]
	lk := newLook(g.stream(index, "look"), g.opts.Style, d)
	// the generic documents: which languages the captions are in, and
	// so how dates print
	lr := g.stream(index, "language")
	lang := []string{"en"}
	dates := dateWord
	if d.Layout == idv.LayoutGeneric {
		lang = oneOf(lr, genericLanguages)
		switch {
		case g.opts.Style == Dev2 && lr.Float64() < 0.45:
			// dev2: numeric dates on some generic cards, as many
			// issuers print them
			dates = oneOf(lr, []dateStyle{dateDots, dateDots, dateSlash})
		case g.opts.Style == Eval && lr.Float64() < 0.5:
			dates = dateDots
		case g.opts.Style == Eval:
			dates = dateSlash
		case len(lang) > 1 && lang[1] == "fr" || lang[0] == "fr":
			dates = dateBilingual
		}
	}
	h, err := newHolder(g.stream(index, "holder"), d, dates)
	if err != nil {
		return nil, err
	}
	if lk.valueCase == "mixed" {
		mixCase(h, d)
	}
	pr := g.stream(index, "person")
	person := oneOf(pr, g.people)
	photoPath := oneOf(pr, g.photos[person])
	jpg, err := os.ReadFile(photoPath)
	if err != nil {
		return nil, err
	}
	photoURI := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpg)

	cr := g.stream(index, "captions")
	labels := map[string]string{}
	for _, f := range d.Fields {
		labels[f.Name] = lk.captionFor(cr, d, f, lang)
	}
	labels["x:place_of_issue"] = lk.dress("PLACE OF ISSUE")
	if g.opts.Style == Dev2 {
		lk.tameLongCaptions(d, labels)
	}

	t := Truth{
		Config: d.Config, DisplayName: d.DisplayName, Country: d.Country, Renderer: "html",
		Style: string(g.opts.Style), Index: index, Seed: g.opts.Seed, Difficulty: string(g.opts.Difficulty),
		FieldSchema: d.FieldSchema, Combined: map[string]string{}, Printed: map[string]string{},
		MRZLines: h.mrz, Person: PersonTruth{Name: person, Photo: filepath.Base(photoPath)},
		Layout: map[string]FieldLayout{}, Capture: map[string]*Capture{},
	}
	for _, n := range d.FieldSchema {
		t.Combined[n] = h.combined[n]
	}
	for _, f := range d.Fields {
		t.Printed[f.Name] = h.printed[f.Name]
	}
	barcode := ""
	if d.Barcode != nil {
		t.Barcode = &BarcodeTruth{Kind: d.Barcode.Kind, Text: h.barcode}
		if barcode, err = barcodeURI(d.Barcode.Kind, h.barcode); err != nil {
			return nil, err
		}
	}
	ar := g.stream(index, "art")
	var arr arrangement
	var as *rand.Rand
	if g.opts.Style == Dev2 {
		as = g.stream(index, "arrangement")
		arr = drawArrangement(as, d, lk, labels)
	}
	for try := 1; ; try++ {
		s, err := g.sides(ctx, index, d, lang, arr, pageInput{look: lk, h: h, labels: labels, photo: photoURI, barcode: barcode}, ar, &t)
		var le *LayoutError
		if g.opts.Style == Dev2 && try < dev2Tries && errors.As(err, &le) {
			// the card's text does not fit this arrangement (captions
			// that wrap to three lines): set the card another way, as
			// its designer would
			arr = drawArrangement(as, d, lk, labels)
			continue
		}
		if err != nil {
			return nil, err
		}
		s.Truth = t
		return s, nil
	}
}

// dev2Tries is how many arrangements a dev2 card may draw before its
// layout error is reported.
const dev2Tries = 6

// sides renders and photographs every side of the sample into a Sample
// and t's sides, layout and capture. in has the look, the holder, the
// captions and the pictures; the side, its signature and its security
// print are filled in here.
func (g *Generator) sides(ctx context.Context, index int, d *idv.DocumentDefinition, lang []string, arr arrangement, in pageInput, ar *rand.Rand, t *Truth) (*Sample, error) {
	t.Sides, t.Layout, t.Capture = nil, map[string]FieldLayout{}, map[string]*Capture{}
	s := &Sample{}
	for _, side := range d.Sides {
		sd, _ := sideLayout(g.opts.Style, d, side, lang, arr)
		sig := ""
		for _, b := range sd.blocks {
			if b.kind == "sig" {
				sig = signature(ar, b.w, b.h, oneOf(ar, []string{"#1b2a6b", "#111111", "#23305e"}))
			}
		}
		in.side, in.sig = sd, sig
		in.bg, in.overlay = background(ar, g.opts.Style, d, side), overlay(ar, g.opts.Style, d, side, sd.wmm, sd.hmm)
		w, hh := int(sd.wmm*pxPerMM+0.5), int(sd.hmm*pxPerMM+0.5)
		img, res, err := g.br.render(ctx, pageHTML(in), w, hh)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", d.Config, side, err)
		}
		if len(res.Problems) > 0 {
			return nil, &LayoutError{Config: d.Config, Side: side, Style: g.opts.Style, Problems: res.Problems}
		}
		for f, c := range res.Captions {
			fl := t.Layout[f]
			fl.Side, fl.Label = side, c
			if b := res.Boxes[f+"/label"]; b != nil {
				fl.LabelBox = share(b, w, hh)
			}
			if b := res.Boxes[f+"/value"]; b != nil {
				fl.ValueBox = share(b, w, hh)
			}
			t.Layout[f] = fl
		}
		if g.opts.FlatOnly {
			t.Sides = append(t.Sides, side)
			if side == "front" {
				s.FrontCard = img
			} else {
				s.BackCard = img
			}
			continue
		}
		photo, capt, err := photograph(g.stream(index, "capture/"+side), img, 3.18*pxPerMM*cornerShare(d), g.opts.Difficulty)
		if err != nil {
			return nil, err
		}
		t.Capture[side] = capt
		t.Sides = append(t.Sides, side)
		if side == "front" {
			s.Front, s.FrontCard = photo, img
		} else {
			s.Back, s.BackCard = photo, img
		}
	}
	return s, nil
}

// cornerShare is 1 for cards (ID-1's 3.18 mm corner radius) and smaller
// for a passport page, whose corners are barely rounded.
func cornerShare(d *idv.DocumentDefinition) float64 {
	if d.Kind == "passport" {
		return 0.6
	}
	return 1
}

func share(b *box, w, h int) [4]float64 {
	r := func(v float64) float64 { return float64(int(v*10000+0.5)) / 10000 }
	return [4]float64{r(b.X / float64(w)), r(b.Y / float64(h)), r(b.W / float64(w)), r(b.H / float64(h))}
}

// LayoutError is a side whose text leaves its box or touches other text:
// a template bug, reported rather than rendered.
type LayoutError struct {
	Config, Side string
	Style        Style
	Problems     []string
}

func (e *LayoutError) Error() string {
	return fmt.Sprintf("htmlcards: %s style %s %s: %s", e.Config, e.Style, e.Side, strings.Join(e.Problems, "; "))
}

// WriteDir writes front.jpg, back.jpg (two-sided documents) and
// truth.json into dir.
func (s *Sample) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "front.jpg"), s.Front, 0o644); err != nil {
		return err
	}
	if s.Back != nil {
		if err := os.WriteFile(filepath.Join(dir, "back.jpg"), s.Back, 0o644); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(s.Truth, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "truth.json"), append(b, '\n'), 0o644)
}
