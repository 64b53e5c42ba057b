package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// ReferenceDate is the day the corpus is made for: every document is valid
// on it. It is fixed, not today's date, so a seed gives the same files on
// any day.
var ReferenceDate = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// Options configure a Generator.
type Options struct {
	// Definitions to draw from; sample i uses Definitions[i % len], so a
	// run of len(Definitions) samples covers each once.
	Definitions []*idv.DocumentDefinition
	Seed        uint64
	Difficulty  Difficulty
	// Attacks makes about half the samples presentation or tampering
	// attacks, cycling through AttackKinds, or through the kinds named
	// in AttackKindsUsed when that is set (any of AllAttackKinds).
	Attacks         bool
	AttackKindsUsed []string
	// ImpostorRate is the share of clean samples whose selfie shows
	// another person (default 0.25; negative for none).
	ImpostorRate float64
	FacesDir     string // default DefaultFacesDir
	Today        time.Time
	// Variant is the layout family (default base, the definitions' own
	// drawing); see Variants.
	Variant Variant
}

// Generator renders samples. It is safe for concurrent use.
type Generator struct {
	opts  Options
	faces *faceSet
}

// New prepares a generator: it checks the fonts and face photos are there.
func New(opts Options) (*Generator, error) {
	if len(opts.Definitions) == 0 {
		return nil, errors.New("synth: no document definitions")
	}
	if opts.Difficulty == "" {
		opts.Difficulty = Medium
	}
	if _, ok := difficultyRanges[opts.Difficulty]; !ok {
		return nil, fmt.Errorf("synth: difficulty %q", opts.Difficulty)
	}
	for _, k := range opts.AttackKindsUsed {
		if !slices.Contains(AllAttackKinds, k) {
			return nil, fmt.Errorf("synth: attack kind %q (one of %s)", k, strings.Join(AllAttackKinds, ", "))
		}
	}
	if opts.FacesDir == "" {
		opts.FacesDir = DefaultFacesDir
	}
	if opts.Today.IsZero() {
		opts.Today = ReferenceDate
	}
	if opts.ImpostorRate == 0 {
		opts.ImpostorRate = 0.25
	}
	v, err := ParseVariant(string(opts.Variant))
	if err != nil {
		return nil, err
	}
	opts.Variant = v
	faces, err := loadFaceSet(opts.FacesDir)
	if err != nil {
		return nil, err
	}
	fs, err := newFonts()
	if err != nil {
		return nil, err
	}
	if v == VariantType || v == VariantHeldout || v == VariantColumns {
		for _, p := range variantFonts {
			if fs.byPath[p] == nil {
				if _, err := loadFont(p); err != nil {
					return nil, fmt.Errorf("synth: variant %s: %w", v, err)
				}
			}
		}
	}
	return &Generator{opts: opts, faces: faces}, nil
}

// Sample is one rendered capture set with its ground truth.
type Sample struct {
	Front, Back, Selfie []byte // JPEG
	Truth               Truth
	// FrontCard and BackCard are the flat documents before capture, for
	// tests and the gallery.
	FrontCard, BackCard *image.RGBA
}

// PersonTruth names the face photos used.
type PersonTruth struct {
	Name         string `json:"name"`
	CardPhoto    string `json:"card_photo"`
	SelfiePerson string `json:"selfie_person"`
	SelfiePhoto  string `json:"selfie_photo"`
	// CardPerson differs from Name only when a photo swap pasted another
	// face on the card.
	CardPerson string `json:"card_person"`
}

// BarcodeTruth is what the document's barcode encodes.
type BarcodeTruth struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// SelfieTruth is how the selfie was made.
type SelfieTruth struct {
	Selfie
	// Recapture is set for print and screen replay attacks: the camera
	// shot of the print or screen.
	Recapture *Capture `json:"recapture,omitempty"`
}

