// Package mrzdata converts the mrz library's parse into the values the
// checks leave on the Case, so the checks that read an MRZ (mrz_parsing,
// ocr_extraction) fill them the same way without importing each other.
package mrzdata

import (
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
