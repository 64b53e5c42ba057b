// Package docdefs holds the document definitions (one YAML file per config
// value, embedded) and loads a user's own definitions from a directory.
// Every definition is validated strictly: unknown keys, zones outside the
// card, duplicate field names and field_schema entries without a zone are
// errors.
package docdefs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/tambua/tambua/idv"
)

//go:embed defs/*.yaml
var embedded embed.FS

// Registry is a set of validated definitions, keyed by config.
type Registry struct {
	defs map[string]*idv.DocumentDefinition
}

var _ idv.Definitions = (*Registry)(nil)

var (
	defaultOnce sync.Once
	defaultReg  *Registry
	defaultErr  error
)

// Default returns the embedded definitions. They are validated by this
// package's tests, so an error here is a build defect and panics.
func Default() *Registry {
	defaultOnce.Do(func() {
		defaultReg, defaultErr = Load(embedded, "defs")
	})
	if defaultErr != nil {
		panic("docdefs: embedded definitions are invalid: " + defaultErr.Error())
	}
	return defaultReg
}

// LoadDir loads every *.yaml file of dir on top of the embedded definitions:
// a file whose config matches an embedded one replaces it.
func LoadDir(dir string) (*Registry, error) {
	user, err := Load(os.DirFS(dir), ".")
	if err != nil {
		return nil, err
	}
	merged := &Registry{defs: map[string]*idv.DocumentDefinition{}}
	for k, v := range Default().defs {
		merged.defs[k] = v
	}
	for k, v := range user.defs {
		merged.defs[k] = v
	}
	return merged, nil
}

// Load reads and validates every *.yaml file in dir of fsys.
func Load(fsys fs.FS, dir string) (*Registry, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("docdefs: %w", err)
	}
	r := &Registry{defs: map[string]*idv.DocumentDefinition{}}
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("docdefs: %w", err)
		}
		d, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("docdefs: %s: %w", e.Name(), err)
		}
		if want := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".yaml"), ".yml"); d.Config != want {
			return nil, fmt.Errorf("docdefs: %s: config %q must match the file name", e.Name(), d.Config)
		}
		r.defs[d.Config] = d
	}
	if len(r.defs) == 0 {
		return nil, fmt.Errorf("docdefs: no definitions in %s", dir)
	}
	return r, nil
}

// Definition returns the definition of a config value.
func (r *Registry) Definition(config string) (*idv.DocumentDefinition, bool) {
	d, ok := r.defs[config]
	return d, ok
}

// All returns every definition, sorted by config.
func (r *Registry) All() []*idv.DocumentDefinition {
	out := make([]*idv.DocumentDefinition, 0, len(r.defs))
	for _, c := range r.Configs() {
		out = append(out, r.defs[c])
	}
	return out
}

// Drawn returns the definitions the synthetic corpora (synth, htmlcards)
// render, sorted by config: all but the visas (kind visa), a sticker on a
// passport page that neither renderer draws. Keeping them out also keeps
// every corpus the same as before they were added: a sample's seed
// follows from its index, and the index from the number of definitions.
func (r *Registry) Drawn() []*idv.DocumentDefinition {
	var out []*idv.DocumentDefinition
	for _, d := range r.All() {
		if d.Kind != KindVisa {
			out = append(out, d)
		}
	}
	return out
}

// KindVisa is the kind of a visa's definition.
const KindVisa = "visa"