// CaptureTruth holds the parameters of each image.
type CaptureTruth struct {
	Front  *Capture    `json:"front"` // nil for a screenshot
	Back   *Capture    `json:"back"`
	Selfie SelfieTruth `json:"selfie"`
}

// Truth is truth.json.
type Truth struct {
	Config      string `json:"config"`
	Index       int    `json:"index"`
	Seed        uint64 `json:"seed,string"` // a string: JSON numbers lose 64-bit precision in many readers
	Difficulty  string `json:"difficulty"`
	Country     string `json:"country"`
	DisplayName string `json:"display_name"`
	// BackSide is "back", or "facing_page" for a one-sided document whose
	// back.jpg shows the page opposite the data page.
	BackSide    string            `json:"back_side"`
	FieldSchema []string          `json:"field_schema"`
	Combined    map[string]string `json:"combined"`
	// Printed is each value as the card prints it (date and sex formats).
	Printed          map[string]string `json:"printed"`
	MRZLines         []string          `json:"mrz_lines"`
	MRZParsed        map[string]any    `json:"mrz_parsed"`
	Barcode          *BarcodeTruth     `json:"barcode"`
	Person           PersonTruth       `json:"person"`
	SelfieSamePerson bool              `json:"selfie_same_person"`
	// Wear is the document's scratches, smudges and fading.
	Wear Wear `json:"wear"`
	// Layout is set for a layout variant other than base: where each
	// field's caption and value were printed.
	Layout       *LayoutTruth   `json:"layout,omitempty"`
	Attack       *string        `json:"attack"`
	AttackDetail map[string]any `json:"attack_detail,omitempty"`
	Capture      CaptureTruth   `json:"capture"`
}

// SampleSeed is the seed of sample index of a run seeded with seed.
func SampleSeed(seed uint64, index int) uint64 {
	return splitmix(seed ^ splitmix(uint64(index)+0x51))
}

// AttackFor is the attack sample index will carry ("" for none), known
// without rendering it, so that a consumer can pick the samples it needs
// (liveness training renders only the selfie attacks and some clean ones).
func (gen *Generator) AttackFor(index int) string { return gen.attackFor(index) }

// attackFor schedules attacks so that a run of 2*len(defs) samples has
// every definition once clean and once attacked, and cycles the kinds.
// The parity is of the definition's position plus the round: with an odd
// number of definitions index+index/n kept each definition always clean or
// always attacked; for an even number the two are the same.
func (gen *Generator) attackFor(index int) string {
	if !gen.opts.Attacks {
		return ""
	}
	n := len(gen.opts.Definitions)
	if (index%n+index/n)%2 == 0 {
		return ""
	}
	kinds := AttackKinds
	if len(gen.opts.AttackKindsUsed) > 0 {
		kinds = gen.opts.AttackKindsUsed
	}
	return kinds[(index/2)%len(kinds)]
}

