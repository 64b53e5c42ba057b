// Package ocrbench measures checks/ocr for tambua bench ocr: how often
// the card is found, rectified and turned upright, and how many printed
// fields are read exactly, on synthetic captures (internal/testkit/synth,
// by layout family and difficulty, or the plain renders of
// internal/testkit/cardtest), with the wall and CPU time per card; and
// what the check makes of a folder of specimen images (specimens.go).
package ocrbench

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/cardtest"
	"github.com/tambua/tambua/internal/testkit/htmlcards"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/internal/textdist"
	"github.com/tambua/tambua/vision"
)

// The sources of captures.
const (
	// Synth is internal/testkit/synth: realistic cards in layout families.
	Synth = "synth"
	// Cardtest is internal/testkit/cardtest: the project's own plain
	// renders of one layout, kept as a second, easier reference.
	Cardtest = "cardtest"
	// HTML is internal/testkit/htmlcards: documents drawn as HTML/CSS by
	// headless Chromium from templates of their own (the tuning styles dev
	// and dev2, or the held-out eval), photographed by a capture simulation
	// of their own.
	HTML = "html"
)

// Options say what one run reads.
type Options struct {
	Check       *ocr.Check
	Definitions []*idv.DocumentDefinition
	// Levels are synth difficulties, or cardtest levels (easy, medium,
	// hard).
	Levels []string
	// Variants are the synth layout families; a cardtest run reads its
	// one layout, as variant "".
	Variants []synth.Variant
	Source   string // Synth, Cardtest or HTML
	// Style is the htmlcards template style of an HTML run (dev, eval).
	Style string
	// N cards per definition, level and variant.
	N    int
	Seed uint64
	// Outlines measures only finding, rectifying and turning the card
	// upright, without OCR (always on synth captures).
	Outlines bool
	// Log, when set, gets every field read wrongly and every card not
	// found or not upright.
	Log io.Writer
	// Out, when set, is a folder for the captures, truth and rectified
	// sides of every synth card with an error.
	Out string
	// Results, when set, gets one JSON line per card (per side with
	// Outlines) with everything the check made of it: fields, raw
	// readings, where each was found, the page's words and the outlines.
	// Two runs' lines are compared to show a change that should leave
	// the output as it was did so (a speed change).
	Results io.Writer
}

// Level is the tallies of one layout family at one level.
type Level struct {
	Level   string
	Variant synth.Variant // "" for cardtest and html
	Style   string        // the htmlcards style of an html run
	// Tallies has one tally per definition, in the order of
	// Options.Definitions.
	Tallies []Tally
	// Overall is the sum of Tallies.
	Overall Tally
}

// VariantName is the variant as the report shows it: "-" for cardtest,
// html-STYLE for the HTML corpus.
func (l *Level) VariantName() string {
	if l.Style != "" {
		return "html-" + l.Style
	}
	if l.Variant == "" {
		return "-"
	}
	return string(l.Variant)
}

// Run reads every level of every variant, hands each finished Level to
// each (so a long run reports as it goes) and returns them all in run
// order. A level or difficulty the source does not know is an
// *bench.InputError.
func Run(ctx context.Context, o Options, each func(*Level)) ([]*Level, error) {
	variants := o.Variants
	if o.Source == Cardtest || o.Source == HTML {
		// cardtest and htmlcards draw layouts of their own
		variants = []synth.Variant{""}
	}
	r := &run{Options: o}
	var out []*Level
	for _, v := range variants {
		for _, lv := range o.Levels {
			l := &Level{Level: lv, Variant: v, Tallies: make([]Tally, len(o.Definitions))}
			if o.Source == HTML {
				l.Style = o.Style
			}
			var err error
			switch {
			case o.Outlines:
				err = r.outlines(ctx, l)
			case o.Source == Synth:
				err = r.synth(ctx, l)
			case o.Source == HTML:
				err = r.html(ctx, l)
			default:
				err = r.cardtest(ctx, l)
			}
			if err != nil {
				return out, err
			}
			for i := range l.Tallies {
				l.Overall.Add(&l.Tallies[i])
			}
			out = append(out, l)
			if each != nil {
				each(l)
			}
		}
	}
	return out, nil
}

