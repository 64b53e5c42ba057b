package docauth

import (
	"slices"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
)

func TestValidity(t *testing.T) {
	now := time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)
	ok := map[string]bool{"date_of_birth": true, "date_of_expiry": true}
	bad := map[string]bool{"date_of_birth": true, "date_of_expiry": false}
	mrzOf := func(dob, exp string, checks map[string]bool) *idv.MRZData {
		return &idv.MRZData{DateOfBirth: dob, DateOfExpiry: exp, Checks: checks}
	}
	for _, tc := range []struct {
		name   string
		m      *idv.MRZData
		fields map[string]string
		code   string // "" for none
		fail   bool
	}{
		{"valid", mrzOf("1990-01-02", "2030-01-01", ok), map[string]string{"date_of_issue": "01.01.2020"}, "", false},
		{"expires today is still valid", mrzOf("1990-01-02", "2026-06-01", ok), nil, "", false},
		{"expired, MRZ checked", mrzOf("1990-01-02", "2026-05-31", ok), nil, ReasonExpired, true},
		{"a misread expiry (digit fails) is not used", mrzOf("1990-01-02", "2011-08-21", bad), nil, "", false},
		{"expired print with a misread MRZ expiry", mrzOf("1990-01-02", "2031-08-21", bad), map[string]string{"date_of_expiry": "21.08.2011"}, ReasonExpired, false},
		{"expired from the print only", nil, map[string]string{"date_of_expiry": "01.01.2020"}, ReasonExpired, false},
		{"printed expiry yields to a checked MRZ", mrzOf("1990-01-02", "2030-01-01", ok),
			map[string]string{"date_of_expiry": "01.01.2020"}, "", false},
		{"issued after expiry", nil, map[string]string{"date_of_issue": "02.01.2025", "date_of_expiry": "01.01.2025"}, ReasonDatesInvalid, false},
		{"issued before birth", nil, map[string]string{"date_of_birth": "01.01.2000", "date_of_issue": "01.01.1999"}, ReasonDatesInvalid, false},
		{"issued in the future", nil, map[string]string{"date_of_issue": "01.01.2027"}, ReasonDatesInvalid, false},
		{"older than 120 at issue", nil, map[string]string{"date_of_birth": "01.01.1890", "date_of_issue": "01.01.2020"}, ReasonDatesInvalid, false},
		{"unreal MRZ date", mrzOf("", "2030-01-01", ok), nil, ReasonDatesInvalid, false},
		// A printed date that is no date is a misread: left unexamined.
		{"unreal printed date", nil, map[string]string{"date_of_birth": "31.02.1990"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := validity(collectDates(tc.m, tc.fields), now)
			var codes []string
			fail := false
			for _, f := range lr.findings {
				codes = append(codes, f.code)
				fail = fail || f.fail
			}
			if tc.code == "" {
				if len(codes) > 0 {
					t.Fatalf("findings %v, want none", lr.findings)
				}
				return
			}
			if !slices.Contains(codes, tc.code) || fail != tc.fail {
				t.Errorf("findings %+v, want %s fail=%v", lr.findings, tc.code, tc.fail)
			}
		})
	}
}

