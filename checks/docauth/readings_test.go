package docauth

import (
	"reflect"
	"testing"
	"time"

	"github.com/tambua/tambua/idv"
)

func TestWeakReading(t *testing.T) {
	r := &idv.OCRReadings{Fields: map[string]idv.FieldReading{
		"surname":        {Side: "front", How: "label", Conf: 96},
		"given_names":    {Side: "front", How: "order", Conf: 90},
		"date_of_birth":  {Side: "front", How: "region", Conf: 99},
		"date_of_issue":  {Side: "front", How: "zone", Conf: 99},
		"date_of_expiry": {How: "mrz"},
		"place_of_birth": {},
		"sex":            {Side: "front", How: "label", Conf: 74},
		"nationality":    {Side: "front", How: "label", Conf: 75},
	}}
	for _, tc := range []struct {
		field string
		weak  bool
	}{
		{"surname", false},
		{"given_names", false}, // a generic layout's caption order
		{"date_of_birth", true},
		{"date_of_issue", true},
		{"date_of_expiry", true},
		{"place_of_birth", true},
		{"sex", true},          // under the reader's own line
		{"nationality", false}, // at it
		{"document_number", false},
	} {
		t.Run(tc.field, func(t *testing.T) {
			if got := weakReading(r, tc.field) != ""; got != tc.weak {
				t.Errorf("weakReading = %q, want weak=%v", weakReading(r, tc.field), tc.weak)
			}
		})
	}
	if why := weakReading(nil, "surname"); why != "" {
		t.Errorf("without the reader's account every value counts as read: got %q", why)
	}
}

func TestFirmFields(t *testing.T) {
	r := &idv.OCRReadings{Fields: map[string]idv.FieldReading{
		"date_of_birth": {How: "label", Conf: 97}, "date_of_issue": {How: "region", Conf: 97}, "date_of_expiry": {How: "mrz"},
		"given_names": {How: "mrz_located", Conf: 75}}}
	fields := map[string]string{"date_of_birth": "01.02.1990", "date_of_issue": "03.04.2020", "date_of_expiry": "", "surname": "X",
		"given_names": "MANDLA MLUNGISI"}
	firm, weak := firmFields(r, fields, []string{"date_of_birth", "date_of_issue", "date_of_expiry", "given_names"})
	if want := map[string]string{"date_of_birth": "01.02.1990"}; !reflect.DeepEqual(firm, want) {
		t.Errorf("firm = %v, want %v", firm, want)
	}
	if len(weak) != 1 { // the date of issue; the expiry and the given names are the MRZ's
		t.Errorf("weak = %v, want the date of issue", weak)
	}
	if all, _ := firmFields(r, fields, nil); len(all) != 2 {
		t.Errorf("all fields: firm = %v, want date_of_birth and surname", all)
	}
}

// A printed value that disagrees with the verified MRZ is a conflict only
// when it was read firmly; a weak reading is left unexamined, and a
// conflict on a field no check digit covers either way is too.
func TestCrossCheckWeakReadings(t *testing.T) {
	def := &idv.DocumentDefinition{Fields: []idv.FieldDef{
		{Name: "date_of_birth", MRZ: "date_of_birth"}, {Name: "sex", MRZ: "sex"},
		{Name: "surname", MRZ: "surname"}, {Name: "document_type", MRZ: "document_code"}}}
	m := &idv.MRZData{DocumentCode: "P", Surname: "MULLER", DateOfBirth: "1981-02-08", Sex: "M", AllChecksPass: true}
	firm := idv.FieldReading{Side: "front", How: "label", Conf: 96}
	for _, tc := range []struct {
		name       string
		field, val string
		reading    idv.FieldReading
		conflicts  []string // ocr_extraction's
		finding    bool
		unexamined bool
	}{
		{"a firm date edit", "date_of_birth", "08.02.1991", firm, nil, true, false},
		{"a date found without its caption", "date_of_birth", "26.12.2019", idv.FieldReading{Side: "front", How: "region", Conf: 96}, nil, false, true},
		{"a date tesseract doubted", "date_of_birth", "08.02.1991", idv.FieldReading{Side: "front", How: "label", Conf: 60}, nil, false, true},
		{"sex found without its caption", "sex", "F", idv.FieldReading{Side: "front", How: "region", Conf: 91}, nil, false, true},
		{"a firm sex edit", "sex", "F", firm, nil, true, false},
		{"another surname, firmly read", "surname", "OTIENO", firm, []string{"surname"}, true, false},
		{"another surname, weakly read", "surname", "OTIENO", idv.FieldReading{How: "zone", Conf: 90}, []string{"surname"}, false, true},
		{"the document code", "document_type", "PP", firm, []string{"document_type"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields := map[string]string{"date_of_birth": "08.02.1981", "sex": "M", "surname": "MULLER", "document_type": "P"}
			fields[tc.field] = tc.val
			rd := &idv.OCRReadings{Fields: map[string]idv.FieldReading{
				"date_of_birth": firm, "sex": firm, "surname": firm, "document_type": firm, tc.field: tc.reading}}
			lr := crossCheck(inputs{def: def, mrz: m, fields: fields, readings: rd, now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
				quality: &idv.OCRQuality{Conflicts: tc.conflicts}})
			if got := len(lr.findings) > 0; got != tc.finding {
				t.Errorf("findings %+v, want finding=%v", lr.findings, tc.finding)
			}
			if got := len(lr.unexamined) > 0; got != tc.unexamined {
				t.Errorf("unexamined %v, want %v", lr.unexamined, tc.unexamined)
			}
		})
	}
}