// Sample renders sample index.
func (gen *Generator) Sample(ctx context.Context, index int) (*Sample, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := gen.opts.Definitions[index%len(gen.opts.Definitions)]
	seed := SampleSeed(gen.opts.Seed, index)
	if gen.opts.Variant == VariantHeldout {
		seed = SampleSeed(gen.opts.Seed^heldoutSalt, index)
	}
	if gen.opts.Variant == VariantColumns {
		seed = SampleSeed(gen.opts.Seed^columnsSalt, index)
	}
	root := newRNG(seed, 0)
	r, err := newRenderer()
	if err != nil {
		return nil, err
	}
	attack := gen.attackFor(index)

	// who: the holder, the photos of the card and the selfie
	fs := gen.faces
	pg := root.fork("people")
	holder := pick(pg, fs.people)
	photos := fs.photos[holder]
	ci := pg.intn(len(photos))
	si := (ci + 1 + pg.intn(len(photos)-1)) % len(photos)
	others := make([]string, 0, len(fs.people)-1)
	for _, p := range fs.people {
		if p != holder {
			others = append(others, p)
		}
	}
	other := pick(pg, others)
	op := fs.photos[other]
	oi := pg.intn(len(op))
	oj := (oi + 1 + pg.intn(len(op)-1)) % len(op)
	impostor := attack == "" && gen.opts.ImpostorRate > 0 && pg.chance(gen.opts.ImpostorRate)

	person := PersonTruth{Name: holder, CardPhoto: photos[ci], CardPerson: holder, SelfiePerson: holder, SelfiePhoto: photos[si]}
	cardFace, err := fs.load(holder, photos[ci])
	if err != nil {
		return nil, err
	}
	selfieFace, err := fs.load(holder, photos[si])
	if err != nil {
		return nil, err
	}
	var edits sideEdits
	detail := map[string]any{}
	switch {
	case impostor:
		person.SelfiePerson, person.SelfiePhoto = other, op[oj]
		if selfieFace, err = fs.load(other, op[oj]); err != nil {
			return nil, err
		}
	case attack == AttackPhotoSwap:
		// the fraudster's face on the holder's card, and the fraudster's selfie
		swap, err := fs.load(other, op[oi])
		if err != nil {
			return nil, err
		}
		sg := root.fork("swap")
		plan := drawSwap(sg, swap, cardPortrait(sg, swap))
		edits.swap = &plan
		person.CardPerson, person.CardPhoto = other, op[oi]
		person.SelfiePerson, person.SelfiePhoto = other, op[oj]
		if selfieFace, err = fs.load(other, op[oj]); err != nil {
			return nil, err
		}
		detail["original_person"] = holder
		detail["original_photo"] = photos[ci]
		detail["ghost_image_shows"] = "original_person"
		plan.detail(detail)
	}

	id, err := newIdentity(root.fork("identity"), d, gen.opts.Today, sexOf(holder))
	if err != nil {
		return nil, err
	}
	if attack == AttackEditedField || attack == AttackEditedMRZ {
		if err := planEdit(root.fork("edit"), d, id, &edits, detail, attack == AttackEditedMRZ); err != nil {
			return nil, err
		}
	}

	cg := root.fork("capture")
	fw, fh := sideSize(d)
	frontCap := drawCapture(cg, gen.opts.Difficulty, fw, fh)
	backCap := drawCapture(cg, gen.opts.Difficulty, fw, fh)
	pose := cardPortrait(root.fork("pose"), cardFace)
	sigSeed := root.fork("signature").r.Uint64()
	wear := drawWear(root.fork("wear"), gen.opts.Difficulty)
	// the layout variant: its own stream, so the base draws stay as they were
	var layFront, layBack *sideLayout
	var layoutTruth *LayoutTruth
	if gen.opts.Variant != VariantBase {
		lg := newRNG(splitmix(seed^hashString("layout/"+string(gen.opts.Variant))), 13)
		plan := planCard(gen.opts.Variant, d, lg)
		if plan.mixedCase {
			printed := map[string]string{}
			for k, v := range id.printed {
				printed[k] = v
				if f, ok := d.Field(k); ok {
					printed[k] = mixedCaseValue(f, v)
				}
			}
			id.printed = printed
		}
		layFront = variantLayout(d, "front", plan, r.fonts, id.printed, lg.fork("front"))
		layBack = variantLayout(d, "back", plan, r.fonts, id.printed, lg.fork("back"))
		layoutTruth = &LayoutTruth{Variant: string(gen.opts.Variant), Fields: map[string]FieldLayoutTruth{}}
		layFront.truth(d, "front", r.fonts, layoutTruth.Fields)
		layBack.truth(d, "back", r.fonts, layoutTruth.Fields)
	}
	in := sideInput{id: id, face: cardFace, pose: pose, ghost: cardFace, hueShift: frontCap.HologramHueShift, edits: edits, sigSeed: sigSeed, wear: wear, lay: layFront}
	if edits.edit != nil {
		// the MRZ may be on either side
		in.reprint = edits.edit.reprint
	}
	frontImg, err := r.renderSide(d, "front", in)
	if err != nil {
		return nil, err
	}
	backSide := "back"
	if !d.HasSide("back") {
		backSide = "facing_page"
	}
	inBack := in
	inBack.edits = sideEdits{}
	inBack.hueShift = backCap.HologramHueShift
	inBack.lay = layBack
	backImg, err := r.renderSide(d, "back", inBack)
	if err != nil {
		return nil, err
	}

	truth := Truth{
		Config: d.Config, Index: index, Seed: seed, Difficulty: string(gen.opts.Difficulty), Country: d.Country,
		DisplayName: d.DisplayName, BackSide: backSide,
		FieldSchema: append([]string(nil), d.FieldSchema...), Combined: map[string]string{}, Printed: map[string]string{},
		MRZLines: []string{}, Person: person, Wear: wear, Layout: layoutTruth,
		SelfieSamePerson: person.SelfiePerson == person.CardPerson,
	}
	for _, name := range d.FieldSchema {
		truth.Combined[name] = id.values[name]
		truth.Printed[name] = id.printed[name]
	}
	if e := edits.edit; e != nil {
		truth.Combined[e.field] = e.norm
		truth.Printed[e.field] = e.value
	}
	if id.mrz != nil {
		lines, err := id.mrz.lines()
		if err != nil {
			return nil, err
		}
		truth.MRZLines = lines
		truth.MRZParsed = id.mrz.parsed()
	}
	if d.Barcode != nil {
		truth.Barcode = &BarcodeTruth{Kind: d.Barcode.Kind, Text: id.barcode}
	}
	if attack != "" {
		a := attack
		truth.Attack = &a
	}

	ag := root.fork("attack")
	var front, back *fimg
	switch attack {
	case AttackScreenshot:
		sh, params := screenshot(frontImg, r.fonts, ag)
		front = sh
		for k, v := range params {
			detail[k] = v
		}
		detail["jpeg_quality"] = round3(ag.rangef(0.85, 0.95))
	case AttackDocScreen, AttackColourPrint:
		var fc, bc *rgba4
		var p1 map[string]any
		if attack == AttackDocScreen {
			// The viewer shows the card on black at twice the card's
			// resolution, so the panel (a third of that per subpixel
			// triple) keeps two thirds of it: legible, as a replay must be.
			fc, p1 = screenDevice(onBackground(frontImg, rgb{}, 2), ag)
			bc, _ = screenDevice(onBackground(backImg, rgb{}, 2), ag)
		} else {
			fc, p1 = printSheet(onBackground(frontImg, rgb{255, 255, 255}, 1), ag)
			bc, _ = printSheet(onBackground(backImg, rgb{255, 255, 255}, 1), ag)
		}
		for k, v := range p1 {
			detail[k] = v
		}
		frontCap = drawCapture(cg, gen.opts.Difficulty, fc.w, fc.h)
		backCap = drawCapture(cg, gen.opts.Difficulty, bc.w, bc.h)
		if attack == AttackColourPrint {
			frontCap.Glare, backCap.Glare = nil, nil // paper does not shine
		}
		front = renderCapture(fc, frontCap)
		back = renderCapture(bc, backCap)
	case AttackPhotocopy:
		fc, p1 := photocopy(frontImg, ag)
		bc, _ := photocopy(backImg, ag)
		for k, v := range p1 {
			detail[k] = v
		}
		// the paper copy is square-cornered and a little larger
		frontCap = drawCapture(cg, gen.opts.Difficulty, fc.w, fc.h)
		backCap = drawCapture(cg, gen.opts.Difficulty, bc.w, bc.h)
		frontCap.Glare, backCap.Glare = nil, nil // paper does not shine
		front = renderCapture(fc, frontCap)
		back = renderCapture(bc, backCap)
	}
	if front == nil {
		front = renderCapture(rgba4From(frontImg), frontCap)
	}
	if sw := edits.swap; sw != nil && sw.method == SwapDigital && d.Photo != nil && d.Photo.Side == "front" {
		// the photo of the card edited: opened, a face pasted, saved again
		// upright at the editor's quality
		fw, fh := sideSize(d)
		var quad [4]vec
		for i, p := range frontCap.Corners {
			quad[i] = vec{p[0], p[1]}
		}
		if hm, ok := homographyFrom([4]vec{{0, 0}, {float64(fw), 0}, {float64(fw), float64(fh)}, {0, float64(fh)}}, quad); ok {
			x, y, zw, zh := rectPx(*d.Photo, fw, fh)
			st := styleFor(d)
			if layFront != nil {
				st = layFront.st
			}
			front = sw.digitalSwap(front, frontCap, hm, x, y, zw, zh, st.greyPhoto != sw.otherMode, st.softPhoto, root.fork("swap-edit"))
			detail["camera_jpeg_quality"] = frontCap.JPEGQuality
			frontCap.JPEGQuality, frontCap.EXIFOrientation = sw.exportQuality, 1
		}
	}
	if back == nil {
		back = renderCapture(rgba4From(backImg), backCap)
	}
	if attack != AttackScreenshot {
		fc := frontCap
		truth.Capture.Front = &fc
	}
	bc := backCap
	truth.Capture.Back = &bc

	// selfie, possibly presented as a print or on a screen
	sel := drawSelfie(root.fork("selfie"), gen.opts.Difficulty, selfieFace)
	scene := stageSelfie(selfieFace, sel)
	var selfie *fimg
	truth.Capture.Selfie.Selfie = sel
	switch attack {
	case AttackPrint, AttackScreen:
		var doc *rgba4
		var params map[string]any
		if attack == AttackPrint {
			doc, params = printSheet(scene, ag)
		} else {
			doc, params = screenDevice(scene, ag)
		}
		for k, v := range params {
			detail[k] = v
		}
		rc := drawCaptureR(ag, heldRanges(gen.opts.Difficulty), doc.w, doc.h)
		selfie = renderCapture(doc, rc)
		truth.Capture.Selfie.Recapture = &rc
	default:
		selfie = shootSelfie(scene, sel)
	}
	if len(detail) > 0 {
		truth.AttackDetail = detail
	}

	s := &Sample{Truth: truth, FrontCard: frontImg, BackCard: backImg}
	fq := 0.0
	if truth.Capture.Front != nil {
		fq = truth.Capture.Front.JPEGQuality
	} else {
		fq = detail["jpeg_quality"].(float64)
	}
	fo := 1
	if truth.Capture.Front != nil {
		fo = truth.Capture.Front.EXIFOrientation
	}
	if s.Front, err = exifJPEG(front, fq, fo); err != nil {
		return nil, err
	}
	if s.Back, err = exifJPEG(back, backCap.JPEGQuality, backCap.EXIFOrientation); err != nil {
		return nil, err
	}
	sq := sel.JPEG
	if truth.Capture.Selfie.Recapture != nil {
		sq = truth.Capture.Selfie.Recapture.JPEGQuality
	}
	if s.Selfie, err = encodeJPEG(selfie, sq); err != nil {
		return nil, err
	}
	return s, nil
}

