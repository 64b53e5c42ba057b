package idv

// Values that ocr_extraction leaves on the Case for document_authenticity.
// They are declared here, not in checks/ocr, because sibling checks do not
// import each other; checks/ocr sets them.

// OCRQuality is the ocr_quality object: how much of the card was read
// (Coverage, Unread), how far the print agrees with the MRZ (Agreement,
// Conflicts) and whether the MRZ's check digits made it trustworthy.
type OCRQuality struct {
	Score      float64  `json:"score"`
	Coverage   float64  `json:"coverage"`
	Agreement  float64  `json:"agreement"`
	MRZTrusted bool     `json:"mrz_trusted"`
	Conflicts  []string `json:"conflicts"`
	Unread     []string `json:"unread"`
}

// ValueOCRQuality is the ocr_quality object of the capture.
var ValueOCRQuality = NewKey[OCRQuality]("ocr.quality")

// ValueMRZText is the MRZ text read from the card (lines joined by \n), for
// checks that want the printed MRZ without reading it again.
var ValueMRZText = NewKey[string]("ocr.mrz_text")

// FieldReading is how ocr_extraction came by one field's value, so a later
// check can tell a confident reading of the print from a weak one: a
// value found without its caption, read at a low confidence, or taken from
// the MRZ says nothing about what is printed on the card.
type FieldReading struct {
	// Side is the side the value was read on ("" when it was not read
	// from the print).
	Side string `json:"side"`
	// How is how the value was found: "label" (next to its caption),
	// "order" (a generic layout's place in the caption order), "region"
	// (words in the definition's zone, no caption found), "zone" (the zone
	// read as a crop), "mrz" (not read printed: taken from a trusted MRZ),
	// "mrz_located" (read printed, from the one run of print that reads the
	// trusted MRZ's value, the field's caption having been lost), "" (not
	// read).
	How string `json:"how"`
	// Conf is tesseract's mean word confidence (0..100) of the printed
	// value; 0 when not read from the print.
	Conf float64 `json:"conf"`
	// Resolved: the print was ambiguous between letters and digits and a
	// trusted MRZ settled it.
	Resolved bool `json:"resolved,omitempty"`
	// Box is where the value was found, as fractions of the rectified
	// side (X, Y, W, H); zero when unknown.
	Box [4]float64 `json:"box"`
}

// OCRReadings is what ocr_extraction read, field by field and word by
// word.
type OCRReadings struct {
	// Fields by field name (the definition's fields that are not fixed).
	Fields map[string]FieldReading `json:"fields"`
	// Words are the boxes of every word the page reading found, by side,
	// as fractions of the rectified side (X, Y, W, H): where the card
	// carries print.
	Words map[string][][4]float64 `json:"words"`
}

// ValueOCRReadings is how each field was read (ocr_extraction sets it).
var ValueOCRReadings = NewKey[OCRReadings]("ocr.readings")
