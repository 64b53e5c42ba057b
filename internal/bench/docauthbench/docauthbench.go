// Package docauthbench measures document_authenticity for tambua bench
// docauth: on captures tambua synth --attacks wrote, or renders itself,
// each runs through ocr_extraction and then the authenticity check, and is
// counted per difficulty and attack kind, and per definition and kind.
package docauthbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/docauth"
	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// Genuine is the kind of a capture that is no attack.
const Genuine = "genuine"

// CardGenuine says whether a kind leaves the document genuine: no attack,
// or one of synth's selfie attacks (print and screen_replay present the
// selfie on paper or a screen; the card is photographed as it is). For
// those the authenticity check must pass the card, and a capture not
// passed is a false flag, as for a genuine one. The document's own screen
// replay and print are synth's document_screen and colour_print.
func CardGenuine(kind string) bool {
	return kind == Genuine || kind == synth.AttackPrint || kind == synth.AttackScreen
}

// Sample is one capture set with what the corpus says it is.
type Sample struct {
	Name       string
	Config     string
	Difficulty string
	Kind       string // Genuine or the attack
	// Grade is the attack's strength (synth's subtle, medium or obvious)
	// and Method how it was made (a photo swap's paste or digital), when
	// the corpus says; "" otherwise.
	Grade, Method string
	Front, Back   []byte
}

// Row tallies one group of samples.
type Row struct {
	N, NotPass, Fail, ByOCR int
	// CPU is the authenticity check's process CPU time per sample it ran on.
	CPU     []time.Duration
	Reasons map[string]int
}

func (r *Row) add(v Verdict, cpu time.Duration) {
	r.N++
	if v.NotPass {
		r.NotPass++
	}
	if v.Fail {
		r.Fail++
	}
	if v.ByOCR {
		r.ByOCR++
	}
	if cpu > 0 {
		r.CPU = append(r.CPU, cpu)
	}
	if r.Reasons == nil {
		r.Reasons = map[string]int{}
	}
	for _, x := range v.Reasons {
		r.Reasons[x]++
	}
}

// Verdict is what the verification made of one sample.
type Verdict struct {
	// NotPass: not accepted; Fail: rejected; ByOCR: rejected already by
	// ocr_extraction, so the authenticity check never ran.
	NotPass, Fail, ByOCR bool
	// Decision is docauth's, or "ocr:" and the OCR reasons.
	Decision string
	Reasons  []string
}

// ocrVerdict is the verdict when ocr_extraction failed the sample: the
// verification stops there, rejected, never accepted; counted as caught,
// and shown apart.
func ocrVerdict(out idv.Outcome) Verdict {
	return Verdict{NotPass: true, Fail: true, ByOCR: true, Decision: "ocr:" + strings.Join(out.Reasons, ","),
		Reasons: append([]string(nil), out.Reasons...)}
}

// docAuthVerdict is the verdict of the authenticity check's section.
func docAuthVerdict(sec docauth.Section) Verdict {
	return Verdict{NotPass: sec.Decision != docauth.DecisionPass, Fail: sec.Decision == docauth.DecisionFail,
		Decision: sec.Decision, Reasons: sec.ReasonCodes}
}

// Surprise reports whether a sample's verdict is the wrong one: a genuine
// card not passed, or an attack on the card passed.
func (v Verdict) Surprise(kind string) bool { return CardGenuine(kind) == v.NotPass }

// Surprise is a sample with the wrong verdict.
type Surprise struct {
	Sample, Kind, Difficulty string
	Verdict
}

// Options say which samples are measured: those in Dirs, or else Count
// rendered per level of Levels from Seed.
type Options struct {
	Dirs   []string
	Seed   uint64
	Count  int
	Levels []string
	// AttackKinds are the attacks rendered when Dirs is empty (synth's
	// names); empty means every kind synth renders.
	AttackKinds []string
	// OCRCache, when set, is a folder where ocr_extraction's outputs are
	// kept per capture and taken from on later runs (see ocrState): for
	// measuring changes to the authenticity check alone.
	OCRCache string
	// Cues, when set, receives one JSON line per capture: what it is, the
	// decision and every layer's raw cues (for choosing operating points
	// on a tuning corpus).
	Cues io.Writer
}

