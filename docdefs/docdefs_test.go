package docdefs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultHasEveryDefinition(t *testing.T) {
	want := []string{
		"generic_id_card", "generic_passport", "generic_td2", "generic_visa_a", "generic_visa_b", "ghana_voter_id", "ke_maisha_card", "ke_national_id", "ke_passport",
		"kenya_national_id", "nigeria_national_id", "south_africa_id", "tanzania_national_id",
		"uganda_driving_licence", "uganda_national_id_new", "uganda_national_id_old",
	}
	assert.Equal(t, want, Default().Configs())
}

func TestKenyaNationalIDSchema(t *testing.T) {
	d, ok := Default().Definition("kenya_national_id")
	require.True(t, ok)
	assert.Equal(t, []string{"national_id_number", "serial_number", "full_name", "date_of_birth", "sex",
		"place_of_birth", "date_of_issue", "district", "division", "location", "sub_location", "document_type"}, d.FieldSchema)
}

func TestDefinitionsAreConsistent(t *testing.T) {
	for _, d := range Default().All() {
		t.Run(d.Config, func(t *testing.T) {
			for _, f := range d.Fields {
				if f.Fixed != "" {
					continue
				}
				if f.Type == "date" {
					assert.Equal(t, `^[0-9]{2}\.[0-9]{2}\.[0-9]{4}$`, f.Pattern, "%s: normalised dates are DD.MM.YYYY", f.Name)
				}
				assert.NotEmpty(t, f.Pattern, "%s has no validation pattern", f.Name)
				assert.NotEmpty(t, f.Label, "%s has no printed label", f.Name)
			}
			if d.Kind == "passport" {
				require.NotNil(t, d.MRZ)
				assert.Equal(t, "TD3", d.MRZ.Format)
			}
			assert.NotNil(t, d.Photo, "every document carries the holder's photo")
		})
	}
}

const good = `
config: test_card
display_name: Test card
country: UTO
country_name: Utopia
kind: id_card
size: {width_mm: 85.6, height_mm: 53.98}
sides: [front]
field_schema: [number]
fields:
  - {name: number, label: "No.", type: number, pattern: '^[0-9]+$', zone: {side: front, x: 0.1, y: 0.1, w: 0.3, h: 0.1}}
`

