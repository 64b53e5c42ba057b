package idv

// Names of the built-in checks, as workflows and the spec name them.
const (
	CheckOCR           = "ocr_extraction"
	CheckMRZ           = "mrz_parsing"
	CheckFace          = "face_matching"
	CheckLiveness      = "liveness_detection"
	CheckDocAuth       = "document_authenticity"
	CheckSanctions     = "sanctions_screening"
	CheckAge           = "age_verification"
	CheckAddress       = "address_verification"
	CheckCustomWebhook = "custom_webhook"
)

// ThresholdRule is the default and the allowed range of a check's
// confidence threshold.
type ThresholdRule struct {
	Default float64
	Min     float64
	Max     float64
	// CheckDefault means the engine applies a threshold only when the
	// workflow sets one; otherwise the check applies Default itself from its
	// own configuration (the custom_webhook check takes the verification
	// check webhook's minimum threshold, whose default is Default).
	CheckDefault bool
}

// CheckInfo describes a built-in check independently of whether its
// implementation is compiled in, so that a workflow naming it can be
// validated and priced before any heavy dependency loads.
type CheckInfo struct {
	Name string
	Cost int
	// Required checks must be in every workflow (only OCR extraction).
	Required bool
	// Threshold is nil for checks without a confidence threshold.
	Threshold *ThresholdRule
	// LowConfidenceReason is the decision reason when the outcome's
	// confidence is below the workflow threshold.
	LowConfidenceReason string
	// ErrorReason is the decision reason when the check could not run.
	ErrorReason string
	// Section is the key of the result object the check fills, if any.
	Section string
}

// Catalog lists the built-in checks in the order of the spec's table, with
// their unit costs and threshold rules.
var Catalog = []CheckInfo{
	{Name: CheckOCR, Cost: 2, Required: true, ErrorReason: "ocr_unavailable"},
	{Name: CheckMRZ, Cost: 1, ErrorReason: "mrz_unavailable", Section: "mrz_parsed"},
	{Name: CheckFace, Cost: 3, Threshold: &ThresholdRule{Default: 0.75, Min: 0.60, Max: 0.95},
		LowConfidenceReason: "face_low_confidence", ErrorReason: "face_unavailable", Section: "photo_comparison"},
	{Name: CheckLiveness, Cost: 2, Threshold: &ThresholdRule{Default: 0.80, Min: 0.50, Max: 0.95},
		LowConfidenceReason: "liveness_low_confidence", ErrorReason: "liveness_unavailable", Section: "liveness_detection"},
	{Name: CheckDocAuth, Cost: 4, Threshold: &ThresholdRule{Default: 0.75, Min: 0.60, Max: 0.95},
		LowConfidenceReason: "doc_confidence_below_review_band", ErrorReason: "doc_auth_unavailable", Section: "document_authenticity"},
	{Name: CheckSanctions, Cost: 1, ErrorReason: "sanctions_unavailable", Section: "sanctions_screening"},
	{Name: CheckAge, Cost: 1, ErrorReason: "age_unavailable"},
	{Name: CheckAddress, Cost: 5, ErrorReason: "address_unavailable", Section: "address_verification"},
	{Name: CheckCustomWebhook, Cost: 3, Threshold: &ThresholdRule{Default: 0.85, Min: 0.0, Max: 1.0, CheckDefault: true},
		LowConfidenceReason: "custom_check_low_score", ErrorReason: "custom_check_unavailable"},
}

// Info returns the catalog entry of a built-in check.
func Info(name string) (CheckInfo, bool) {
	for _, ci := range Catalog {
		if ci.Name == name {
			return ci, true
		}
	}
	return CheckInfo{}, false
}

// CostOf is the catalog's unit cost of a built-in check (0 for a name
// outside the catalog): the one place a built-in check's price is written.
func CostOf(name string) int {
	ci, _ := Info(name)
	return ci.Cost
}

// infoFor returns the catalog entry of name, or a generic entry for checks
// outside the catalog (plugins, custom checks), whose thresholds may be set
// anywhere in [0, 1] and have no default.
func infoFor(name string, cost int) CheckInfo {
	if ci, ok := Info(name); ok {
		return ci
	}
	return CheckInfo{
		Name:                name,
		Cost:                cost,
		LowConfidenceReason: name + "_low_confidence",
		ErrorReason:         name + "_unavailable",
	}
}

// sectionKeys are the per-check result objects, in the spec's order.
var sectionKeys = []string{"photo_comparison", "liveness_detection", "document_authenticity", "sanctions_screening", "mrz_parsed"}

func sectionCheck(key string) string {
	for _, ci := range Catalog {
		if ci.Section == key {
			return ci.Name
		}
	}
	return ""
}
