package idv

import (
	"encoding/json"
	"fmt"
	"image"
	"sync"
	"time"
)

// Image is one capture as the caller sent it: the raw bytes of a file part.
// Decoding (with EXIF orientation) is the vision package's job, so the
// domain never depends on an image codec.
type Image struct {
	Data []byte
	// ContentType as declared by the caller, if known.
	ContentType string
}

// Slots that have a meaning to the built-in checks.
const (
	SlotFront  = "front"
	SlotBack   = "back"
	SlotSelfie = "selfie"
)

// OriginalImageName is the spec's images key of an original capture:
// front_id and back_id for the document's sides, the slot name for any
// other slot.
func OriginalImageName(slot string) string {
	switch slot {
	case SlotFront:
		return "front_id"
	case SlotBack:
		return "back_id"
	}
	return slot
}

// Names of the derived images a verification may produce (the spec's
// images keys).
const (
	ImageFrontRectified = "front_rectified"
	ImageBackRectified  = "back_rectified"
	ImageIDPhoto        = "id_photo"
	ImageIDFace         = "id_face"
	ImageSelfieFace     = "selfie_face"
)

// MRZData is a parsed machine readable zone, as the mrz_parsing check leaves
// it on the Case for cross-checks and age verification. Dates are ISO 8601.
type MRZData struct {
	Format         string          `json:"format"`
	DocumentCode   string          `json:"document_code"`
	IssuingState   string          `json:"issuing_state"`
	DocumentNumber string          `json:"document_number"`
	DateOfBirth    string          `json:"date_of_birth"`
	DateOfExpiry   string          `json:"date_of_expiry"`
	Sex            string          `json:"sex"`
	Nationality    string          `json:"nationality"`
	Surname        string          `json:"surname"`
	GivenNames     string          `json:"given_names"`
	OptionalData   string          `json:"optional_data"`
	OptionalData2  string          `json:"optional_data_2,omitempty"`
	Checks         map[string]bool `json:"checks"`
	AllChecksPass  bool            `json:"all_checks_pass"`
	Lines          []string        `json:"lines,omitempty"`
}

// Step is the configuration of the check currently running.
type Step struct {
	Name string
	// Threshold is the confidence threshold in force (the workflow's value
	// or the catalog default); HasThreshold is false for checks without one.
	Threshold    float64
	HasThreshold bool
	Params       map[string]any
}

// ThresholdAndBand reads a confidence check's operating point: the step's
// threshold (def when the check has none), which must lie in (0, 1), and
// its review_band param (defBand when absent), a number in [0, threshold)
// giving the width of the band below the threshold that goes to review.
func (st Step) ThresholdAndBand(def, defBand float64) (threshold, band float64, err error) {
	threshold, band = def, defBand
	if st.HasThreshold {
		if st.Threshold <= 0 || st.Threshold >= 1 {
			return def, defBand, fmt.Errorf("threshold %v is outside (0, 1)", st.Threshold)
		}
		threshold = st.Threshold
	}
	if v, ok := st.Params["review_band"]; ok {
		switch n := v.(type) {
		case float64:
			band = n
		case int:
			band = float64(n)
		default:
			return def, defBand, fmt.Errorf("review_band %v is not a number", v)
		}
		if band < 0 || band >= threshold {
			return def, defBand, fmt.Errorf("review_band %v must be a number in [0, threshold)", v)
		}
	}
	return threshold, band, nil
}

// Case is the single value a verification carries through its checks:
// captures by slot, derived images, the fields read so far, the parsed MRZ
// and the result sections under construction. Later checks read what
// earlier ones wrote. Checks of one verification run one after another, but
// Case methods are safe for concurrent use so a check may fan out.
type Case struct {
	// Config is the document type the caller declared.
	Config string
	// Definitions are all definitions the workflow allows; Definition is the
	// one in use (the declared config until OCR detects another).
	Definition *DocumentDefinition
	Allowed    []*DocumentDefinition
	Country    string
	RequestID  string
	ClientID   string
	WorkflowID string
	Images     map[string]Image
	// Message holds the caller's request message, key by key.
	Message map[string]json.RawMessage
	// Metadata are the workflow's custom metadata values from the message.
	Metadata map[string]any
	// Step is the check now running.
	Step Step
	// Now is the reference time of the verification (age, expiry).
	Now time.Time

	mu           sync.Mutex
	derived      map[string]image.Image
	fields       map[string]string
	fieldSchema  []string
	documentType string
	mrz          *MRZData
	sections     map[string]any
	values       map[string]any
	flags        []string
}

