package docauth

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// CodeNumberMismatch: a personal number whose issuer builds it from the
// holder's date of birth (or ends it with a check digit) disagrees with the
// date of birth printed beside it (or fails its digit).
const CodeNumberMismatch = "doc_number_mismatch"

// layerNumbers is ours: the card's personal number against the rules its
// issuer builds it by.
const layerNumbers = "number_rules"

// numberRule is how an issuer builds a personal number from the holder's
// date of birth: the characters from at on read the birth date in the Go
// layout birth; luhn says the number ends with a Luhn check digit.
type numberRule struct {
	country, field string
	at             int
	birth          string
	luhn           bool
	why            string
}

// numberRules are published numbering schemes, keyed by the issuer and the
// field that carries the number (as our definitions name it). A forger
// who changes the printed date of birth seldom reissues the number, and one
// who changes the number seldom keeps its date and check digit; neither
// depends on how the card was printed or photographed.
var numberRules = []numberRule{
	// South Africa's identity number: YYMMDD, a sequence, citizenship,
	// a digit, and a Luhn check digit (13 digits).
	{country: "ZAF", field: "identity_number", at: 0, birth: "060102", luhn: true, why: "South African identity numbers open with the birth date (YYMMDD) and end with a Luhn check digit"},
	// Tanzania's NIDA number opens with the birth date, YYYYMMDD.
	{country: "TZA", field: "nin", at: 0, birth: "20060102", why: "Tanzanian NIDA numbers open with the birth date (YYYYMMDD)"},
	// Uganda's NIN: C (citizen), the sex, the birth year's two digits.
	{country: "UGA", field: "nin", at: 2, birth: "06", why: "Ugandan NINs carry the birth year's two digits after the citizenship and sex letters"},
}

// numbersLayer checks the printed personal number against its issuer's
// rule and the printed date of birth. Both must have been read firmly: a
// misread digit is no evidence of forgery (could_not_examine). It counts
// only when it finds something, like the other tampering layers.
func numbersLayer(in inputs) layerResult {
	lr := layerResult{name: layerNumbers, score: 1}
	var rule *numberRule
	for i, r := range numberRules {
		if r.country == in.def.Country && in.fields[r.field] != "" {
			rule = &numberRules[i]
		}
	}
	if rule == nil {
		lr.skipped = "no known numbering rule for a number this document prints"
		return lr
	}
	num := alnum(in.fields[rule.field])
	if why := weakReading(in.readings, rule.field); why != "" {
		lr.skipped = "could not examine: " + rule.field + " " + why
		return lr
	}
	// A number that fails its own check digit was misread or made up;
	// one character off the birth date in such a number is taken for the
	// misread (a 0 read as 6 at a confidence of 99, genuine, seed 61).
	// A failing check digit alone is no finding: a genuine number misread
	// by one digit fails it too.
	misread := rule.luhn && !(digitsOnly(num) && luhnValid(num))
	examined := false
	dob := in.fields["date_of_birth"]
	if t, err := time.Parse("02.01.2006", dob); err == nil {
		if why := weakReading(in.readings, "date_of_birth"); why != "" {
			lr.unexamined = append(lr.unexamined, "date_of_birth "+why)
		} else if want := t.Format(rule.birth); len(num) < rule.at+len(want) {
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s %q is too short for its rule: misread", rule.field, num))
		} else {
			got := num[rule.at : rule.at+len(want)]
			switch {
			case got == want:
				examined = true
			case misread && hamming(got, want) <= 1:
				lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s %s fails its check digit and reads the birth date one character off %s: misread", rule.field, num, dob))
			default:
				examined = true
				lr.findings = append(lr.findings, finding{code: CodeNumberMismatch,
					note: fmt.Sprintf("%s %s reads the birth date as %s, the card prints %s (%s)", rule.field, num, got, dob, rule.why)})
			}
		}
	}
	if len(lr.findings) > 0 {
		lr.score = 0
	} else if !examined {
		lr.skipped = "could not examine: " + strings.Join(lr.unexamined, "; ")
	}
	return lr
}

// hamming counts the places where a and b (of one length) differ.
func hamming(a, b string) int {
	n := 0
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToUpper(r)
		}
		return -1
	}, s)
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// luhnValid: the digits pass the Luhn test (their last is the check digit).
func luhnValid(s string) bool {
	sum := 0
	for i := 0; i < len(s); i++ {
		d := int(s[len(s)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}
