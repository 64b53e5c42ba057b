package synth

import (
	"fmt"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/mrz"
)

// mrzData is what a machine readable zone encodes.
type mrzData struct {
	Format      string // idv.MRZTD1, TD2 or TD3
	DocCode     string // one or two letters
	Issuer      string // three-letter code
	Number      string
	Nationality string
	Surname     string
	Given       string
	Sex         string // M, F or X
	DOB, Expiry time.Time
	Optional    string // TD1 line 1 optional data, TD2 optional data, TD3 personal number
	Optional2   string // TD1 line 2 optional data
}

// mrzCheck is the ICAO 9303 check digit as a character, from the mrz
// library (the one implementation; its vectors are ICAO's).
func mrzCheck(s string) byte { return byte('0' + mrz.CheckDigit(s)) }

// mrzText transliterates to the MRZ alphabet: upper case letters and
// digits; spaces, hyphens and commas become fillers, anything else goes.
func mrzText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == ',':
			b.WriteByte('<')
		}
	}
	return b.String()
}

// pad fills s with '<' to n characters, cutting it if longer.
func pad(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

// mrzName is the name field: SURNAME<<GIVEN<NAMES, cut to width.
func mrzName(surname, given string, width int) string {
	s := mrzText(surname)
	if g := mrzText(given); g != "" {
		s += "<<" + g
	}
	return pad(s, width)
}

func yymmdd(t time.Time) string { return t.Format("060102") }

func mrzSex(s string) string {
	switch s {
	case "M", "F":
		return s
	}
	return "<"
}

// numberField returns the document number part and the optional data
// prefix per ICAO's rule for TD1 numbers longer than nine characters: the
// check digit position holds '<' and the rest with its check digit opens
// the optional data.
func numberField(num string) (field string, check string, overflow string) {
	num = mrzText(num)
	if len(num) <= 9 {
		return pad(num, 9), string(mrzCheck(pad(num, 9))), ""
	}
	return num[:9], "<", num[9:] + string(mrzCheck(num)) + "<"
}

// lines builds the MRZ lines of d.
func (d mrzData) lines() ([]string, error) {
	code := pad(mrzText(d.DocCode), 2)
	iss := pad(mrzText(d.Issuer), 3)
	nat := pad(mrzText(d.Nationality), 3)
	dob, exp := yymmdd(d.DOB), yymmdd(d.Expiry)
	dobC, expC := string(mrzCheck(dob)), string(mrzCheck(exp))
	sex := mrzSex(d.Sex)
	switch d.Format {
	case idv.MRZTD1:
		num, numC, over := numberField(d.Number)
		l1 := code + iss + num + numC + pad(over+mrzText(d.Optional), 15)
		l2 := dob + dobC + sex + exp + expC + nat + pad(mrzText(d.Optional2), 11)
		comp := l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
		l2 += string(mrzCheck(comp))
		l3 := mrzName(d.Surname, d.Given, 30)
		return []string{l1, l2, l3}, nil
	case idv.MRZTD2:
		num := pad(mrzText(d.Number), 9)
		l1 := code + iss + mrzName(d.Surname, d.Given, 31)
		l2 := num + string(mrzCheck(num)) + nat + dob + dobC + sex + exp + expC + pad(mrzText(d.Optional), 7)
		comp := l2[0:10] + l2[13:20] + l2[21:35]
		l2 += string(mrzCheck(comp))
		return []string{l1, l2}, nil
	case idv.MRZTD3:
		num := pad(mrzText(d.Number), 9)
		l1 := code + iss + mrzName(d.Surname, d.Given, 39)
		pn := pad(mrzText(d.Optional), 14)
		pnC := string(mrzCheck(pn))
		if strings.Trim(pn, "<") == "" {
			pnC = "<"
		}
		l2 := num + string(mrzCheck(num)) + nat + dob + dobC + sex + exp + expC + pn + pnC
		comp := l2[0:10] + l2[13:20] + l2[21:43]
		l2 += string(mrzCheck(comp))
		return []string{l1, l2}, nil
	}
	return nil, fmt.Errorf("synth: MRZ format %q is not drawn", d.Format)
}

// parsed is the truth's mrz_parsed: what a correct parser returns.
func (d mrzData) parsed() map[string]any {
	sex := d.Sex
	if sex != "M" && sex != "F" {
		sex = "X"
	}
	// the name as the MRZ holds it, fillers back to spaces
	name := mrzName(d.Surname, d.Given, 200)
	parts := strings.SplitN(strings.TrimRight(name, "<"), "<<", 2)
	sur := strings.ReplaceAll(parts[0], "<", " ")
	given := ""
	if len(parts) == 2 {
		given = strings.ReplaceAll(parts[1], "<", " ")
	}
	width := map[string]int{idv.MRZTD1: 30, idv.MRZTD2: 31, idv.MRZTD3: 39}[d.Format]
	if len(mrzName(d.Surname, d.Given, 200)) > width {
		cut := strings.TrimRight(mrzName(d.Surname, d.Given, width), "<")
		p := strings.SplitN(cut, "<<", 2)
		sur = strings.ReplaceAll(p[0], "<", " ")
		given = ""
		if len(p) == 2 {
			given = strings.ReplaceAll(p[1], "<", " ")
		}
	}
	return map[string]any{
		"format":          d.Format,
		"document_code":   strings.TrimRight(pad(mrzText(d.DocCode), 2), "<"),
		"issuing_state":   mrzText(d.Issuer),
		"document_number": mrzText(d.Number),
		"date_of_birth":   d.DOB.Format("2006-01-02"),
		"date_of_expiry":  d.Expiry.Format("2006-01-02"),
		"sex":             sex,
		"nationality":     mrzText(d.Nationality),
		"surname":         strings.TrimSpace(sur),
		"given_names":     strings.TrimSpace(given),
		"optional_data":   strings.Trim(mrzText(d.Optional), "<"),
		"all_checks_pass": true,
	}
}
