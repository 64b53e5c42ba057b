package ocr

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/cardtest"
)

func renderJPEG(tb testing.TB, def *idv.DocumentDefinition, side string, seed uint64, sc cardtest.Scene) ([]byte, map[string]string) {
	tb.Helper()
	printed, truth := cardtest.Values(def, rand.New(rand.NewPCG(seed, 3)))
	card, err := cardtest.Side(def, side, printed, cardtest.MRZ(def, truth), 10)
	if err != nil {
		tb.Skipf("fonts: %v", err)
	}
	sc.Seed = seed
	data, _, err := cardtest.Photo(card, sc)
	if err != nil {
		tb.Fatal(err)
	}
	return data, truth
}

func newCase(def *idv.DocumentDefinition, allowed []*idv.DocumentDefinition, front []byte) *idv.Case {
	c := idv.NewCase(map[string]idv.Image{idv.SlotFront: {Data: front}})
	c.Config, c.Definition, c.Allowed = def.Config, def, allowed
	return c
}

func pngBomb() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 30000)
	binary.BigEndian.PutUint32(ihdr[4:], 30000)
	ihdr[8] = 8
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], 13)
	b.Write(l[:])
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.BigEndian.PutUint32(l[:], crc32.ChecksumIEEE(chunk))
	b.Write(l[:])
	return b.Bytes()
}

func TestRunBadInput(t *testing.T) {
	// The caption reader: it tells another document from an unreadable one.
	k := New(WithLabelReader(true))
	defer k.Close()
	def, _ := docdefs.Default().Definition("kenya_national_id")
	other, _ := docdefs.Default().Definition("generic_passport")
	good, _ := renderJPEG(t, def, "front", 1, cardtest.Scene{Width: 1200, Height: 900, Fill: 0.75})
	var one bytes.Buffer
	_ = png.Encode(&one, image.NewGray(image.Rect(0, 0, 1, 1)))
	var bare bytes.Buffer
	_ = jpeg.Encode(&bare, image.NewGray(image.Rect(0, 0, 800, 600)), nil)
	passport, _ := renderJPEG(t, other, "front", 2, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75})
	ghanaDef, _ := docdefs.Default().Definition("ghana_voter_id")
	ghana, _ := renderJPEG(t, ghanaDef, "front", 3, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75})
	// The same card printed with captions in a language no label list
	// covers (Finnish): its title is there, its captions are not.
	finnish := *def
	finnish.Fields = append([]idv.FieldDef(nil), def.Fields...)
	for i, l := range map[int]string{0: "SARJANUMERO", 1: "HENKILONUMERO", 2: "NIMET", 3: "SYNTYMAAIKA", 4: "SUKUPUOLI", 5: "SYNTYMAPAIKKA", 6: "MYONTAMISPAIVA"} {
		finnish.Fields[i].Label = l
	}
	foreignLang, finnishTruth := renderJPEG(t, &finnish, "front", 4, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75})
	cases := []struct {
		name   string
		data   []byte
		status idv.Status
		reason string
	}{
		{"not an image", []byte("%PDF-1.4 not an image"), idv.StatusFailed, "image_not_decodable"},
		{"truncated jpeg", good[:len(good)/3], idv.StatusFailed, "image_not_decodable"},
		{"1x1", one.Bytes(), idv.StatusFailed, "image_too_small"},
		{"30000x30000 declared", pngBomb(), idv.StatusFailed, "image_too_large"},
		{"no card", bare.Bytes(), idv.StatusFailed, "card_not_found"},
		{"passport under an ID card config", passport, idv.StatusReview, "document_type_mismatch"},
		{"another card type under the config", ghana, idv.StatusReview, "document_type_mismatch"},
		// Its title says it is this card, so the values are looked for
		// where the definition puts them: read or not, never wrong.
		{"captions in another language", foreignLang, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCase(def, []*idv.DocumentDefinition{def}, tc.data)
			out, err := k.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if tc.status == "" {
				_, vals := c.Fields()
				for _, f := range def.Fields {
					if v := vals[f.Name]; v != "" && f.Fixed == "" && v != finnishTruth[f.Name] {
						t.Errorf("%s = %q, printed %q", f.Name, v, finnishTruth[f.Name])
					}
				}
				return
			}
			if out.Status != tc.status || len(out.Reasons) == 0 || out.Reasons[0] != tc.reason {
				t.Fatalf("outcome %+v, want %s %s", out, tc.status, tc.reason)
			}
			// Never a wrong field presented as read: whatever was filled
			// must be valid for its pattern.
			_, vals := c.Fields()
			for _, f := range def.Fields {
				if v := vals[f.Name]; v != "" && !validValue(f, v) {
					t.Errorf("%s = %q presented as read", f.Name, v)
				}
			}
		})
	}
}