// planEdit picks a field on the front to alter and a new value that still
// passes the field's pattern, so only the print gives the forgery away
// (and the MRZ or barcode, unless the forger wrote them again: mrz).
func planEdit(g *rng, d *idv.DocumentDefinition, id *identity, e *sideEdits, detail map[string]any, mrz bool) error {
	var cands []idv.FieldDef
	for _, f := range fieldsOn(d, "front") {
		if f.Fixed == "" && f.Name != "sex" && f.Type != idv.FieldSex {
			cands = append(cands, f)
		}
	}
	// prefer what a forger changes, the birth or expiry date; then any
	// field that can take another value
	order := make([]idv.FieldDef, 0, len(cands))
	for _, p := range []string{"date_of_birth", "date_of_expiry"} {
		for _, c := range cands {
			if c.Name == p && g.chance(0.7) {
				order = append(order, c)
			}
		}
	}
	for _, k := range g.r.Perm(len(cands)) {
		order = append(order, cands[k])
	}
	var f idv.FieldDef
	var old, nv string
	for _, c := range order {
		old = id.values[c.Name]
		if v, err := alternative(g, d, c, id, old); err == nil && v != "" && v != old {
			f, nv = c, v
			break
		}
	}
	if nv == "" {
		return fmt.Errorf("synth: %s: no field to edit", d.Config)
	}
	ep := &editPlan{field: f.Name, value: printedValue(f, nv), norm: nv, mrz: mrz}
	drawEditLook(g.fork("look"), ep)
	var oldLines []string
	if mrz && id.mrz != nil {
		oldLines, _ = id.mrz.lines()
	}
	if mrz {
		rewriteMRZ(d, id, ep, old)
	}
	e.edit = ep
	ep.detail(detail, old)
	if oldLines != nil {
		if lines, err := id.mrz.lines(); err == nil && fmt.Sprint(lines) != fmt.Sprint(oldLines) {
			ep.reprint = drawMRZReprint(g.fork("mrzprint"), oldLines)
			ep.reprint.detail(detail, lines)
		}
	}
	return nil
}