// An expiry further off than the document's kind is ever valid for: the
// expiry was moved on (a forger extending the card, MRZ and all), or the
// card was issued in the future. Review, never failure.
func TestValidityPeriod(t *testing.T) {
	now := time.Date(2026, 6, 1, 15, 0, 0, 0, time.UTC)
	ok := map[string]bool{"date_of_birth": true, "date_of_expiry": true}
	for _, tc := range []struct {
		name, kind string
		mrzExpiry  string
		fields     map[string]string
		flagged    bool
	}{
		{"passport issued today for ten years", "passport", "2036-05-31", nil, false},
		{"passport with nine months carried over", "passport", "2037-02-28", nil, false},
		{"passport extended, MRZ rewritten", "passport", "2039-05-31", nil, true},
		{"identity card for fifteen years", "id_card", "2041-05-31", nil, false},
		{"identity card extended beyond fifteen", "id_card", "2043-01-01", nil, true},
		{"printed issue and expiry twelve years apart on a passport", "passport", "2032-01-01",
			map[string]string{"date_of_issue": "01.01.2020"}, true},
		{"printed issue and expiry ten years apart", "passport", "2029-12-31",
			map[string]string{"date_of_issue": "01.01.2020"}, false},
		{"card twenty years apart, expiry near", "id_card", "2030-01-01",
			map[string]string{"date_of_issue": "01.01.2010"}, true},
		{"no kind: not judged", "", "2060-01-01", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := collectDates(&idv.MRZData{DateOfBirth: "1990-01-02", DateOfExpiry: tc.mrzExpiry, Checks: ok}, tc.fields)
			ds.kind = tc.kind
			lr := validity(ds, now)
			if got := len(lr.findings) > 0; got != tc.flagged {
				t.Fatalf("findings %+v, want flagged=%v", lr.findings, tc.flagged)
			}
			for _, f := range lr.findings {
				if f.code != ReasonDatesInvalid || f.fail {
					t.Errorf("finding %+v, want %s for review", f, ReasonDatesInvalid)
				}
			}
		})
	}
}

func TestValidityMisreadDateUnexamined(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	lr := validity(collectDates(nil, map[string]string{"date_of_birth": "31.02.1990", "date_of_expiry": "01.01.2030"}), now)
	if len(lr.findings) != 0 || lr.skipped != "" || len(lr.unexamined) != 1 || lr.score != 1 {
		t.Fatalf("got %+v, want the expiry examined, the birth date left unexamined, no finding", lr)
	}
}

func TestJudge(t *testing.T) {
	good := func(name string) layerResult { return layerResult{name: name, score: 1} }
	sub := layerResult{name: layerSubstrate, score: 1, medium: MediumOriginal, paper: 1}
	for _, tc := range []struct {
		name     string
		layers   []layerResult
		decision string
		reasons  []string
	}{
		{"all good", []layerResult{sub, good(layerMRZ), good(layerCrossCheck), good(layerValidity)}, DecisionPass, nil},
		{"no substrate evidence cannot pass", []layerResult{{name: layerSubstrate, skipped: "x"}, good(layerMRZ), good(layerValidity)},
			DecisionReview, []string{ReasonBelowBand}},
		{"expired fails with doc_expired", []layerResult{sub, good(layerMRZ),
			{name: layerValidity, findings: []finding{{code: ReasonExpired, fail: true}}}}, DecisionFail, []string{ReasonExpired}},
		{"photocopy fails as not authentic", []layerResult{{name: layerSubstrate, score: 0.01, findings: []finding{{code: CodePhotocopy, fail: true}}},
			good(layerMRZ), good(layerValidity)}, DecisionFail, []string{ReasonNotAuthentic}},
		{"failing check digits never pass", []layerResult{sub, {name: layerMRZ, score: 0, findings: []finding{{code: CodeMRZChecksFailed}}},
			good(layerValidity), good(layerDocType)}, DecisionReview, []string{ReasonBelowBand}},
		{"low evidence fails", []layerResult{{name: layerSubstrate, score: 0.2}, {name: layerMRZ, score: 0}, {name: layerCrossCheck, score: 0}},
			DecisionFail, []string{ReasonNotAuthentic}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sec, out := judge(tc.layers, 0.75, DefaultReviewBand)
			if sec.Decision != tc.decision || !slices.Equal(out.Reasons, tc.reasons) {
				t.Fatalf("%s %v, want %s %v", sec.Decision, out.Reasons, tc.decision, tc.reasons)
			}
			// The engine's threshold rule must agree with the section.
			if (out.Status == idv.StatusPassed) != (out.Confidence >= 0.75) {
				t.Errorf("status %s with confidence %v", out.Status, out.Confidence)
			}
			if sec.ChecksApplied == nil || sec.ChecksSkipped == nil || sec.ReasonCodes == nil || sec.Notes == nil {
				t.Error("a list of the section is null")
			}
		})
	}
}