func TestRunDetectsTypeAndCrossChecksMRZ(t *testing.T) {
	k := New()
	defer k.Close()
	reg := docdefs.Default()
	maisha, _ := reg.Definition("ke_maisha_card")
	kenya, _ := reg.Definition("kenya_national_id")
	passport, _ := reg.Definition("generic_passport")
	data, truth := renderJPEG(t, passport, "front", 5, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75, Angle: 178})
	c := newCase(kenya, []*idv.DocumentDefinition{kenya, maisha, passport}, data)
	// An MRZ whose check digits pass, with a date of birth that differs
	// from the printed one.
	iso := truth["date_of_birth"][6:10] + "-" + truth["date_of_birth"][3:5] + "-" + truth["date_of_birth"][0:2]
	wrong := "1901-01-01"
	c.SetMRZ(&idv.MRZData{Format: idv.MRZTD3, DocumentNumber: truth["passport_number"], DateOfBirth: wrong, Sex: truth["sex"],
		Surname: truth["surname"], GivenNames: truth["given_names"], AllChecksPass: true})
	out, err := k.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if c.DocumentType() != "generic_passport" {
		t.Fatalf("document type %q", c.DocumentType())
	}
	schema, vals := c.Fields()
	if len(schema) != len(passport.FieldSchema) || len(vals) != len(schema) {
		t.Fatalf("schema %v values %v", schema, vals)
	}
	if vals["date_of_birth"] != truth["date_of_birth"] {
		t.Errorf("printed date of birth overwritten: %q (truth %q, mrz %s)", vals["date_of_birth"], truth["date_of_birth"], iso)
	}
	q, _ := ValueQuality.Get(c)
	if !q.MRZTrusted || len(q.Conflicts) != 1 || q.Conflicts[0] != "date_of_birth" {
		t.Errorf("quality %+v", q)
	}
	if out.Status != idv.StatusReview || out.Reasons[0] != "mrz_field_conflict" {
		t.Errorf("outcome %+v", out)
	}
	for _, name := range []string{idv.ImageFrontRectified, idv.ImageIDPhoto} {
		if _, ok := c.Derived(name); !ok {
			t.Errorf("no derived %s", name)
		}
	}
}

func TestRunTrustsMRZReadFromCard(t *testing.T) {
	k := New()
	defer k.Close()
	def, _ := docdefs.Default().Definition("ke_passport")
	data, truth := renderJPEG(t, def, "front", 11, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75, Angle: 90, Tilt: 0.02})
	c := newCase(def, []*idv.DocumentDefinition{def}, data)
	out, err := k.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ValueQuality.Get(c)
	if !q.MRZTrusted || q.Agreement != 1 || len(q.Conflicts) != 0 {
		t.Errorf("quality %+v, want a trusted, agreeing MRZ", q)
	}
	if out.Status != idv.StatusPassed {
		t.Errorf("outcome %+v", out)
	}
	_, vals := c.Fields()
	for _, n := range def.FieldSchema {
		if vals[n] != truth[n] {
			t.Errorf("%s = %q, want %q", n, vals[n], truth[n])
		}
	}
	if txt, _ := ValueMRZText.Get(c); txt == "" {
		t.Error("no MRZ text left on the case")
	}
}
