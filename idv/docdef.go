package idv

import "slices"

// DocumentDefinition describes one kind of identity document (a `config`
// value): its physical size, sides, the fields it prints and where, and the
// regions that carry an MRZ, a barcode, the holder's photo and security
// features. Package docdefs loads and validates them from YAML.
type DocumentDefinition struct {
	Config      string `yaml:"config" json:"config"`
	DisplayName string `yaml:"display_name" json:"display_name"`
	// Country is the ICAO 9303 three-letter code of the issuer ("KEN").
	Country     string `yaml:"country" json:"country"`
	CountryName string `yaml:"country_name" json:"country_name"`
	// Kind is id_card, passport, driving_licence, voter_id or visa.
	Kind string `yaml:"kind" json:"kind"`
	// Approximate marks layouts drawn from public descriptions rather than
	// measured from a specimen; docs/docdefs.md lists them.
	Approximate bool `yaml:"approximate" json:"approximate"`
	// Layout is LayoutGeneric for a definition that stands for any
	// document of its MRZ format (generic_passport, generic_id_card): its
	// zones are the ICAO order, not where a given issuer prints, so the
	// OCR check takes the MRZ-backed fields from a trusted MRZ when the
	// print does not read as that layout. Empty for an issuer's layout.
	Layout string `yaml:"layout,omitempty" json:"layout,omitempty"`
	Notes  string `yaml:"notes,omitempty" json:"notes,omitempty"`
	// Size is the physical size of one side in millimetres.
	Size  Size     `yaml:"size" json:"size"`
	Sides []string `yaml:"sides" json:"sides"`
	// FieldSchema lists the fields in card order; every entry has a Field.
	FieldSchema []string   `yaml:"field_schema" json:"field_schema"`
	Fields      []FieldDef `yaml:"fields" json:"fields"`
	Photo       *Zone      `yaml:"photo,omitempty" json:"photo,omitempty"`
	// Portrait says how the document prints the holder's photo, where
	// that is known; nil when it is not.
	Portrait *PortraitDef `yaml:"portrait,omitempty" json:"portrait,omitempty"`
	// Signature is where the holder's signature is printed, if anywhere.
	Signature *Zone       `yaml:"signature,omitempty" json:"signature,omitempty"`
	MRZ       *MRZDef     `yaml:"mrz,omitempty" json:"mrz,omitempty"`
	Barcode   *BarcodeDef `yaml:"barcode,omitempty" json:"barcode,omitempty"`
	Security  []Feature   `yaml:"security,omitempty" json:"security,omitempty"`
	// Keywords are printed words that identify the document per side, used
	// to tell definitions apart when a workflow allows several.
	Keywords map[string][]string `yaml:"keywords,omitempty" json:"keywords,omitempty"`
	// Colours are the dominant background tints of each side (hex), used by
	// the corpus renderer and the substrate check.
	Colours map[string][]string `yaml:"colours,omitempty" json:"colours,omitempty"`
}

// Portrait modes: how a document prints the holder's photo.
const (
	// PortraitGreyscale: engraved or printed in grey only, as a laser
	// engraves polycarbonate.
	PortraitGreyscale = "greyscale"
	// PortraitColour: printed in colour.
	PortraitColour = "colour"
)

// PortraitDef is what is known of how the portrait is printed: a fact
// about the real document, with its source in the definition's comment.
type PortraitDef struct {
	// Mode is PortraitGreyscale or PortraitColour.
	Mode string `yaml:"mode" json:"mode"`
}

// Size is a physical size in millimetres.
type Size struct {
	WidthMM  float64 `yaml:"width_mm" json:"width_mm"`
	HeightMM float64 `yaml:"height_mm" json:"height_mm"`
}

// Aspect is width over height.
func (s Size) Aspect() float64 {
	if s.HeightMM == 0 {
		return 0
	}
	return s.WidthMM / s.HeightMM
}

// Zone is a rectangle on one side, in coordinates normalised to the side's
// width and height (0..1, origin top left).
type Zone struct {
	Side string  `yaml:"side" json:"side"`
	X    float64 `yaml:"x" json:"x"`
	Y    float64 `yaml:"y" json:"y"`
	W    float64 `yaml:"w" json:"w"`
	H    float64 `yaml:"h" json:"h"`
}

// Field types.
const (
	FieldText   = "text"
	FieldDate   = "date"   // printed DD.MM.YYYY
	FieldNumber = "number" // digits, possibly with a fixed prefix
	FieldSex    = "sex"    // M or F (X where the document allows it)
)