// NewCase returns an empty case for the given captures.
func NewCase(images map[string]Image) *Case {
	if images == nil {
		images = map[string]Image{}
	}
	return &Case{
		Images:   images,
		Message:  map[string]json.RawMessage{},
		Now:      time.Now(),
		derived:  map[string]image.Image{},
		fields:   map[string]string{},
		sections: map[string]any{},
		values:   map[string]any{},
	}
}

// SetDerived stores a derived image (front_rectified, id_face...).
func (c *Case) SetDerived(name string, img image.Image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.derived[name] = img
}

// Derived returns a derived image.
func (c *Case) Derived(name string) (image.Image, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	img, ok := c.derived[name]
	return img, ok
}

// DerivedNames returns the names of the derived images, in insertion-free
// sorted order.
func (c *Case) DerivedNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return sortedKeys(c.derived)
}

// SetFields records the fields read from the document: the schema in card
// order and the values, which must cover exactly the schema's keys.
func (c *Case) SetFields(schema []string, values map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fieldSchema = append([]string(nil), schema...)
	c.fields = make(map[string]string, len(schema))
	for _, k := range schema {
		c.fields[k] = values[k]
	}
}

// Field returns a field value read so far ("" when unread or absent).
func (c *Case) Field(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fields[name]
}

// Fields returns the field schema and a copy of the values.
func (c *Case) Fields() ([]string, map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	vals := make(map[string]string, len(c.fields))
	for k, v := range c.fields {
		vals[k] = v
	}
	return append([]string(nil), c.fieldSchema...), vals
}

// SetDocumentType records the detected document type.
func (c *Case) SetDocumentType(t string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.documentType = t
}

// DocumentType returns the detected document type ("" when undetected).
func (c *Case) DocumentType() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.documentType
}

// SetMRZ records the parsed MRZ.
func (c *Case) SetMRZ(m *MRZData) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mrz = m
}

// MRZ returns the parsed MRZ, or nil.
func (c *Case) MRZ() *MRZData {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mrz
}

// SetSection sets a result section (photo_comparison, mrz_parsed...) to a
// JSON-marshallable value.
func (c *Case) SetSection(key string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sections[key] = v
}

// Section returns a result section set by an earlier check.
func (c *Case) Section(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.sections[key]
	return v, ok
}

// Key names a value of type T that one check leaves on the Case for later
// ones. The package that writes a value declares its key once; readers use
// that declaration, so the name and the type are written in one place.
type Key[T any] struct{ name string }

// NewKey declares a key; name is unique across checks ("ocr.quality").
func NewKey[T any](name string) Key[T] { return Key[T]{name: name} }

// Name is the key's name.
func (k Key[T]) Name() string { return k.name }

// Set stores v on the case.
func (k Key[T]) Set(c *Case, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.values[k.name] = v
}

// Get returns the value an earlier check stored, and whether there is one.
func (k Key[T]) Get(c *Case) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.values[k.name].(T)
	return v, ok
}

// SelfieFaceRect is where face_matching leaves the selfie's dominant face
// rectangle, in the coordinates of the selfie as facerec decodes it, so
// liveness_detection does not detect it twice. It is declared here, not in
// checks/face, because sibling checks do not import each other.
var SelfieFaceRect = NewKey[image.Rectangle]("face.selfie_rect")

// AddFlag records an informational flag on the result.
func (c *Case) AddFlag(flag string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.flags {
		if f == flag {
			return
		}
	}
	c.flags = append(c.flags, flag)
}
