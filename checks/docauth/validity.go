package docauth

import (
	"fmt"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// Reason codes of document validity: reported in reason_codes and, since
// they fail the check, in the verification's decision_reasons.
const (
	ReasonExpired      = "doc_expired"
	ReasonDatesInvalid = "doc_dates_invalid"
)

// maxAgeAtIssue is the oldest plausible age of a holder on the day of
// issue: no one alive is older, so a larger gap is a misread or forged year.
const maxAgeAtIssue = 120

// dated is a date with where it came from and whether a check digit
// vouches for it.
type dated struct {
	t       time.Time
	source  string // "mrz" or "printed"
	checked bool
}

// dates collects the document's dates: the MRZ's (vouched for by their own
// check digits) first, the printed ones where the MRZ has none.
type dates struct {
	birth, issue, expiry *dated
	// unreal names dates that are present but not calendar dates.
	unreal []string
	// kind is the document's kind (the definition's: passport, id_card,
	// ...), for the longest validity an issuer gives it; "" leaves the
	// validity period unjudged.
	kind string
}

// maxValidityYears is the longest an issuer makes a document of a kind
// valid for. Passports: ten years everywhere we know of (ICAO 9303 leaves
// it to the states; none issues longer). Other documents: fifteen, the
// longest we know of (French identity cards issued to adults between 2004
// and 2021); the issuers our definitions name give their cards ten or
// fewer. Not fitted to any corpus: our renderer makes cards valid ten
// years and licences five.
func maxValidityYears(kind string) int {
	switch kind {
	case "":
		return 0
	case "passport":
		return 10
	}
	return 15
}

// validitySlack is what an expiry may run beyond the longest validity:
// passports renewed early carried up to nine months of the old one's over
// (the United Kingdom until 2018), and a few days' rounding.
const validitySlack = 1

func collectDates(m *idv.MRZData, fields map[string]string) dates {
	var ds dates
	if m != nil {
		// An MRZ date counts only when its own check digit passes: a
		// failing digit means the date, or its digit, was misread.
		if m.Checks["date_of_birth"] {
			if t, ok := isoDay(m.DateOfBirth); ok {
				ds.birth = &dated{t, "mrz", true}
			} else {
				ds.unreal = append(ds.unreal, "mrz.date_of_birth")
			}
		}
		if m.Checks["date_of_expiry"] {
			if t, ok := isoDay(m.DateOfExpiry); ok {
				ds.expiry = &dated{t, "mrz", true}
			} else {
				ds.unreal = append(ds.unreal, "mrz.date_of_expiry")
			}
		}
	}
	printed := func(name string, into **dated) {
		v := fields[name]
		if v == "" {
			return
		}
		t, ok := dotDay(v)
		if !ok {
			ds.unreal = append(ds.unreal, name)
			return
		}
		// The MRZ's value wins when its check digit passes; an unchecked
		// MRZ date yields to the print.
		if *into == nil || !(*into).checked {
			*into = &dated{t, "printed", false}
		}
	}
	printed("date_of_birth", &ds.birth)
	printed("date_of_expiry", &ds.expiry)
	printed("date_of_issue", &ds.issue)
	return ds
}

// validity judges the dates against each other and against now. A problem
// resting on a check-digit-verified MRZ date fails; one resting only on
// printed dates, which OCR may have misread, goes to review.
func validity(ds dates, now time.Time) layerResult {
	lr := layerResult{name: layerValidity, score: 1}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	add := func(code string, fail bool, note string) {
		lr.findings = append(lr.findings, finding{code: code, fail: fail, note: note})
		lr.score = 0
	}
	for _, u := range ds.unreal {
		if strings.HasPrefix(u, "mrz.") {
			// A check digit vouches for what was read: the zone itself
			// holds an impossible date.
			add(ReasonDatesInvalid, false, u+" is not a calendar date")
			continue
		}
		// A printed date that is no date is what a reader's misread
		// looks like (a digit lost or doubled); it is evidence of
		// nothing, so that date is left unexamined.
		lr.unexamined = append(lr.unexamined, u+" read as no calendar date")
	}
	if e := ds.expiry; e != nil && e.t.Before(day) {
		// An expiry in the past is an expiry in the past however it was
		// read, when a check digit vouches for it; from the print alone it
		// may be a misread year.
		add(ReasonExpired, e.checked, fmt.Sprintf("expired on %s (%s)", e.t.Format("2006-01-02"), e.source))
	}
	if b := ds.birth; b != nil && b.t.After(day) {
		add(ReasonDatesInvalid, b.checked, "date of birth "+b.t.Format("2006-01-02")+" is in the future")
	}
	if is := ds.issue; is != nil && is.t.After(day.AddDate(0, 0, 1)) {
		add(ReasonDatesInvalid, false, "date of issue "+is.t.Format("2006-01-02")+" is in the future")
	}
	if is, e := ds.issue, ds.expiry; is != nil && e != nil && !is.t.Before(e.t) {
		add(ReasonDatesInvalid, false, "issued on or after its expiry")
	}
	if b, is := ds.birth, ds.issue; b != nil && is != nil {
		switch {
		case is.t.Before(b.t):
			add(ReasonDatesInvalid, false, "issued before the holder was born")
		case is.t.Sub(b.t) > maxAgeAtIssue*365*24*time.Hour:
			add(ReasonDatesInvalid, false, "holder older than 120 at issue")
		}
	}
	if b, e := ds.birth, ds.expiry; b != nil && e != nil && !e.t.After(b.t) {
		add(ReasonDatesInvalid, b.checked && e.checked, "expires before the holder was born")
	}
	if years := maxValidityYears(ds.kind); years > 0 && ds.expiry != nil {
		// An expiry further ahead than the document can be valid for
		// was issued in the future, or was moved on: a forger extending
		// a card's life (and its MRZ with it) rarely knows the issuer's
		// period. Review only: the period is the kind's, not the issuer's.
		e := ds.expiry
		longest := day.AddDate(years+validitySlack, 0, 0)
		switch is := ds.issue; {
		case e.t.After(longest):
			add(ReasonDatesInvalid, false, fmt.Sprintf("expires on %s (%s), more than %d years from today: no %s is valid that long", e.t.Format("2006-01-02"), e.source, years, ds.kind))
		case is != nil && is.t.Before(e.t) && e.t.After(is.t.AddDate(years+validitySlack, 0, 0)):
			add(ReasonDatesInvalid, false, fmt.Sprintf("valid from %s to %s, more than %d years: no %s is valid that long", is.t.Format("2006-01-02"), e.t.Format("2006-01-02"), years, ds.kind))
		}
	}
	if ds.birth == nil && ds.expiry == nil && ds.issue == nil {
		lr.skipped = "no date was read from the MRZ or the print"
	}
	return lr
}

func isoDay(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02", s)
	return t, err == nil
}

// dotDay parses a combined date (DD.MM.YYYY).
func dotDay(s string) (time.Time, bool) {
	t, err := time.Parse("02.01.2006", s)
	return t, err == nil
}