// ParseVariants reads a list of synth layout family names, comma
// separated, or all; each is kept once, in the order first named.
func ParseVariants(s string) ([]synth.Variant, error) {
	if strings.TrimSpace(s) == "all" {
		return synth.Variants, nil
	}
	var out []synth.Variant
	for _, name := range strings.Split(s, ",") {
		v, err := synth.ParseVariant(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// cardtestLevels are the capture conditions of the cardtest source.
var cardtestLevels = map[string]func(r *rand.Rand) cardtest.Scene{
	"easy": func(r *rand.Rand) cardtest.Scene {
		return cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.72 + 0.08*r.Float64(), Angle: r.Float64()*10 - 5, Tilt: 0.02, Quality: 90}
	},
	"medium": func(r *rand.Rand) cardtest.Scene {
		return cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.55 + 0.15*r.Float64(), Angle: r.Float64() * 360, Tilt: 0.05,
			Texture: r.IntN(2) == 0, Blur: 0.8 * r.Float64(), Quality: 80}
	},
	"hard": func(r *rand.Rand) cardtest.Scene {
		return cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.45 + 0.15*r.Float64(), Angle: r.Float64() * 360, Tilt: 0.08,
			Texture: true, Blur: 0.6 + r.Float64(), Glare: 0.08 * r.Float64(), GlareAt: [2]float64{r.Float64(), r.Float64()}, Quality: 70}
	},
}

// run is one run's options with the methods that read a level.
type run struct{ Options }

// logf writes to Log when there is one.
func (r *run) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format, args...)
	}
}

// synth reads N synth captures of every definition at one difficulty.
func (r *run) synth(ctx context.Context, l *Level) error {
	return r.eachSynthSample(ctx, l, func(idx, di int, def *idv.DocumentDefinition, smp *synth.Sample) error {
		captures := map[string][]byte{idv.SlotFront: smp.Front}
		corners := map[string]*[4][2]float64{}
		if smp.Truth.Capture.Front != nil {
			corners["front"] = &smp.Truth.Capture.Front.Corners
		}
		if def.HasSide("back") {
			captures[idv.SlotBack] = smp.Back
			corners["back"] = &smp.Truth.Capture.Back.Corners
		}
		name := fmt.Sprintf("%s/%s/%s#%d", l.Level, l.Variant, def.Config, idx)
		ex, ok, err := r.readCard(ctx, name, def, captures, smp.Truth.Printed, corners, &l.Tallies[di])
		if err != nil {
			return err
		}
		if !ok && r.Out != "" {
			return dump(filepath.Join(r.Out, fmt.Sprintf("%s-%s-%s-%d", l.Level, l.Variant, def.Config, idx)), smp, ex)
		}
		return nil
	})
}

// eachSynthSample renders N synthetic samples of every definition at the
// level's difficulty in its layout family, sample idx = i*len(defs)+di
// being of defs[di], and calls f on each.
func (r *run) eachSynthSample(ctx context.Context, l *Level,
	f func(idx, di int, def *idv.DocumentDefinition, smp *synth.Sample) error) error {
	diff, err := synth.ParseDifficulty(l.Level)
	if err != nil {
		return &bench.InputError{Err: err}
	}
	defs := r.Definitions
	gen, err := synth.New(synth.Options{Definitions: defs, Seed: r.Seed, Difficulty: diff, ImpostorRate: -1, Variant: l.Variant})
	if err != nil {
		return err
	}
	return r.eachIndex(ctx, func(idx, di int, def *idv.DocumentDefinition) error {
		smp, err := gen.Sample(ctx, idx)
		if err != nil {
			return err
		}
		return f(idx, di, def, smp)
	})
}