// CueLine is one line of Options.Cues.
type CueLine struct {
	Sample, Config, Difficulty, Kind, Grade, Method string
	Decision                                        string
	Reasons                                         []string
	// Confidence is the section's; Findings each layer's findings as
	// "layer code: note", so a capture flagged can be explained without
	// running it again.
	Confidence float64
	Findings   []string `json:",omitempty"`
	// Read is what ocr_extraction read per field: "value (how conf)".
	Read                                       map[string]string  `json:",omitempty"`
	Substrate, Portrait, Print, Edit, MRZPrint map[string]float64 `json:",omitempty"`
}

// Report is what one run measured.
type Report struct {
	// ByLevel is keyed by difficulty and kind, ByDefinition by config and
	// kind, ByGrade by difficulty, kind and grade (attacks whose corpus
	// grades them).
	ByLevel, ByDefinition map[[2]string]*Row
	ByGrade               map[[3]string]*Row
	Surprises             []Surprise
}

// Run measures the samples with GOMAXPROCS at 1, restored after. A folder
// without samples is a *bench.InputError.
func Run(ctx context.Context, o Options) (*Report, error) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	reg := docdefs.Default()
	k := ocr.New(ocr.WithWorkers(1))
	defer k.Close()
	da := docauth.New()
	rep := &Report{ByLevel: map[[2]string]*Row{}, ByDefinition: map[[2]string]*Row{}, ByGrade: map[[3]string]*Row{}}
	row := func(m map[[2]string]*Row, a, b string) *Row {
		key := [2]string{a, b}
		if m[key] == nil {
			m[key] = &Row{}
		}
		return m[key]
	}
	run := func(s Sample) error {
		def, ok := reg.Definition(s.Config)
		if !ok {
			return fmt.Errorf("%s: unknown config %s", s.Name, s.Config)
		}
		images := map[string]idv.Image{idv.SlotFront: {Data: s.Front}}
		if len(s.Back) > 0 {
			images[idv.SlotBack] = idv.Image{Data: s.Back}
		}
		c := idv.NewCase(images)
		c.Config, c.Definition, c.Allowed = s.Config, def, []*idv.DocumentDefinition{def}
		// The corpus is made valid on its reference date.
		c.Now = synth.ReferenceDate
		c.Step = idv.Step{Name: idv.CheckOCR}
		var out idv.Outcome
		cached := false
		if o.OCRCache != "" {
			var err error
			if out, cached, err = loadOCR(o.OCRCache, s, c, reg.Definition); err != nil {
				return fmt.Errorf("%s: ocr cache: %w", s.Name, err)
			}
		}
		if !cached {
			var err error
			if out, err = k.Run(ctx, c); err != nil {
				return fmt.Errorf("%s: ocr: %w", s.Name, err)
			}
			if o.OCRCache != "" {
				if err := saveOCR(o.OCRCache, s, c, out); err != nil {
					return fmt.Errorf("%s: ocr cache: %w", s.Name, err)
				}
			}
		}
		var v Verdict
		var cpu time.Duration
		if out.Status == idv.StatusFailed {
			v = ocrVerdict(out)
		} else {
			info, _ := idv.Info(idv.CheckDocAuth)
			c.Step = idv.Step{Name: idv.CheckDocAuth, Threshold: info.Threshold.Default, HasThreshold: true}
			c0 := bench.ProcessCPU()
			_, err := da.Run(ctx, c)
			cpu = bench.ProcessCPU() - c0
			if err != nil {
				return fmt.Errorf("%s: docauth: %w", s.Name, err)
			}
			sec, _ := c.Section("document_authenticity")
			ds := sec.(docauth.Section)
			v = docAuthVerdict(ds)
			if o.Cues != nil {
				line := CueLine{Sample: s.Name, Config: s.Config, Difficulty: s.Difficulty, Kind: s.Kind, Grade: s.Grade, Method: s.Method,
					Decision: ds.Decision, Reasons: ds.ReasonCodes, Confidence: ds.Confidence, Findings: findingLines(ds), Read: readLines(c), Substrate: ds.SubstrateStats, Portrait: ds.PortraitStats, Print: ds.PrintStats, Edit: ds.EditStats, MRZPrint: ds.MRZPrintStats}
				if err := json.NewEncoder(o.Cues).Encode(line); err != nil {
					return err
				}
			}
		}
		row(rep.ByLevel, s.Difficulty, s.Kind).add(v, cpu)
		row(rep.ByDefinition, s.Config, s.Kind).add(v, cpu)
		if s.Grade != "" {
			key := [3]string{s.Difficulty, s.Kind, s.Grade}
			if rep.ByGrade[key] == nil {
				rep.ByGrade[key] = &Row{}
			}
			rep.ByGrade[key].add(v, cpu)
		}
		if v.Surprise(s.Kind) {
			rep.Surprises = append(rep.Surprises, Surprise{Sample: s.Name, Kind: s.Kind, Difficulty: s.Difficulty, Verdict: v})
		}
		return nil
	}
	if len(o.Dirs) > 0 {
		for _, d := range o.Dirs {
			if err := EachCorpusSample(d, run); err != nil {
				return nil, err
			}
		}
		return rep, nil
	}
	defs := reg.Drawn()
	for _, lv := range o.Levels {
		kinds := o.AttackKinds
		if len(kinds) == 0 {
			kinds = synth.AllAttackKinds
		}
		gen, err := synth.New(synth.Options{Definitions: defs, Seed: o.Seed, Difficulty: synth.Difficulty(lv), Attacks: true, AttackKindsUsed: kinds})
		if err != nil {
			return nil, err
		}
		for i := 0; i < o.Count; i++ {
			kind := gen.AttackFor(i)
			smp, err := gen.Sample(ctx, i)
			if err != nil {
				return nil, err
			}
			if kind == "" {
				kind = Genuine
			}
			grade, method := gradeOf(smp.Truth)
			if err := run(Sample{Name: fmt.Sprintf("%s/%05d", lv, i), Config: smp.Truth.Config, Difficulty: lv,
				Kind: kind, Grade: grade, Method: method, Front: smp.Front, Back: smp.Back}); err != nil {
				return nil, err
			}
		}
	}
	return rep, nil
}