// alternative draws another valid value for field f: a shifted date, a
// different person's name or place from the same country, or a fresh draw
// from the pattern.
func alternative(g *rng, d *idv.DocumentDefinition, f idv.FieldDef, id *identity, old string) (string, error) {
	var re *regexp.Regexp
	if f.Pattern != "" {
		var err error
		if re, err = regexp.Compile(f.Pattern); err != nil {
			return "", err
		}
	}
	ok := func(v string) bool { return v != "" && v != old && (re == nil || re.MatchString(v)) }
	for i := 0; i < 30; i++ {
		var v string
		switch f.Type {
		case idv.FieldDate:
			t, err := time.Parse("02.01.2006", old)
			if err != nil {
				return "", err
			}
			years := g.between(3, 12)
			if f.Name == "date_of_expiry" {
				t = t.AddDate(years, 0, 0)
			} else {
				t = t.AddDate(-years, g.between(0, 11), 0)
			}
			v = ddmmyyyy(t)
		default:
			b := bookFor(d.Country)
			alt := id.person
			alt.Surname = pick(g, b.surnames)
			alt.Given = []string{pick(g, b.male)}
			if len(id.person.Given) > 1 {
				alt.Given = append(alt.Given, pick(g, b.maleLocal))
			}
			v = semanticValue(g, d, f, alt, b)
			if !ok(v) && f.Pattern != "" {
				var err error
				if v, err = fromPattern(g, f.Pattern); err != nil {
					return "", err
				}
				v = strings.TrimSpace(v)
			}
		}
		if ok(v) {
			return v, nil
		}
	}
	return "", nil
}

func encodeJPEG(f *fimg, quality float64) ([]byte, error) {
	var buf bytes.Buffer
	q := int(math.Round(quality * 100))
	if err := jpeg.Encode(&buf, f.toRGBA(), &jpeg.Options{Quality: q}); err != nil {
		return nil, fmt.Errorf("synth: jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteDir writes front.jpg, back.jpg, selfie.jpg and truth.json to dir.
func (s *Sample) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tj, err := json.MarshalIndent(s.Truth, "", "  ")
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"front.jpg": s.Front, "back.jpg": s.Back, "selfie.jpg": s.Selfie, "truth.json": append(tj, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
