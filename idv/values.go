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