// Weakly read printed dates can confirm a document valid but never count
// against it.
func TestValidityOfWeakDates(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	firm := idv.FieldReading{How: "label", Conf: 96}
	weak := idv.FieldReading{How: "region", Conf: 96}
	for _, tc := range []struct {
		name       string
		fields     map[string]string
		readings   map[string]idv.FieldReading
		finding    bool
		skipped    bool
		unexamined bool
	}{
		{"firm and valid", map[string]string{"date_of_expiry": "01.01.2030"}, map[string]idv.FieldReading{"date_of_expiry": firm}, false, false, false},
		{"weak and valid still examined", map[string]string{"date_of_expiry": "01.01.2030"}, map[string]idv.FieldReading{"date_of_expiry": weak}, false, false, false},
		{"firm and expired", map[string]string{"date_of_expiry": "01.01.2020"}, map[string]idv.FieldReading{"date_of_expiry": firm}, true, false, false},
		{"weak and expired: not examined", map[string]string{"date_of_expiry": "01.01.2020"}, map[string]idv.FieldReading{"date_of_expiry": weak}, false, true, true},
		{"a weak issue date after a firm expiry", map[string]string{"date_of_expiry": "01.01.2030", "date_of_issue": "01.01.2031"},
			map[string]idv.FieldReading{"date_of_expiry": firm, "date_of_issue": weak}, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := validityOf(inputs{fields: tc.fields, readings: &idv.OCRReadings{Fields: tc.readings}, now: now})
			if got := len(lr.findings) > 0; got != tc.finding {
				t.Errorf("findings %+v, want %v", lr.findings, tc.finding)
			}
			if got := lr.skipped != ""; got != tc.skipped {
				t.Errorf("skipped %q, want %v", lr.skipped, tc.skipped)
			}
			if got := len(lr.unexamined) > 0; got != tc.unexamined {
				t.Errorf("unexamined %v, want %v", lr.unexamined, tc.unexamined)
			}
		})
	}
}

// An MRZ the definition prints but the reader could not find is unknown,
// not forged: review, never PASS, not FAIL alone.
func TestMRZUnreadableReviews(t *testing.T) {
	def := &idv.DocumentDefinition{MRZ: &idv.MRZDef{Zone: idv.Zone{Side: "back"}}}
	lr := mrzLayer(inputs{def: def})
	if lr.score != 0.5 || len(lr.findings) != 1 || lr.findings[0].code != CodeMRZUnreadable || lr.findings[0].fail {
		t.Fatalf("got %+v", lr)
	}
	sub := layerResult{name: layerSubstrate, score: 1, medium: MediumOriginal}
	sec, _ := judge([]layerResult{sub, lr, {name: layerDocType, score: 1}, {name: layerValidity, skipped: "x"}}, 0.75, 0.15)
	if sec.Decision != DecisionReview {
		t.Errorf("decision %s, want REVIEW", sec.Decision)
	}
}