// eachIndex calls f for N samples of every definition, sample idx =
// i*len(defs)+di being of defs[di], the order both synthetic corpora are
// rendered and scored in; it stops at ctx's end.
func (r *run) eachIndex(ctx context.Context, f func(idx, di int, def *idv.DocumentDefinition) error) error {
	defs := r.Definitions
	for i := 0; i < r.N; i++ {
		for di, def := range defs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := f(i*len(defs)+di, di, def); err != nil {
				return err
			}
		}
	}
	return nil
}

// html reads N htmlcards captures of every definition at one level,
// sample idx = i*len(defs)+di being of defs[di], as synth's are read and
// scored. Rendering (Chromium) and photographing are not timed.
func (r *run) html(ctx context.Context, l *Level) error {
	diff, err := htmlcards.ParseDifficulty(l.Level)
	if err != nil {
		return &bench.InputError{Err: err}
	}
	st, err := htmlcards.ParseStyle(r.Style)
	if err != nil {
		return &bench.InputError{Err: err}
	}
	defs := r.Definitions
	gen, err := htmlcards.New(ctx, htmlcards.Options{Definitions: defs, Style: st, Seed: r.Seed, Difficulty: diff})
	if err != nil {
		return err
	}
	defer gen.Close()
	return r.eachIndex(ctx, func(idx, di int, def *idv.DocumentDefinition) error {
		smp, err := gen.Sample(ctx, idx)
		if err != nil {
			return err
		}
		captures := map[string][]byte{idv.SlotFront: smp.Front}
		corners := map[string]*[4][2]float64{"front": &smp.Truth.Capture["front"].Corners}
		if def.HasSide("back") {
			captures[idv.SlotBack] = smp.Back
			corners["back"] = &smp.Truth.Capture["back"].Corners
		}
		name := fmt.Sprintf("%s/html-%s/%s#%d", l.Level, r.Style, def.Config, idx)
		ex, ok, err := r.readCard(ctx, name, def, captures, smp.Truth.Printed, corners, &l.Tallies[di])
		if err != nil {
			return err
		}
		if !ok && r.Out != "" {
			dir := filepath.Join(r.Out, fmt.Sprintf("%s-html-%s-%s-%d", l.Level, r.Style, def.Config, idx))
			if err := smp.WriteDir(dir); err != nil {
				return err
			}
			if err := dumpRectified(dir, ex); err != nil {
				return err
			}
		}
		return nil
	})
}

// cardtest reads N cardtest renders of every definition.
func (r *run) cardtest(ctx context.Context, l *Level) error {
	mk, ok := cardtestLevels[l.Level]
	if !ok {
		return bench.Inputf("unknown level %q (easy, medium, hard)", l.Level)
	}
	for di, def := range r.Definitions {
		for i := 0; i < r.N; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(r.Seed, uint64(di*1000+i)))
			sc := mk(rng)
			printed, truth := cardtest.Values(def, rng)
			mrz := cardtest.MRZ(def, truth)
			captures := map[string][]byte{}
			for si, side := range def.Sides {
				card, err := cardtest.Side(def, side, printed, mrz, 10)
				if err != nil {
					return err
				}
				sc.Seed = rng.Uint64() + uint64(si)
				data, _, err := cardtest.Photo(card, sc)
				if err != nil {
					return err
				}
				captures[side] = data
			}
			name := fmt.Sprintf("%s/%s#%d", l.Level, def.Config, i)
			if _, _, err := r.readCard(ctx, name, def, captures, printed, nil, &l.Tallies[di]); err != nil {
				return err
			}
		}
	}
	return nil
}

