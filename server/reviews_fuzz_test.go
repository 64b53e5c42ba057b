package server

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzDecisionBody drives the decision body parser and its rules: it must
// never panic, and must either refuse with code 104 or accept a decision
// whose fields are all within the documented rules.
func FuzzDecisionBody(f *testing.F) {
	for _, seed := range []string{
		`{"decision":"approve","reason":"other","reviewer":"ann@example.com","note":"fine"}`,
		`{"decision":"reject","reason":"face_mismatch","reviewer":"b"}`,
		`{"decision":"approve","reason":"looks_good","reviewer":"a"}`,
		`{"decision":"approve","reason":"other","reviewer":"a\nb"}`,
		`{"decision":"approve","reason":"other","reviewer":"a","x":1}`,
		`{"decision":1}`, `[]`, `null`, `{}{}`, "\xff", `{"note":"\u0000"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/v1/verifications/x/review/decision", bytes.NewReader(body))
		var in DecisionInput
		if aerr := readJSON(r, &in); aerr != nil {
			if aerr.Code != CodeInvalidRequest {
				t.Fatalf("code %d for a bad body", aerr.Code)
			}
			return
		}
		err := in.validate()
		if err != nil {
			if reviewErr(err).Code != CodeInvalidRequest {
				t.Fatalf("validation error %v is not 104", err)
			}
			return
		}
		if (in.Decision != "approve" && in.Decision != "reject") || !contains(ReviewReasons, in.Reason) ||
			!validName(in.Reviewer) || len(in.Note) > maxNote {
			t.Fatalf("accepted a decision outside the rules: %+v", in)
		}
	})
}

// FuzzEraseResult: whatever a stored result holds, erasure either fails
// cleanly or returns an object without its personal parts.
func FuzzEraseResult(f *testing.F) {
	for _, seed := range []string{
		`{"idv_unique_id":"v","verification_decision":"accept","combined":{"surname":"WANJIKU"},"images":{"front_id":"u"},"photo_comparison":{"similarity":0.9},"metadata":{"user_id":"u-1"},"check_results":[{"name":"ocr_extraction","status":"passed","confidence":0.9,"threshold":null,"reasons":[],"pieces":[{"name":"x","value":1,"weight":1}],"units":2}]}`,
		`{}`, `[]`, `null`, `{"check_results":7}`, `{"combined":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	erase := eraseResult(time.Unix(1_800_000_000, 0))
	f.Fuzz(func(t *testing.T, stored []byte) {
		out, err := erase(stored)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("erased result is not an object: %v", err)
		}
		for k := range m {
			switch {
			case contains(keptKeys, k), contains(erasedSections, k),
				k == "combined", k == "images", k == "check_results", k == "erased_at":
			default:
				t.Fatalf("erased result keeps %q", k)
			}
		}
		if string(m["combined"]) != "{}" || string(m["images"]) != "{}" {
			t.Fatalf("combined or images kept: %s", out)
		}
	})
}
