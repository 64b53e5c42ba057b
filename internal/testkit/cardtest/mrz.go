package cardtest

import (
	"strconv"
	"strings"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/mrz"
)

// MRZ builds the machine readable zone of def for the normalised values,
// with correct check digits, or nil when def has no MRZ.
func MRZ(def *idv.DocumentDefinition, truth map[string]string) []string {
	if def.MRZ == nil {
		return nil
	}
	by := map[string]string{}
	for _, f := range def.Fields {
		if f.MRZ != "" {
			by[f.MRZ] = truth[f.Name]
		}
	}
	state := def.Country
	if v := by["issuing_state"]; v != "" {
		state = v
	}
	nat := by["nationality"]
	if nat == "" {
		nat = def.Country
	}
	if len(nat) != 3 {
		nat = def.Country
	}
	surname, given := by["surname"], by["given_names"]
	if surname == "" && by["full_name"] != "" {
		parts := strings.Fields(by["full_name"])
		surname, given = parts[len(parts)-1], strings.Join(parts[:len(parts)-1], " ")
	}
	name := fill(surname) + "<<" + fill(given)
	doc := by["document_number"]
	dob, exp := yymmdd(by["date_of_birth"]), yymmdd(by["date_of_expiry"])
	if exp == "" {
		exp = "300101"
	}
	sex := by["sex"]
	if sex == "" {
		sex = "<"
	}
	code := def.MRZ.DocumentCode
	switch def.MRZ.Format {
	case idv.MRZTD3:
		l1 := pad(pad(code, 2)+state+name, 44)
		d := pad(doc, 9)
		pn := pad(fill(by["personal_number"]), 14)
		l2 := d + cd(d) + nat + dob + cd(dob) + sex + exp + cd(exp) + pn + cd(pn)
		l2 += cd(d + cd(d) + dob + cd(dob) + exp + cd(exp) + pn + cd(pn))
		return []string{l1, l2}
	case idv.MRZTD1:
		d := pad(doc, 9)
		opt := pad(fill(by["optional_data"]), 15)
		l1 := pad(code, 2) + state + d + cd(d) + opt
		l2 := dob + cd(dob) + sex + exp + cd(exp) + nat + pad("", 11)
		l2 += cd(l1[5:30] + dob + cd(dob) + exp + cd(exp))
		return []string{l1, l2, pad(name, 30)}
	}
	return nil
}

func fill(s string) string {
	return strings.NewReplacer(" ", "<", "-", "<", "'", "").Replace(s)
}

func pad(s string, n int) string {
	if len(s) >= n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

func yymmdd(ddmmyyyy string) string {
	if len(ddmmyyyy) != 10 {
		return ""
	}
	return ddmmyyyy[8:10] + ddmmyyyy[3:5] + ddmmyyyy[0:2]
}

// cd is the ICAO check digit as a character, from the mrz library.
func cd(s string) string { return strconv.Itoa(mrz.CheckDigit(s)) }