// readCard decodes and reads one card (all its sides) and scores it. The
// time counted is decoding, finding, rectifying and reading, per card.
// ok is false when anything was wrong.
func (r *run) readCard(ctx context.Context, name string, def *idv.DocumentDefinition, captures map[string][]byte,
	printed map[string]string, corners map[string]*[4][2]float64, t *Tally) (*ocr.Extraction, bool, error) {
	// Collect the garbage of rendering now, so it is not charged to the card.
	runtime.GC()
	start, cpu0 := time.Now(), bench.ProcessCPU()
	imgs := map[string]image.Image{}
	for slot, data := range captures {
		img, err := vision.Decode(data)
		if err != nil {
			return nil, false, err
		}
		imgs[slot] = img
	}
	ex, err := r.Check.Extract(ctx, imgs, []*idv.DocumentDefinition{def}, nil)
	t.time(start, cpu0)
	if err := r.result(name, ex, err); err != nil {
		return nil, false, err
	}
	t.Cards++
	ok := true
	fields, raw := map[string]string{}, map[string]string{}
	if err == nil {
		fields, raw = ex.Fields, ex.Raw
		if !unreadSide(ex) {
			t.Found++
		}
	} else {
		var ie *ocr.InputError
		if !errors.As(err, &ie) {
			return nil, false, err
		}
		ok = false
		r.logf("%s: %v\n", name, err)
	}
	for _, side := range def.Sides {
		c := corners[side]
		if c == nil {
			continue
		}
		var card *vision.Card
		if ex != nil {
			card = ex.Cards[side]
		}
		if !r.outline(t, name+" "+side, card, c) {
			ok = false
		}
	}
	for _, f := range ScoredFields(def) {
		want, vok := ocr.Normalize(f, printed[f.Name])
		if !vok {
			// The renderer printed something the definition's own rules
			// reject: a corpus bug, reported rather than scored.
			return nil, false, fmt.Errorf("%s: printed %s %q does not normalise", name, f.Name, printed[f.Name])
		}
		got := fields[f.Name]
		t.field(f.Name, want == got)
		if want != got {
			ok = false
			r.logf("%s.%s: got %q want %q (tesseract %q)\n", name, f.Name, got, want, raw[f.Name])
		}
		t.Chars += len(want)
		t.CharErrors += min(textdist.Levenshtein(want, got), len(want))
	}
	return ex, ok, nil
}

// outline scores one side's outline against the truth's corners and
// reports whether it was found and turned upright.
func (r *run) outline(t *Tally, name string, card *vision.Card, truth *[4][2]float64) bool {
	t.Sides++
	located, upright, off := CornerMatch(card, truth)
	if located {
		t.Located++
	}
	if upright {
		t.Upright++
	} else {
		r.logf("%s: outline located %v upright %v (corner error %.1f %% of the long side)\n", name, located, upright, 100*off)
	}
	return upright
}

// ScoredFields are the fields scored: every field of the schema printed
// on the card. Fixed fields (document_type) are copied from the
// definition, not read, so they would only flatter the figure; photo,
// signature and barcode are zones, not fields, and are not in the schema.
func ScoredFields(def *idv.DocumentDefinition) []idv.FieldDef {
	var fs []idv.FieldDef
	for _, name := range def.FieldSchema {
		for _, f := range def.Fields {
			if f.Name == name && f.Fixed == "" && def.HasSide(f.Zone.Side) {
				fs = append(fs, f)
			}
		}
	}
	return fs
}

func unreadSide(ex *ocr.Extraction) bool {
	for _, r := range ex.Reasons {
		if strings.HasSuffix(r, "_unreadable") || strings.HasSuffix(r, vision.ReasonCardNotFound) {
			return true
		}
	}
	return false
}

// dump writes a sample that had an error, with what the pipeline made of
// it, for a person to look at.
func dump(dir string, smp *synth.Sample, ex *ocr.Extraction) error {
	if err := smp.WriteDir(dir); err != nil {
		return err
	}
	return dumpRectified(dir, ex)
}

// dumpRectified writes the sides the check rectified into dir.
func dumpRectified(dir string, ex *ocr.Extraction) error {
	if ex == nil {
		return nil
	}
	for side, c := range ex.Cards {
		if err := writePNG(filepath.Join(dir, side+"_rectified.png"), c.Image); err != nil {
			return err
		}
	}
	return nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