// Configs returns the config values, sorted.
func (r *Registry) Configs() []string {
	out := make([]string, 0, len(r.defs))
	for c := range r.defs {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

const maxDefinitionBytes = 256 << 10

// Parse decodes one definition strictly and validates it.
func Parse(data []byte) (*idv.DocumentDefinition, error) {
	if len(data) > maxDefinitionBytes {
		return nil, fmt.Errorf("definition is %d bytes, more than %d", len(data), maxDefinitionBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var d idv.DocumentDefinition
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("yaml: %w", err)
	}
	settleSides(&d)
	if err := Validate(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

var (
	configRe  = regexp.MustCompile(`^[a-z][a-z0-9_]{2,63}$`)
	fieldRe   = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	countryRe = regexp.MustCompile(`^[A-Z]{3}$`)
	colourRe  = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
)

var (
	kinds         = set("id_card", "passport", "driving_licence", "voter_id", KindVisa)
	sideNames     = set("front", "back")
	fieldTypes    = set(idv.FieldText, idv.FieldDate, idv.FieldNumber, idv.FieldSex)
	dateFormats   = set("", "DD.MM.YYYY", "DD/MM/YYYY", "DD-MM-YYYY", "DD MMM YYYY", "any")
	sexFormats    = set("", "letter", "word")
	mrzFormats    = set(idv.MRZTD1, idv.MRZTD2, idv.MRZTD3, idv.MRZMRVA, idv.MRZMRVB)
	barcodeKinds  = set("pdf417", "qr")
	featureKinds  = set("guilloche", "seal", "hologram", "microtext", "ghost_image")
	layouts       = set("", idv.LayoutGeneric)
	valuePlaces   = set("", idv.ValueRight, idv.ValueBelow, idv.ValueEither)
	mrzFieldNames = set("document_code", "document_number", "date_of_birth", "date_of_expiry", "sex", "surname",
		"given_names", "full_name", "nationality", "issuing_state", "optional_data", "personal_number")
)

// Validate checks every rule of a definition and reports all broken ones.
func Validate(d *idv.DocumentDefinition) error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	if !configRe.MatchString(d.Config) {
		bad("config %q must be lower case letters, digits and _ (3 to 64)", d.Config)
	}
	if strings.TrimSpace(d.DisplayName) == "" {
		bad("display_name is required")
	}
	if !countryRe.MatchString(d.Country) {
		bad("country %q must be a three-letter ICAO code", d.Country)
	}
	if !kinds[d.Kind] {
		bad("kind %q is not one of id_card, passport, driving_licence, voter_id, visa", d.Kind)
	}
	if !layouts[d.Layout] {
		bad("layout %q is not generic (or absent, for an issuer's own layout)", d.Layout)
	}
	if d.Generic() && d.MRZ == nil {
		// A generic layout reads its fields from the MRZ when the print
		// does not fit the ICAO zones: without an MRZ it reads nothing.
		bad("layout generic needs an mrz")
	}
	if !(d.Size.WidthMM > 10 && d.Size.WidthMM < 300 && d.Size.HeightMM > 10 && d.Size.HeightMM < 300) {
		bad("size %gx%g mm is not a document size", d.Size.WidthMM, d.Size.HeightMM)
	}
	sides := map[string]bool{}
	if len(d.Sides) == 0 {
		bad("sides: at least one side is required")
	}
	for _, s := range d.Sides {
		if !sideNames[s] {
			bad("sides: %q is not front or back", s)
		}
		if sides[s] {
			bad("sides: %q repeats", s)
		}
		sides[s] = true
	}
	zone := func(what string, z idv.Zone) {
		if !sides[z.Side] {
			bad("%s: side %q is not one of the document's sides", what, z.Side)
		}
		if !(z.W > 0 && z.H > 0) || z.X < 0 || z.Y < 0 || z.X+z.W > 1+1e-9 || z.Y+z.H > 1+1e-9 || anyNaN(z.X, z.Y, z.W, z.H) {
			bad("%s: zone x=%g y=%g w=%g h=%g is outside the card", what, z.X, z.Y, z.W, z.H)
		}
	}

	byName := map[string]idv.FieldDef{}
	for i, f := range d.Fields {
		what := fmt.Sprintf("fields[%d] (%s)", i, f.Name)
		if !fieldRe.MatchString(f.Name) {
			bad("%s: name must be lower case letters, digits and _", what)
		}
		if _, dup := byName[f.Name]; dup {
			bad("%s: duplicate field name", what)
		}
		byName[f.Name] = f
		if !fieldTypes[f.Type] {
			bad("%s: type %q is not text, date, number or sex", what, f.Type)
		}
		switch {
		case f.Zone != (idv.Zone{Side: f.Zone.Side}):
			zone(what, f.Zone)
			if f.Side != "" && f.Side != f.Zone.Side {
				bad("%s: side %q differs from its zone's side %q", what, f.Side, f.Zone.Side)
			}
		case !sides[f.Side]:
			bad("%s: without a zone, side %q must be one of the document's sides", what, f.Side)
		}
		if !valuePlaces[f.Value] {
			bad("%s: value %q is not right, below or either", what, f.Value)
		}
		for _, l := range f.AllLabels() {
			if LabelKey(l) == "" {
				bad("%s: label %q has no letter or digit", what, l)
			}
		}
		if f.Fixed == "" && len(f.AllLabels()) == 0 && !f.HasZone() {
			bad("%s: needs a label or a zone to be found", what)
		}
		if f.Type == idv.FieldDate && !dateFormats[f.Format] {
			bad("%s: date format %q is not supported", what, f.Format)
		}
		if f.Type == idv.FieldSex && !sexFormats[f.Format] {
			bad("%s: sex format %q is not letter or word", what, f.Format)
		}
		if (f.Type == idv.FieldText || f.Type == idv.FieldNumber) && f.Format != "" {
			bad("%s: format applies to dates and sex only", what)
		}
		var re *regexp.Regexp
		if f.Pattern != "" {
			var err error
			if re, err = regexp.Compile(f.Pattern); err != nil {
				bad("%s: pattern: %v", what, err)
			}
		}
		if f.Fixed != "" && re != nil && !re.MatchString(f.Fixed) {
			bad("%s: fixed value %q does not match its pattern", what, f.Fixed)
		}
		if f.PSM < 0 || f.PSM > 13 {
			bad("%s: psm %d is not a tesseract page segmentation mode (0 to 13)", what, f.PSM)
		}
		if f.Lines < 0 || f.Lines > 4 {
			bad("%s: lines %d must be 0 to 4", what, f.Lines)
		}
		if f.MRZ != "" && !mrzFieldNames[f.MRZ] {
			bad("%s: mrz %q is not a parsed MRZ field", what, f.MRZ)
		}
		if f.MRZ != "" && d.MRZ == nil {
			bad("%s: backed by the MRZ but the document has none", what)
		}
	}
	labelCollisions(d, bad)
	inSchema := map[string]bool{}
	if len(d.FieldSchema) == 0 {
		bad("field_schema: at least one field is required")
	}
	for _, name := range d.FieldSchema {
		if inSchema[name] {
			bad("field_schema: %q repeats", name)
		}
		inSchema[name] = true
		if _, ok := byName[name]; !ok {
			bad("field_schema: %q has no field with a zone", name)
		}
	}
	for _, f := range d.Fields {
		if !inSchema[f.Name] {
			bad("fields: %q is not listed in field_schema", f.Name)
		}
	}
	if d.Photo != nil {
		zone("photo", *d.Photo)
	}
	if d.Portrait != nil {
		if d.Photo == nil {
			bad("portrait: the document has no photo zone")
		}
		if d.Portrait.Mode != idv.PortraitGreyscale && d.Portrait.Mode != idv.PortraitColour {
			bad("portrait: mode %q is not %s or %s", d.Portrait.Mode, idv.PortraitGreyscale, idv.PortraitColour)
		}
	}
	if d.Signature != nil {
		zone("signature", *d.Signature)
	}
	if d.MRZ != nil {
		if !mrzFormats[d.MRZ.Format] {
			bad("mrz: format %q is not TD1, TD2, TD3, MRVA or MRVB", d.MRZ.Format)
		}
		if n := len(d.MRZ.DocumentCode); n < 1 || n > 2 {
			bad("mrz: document_code %q must be one or two characters", d.MRZ.DocumentCode)
		}
		zone("mrz", d.MRZ.Zone)
	}
	if d.Barcode != nil {
		if !barcodeKinds[d.Barcode.Kind] {
			bad("barcode: kind %q is not pdf417 or qr", d.Barcode.Kind)
		}
		zone("barcode", d.Barcode.Zone)
		if len(d.Barcode.Fields) == 0 {
			bad("barcode: fields must name what it encodes")
		}
		for _, f := range d.Barcode.Fields {
			if !inSchema[f] {
				bad("barcode: field %q is not in field_schema", f)
			}
		}
	}
	for i, sf := range d.Security {
		if !featureKinds[sf.Kind] {
			bad("security[%d]: kind %q is not guilloche, seal, hologram, microtext or ghost_image", i, sf.Kind)
		}
		zone(fmt.Sprintf("security[%d] (%s)", i, sf.Kind), sf.Zone)
	}
	for side, words := range d.Keywords {
		if !sides[side] {
			bad("keywords: side %q is not one of the document's sides", side)
		}
		if len(words) == 0 {
			bad("keywords: side %q lists no words", side)
		}
	}
	for side, cols := range d.Colours {
		if !sides[side] {
			bad("colours: side %q is not one of the document's sides", side)
		}
		for _, c := range cols {
			if !colourRe.MatchString(c) {
				bad("colours: %q is not a #rrggbb colour", c)
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func anyNaN(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

func set(vs ...string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// GenericFor returns the generic definitions of defs whose MRZ is of
// format (idv.MRZTD1 ... idv.MRZMRVB), in their order: how a caller with
// a document no issuer's definition was written for picks the definition
// to read it with, from the format of the MRZ its capture shows (a visa's
// MRV-A is read as generic_visa_a, not as a passport). None when no
// generic definition has that format.
func GenericFor(defs []*idv.DocumentDefinition, format string) []*idv.DocumentDefinition {
	var out []*idv.DocumentDefinition
	for _, d := range defs {
		if d.Generic() && d.MRZ != nil && d.MRZ.Format == format {
			out = append(out, d)
		}
	}
	return out
}
