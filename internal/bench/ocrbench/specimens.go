package ocrbench

import (
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// Candidates are the definitions a specimen is read with: the one named
// config, or without it the generic definitions (generic_passport,
// generic_id_card, generic_td2, generic_visa_a, generic_visa_b). Of
// these, Specimens gives the check those of the format of the MRZ the
// image shows (ForMRZ), as a caller with a document of unknown issuer
// would; when no MRZ is read, all of them, and the check's own
// document-type detection picks one (each is read, and the reading whose
// MRZ is of the definition's format ranks first).
func Candidates(reg *docdefs.Registry, config string) ([]*idv.DocumentDefinition, error) {
	if config != "" {
		d, ok := reg.Definition(config)
		if !ok {
			return nil, bench.Inputf("unknown definition %q", config)
		}
		return []*idv.DocumentDefinition{d}, nil
	}
	var cands []*idv.DocumentDefinition
	for _, d := range reg.All() {
		if d.Generic() {
			cands = append(cands, d)
		}
	}
	if len(cands) == 0 {
		return nil, bench.Inputf("no generic definition to read the specimens with; name one with -config")
	}
	return cands, nil
}

// Specimen is what the check made of one specimen image.
type Specimen struct {
	Name    string
	Bounds  image.Rectangle
	Elapsed time.Duration // decoding and reading
	// DecodeErr: the image did not decode (nothing else is set but Name).
	DecodeErr error
	// Reason is the check's input error (no reading; Ex is nil).
	Reason string
	Ex     *ocr.Extraction
	// MRZ says whether an MRZ was found and its checks passed.
	MRZ string
	// VsTruth compares the MRZ read with mrz_vectors.json: "MRZ exact",
	// "MRZ differs", or "" when the image has no truth.
	VsTruth string
	// Fields are the presented fields, in schema order.
	Fields []SpecimenField
	// Keys say, for each key field of the definition, whether it was read
	// from the print and agrees with the truth: "surname printed agrees",
	// "document_number -" (not read from the print).
	Keys []string
	// MRZRead is the MRZ text read when it is not the truth's.
	MRZRead string
	// TruthRead: no vector names the image; the truth is the MRZ read
	// from it (every check digit passing).
	TruthRead bool
	// ChosenBy says how the definitions the check was given were chosen:
	// "MRZ MRVA" (the image's MRZ format, ForMRZ), or "" (all candidates).
	ChosenBy string
}

// specimenMRZ reads the MRZ of the specimens before the check does, as a
// caller would to choose the definition (one reader: it renders its
// glyphs once).
var specimenMRZ = mrz.NewReader()

// ForMRZ is the candidates a caller gives the check for img: when an MRZ
// is read on img and parses, the generic candidates of its format
// (docdefs.GenericFor: a visa's MRV-A goes to generic_visa_a, not to the
// passport the check would otherwise also try), else all of cands. The
// check digits need not pass: the format is the MRZ's shape, and a card
// whose digits are wrong (the Maltese specimen) is still a TD1 card,
// which the check then reads with its MRZ untrusted. format is the MRZ's
// format when it chose them, "" otherwise.
func ForMRZ(ctx context.Context, img image.Image, cands []*idv.DocumentDefinition) ([]*idv.DocumentDefinition, string, error) {
	if len(cands) < 2 {
		return cands, "", nil
	}
	rd, err := specimenMRZ.Read(ctx, img)
	if errors.Is(err, mrz.ErrNotFound) {
		return cands, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	m, err := mrz.Parse(rd.Lines, mrz.Options{Repair: true})
	if err != nil {
		return cands, "", nil
	}
	if of := docdefs.GenericFor(cands, m.Format); len(of) > 0 {
		return of, m.Format, nil
	}
	return cands, "", nil
}

// SpecimenField is one presented field.
type SpecimenField struct {
	Name, Value string
	Source      string // "printed", "mrz_located" (printed, found by the MRZ's value) or "mrz"
	// Truth is the MRZ truth's value when it differs from Value.
	Truth string
}

// SpecimenSummary counts a folder's readings.
type SpecimenSummary struct {
	Images, MRZFound, MRZTrusted int
	WithTruth, MRZExact          int
	WithFields, Fields           int
	// Compared MRZ-backed fields with the truth, Agreed of them.
	Compared, Agreed int
	// KeyRead: the four key fields (surname, given names, document
	// number, date of birth) read from the print, not copied from the
	// MRZ; KeyAgree: of those, agreeing with the MRZ truth after folding
	// accents and spacing; KeyWanted: key fields the definitions have.
	KeyWanted, KeyRead, KeyAgree int
	// ReadTruth counts the images held against the MRZ read from them
	// (no vector names them).
	ReadTruth int
	// KeyLocated: of KeyRead, those whose print was found by the trusted
	// MRZ's value (how "mrz_located"): they agree with the MRZ by how they
	// were found, and are counted apart.
	KeyLocated int
	// ByDefinition counts the images read as each definition, "none" for
	// those the check could not read.
	ByDefinition map[string]int
	// Wrong names the fields differing from the truth, image.field.
	Wrong []string
}

// Specimens reads every image of dir as one capture (the front slot) with
// the candidate definitions, hands each reading to each as it is made,
// and returns the counts. Where mrz_vectors.json (in dir or its parent)
// names the image, the MRZ and the presented MRZ-backed fields are
// compared with its lines. A folder that cannot be read is an
// *bench.InputError.
func Specimens(ctx context.Context, k *ocr.Check, cands []*idv.DocumentDefinition, dir string, each func(*Specimen)) (*SpecimenSummary, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &bench.InputError{Err: err}
	}
	truth := specimenTruth(dir)
	sum := &SpecimenSummary{ByDefinition: map[string]int{}}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".jpg" && ext != ".jpeg" && ext != ".png") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sum.Images++
		s := &Specimen{Name: e.Name()}
		start := time.Now()
		img, err := vision.Decode(data)
		if err != nil {
			s.DecodeErr = err
			each(s)
			continue
		}
		s.Bounds = img.Bounds()
		these, format, err := ForMRZ(ctx, img, cands)
		if err != nil {
			return nil, err
		}
		if format != "" {
			s.ChosenBy = "MRZ " + format
		}
		ex, err := k.Extract(ctx, map[string]image.Image{idv.SlotFront: img}, these, nil)
		s.Elapsed = time.Since(start)
		if err != nil {
			var ie *ocr.InputError
			if !errors.As(err, &ie) {
				return nil, err
			}
			s.Reason = ie.Reason
			sum.ByDefinition["none"]++
			each(s)
			continue
		}
		want := truth[e.Name()]
		if want == nil {
			// No vector names this image: its own MRZ, read from the
			// whole image with every check digit passing as printed, is
			// the reference the key fields are held against (counted
			// apart: ReadTruth).
			if want, err = imageMRZ(ctx, img); err != nil {
				return nil, err
			}
			if want != nil {
				s.TruthRead = true
				sum.ReadTruth++
			}
		}
		sum.add(s, ex, want)
		each(s)
	}
	return sum, nil
}