// ErrNoSamples is the error (wrapped in a *bench.InputError) of a folder
// holding no sample folders.
var ErrNoSamples = errors.New("no sample folders (*/truth.json)")

// EachCorpusSample calls fn on each sample folder tambua synth --out wrote
// in dir; a selfie attack's card is genuine and counted under its kind
// (CardGenuine).
func EachCorpusSample(dir string, fn func(Sample) error) error {
	truths, err := filepath.Glob(filepath.Join(dir, "*", "truth.json"))
	if err != nil {
		return err
	}
	if len(truths) == 0 {
		return &bench.InputError{Err: fmt.Errorf("%w in %s", ErrNoSamples, dir)}
	}
	sort.Strings(truths)
	for _, tp := range truths {
		raw, err := os.ReadFile(tp)
		if err != nil {
			return err
		}
		var tr synth.Truth
		if err := json.Unmarshal(raw, &tr); err != nil {
			return fmt.Errorf("%s: %w", tp, err)
		}
		kind := Genuine
		if tr.Attack != nil {
			kind = *tr.Attack
		}
		sd := filepath.Dir(tp)
		front, err := os.ReadFile(filepath.Join(sd, "front.jpg"))
		if err != nil {
			return err
		}
		back, _ := os.ReadFile(filepath.Join(sd, "back.jpg"))
		grade, method := gradeOf(tr)
		if err := fn(Sample{Name: sd, Config: tr.Config, Difficulty: tr.Difficulty, Kind: kind, Grade: grade, Method: method, Front: front, Back: back}); err != nil {
			return err
		}
	}
	return nil
}

// gradeOf reads an attack's grade and method from its truth.
func gradeOf(tr synth.Truth) (grade, method string) {
	grade, _ = tr.AttackDetail["grade"].(string)
	method, _ = tr.AttackDetail["method"].(string)
	return grade, method
}

// findingLines lists a section's findings as "layer code: note", layers
// in name order.
func findingLines(ds docauth.Section) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(ds.Layers)) {
		for _, f := range ds.Layers[n].Findings {
			out = append(out, n+" "+f.Code+": "+f.Note)
		}
	}
	return out
}

// readLines is each field ocr_extraction read, with how and how surely.
func readLines(c *idv.Case) map[string]string {
	_, vals := c.Fields()
	r, _ := idv.ValueOCRReadings.Get(c)
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		fr := r.Fields[k]
		out[k] = fmt.Sprintf("%s (%s %.0f)", v, fr.How, fr.Conf)
	}
	return out
}