// FieldDef is one printed field.
type FieldDef struct {
	Name string `yaml:"name" json:"name"`
	// Label is the caption printed above or beside the value.
	Label string `yaml:"label,omitempty" json:"label,omitempty"`
	// Labels are more spellings of the caption (other languages, with or
	// without a colon) that the reader looks for besides Label.
	Labels []string `yaml:"labels,omitempty" json:"labels,omitempty"`
	// Value is where the value sits relative to its label: "right",
	// "below" or "either" (the default).
	Value string `yaml:"value,omitempty" json:"value,omitempty"`
	// Side is the side the field is printed on; it may be left out when
	// Zone is given (Zone.Side then says it).
	Side string `yaml:"side,omitempty" json:"side,omitempty"`
	Type string `yaml:"type" json:"type"`
	// Zone is where the value is usually printed: a prior that ranks the
	// candidates the reader finds, not a crop. Optional (zero when absent).
	Zone Zone `yaml:"zone,omitempty" json:"zone,omitempty"`
	// Charset is the OCR whitelist for the value.
	Charset string `yaml:"charset,omitempty" json:"charset,omitempty"`
	// Pattern is the regular expression a valid normalised value matches.
	Pattern string `yaml:"pattern,omitempty" json:"pattern,omitempty"`
	// PSM is the tesseract page segmentation mode for the zone (7: one line).
	PSM int `yaml:"psm,omitempty" json:"psm,omitempty"`
	// Lines is how many text lines the zone may hold (default 1).
	Lines int `yaml:"lines,omitempty" json:"lines,omitempty"`
	// MRZ names the parsed MRZ field that backs this one, for cross-checks
	// (document_code, document_number, date_of_birth, date_of_expiry, sex,
	// surname, given_names, full_name, nationality, issuing_state,
	// optional_data, personal_number).
	MRZ string `yaml:"mrz,omitempty" json:"mrz,omitempty"`
	// Fixed is a value the field always has on this document (for instance
	// document_type), printed or implied.
	Fixed string `yaml:"fixed,omitempty" json:"fixed,omitempty"`
	// Format is how the card prints the value when it differs from the
	// normalised form: for dates DD.MM.YYYY (default), DD/MM/YYYY,
	// DD-MM-YYYY, DD MMM YYYY or any (the generic definitions: any of
	// these, YYYY-MM-DD, or a two-digit year); for sex "letter" (M, F) or "word" (MALE,
	// FEMALE). Normalised values are always DD.MM.YYYY and M/F/X.
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
}

// HasZone reports whether the definition gives the field a zone.
func (f FieldDef) HasZone() bool { return f.Zone.W > 0 && f.Zone.H > 0 }

// AllLabels is Label followed by Labels, the empty ones left out.
func (f FieldDef) AllLabels() []string {
	var out []string
	if f.Label != "" {
		out = append(out, f.Label)
	}
	for _, l := range f.Labels {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Value positions of a field relative to its label.
const (
	ValueRight  = "right"
	ValueBelow  = "below"
	ValueEither = "either"
)

// MRZ formats.
const (
	MRZTD1  = "TD1"
	MRZTD2  = "TD2"
	MRZTD3  = "TD3"
	MRZMRVA = "MRVA"
	MRZMRVB = "MRVB"
)

// MRZDef says where and in which format a document prints its MRZ.
type MRZDef struct {
	Format string `yaml:"format" json:"format"`
	// DocumentCode is the first one or two characters (I, ID, P, PP, AC...).
	DocumentCode string `yaml:"document_code" json:"document_code"`
	Zone         Zone   `yaml:"zone" json:"zone"`
}

// BarcodeDef says where a document prints a barcode and what it encodes.
type BarcodeDef struct {
	// Kind is pdf417 or qr.
	Kind   string   `yaml:"kind" json:"kind"`
	Zone   Zone     `yaml:"zone" json:"zone"`
	Fields []string `yaml:"fields" json:"fields"`
}

// Feature is a printed security feature: guilloche, seal, hologram,
// microtext or ghost_image.
type Feature struct {
	Kind string `yaml:"kind" json:"kind"`
	Zone Zone   `yaml:"zone" json:"zone"`
}

// LayoutGeneric is the Layout of a definition that stands for any document
// of its MRZ format.
const LayoutGeneric = "generic"

// Generic reports whether d stands for any document of its MRZ format
// rather than one issuer's layout.
func (d *DocumentDefinition) Generic() bool { return d.Layout == LayoutGeneric }

// Field returns the definition of the named field.
// HasSide tells whether the document has the side (front, back).
func (d *DocumentDefinition) HasSide(side string) bool { return slices.Contains(d.Sides, side) }

// Field returns the field definition of that name.
func (d *DocumentDefinition) Field(name string) (FieldDef, bool) {
	for _, f := range d.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return FieldDef{}, false
}

// Definitions finds document definitions by config value.
type Definitions interface {
	Definition(config string) (*DocumentDefinition, bool)
}