// imageMRZ is the MRZ read from the whole image when every check digit
// passes as read (no repair), nil otherwise.
func imageMRZ(ctx context.Context, img image.Image) ([]string, error) {
	rd, err := specimenMRZ.Read(ctx, img)
	if errors.Is(err, mrz.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m, err := mrz.Parse(rd.Lines, mrz.Options{}); err != nil || !m.AllChecksPass {
		return nil, nil
	}
	return rd.Lines, nil
}

// specimenTruth maps image file names to their MRZ lines, from
// mrz_vectors.json in dir or its parent; nil when there is none.
func specimenTruth(dir string) map[string][]string {
	for _, d := range []string{dir, filepath.Dir(filepath.Clean(dir))} {
		cs, err := bench.MRZSpecimens(d)
		if err != nil {
			continue
		}
		out := map[string][]string{}
		for _, c := range cs {
			out[filepath.Base(c.Path)] = c.Lines
		}
		return out
	}
	return nil
}

// add scores one image's reading into s and counts it.
func (sum *SpecimenSummary) add(s *Specimen, ex *ocr.Extraction, want []string) {
	s.Ex = ex
	d := ex.Definition
	sum.ByDefinition[d.Config]++
	s.MRZ = "no MRZ"
	if ex.MRZ != nil {
		sum.MRZFound++
		s.MRZ = "MRZ " + ex.MRZ.Format + " checks fail"
		if ex.Quality.MRZTrusted {
			sum.MRZTrusted++
			s.MRZ = "MRZ " + ex.MRZ.Format + " checks ok"
		} else if ex.MRZ.AllChecksPass {
			s.MRZ = "MRZ " + ex.MRZ.Format + " checks ok, not this definition's format"
		}
	}
	var wantMRZ *idv.MRZData
	if want != nil {
		// The MRZ reader's accuracy is measured against vectors only:
		// an MRZ read from the image is that reader's own output.
		if !s.TruthRead {
			sum.WithTruth++
		}
		s.VsTruth = "MRZ differs"
		if ex.MRZText == strings.Join(want, "\n") {
			if !s.TruthRead {
				sum.MRZExact++
			}
			s.VsTruth = "MRZ exact"
		}
		if m, err := mrz.Parse(want, mrz.Options{}); err == nil {
			wantMRZ = ocr.MRZData(m)
		}
	}
	fromMRZ := map[string]bool{}
	for _, f := range ex.FromMRZ {
		fromMRZ[f] = true
	}
	for _, fname := range d.FieldSchema {
		v := ex.Fields[fname]
		f, _ := d.Field(fname)
		if v == "" || f.Fixed != "" {
			continue
		}
		sf := SpecimenField{Name: fname, Value: v, Source: "printed"}
		if fromMRZ[fname] {
			sf.Source = "mrz"
		} else if ex.Located[fname].How == "mrz_located" {
			sf.Source = "mrz_located"
		}
		if wantMRZ != nil && f.MRZ != "" {
			if tv := ocr.MRZValue(wantMRZ, f.MRZ); tv != "" {
				sum.Compared++
				if tv == v || nameAgrees(f.MRZ, v, tv) {
					sum.Agreed++
				} else {
					sf.Truth = tv
					sum.Wrong = append(sum.Wrong, s.Name+"."+fname)
				}
			}
		}
		s.Fields = append(s.Fields, sf)
	}
	if n := len(s.Fields); n > 0 {
		sum.WithFields++
		sum.Fields += n
	}
	for _, fname := range d.FieldSchema {
		f, _ := d.Field(fname)
		switch f.MRZ {
		case "surname", "given_names", "document_number", "date_of_birth":
		default:
			continue
		}
		sum.KeyWanted++
		v := ex.Fields[fname]
		if v == "" || fromMRZ[fname] {
			s.Keys = append(s.Keys, fname+" -")
			continue
		}
		sum.KeyRead++
		mark := "?"
		if wantMRZ != nil {
			mark = "differs"
			if tv := ocr.MRZValue(wantMRZ, f.MRZ); tv != "" && foldKey(tv) == foldKey(v) {
				sum.KeyAgree++
				mark = "agrees"
			}
		}
		if ex.Located[fname].How == "mrz_located" {
			sum.KeyLocated++
			mark += " (located by the MRZ)"
		}
		s.Keys = append(s.Keys, fname+" printed "+mark)
	}
	if ex.MRZText != "" && (want == nil || ex.MRZText != strings.Join(want, "\n")) {
		s.MRZRead = ex.MRZText
	}
}

// nameAgrees: a printed name is the MRZ's once written as ICAO 9303
// part 3 writes names into an MRZ, hyphens and spaces as fillers,
// apostrophes left out, accents folded (KOWALSKA-KWIATKOWSKA printed is
// KOWALSKA<KWIATKOWSKA, MEI-HUA is MEI<HUA): the print is right and
// differs from the MRZ only by what an MRZ cannot hold.
func nameAgrees(mrzField, printed, fromMRZ string) bool {
	switch mrzField {
	case "surname", "given_names", "full_name":
		return foldKey(printed) == foldKey(fromMRZ)
	}
	return false
}

// foldKey compares a printed value with the MRZ's: letters and digits
// only, accents folded (the MRZ transliterates), so MAUS and Maus, and
// JOSÉ and JOSE, agree.
func foldKey(v string) string {
	return docdefs.LabelKey(v) + "|" + digitsOf(v)
}

func digitsOf(v string) string {
	var b strings.Builder
	for _, r := range v {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
