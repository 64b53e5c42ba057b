package ocr

import (
	"context"
	"image"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/vision"
)

// genericDefs are the definitions a workflow for foreign documents allows.
func genericDefs(t *testing.T) []*idv.DocumentDefinition {
	t.Helper()
	var out []*idv.DocumentDefinition
	for _, d := range docdefs.Default().All() {
		if d.Generic() {
			out = append(out, d)
		}
	}
	require.Len(t, out, 5)
	return out
}

func specimen(t *testing.T, name string) image.Image {
	t.Helper()
	data, err := os.ReadFile(fixtures.Path(t, "ids", name))
	require.NoError(t, err)
	img, err := vision.Decode(data)
	require.NoError(t, err)
	return img
}

// Real specimens of other countries read with the generic definitions:
// printed fields are read next to their captions wherever the issuer
// prints them and must agree with the MRZ; fields whose caption is not
// found come from the MRZ when its check digits pass (the backs of TD1
// cards print no names at all), and nothing is presented when the MRZ says
// the document is of another kind.
func TestGenericSpecimens(t *testing.T) {
	cases := []struct {
		image   string
		config  string            // definition the check picks
		want    map[string]string // presented fields (the specimen's print and MRZ)
		printed []string          // fields read from the print, not copied from the MRZ
		none    bool              // nothing may be presented
		// conflicts are printed values read wrong, which the MRZ
		// catches (and which are kept, as on any document).
		conflicts []string
	}{
		// The ICAO specimen's data page: captions in English and French,
		// values below them. Place of birth and authority are in no TD3
		// MRZ: only the print gives them.
		{image: "passeye_passport-td3.jpg", config: "generic_passport", want: map[string]string{
			"document_type": "P", "issuing_state": "UTO", "passport_number": "L898902C3", "surname": "ERIKSSON",
			"given_names": "ANNA MARIA", "date_of_birth": "12.08.1974", "sex": "F", "date_of_expiry": "15.04.2012",
			"place_of_birth": "ZENITH", "authority": "PASSPORT OFFICE"},
			printed: []string{"passport_number", "surname", "given_names", "date_of_birth", "place_of_birth", "authority"}},
		// The German page's captions are on blocks of tint: read once
		// the page is flattened. Its surname reads MUSTERMANA, which
		// the MRZ lists as a conflict.
		{image: "passeye_100_pass-bdr.jpg", config: "generic_passport", want: map[string]string{
			"passport_number": "CA000000", "given_names": "ERIKA", "nationality": "D", "date_of_birth": "12.08.1964",
			"place_of_birth": "BERLIN", "authority": "BUNDESDRUCKEREI"},
			printed:   []string{"passport_number", "given_names", "date_of_birth", "place_of_birth", "authority"},
			conflicts: []string{"surname"}},
		// Taiwan: "Name (Surname, Given names)" over LIN, MEI-HUA, its
		// captions cut at the comma and the value split there; no
		// issuing state or nationality taken out of REPUBLIC OF CHINA.
		// Its sex (once misread M) is left to the MRZ.
		{image: "passeye_100_pass-chn.jpg", config: "generic_passport", want: map[string]string{
			"passport_number": "000000000", "surname": "LIN", "given_names": "MEI-HUA", "date_of_birth": "01.01.1976", "sex": "F"},
			printed: []string{"passport_number", "surname", "given_names", "date_of_birth"}},
		// Czech captions (PŘÍJMENÍ/SURNAME/NOM) in a 600 px scan, read
		// scaled up; the date of birth printed 22.06.1969.
		{image: "passeye_100_pass-cze2.jpg", config: "generic_passport", want: map[string]string{
			"passport_number": "99009054", "surname": "SPECIMEN", "given_names": "VZOR", "date_of_birth": "22.06.1969"},
			printed: []string{"passport_number", "surname", "date_of_birth"}},
		{image: "passeye_100_id-che.jpg", config: "generic_id_card", want: map[string]string{
			"document_type": "ID", "issuing_state": "CHE", "document_number": "S0002068", "surname": "VADIS",
			"given_names": "QUO", "nationality": "CHE", "sex": "F", "date_of_birth": "28.02.1981", "date_of_expiry": "01.01.2013"}},
		{image: "passeye_100_id-si.jpg", config: "generic_id_card", want: map[string]string{
			"document_number": "099991001", "surname": "VZOREC", "given_names": "TINA", "issuing_state": "SI"}},
		// ICAO's TD2 specimen (an official travel document, 105 x 74 mm)
		// is read as generic_td2: number, surname and date of birth
		// printed, agreeing with its MRZ.
		{image: "passeye_passport-td2.jpg", config: "generic_td2", want: map[string]string{
			"document_number": "D23145890", "surname": "ERIKSSON", "given_names": "ANNA MARIA", "date_of_birth": "12.08.1974"},
			printed: []string{"document_number", "surname", "date_of_birth"}},
		// A US visa (MRV-A) is read as the generic visa its MRZ's
		// format names, not as a passport or card: its captions (Surname,
		// Given Name, Passport Number, Birth Date, Control Number, Issue
		// Date) are found wherever the US prints them, its dates printed
		// 12DEC1966, and its MRZ carries the passport's number.
		{image: "arg0s_visas__USA.png", config: "generic_visa_a", want: map[string]string{
			"issuing_state": "USA", "surname": "TRAVELER", "given_names": "HAPPY", "passport_number": "123456789",
			"date_of_birth": "12.12.1966", "sex": "M", "valid_from": "29.07.2004", "valid_until": "28.07.2014",
			"visa_type": "R C1/D", "number_of_entries": "M"},
			printed: []string{"surname", "given_names", "passport_number", "date_of_birth", "valid_from", "valid_until",
				"visa_type", "number_of_entries"}},
		// ICAO's MRV-B specimen: captions in English and Spanish, the
		// visa's own number printed (not in the MRZ), the date of birth
		// printed 07SEP 40.
		{image: "arg0s_visas__MRVB_ICAO_Example.png", config: "generic_visa_b", want: map[string]string{
			"passport_number": "L8988901C", "visa_number": "M123889546", "place_of_issue": "ZENITH",
			"date_of_birth": "07.09.1940", "surname": "ERIKSSON", "given_names": "ANNA MARIA"},
			printed: []string{"passport_number", "visa_number", "place_of_issue", "date_of_birth"}},
		// Ukraine, scanned to the page's edges: the outline search takes
		// the portrait for the page, and the MRZ places the page instead
		// (placement.go). Names and months are printed in Ukrainian and
		// after a slash in Latin letters (ТКАЧЕНКО/TKACHENKO, 24 СЕР/AUG
		// 91): the Latin part is the value. Nothing is copied from the MRZ
		// but the nationality (printed УКРАЇНА/UKRAINE, no code).
		{image: "arg0s_passports__Ukraine.png", config: "generic_passport", want: map[string]string{
			"issuing_state": "UKR", "passport_number": "XX000000", "surname": "TKACHENKO", "given_names": "MARIANA",
			"date_of_birth": "24.08.1991", "sex": "F", "date_of_expiry": "25.09.2023"},
			printed: []string{"issuing_state", "passport_number", "surname", "given_names", "date_of_birth", "sex", "date_of_expiry"}},
		// Luxembourg, photographed in perspective and cut by the frame:
		// since the page's sides are refined on one consistent line each
		// the MRZ reads with its check digits passing (before, one error
		// that they caught, and nothing was presented).
		{image: "passeye_100_pass-lux.jpg", config: "generic_passport", want: map[string]string{
			"issuing_state": "LUX", "passport_number": "S998527", "surname": "MAUS", "given_names": "KETTY",
			"date_of_birth": "20.06.1978", "sex": "F", "date_of_expiry": "08.08.2011"},
			printed: []string{"surname"}},
		// Latvia, a booklet photographed open with the next page under
		// the data page: the outline takes both, the MRZ is not in the
		// definition's zone, and the zones slide a line down (the given
		// name was read as the surname, a line of the title as the given
		// names). Placed by its MRZ, each name is the one run of print
		// that reads it (its captions, 5 px, are not read), and the
		// number the run that reads the MRZ's but for O and 0.
		{image: "passeye_0_pass-lva.jpg", config: "generic_passport", want: map[string]string{
			"issuing_state": "LVA", "passport_number": "LT0000000", "surname": "MOHAMADA", "given_names": "FARIDA",
			"date_of_birth": "10.05.1986", "date_of_expiry": "31.10.2012"},
			printed: []string{"passport_number", "surname", "given_names", "date_of_expiry"}},
		// A Schengen visa: NAZWISKO / NOM PRÉNOM / SURNAME NAME names both
		// names over one line, of which only PRÉNOM was read: the
		// surname's print taken as the given names is the surname's, and
		// the given names the one run that reads the MRZ's; its date of
		// birth, printed 1960-02-08, the one run reading the MRZ's. The MRZ
		// carries the visa's number (PL0000000), not the passport's
		// printed AA0000000: a conflict.
		{image: "passeye_100_visa-polx.jpg", config: "generic_visa_b", want: map[string]string{
			"surname": "KOWALSKA-KWIATKOWSKA", "given_names": "BEATA", "passport_number": "AA0000000", "date_of_birth": "08.02.1960"},
			printed: []string{"surname", "given_names", "passport_number", "date_of_birth"}, conflicts: []string{"passport_number"}},
	}
	k := New()
	defer k.Close()
	cands := genericDefs(t)
	for _, tc := range cases {
		t.Run(tc.image, func(t *testing.T) {
			img := specimen(t, tc.image)
			ex, err := k.Extract(context.Background(), map[string]image.Image{idv.SlotFront: img}, cands, nil)
			require.NoError(t, err)
			d := ex.Definition
			if tc.config != "" {
				assert.Equal(t, tc.config, d.Config)
			}
			// combined has exactly the schema's keys.
			require.Len(t, ex.Fields, len(d.FieldSchema))
			for _, name := range d.FieldSchema {
				_, ok := ex.Fields[name]
				assert.True(t, ok, "no key %s", name)
			}
			if tc.none {
				for name, v := range ex.Fields {
					assert.Empty(t, v, "%s presented", name)
				}
				assert.False(t, ex.Quality.MRZTrusted)
				assert.Contains(t, ex.Reasons, "front_unreadable")
				return
			}
			for name, v := range tc.want {
				assert.Equal(t, v, ex.Fields[name], name)
			}
			assert.True(t, ex.Quality.MRZTrusted)
			assert.NotContains(t, ex.Reasons, "front_unreadable")
			if len(tc.printed) == 0 {
				// Nothing was found next to a caption: the side did not
				// read as any layout, and says so.
				assert.Contains(t, ex.Reasons, "front_layout_unmatched")
				assert.Contains(t, ex.FromMRZ, "surname")
			}
			for _, name := range tc.printed {
				assert.NotContains(t, ex.FromMRZ, name, "%s copied from the MRZ", name)
			}
			assert.ElementsMatch(t, tc.conflicts, ex.Quality.Conflicts)
		})
	}
}

// Through Run, as a workflow allowing both generic definitions would: the
// card is typed generic_id_card, every field comes from the MRZ and says
// so, and the check passes.
func TestRunGenericIDCardSpecimen(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path(t, "ids", "passeye_100_id-si.jpg"))
	require.NoError(t, err)
	cands := genericDefs(t)
	k := New()
	defer k.Close()
	c := newCase(cands[0], cands, data)
	out, err := k.Run(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, "generic_id_card", c.DocumentType())
	schema, vals := c.Fields()
	assert.Equal(t, cands[0].FieldSchema, schema)
	assert.Equal(t, "VZOREC", vals["surname"])
	assert.Equal(t, idv.StatusPassed, out.Status, "%+v", out)
	assert.True(t, slices.Contains(out.Flags, "ocr_fields_from_mrz"), "flags %v", out.Flags)
	assert.True(t, slices.Contains(out.Flags, "front_layout_unmatched"), "flags %v", out.Flags)
}
