// Package mrzdata converts the mrz library's parse into the values the
// checks leave on the Case, so the checks that read an MRZ (mrz_parsing,
// ocr_extraction) fill them the same way without importing each other.
package mrzdata

import (
	"strings"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/mrz"
)

// From converts a parse to the form the Case carries.
func From(m *mrz.MRZ) *idv.MRZData {
	return &idv.MRZData{
		Format: m.Format, DocumentCode: m.DocumentCode, IssuingState: m.IssuingState,
		DocumentNumber: m.DocumentNumber, DateOfBirth: m.DateOfBirth, DateOfExpiry: m.DateOfExpiry,
		Sex: m.Sex, Nationality: m.Nationality, Surname: m.Surname, GivenNames: m.GivenNames,
		OptionalData: m.OptionalData, OptionalData2: m.OptionalData2,
		Checks: m.Checks.Map(), AllChecksPass: m.AllChecksPass, Lines: append([]string(nil), m.Lines...),
	}
}

// Value is the value of the parsed MRZ field name (a FieldDef's MRZ:
// document_number, surname...) in the normalised form of combined: dates
// DD.MM.YYYY, fillers as spaces. "" when the MRZ does not carry it. Shared
// by ocr_extraction's cross-check and document_authenticity's.
func Value(m *idv.MRZData, name string) string {
	clean := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "<", " ")), " ") }
	iso := func(s string) string {
		if len(s) != 10 {
			return ""
		}
		return s[8:10] + "." + s[5:7] + "." + s[0:4]
	}
	switch name {
	case "document_code":
		return clean(m.DocumentCode)
	case "document_number":
		return clean(m.DocumentNumber)
	case "date_of_birth":
		return iso(m.DateOfBirth)
	case "date_of_expiry":
		return iso(m.DateOfExpiry)
	case "sex":
		if m.Sex == "M" || m.Sex == "F" || m.Sex == "X" {
			return m.Sex
		}
	case "surname":
		return clean(m.Surname)
	case "given_names":
		return clean(m.GivenNames)
	case "full_name":
		return strings.TrimSpace(clean(m.GivenNames) + " " + clean(m.Surname))
	case "nationality":
		return clean(m.Nationality)
	case "issuing_state":
		return clean(m.IssuingState)
	case "personal_number", "optional_data":
		return clean(m.OptionalData)
	}
	return ""
}