func TestParseRejects(t *testing.T) {
	_, err := Parse([]byte(good))
	require.NoError(t, err)
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown key", "kind: id_card", "kind: id_card\ncolour: red", "field colour not found"},
		{"zone outside", "x: 0.1, y: 0.1, w: 0.3", "x: 0.8, y: 0.1, w: 0.3", "outside the card"},
		{"negative zone", "w: 0.3, h: 0.1", "w: 0.3, h: -0.1", "outside the card"},
		{"unknown side", "zone: {side: front", "zone: {side: back", "not one of the document's sides"},
		{"schema without zone", "field_schema: [number]", "field_schema: [number, name]", `"name" has no field with a zone`},
		{"bad pattern", "pattern: '^[0-9]+$'", "pattern: '^[0-9+$'", "pattern"},
		{"bad type", "type: number", "type: money", "type \"money\""},
		{"bad country", "country: UTO", "country: Utopia", "three-letter"},
		{"bad kind", "kind: id_card", "kind: library_card", "kind"},
		{"no sides", "sides: [front]", "sides: []", "at least one side"},
		{"mrz field without mrz", "type: number,", "type: number, mrz: document_number,", "has none"},
		{"unknown layout", "kind: id_card", "kind: id_card\nlayout: freeform", `layout "freeform"`},
		{"generic without mrz", "kind: id_card", "kind: id_card\nlayout: generic", "layout generic needs an mrz"},
		{"colliding labels", "field_schema: [number]", "field_schema: [number, code]",
			"both have the label"},
		{"bad value place", "label: \"No.\",", "label: \"No.\", value: above,", `value "above"`},
		{"no zone needs a side", ", zone: {side: front, x: 0.1, y: 0.1, w: 0.3, h: 0.1}", "", "without a zone, side"},
		{"no zone with a side", ", zone: {side: front, x: 0.1, y: 0.1, w: 0.3, h: 0.1}", ", side: front", ""},
		{"portrait without photo", "kind: id_card", "kind: id_card\nportrait: {mode: greyscale}", "no photo zone"},
		{"portrait mode", "kind: id_card", "kind: id_card\nphoto: {side: front, x: 0.5, y: 0.1, w: 0.3, h: 0.5}\nportrait: {mode: sepia}", `mode "sepia"`},
		{"portrait greyscale", "kind: id_card", "kind: id_card\nphoto: {side: front, x: 0.5, y: 0.1, w: 0.3, h: 0.5}\nportrait: {mode: greyscale}", ""},
		{"generic with mrz", "kind: id_card", "kind: id_card\nlayout: generic\nmrz: {format: TD1, document_code: I, zone: {side: front, x: 0.03, y: 0.62, w: 0.94, h: 0.34}}", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(good, tc.from, tc.to, 1)
			if tc.name == "colliding labels" {
				// A second field captioned like the first, after folding.
				src += "  - {name: code, label: \"NO\", type: number, pattern: '^[0-9]+$', side: front}\n"
			}
			require.NotEqual(t, good, src, "replacement did not apply")
			_, err := Parse([]byte(src))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// The generic definitions stand for any document of their MRZ format: every
// field they carry must come from that MRZ, or an unknown layout would leave
// it unread on every foreign document.
func TestGenericDefinitionsAreMRZBacked(t *testing.T) {
	want := map[string]string{"generic_passport": "TD3", "generic_id_card": "TD1", "generic_td2": "TD2",
		"generic_visa_a": "MRVA", "generic_visa_b": "MRVB"}
	// What a visa prints and its MRZ does not carry.
	visaPrintOnly := map[string]bool{"place_of_issue": true, "valid_from": true, "number_of_entries": true,
		"visa_number": true, "visa_type": true}
	for _, d := range Default().All() {
		if !d.Generic() {
			continue
		}
		t.Run(d.Config, func(t *testing.T) {
			format, ok := want[d.Config]
			require.True(t, ok, "a generic definition this test does not know")
			delete(want, d.Config)
			require.NotNil(t, d.MRZ)
			assert.Equal(t, format, d.MRZ.Format)
			assert.Equal(t, "UTO", d.Country)
			for _, f := range d.Fields {
				// The passport's place of birth, date of issue and
				// authority are not in a TD3 MRZ: they are read printed or
				// stay unread.
				if d.Config == "generic_passport" && (f.Name == "place_of_birth" || f.Name == "date_of_issue" || f.Name == "authority") {
					continue
				}
				if d.Kind == KindVisa && visaPrintOnly[f.Name] {
					continue
				}
				assert.NotEmpty(t, f.MRZ, "%s is not backed by the MRZ", f.Name)
			}
		})
	}
	assert.Empty(t, want, "generic definitions missing")
}

func TestGenericIDCardSchema(t *testing.T) {
	d, ok := Default().Definition("generic_id_card")
	require.True(t, ok)
	assert.Equal(t, []string{"document_type", "issuing_state", "document_number", "surname", "given_names",
		"nationality", "sex", "date_of_birth", "date_of_expiry"}, d.FieldSchema)
	assert.InDelta(t, 85.6/53.98, d.Size.Aspect(), 1e-9, "ID-1")
}

// A visa's definition: its MRZ format's size (ICAO 9303 part 7: MRV-A
// 120 x 80 mm, MRV-B 105 x 74 mm) and the fields of its visual zone, the
// MRZ backing the holder's, the passport's number and the visa's expiry.
func TestGenericVisaSchemas(t *testing.T) {
	schema := []string{"issuing_state", "place_of_issue", "valid_from", "valid_until", "number_of_entries", "visa_number",
		"visa_type", "surname", "given_names", "passport_number", "sex", "date_of_birth", "nationality"}
	for config, size := range map[string][2]float64{"generic_visa_a": {120, 80}, "generic_visa_b": {105, 74}} {
		d, ok := Default().Definition(config)
		require.True(t, ok, config)
		assert.Equal(t, KindVisa, d.Kind)
		assert.Equal(t, schema, d.FieldSchema, config)
		assert.Equal(t, size, [2]float64{d.Size.WidthMM, d.Size.HeightMM}, config)
		for name, mrz := range map[string]string{"passport_number": "document_number", "valid_until": "date_of_expiry",
			"surname": "surname", "date_of_birth": "date_of_birth"} {
			f, _ := d.Field(name)
			assert.Equal(t, mrz, f.MRZ, "%s %s", config, name)
		}
		// What no MRZ checks is taken only next to its caption: no zone
		// (a US immigrant visa's Birthplace stood in ICAO's type zone).
		for _, f := range d.Fields {
			if f.MRZ == "" {
				assert.False(t, f.HasZone(), "%s %s has a zone", config, f.Name)
				assert.NotEmpty(t, f.AllLabels(), "%s %s", config, f.Name)
			}
		}
		// The number of entries is a closed list: a count, M or S, the
		// word for multiple; not garbled print (ONS) or a caption.
		entries, _ := d.Field("number_of_entries")
		re := regexp.MustCompile(entries.Pattern)
		for v, want := range map[string]bool{"MULTIPLE": true, "MULTIPLE/MULTIPLES": true, "M": true, "2": true, "13": true,
			"ONS": false, "BIRTHPLACE": false, "0": false} {
			assert.Equal(t, want, re.MatchString(v), "%s entries %q", config, v)
		}
	}
}

// A caller picks the generic definition of the format of the MRZ its
// capture shows.
func TestGenericFor(t *testing.T) {
	all := Default().All()
	for format, want := range map[string][]string{
		"TD1": {"generic_id_card"}, "TD2": {"generic_td2"}, "TD3": {"generic_passport"},
		"MRVA": {"generic_visa_a"}, "MRVB": {"generic_visa_b"}, "XX": nil,
	} {
		var got []string
		for _, d := range GenericFor(all, format) {
			got = append(got, d.Config)
		}
		assert.Equal(t, want, got, format)
	}
}

// The synthetic corpora draw every definition but the visas, so their
// samples stay what they were before visas were defined.
func TestDrawnLeavesOutVisas(t *testing.T) {
	var got []string
	for _, d := range Default().Drawn() {
		got = append(got, d.Config)
	}
	assert.Len(t, got, len(Default().Configs())-2)
	assert.NotContains(t, got, "generic_visa_a")
	assert.NotContains(t, got, "generic_visa_b")
	assert.Contains(t, got, "generic_passport")
}

func TestDuplicateFieldNames(t *testing.T) {
	src := good + "  - {name: number, label: \"No.\", type: number, pattern: '^[0-9]+$', zone: {side: front, x: 0.5, y: 0.5, w: 0.3, h: 0.1}}\n"
	_, err := Parse([]byte(src))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "duplicate field name")
}

func TestLoadRequiresMatchingFileName(t *testing.T) {
	fsys := fstest.MapFS{"defs/other.yaml": {Data: []byte(good)}}
	_, err := Load(fsys, "defs")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must match the file name")
}

func TestLoadDirOverlaysEmbedded(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_card.yaml"), []byte(good), 0o600))
	r, err := LoadDir(dir)
	require.NoError(t, err)
	_, ok := r.Definition("test_card")
	assert.True(t, ok)
	_, ok = r.Definition("kenya_national_id")
	assert.True(t, ok, "embedded definitions stay available")
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	for _, d := range Default().Configs() {
		data, err := embedded.ReadFile("defs/" + d + ".yaml")
		if err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("config: [\n"))
	f.Add([]byte("&a [*a]"))
	re := regexp.MustCompile(`^[a-z][a-z0-9_]{2,63}$`)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		// Whatever parses must satisfy the invariants the rest relies on.
		if !re.MatchString(d.Config) || len(d.FieldSchema) == 0 {
			t.Fatalf("invalid definition accepted: %+v", d)
		}
		for _, name := range d.FieldSchema {
			if _, ok := d.Field(name); !ok {
				t.Fatalf("schema field %q without zone accepted", name)
			}
		}
	})
}
