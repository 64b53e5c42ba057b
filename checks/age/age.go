// Package age is the age_verification check: it reads the holder's date
// of birth from the MRZ when its check digits pass, else from the printed
// date_of_birth field (DD.MM.YYYY), and fails the verification when the
// holder is younger than the workflow's minimum age (default 18).
//
// Import it for its side effect (checks/standard does):
//
//	import _ "github.com/tambua/tambua/checks/age"
package age

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// Reasons.
const (
	ReasonUnderage      = "underage"
	ReasonDOBUnreadable = "dob_unreadable"
)

// maxAge bounds a plausible age: an older date is a misread.
const maxAge = 130

func init() {
	idv.Register(idv.CheckAge, func(idv.Settings) (idv.Check, error) { return Check{}, nil })
}

// Check is the age_verification check.
type Check struct{}

var (
	_ idv.Check         = Check{}
	_ idv.StepValidator = Check{}
)

// Name implements idv.Check.
func (Check) Name() string { return idv.CheckAge }

// Cost implements idv.Check.
func (Check) Cost() int { return idv.CostOf(idv.CheckAge) }

// ValidateStep refuses a bad min_age when the workflow is prepared, so it
// does not send every verification to review (Run still checks it for a
// Case built by hand).
func (Check) ValidateStep(st idv.Step) error {
	_, err := MinAge(st.Params)
	return err
}

// MinAge reads params.min_age (a whole number from 1 to 130), default 18.
func MinAge(params map[string]any) (int, error) {
	v, ok := params["min_age"]
	if !ok {
		return idv.DefaultMinAge, nil
	}
	var n int
	switch v := v.(type) {
	case int:
		n = v
	case float64:
		if v != float64(int(v)) {
			return 0, fmt.Errorf("age_verification: params.min_age must be a whole number, got %v", v)
		}
		n = int(v)
	default:
		return 0, fmt.Errorf("age_verification: params.min_age must be a number, got %v", v)
	}
	if n < 1 || n > maxAge {
		return 0, fmt.Errorf("age_verification: params.min_age %d is outside [1, %d]", n, maxAge)
	}
	return n, nil
}

// DOB returns the holder's date of birth and where it came from (mrz or
// ocr), or ok false when neither source gives a valid date.
func DOB(c *idv.Case) (dob time.Time, source string, ok bool) {
	if m := c.MRZ(); m != nil && m.AllChecksPass {
		if t, err := time.Parse("2006-01-02", m.DateOfBirth); err == nil {
			return t, "mrz", true
		}
	}
	if t, ok := ParsePrinted(c.Field("date_of_birth")); ok {
		return t, "ocr", true
	}
	return time.Time{}, "", false
}

// ParsePrinted reads a printed date DD.MM.YYYY (also with / or -
// between the parts, as cards print them).
func ParsePrinted(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	f := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '/' || r == '-' || r == ' ' })
	if len(f) != 3 || len(f[2]) != 4 {
		return time.Time{}, false
	}
	d, err1 := strconv.Atoi(f[0])
	m, err2 := strconv.Atoi(f[1])
	y, err3 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	// time.Date normalises 31.02 to March: refuse what it had to fix.
	if t.Day() != d || int(t.Month()) != m || t.Year() != y {
		return time.Time{}, false
	}
	return t, true
}

// Age is the number of whole years from dob to now.
func Age(dob, now time.Time) int {
	years := now.Year() - dob.Year()
	if now.Month() < dob.Month() || (now.Month() == dob.Month() && now.Day() < dob.Day()) {
		years--
	}
	return years
}

// Run implements idv.Check.
func (Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	minAge, err := MinAge(c.Step.Params)
	if err != nil {
		return idv.Outcome{}, err
	}
	now := c.Now
	if now.IsZero() {
		now = time.Now()
	}
	dob, source, ok := DOB(c)
	if ok {
		if a := Age(dob, now); a < 0 || a > maxAge {
			ok = false
		}
	}
	if !ok {
		// Age unknown is no evidence either way: a person reads the card.
		return idv.Outcome{Status: idv.StatusReview, Reasons: []string{ReasonDOBUnreadable},
			Pieces: []idv.ScorePiece{{Name: "min_age", Value: float64(minAge), Weight: 1}}}, nil
	}
	a := Age(dob, now)
	pieces := []idv.ScorePiece{
		{Name: "age", Value: float64(a), Weight: 1, Note: "date of birth " + dob.Format("2006-01-02") + " from " + source},
		{Name: "min_age", Value: float64(minAge), Weight: 1},
	}
	if a < minAge {
		return idv.Outcome{Status: idv.StatusFailed, Reasons: []string{ReasonUnderage}, Pieces: pieces}, nil
	}
	return idv.Outcome{Status: idv.StatusPassed, Pieces: pieces}, nil
}
