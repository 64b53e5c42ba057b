package idv

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Decision is the overall verdict.
type Decision string

// Verdicts.
const (
	Accept Decision = "accept"
	Review Decision = "review"
	Reject Decision = "reject"
)

// StepTiming is one entry of performance_metrics.step_timings.
type StepTiming struct {
	Name       string `json:"name"`
	Status     Status `json:"status"`
	DurationMS int64  `json:"duration_ms"`
	Units      int    `json:"units"`
}

// PerformanceMetrics is the performance_metrics object.
type PerformanceMetrics struct {
	TotalDurationMS int64        `json:"total_duration_ms"`
	StepCount       int          `json:"step_count"`
	StepTimings     []StepTiming `json:"step_timings"`
}

// CheckResult is one check's evidence: the documented addition
// check_results lists one per workflow check, in order.
type CheckResult struct {
	Name       string       `json:"name"`
	Status     Status       `json:"status"`
	Confidence *float64     `json:"confidence"`
	Threshold  *float64     `json:"threshold"`
	Reasons    []string     `json:"reasons"`
	Pieces     []ScorePiece `json:"pieces"`
	Units      int          `json:"units"`
	Error      string       `json:"error,omitempty"`
}

// Result is the verification result object of the spec (the response of
// /upload). Its JSON has every documented key, in the spec's order, then the
// documented additions (units_consumed, check_results), then the request
// message's extra keys untouched.
type Result struct {
	IDVUniqueID     string
	ClientID        string
	WorkFlowID      string
	RequestID       string
	Status          string
	Decision        Decision
	DecisionReasons []string
	Flags           []string
	Config          string
	DocumentType    string
	Country         string
	FieldSchema     []string
	Combined        map[string]string
	// Sections holds photo_comparison, liveness_detection,
	// document_authenticity, sanctions_screening and mrz_parsed. A section
	// whose check did not produce one is {"status": "not_requested"},
	// {"status": "skipped"} or {"status": "error", ...}.
	Sections           map[string]any
	Images             map[string]string
	PerformanceMetrics PerformanceMetrics
	UnitsConsumed      int
	CheckResults       []CheckResult
	// Extra are the request message's keys that are not request fields,
	// carried through untouched. A key that collides with a result key is
	// dropped: the result's own value wins.
	Extra map[string]json.RawMessage
}

// resultKeys are the documented keys, in the spec's order, plus additions.
var resultKeys = []string{
	"idv_unique_id", "client_id", "work_flow_id", "request_id", "status",
	"verification_decision", "decision_reasons", "flags", "config",
	"document_type", "country", "field_schema", "combined",
	"photo_comparison", "liveness_detection", "document_authenticity",
	"sanctions_screening", "mrz_parsed", "images", "performance_metrics",
	"units_consumed", "check_results",
}

// optionalSections are result sections beyond the spec's: written after
// mrz_parsed, and only when the workflow ran their check, so results of
// workflows without them keep exactly the spec's shape.
var optionalSections = []string{"address_verification"}

// IsResultKey reports whether key is one of the result object's own keys.
func IsResultKey(key string) bool {
	for _, k := range optionalSections {
		if k == key {
			return true
		}
	}
	for _, k := range resultKeys {
		if k == key {
			return true
		}
	}
	return false
}

// MarshalJSON writes the result with keys in a stable, documented order.
func (r *Result) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	put := func(key string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return putRaw(&b, &first, key, raw)
	}
	combined, err := orderedObject(r.FieldSchema, r.Combined)
	if err != nil {
		return nil, err
	}
	values := map[string]any{
		"idv_unique_id":         r.IDVUniqueID,
		"client_id":             r.ClientID,
		"work_flow_id":          r.WorkFlowID,
		"request_id":            r.RequestID,
		"status":                r.Status,
		"verification_decision": r.Decision,
		"decision_reasons":      nonNil(r.DecisionReasons),
		"flags":                 nonNil(r.Flags),
		"config":                r.Config,
		"document_type":         r.DocumentType,
		"country":               r.Country,
		"field_schema":          nonNil(r.FieldSchema),
		"combined":              json.RawMessage(combined),
		"images":                nonNilMap(r.Images),
		"performance_metrics":   r.PerformanceMetrics,
		"units_consumed":        r.UnitsConsumed,
		"check_results":         nonNilChecks(r.CheckResults),
	}
	for _, k := range sectionKeys {
		v, ok := r.Sections[k]
		if !ok || v == nil {
			v = map[string]any{"status": StatusNotRequested}
		}
		values[k] = v
	}
	if values["performance_metrics"].(PerformanceMetrics).StepTimings == nil {
		pm := r.PerformanceMetrics
		pm.StepTimings = []StepTiming{}
		values["performance_metrics"] = pm
	}
	for _, k := range resultKeys {
		if err := put(k, values[k]); err != nil {
			return nil, err
		}
		if k != "mrz_parsed" {
			continue
		}
		for _, opt := range optionalSections {
			if v, ok := r.Sections[opt]; ok && v != nil {
				if err := put(opt, v); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, k := range sortedKeys(r.Extra) {
		if IsResultKey(k) {
			continue
		}
		if err := putRaw(&b, &first, k, r.Extra[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func putRaw(b *bytes.Buffer, first *bool, key string, raw []byte) error {
	if !*first {
		b.WriteByte(',')
	}
	*first = false
	kb, err := json.Marshal(key)
	if err != nil {
		return err
	}
	b.Write(kb)
	b.WriteByte(':')
	if len(raw) == 0 {
		raw = []byte("null")
	}
	b.Write(raw)
	return nil
}

// orderedObject writes m as a JSON object with exactly the keys of order,
// in that order, empty strings for missing values.
func orderedObject(order []string, m map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, k := range order {
		raw, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		if err := putRaw(&b, &first, k, raw); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func nonNilChecks(s []CheckResult) []CheckResult {
	if s == nil {
		return []CheckResult{}
	}
	for i := range s {
		s[i].Reasons = nonNil(s[i].Reasons)
		if s[i].Pieces == nil {
			s[i].Pieces = []ScorePiece{}
		}
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