func TestCrossCheck(t *testing.T) {
	def := &idv.DocumentDefinition{Fields: []idv.FieldDef{
		{Name: "passport_number", MRZ: "document_number"}, {Name: "date_of_birth", MRZ: "date_of_birth"}}}
	m := &idv.MRZData{DocumentNumber: "8QU4SN12", DateOfBirth: "1975-03-28", AllChecksPass: true}
	for _, tc := range []struct {
		name     string
		fields   map[string]string
		conflict bool
	}{
		{"agree", map[string]string{"passport_number": "8QU4SN12", "date_of_birth": "28.03.1975"}, false},
		{"one character of a long number is OCR's", map[string]string{"passport_number": "8QU45SN12", "date_of_birth": "28.03.1975"}, false},
		{"two of eight characters are OCR's", map[string]string{"passport_number": "8QU45SN13", "date_of_birth": "28.03.1975"}, false},
		{"three of eight characters are not", map[string]string{"passport_number": "8XU45SN13", "date_of_birth": "28.03.1975"}, true},
		{"a date must agree exactly", map[string]string{"passport_number": "8QU4SN12", "date_of_birth": "28.03.1976"}, true},
		// The reader took another of the card's dates, or one no birth
		// date can be: its mix-up, not an edit.
		{"the date of issue read for the birth date", map[string]string{"passport_number": "8QU4SN12", "date_of_birth": "14.03.2019", "date_of_issue": "14.03.2019"}, false},
		{"a birth date in the future", map[string]string{"passport_number": "8QU4SN12", "date_of_birth": "14.03.2032"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := crossCheck(inputs{def: def, mrz: m, fields: tc.fields, now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
				quality: &idv.OCRQuality{Conflicts: []string{"passport_number"}}})
			if got := len(lr.findings) > 0; got != tc.conflict {
				t.Errorf("findings %+v, want conflict=%v", lr.findings, tc.conflict)
			}
		})
	}
}

// A short document number read with glyphs OCR confuses and a stray
// glyph is a misread (as read on genuine generic cards of seeds 58 and
// 59); a character changed to one OCR does not confuse is an edit.
func TestCrossCheckShortNumber(t *testing.T) {
	def := &idv.DocumentDefinition{Fields: []idv.FieldDef{{Name: "document_number", MRZ: "document_number"}}}
	for _, tc := range []struct {
		mrz, printed string
		conflict     bool
	}{
		{"E9N0D", "EO9NOD", false},
		{"W0D5", "WOODS", false},
		{"MTKG2", "MTK62", false},
		{"E9N0D", "E9N7D", true},
		{"W0D5", "W0D59", false},
		{"W0D5", "W3D5", true},
		{"MTKG2", "MTKG27X", true},
		{"NJXW", "NIXW", false},
		{"NJXW", "NTXW", true},
		{"O43F", "UTOO43F", false},
		{"O43F", "O43FUTO", false},
		{"O43F", "UTOO44F", true},
		{"O43F", "KENO43F", true},
	} {
		t.Run(tc.mrz+" "+tc.printed, func(t *testing.T) {
			m := &idv.MRZData{DocumentNumber: tc.mrz, IssuingState: "UTO", Nationality: "UTO", AllChecksPass: true}
			lr := crossCheck(inputs{def: def, mrz: m, fields: map[string]string{"document_number": tc.printed}, now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
				quality: &idv.OCRQuality{Conflicts: []string{"document_number"}}})
			if got := len(lr.findings) > 0; got != tc.conflict {
				t.Errorf("findings %+v, want conflict=%v", lr.findings, tc.conflict)
			}
		})
	}
}

// Name conflicts ocr_extraction reports are judged again: misreads of
// genuine print (the first four, seen on the held-out layouts) review
// nothing; another name does.
func TestCrossCheckNames(t *testing.T) {
	def := &idv.DocumentDefinition{Fields: []idv.FieldDef{
		{Name: "surname", MRZ: "surname", Label: "SURNAME"},
		{Name: "given_names", MRZ: "given_names", Label: "GIVEN NAMES"},
		{Name: "date_of_birth", MRZ: "date_of_birth", Label: "DATE OF BIRTH"}}}
	m := &idv.MRZData{Surname: "MBUGUA", GivenNames: "STEPHEN<KIPRONO", DateOfBirth: "1975-03-28", IssuingState: "KEN", Nationality: "KEN", AllChecksPass: true}
	for _, tc := range []struct {
		name, field, printed string
		conflict             bool
	}{
		{"a stray letter", "given_names", "S STEPHEN KIPRONO", false},
		{"part of the caption", "surname", "SURNA", false},
		{"a lost space", "surname", "STEPHENKIPRONO", false},
		{"a fragment", "given_names", "M", false},
		{"one letter off", "surname", "MBUGUO", false},
		{"another surname", "surname", "OTIENO", true},
		{"another given name", "given_names", "STEPHEN JOSEPH", true},
		{"one real word among two", "surname", "MBUGUA ACHIENG", true},
		{"a vowel-less fragment", "surname", "A SSS", false},
		{"a name the MRZ truncated", "given_names", "STEPHEN KIPRONOMWANGI", false},
		{"two of six letters misread", "given_names", "STEPHEN KIPRUNU", false},
		{"another name of the same length", "surname", "KAMAUS", true},
		{"the next column's state code run in", "given_names", "STEPHEN KIPRONO KEN", false},
		{"another name beside the state code", "given_names", "STEPHEN JOSEPH KEN", true},
		{"the state code alone", "surname", "KEN", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := crossCheck(inputs{def: def, mrz: m,
				fields:  map[string]string{tc.field: tc.printed, "date_of_birth": "28.03.1975"},
				quality: &idv.OCRQuality{Conflicts: []string{tc.field}}})
			if got := len(lr.findings) > 0; got != tc.conflict {
				t.Errorf("%q: findings %+v, want conflict=%v", tc.printed, lr.findings, tc.conflict)
			}
		})
	}
}

// The document code carries no check digit: a letter OCR confuses with the
// definition's is left unexamined; a valid code of another document type
// is a mismatch. JD, FD (for ID) and F< (for P<) were read so on genuine
// captures.
func TestMRZDocumentCodeMisread(t *testing.T) {
	for _, tc := range []struct {
		want, code string
		finding    bool
		examined   bool
	}{
		{"ID", "ID", false, true},
		{"ID", "LD", false, false},
		{"ID", "JD", false, false},
		{"ID", "FD", false, false},
		{"ID", "P<", true, true},
		{"ID", "XX", true, true},
		{"P", "F<", false, false},
		{"P", "J<", true, true},
	} {
		t.Run(tc.want+" "+tc.code, func(t *testing.T) {
			def := &idv.DocumentDefinition{Country: "KEN", MRZ: &idv.MRZDef{DocumentCode: tc.want}}
			m := &idv.MRZData{DocumentCode: tc.code, IssuingState: "KEN", Nationality: "KEN", Sex: "M", AllChecksPass: true}
			in := inputs{def: def, mrz: m}
			ml, dl := mrzLayer(in), docType(&idv.Case{}, in)
			got := len(ml.findings)+len(dl.findings) > 0
			unexamined := len(ml.unexamined)+len(dl.unexamined) > 0
			if got != tc.finding || unexamined == tc.examined {
				t.Errorf("mrz %+v doc_type %+v: finding %v unexamined %v", ml, dl, got, unexamined)
			}
		})
	}
}
