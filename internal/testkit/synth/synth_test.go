package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/mrz"
)

func TestMRZCheckDigit(t *testing.T) {
	cases := []struct {
		in   string
		want byte
	}{
		{"L898902C3", '6'}, // ICAO 9303 part 4 specimen
		{"740812", '2'},
		{"120415", '9'},
		{"D23145890", '7'},
		{"<<<<<<<<<", '0'},
	}
	for _, c := range cases {
		if got := mrzCheck(c.in); got != c.want {
			t.Errorf("mrzCheck(%q) = %c, want %c", c.in, got, c.want)
		}
	}
}

// TestMRZMatchesVectors rebuilds every valid TD1, TD2 and TD3 specimen of
// the shared MRZ vectors from its fields and expects the printed lines
// character for character.
func TestMRZMatchesVectors(t *testing.T) {
	b, err := os.ReadFile(fixtures.Path(t, "mrz_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			ID             string   `json:"id"`
			Format         string   `json:"format"`
			Lines          []string `json:"lines"`
			DocumentCode   string   `json:"document_code"`
			IssuingState   string   `json:"issuing_state"`
			DocumentNumber string   `json:"document_number"`
			DateOfBirth    string   `json:"date_of_birth"`
			Expiry         string   `json:"expiry"`
			Sex            string   `json:"sex"`
			Nationality    string   `json:"nationality"`
			Surname        string   `json:"surname"`
			GivenNames     string   `json:"given_names"`
			Valid          bool     `json:"all_checks_valid"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range file.Vectors {
		if !v.Valid || (v.Format != idv.MRZTD1 && v.Format != idv.MRZTD2 && v.Format != idv.MRZTD3) {
			continue
		}
		t.Run(v.ID, func(t *testing.T) {
			dob, err1 := time.Parse("2006-01-02", v.DateOfBirth)
			exp, err2 := time.Parse("2006-01-02", v.Expiry)
			if err1 != nil || err2 != nil {
				t.Skip("vector without full dates")
			}
			d := mrzData{Format: v.Format, DocCode: v.DocumentCode, Issuer: v.IssuingState, Number: v.DocumentNumber,
				Nationality: v.Nationality, Surname: v.Surname, Given: v.GivenNames, Sex: v.Sex, DOB: dob, Expiry: exp}
			// optional data is not a field of the vectors: take it from the lines
			switch v.Format {
			case idv.MRZTD1:
				opt := v.Lines[0][15:30]
				if len(mrzText(v.DocumentNumber)) > 9 {
					opt = opt[strings.Index(opt, "<")+1:]
				}
				d.Optional, d.Optional2 = opt, v.Lines[1][18:29]
			case idv.MRZTD2:
				d.Optional = v.Lines[1][28:35]
			case idv.MRZTD3:
				d.Optional = v.Lines[1][28:42]
			}
			got, err := d.lines()
			if err != nil {
				t.Fatal(err)
			}
			// names longer than the line are cut by rules we do not model
			if len(mrzName(v.Surname, v.GivenNames, 200)) > len(v.Lines[len(v.Lines)-1]) {
				t.Skip("truncated name")
			}
			for i := range got {
				if got[i] != v.Lines[i] {
					t.Errorf("line %d\n got %s\nwant %s", i+1, got[i], v.Lines[i])
				}
			}
		})
		n++
	}
	if n < 20 {
		t.Fatalf("only %d vectors compared", n)
	}
}

// checkMRZ verifies every check digit of MRZ lines with positions written
// out independently of the generator.
func checkMRZ(t *testing.T, format string, lines []string) {
	t.Helper()
	type span struct {
		line, from, to, check int
	}
	var spans []span
	var composite func() string
	var compLine, compPos int
	switch format {
	case idv.MRZTD1:
		spans = []span{{0, 5, 14, 14}, {1, 0, 6, 6}, {1, 8, 14, 14}}
		composite = func() string { return lines[0][5:30] + lines[1][0:7] + lines[1][8:15] + lines[1][18:29] }
		compLine, compPos = 1, 29
	case idv.MRZTD2:
		spans = []span{{1, 0, 9, 9}, {1, 13, 19, 19}, {1, 21, 27, 27}}
		composite = func() string { return lines[1][0:10] + lines[1][13:20] + lines[1][21:35] }
		compLine, compPos = 1, 35
	case idv.MRZTD3:
		spans = []span{{1, 0, 9, 9}, {1, 13, 19, 19}, {1, 21, 27, 27}}
		composite = func() string { return lines[1][0:10] + lines[1][13:20] + lines[1][21:43] }
		compLine, compPos = 1, 43
	default:
		t.Fatalf("format %q", format)
	}
	digit := func(s string) byte { return byte('0' + mrz.CheckDigit(s)) }
	for _, s := range spans {
		if lines[s.line][s.check] == '<' && format == idv.MRZTD1 {
			continue // long document number, checked in the optional data
		}
		if got, want := lines[s.line][s.check], digit(lines[s.line][s.from:s.to]); got != want {
			t.Errorf("check digit of %q is %c, want %c", lines[s.line][s.from:s.to], got, want)
		}
	}
	if got, want := lines[compLine][compPos], digit(composite()); got != want {
		t.Errorf("composite check digit is %c, want %c", got, want)
	}
}

func TestLuhn(t *testing.T) {
	// 8001015009087 is the South African specimen identity number
	if got := luhn("800101500908"); got != 7 {
		t.Fatalf("luhn = %d, want 7", got)
	}
}

// TestTruthConsistency renders one sample of every definition and checks
// the truth against the definition: the combined keys are exactly the
// field schema, every value passes its pattern, dates are DD.MM.YYYY,
// MRZ check digits pass and the MRZ agrees with the printed fields.
func TestTruthConsistency(t *testing.T) {
	reg := docdefs.Default()
	gen := newTestGenerator(t, Options{Definitions: reg.Drawn(), Seed: 7, Difficulty: Easy})
	ctx := context.Background()
	for i, d := range reg.Drawn() {
		t.Run(d.Config, func(t *testing.T) {
			s, err := gen.Sample(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			tr := s.Truth
			if tr.Config != d.Config {
				t.Fatalf("config %s, want %s", tr.Config, d.Config)
			}
			if len(tr.Combined) != len(d.FieldSchema) {
				t.Errorf("combined has %d keys, schema %d", len(tr.Combined), len(d.FieldSchema))
			}
			dateRe := regexp.MustCompile(`^\d{2}\.\d{2}\.\d{4}$`)
			for _, name := range d.FieldSchema {
				v, ok := tr.Combined[name]
				if !ok || v == "" {
					t.Errorf("combined[%s] missing", name)
					continue
				}
				f, _ := d.Field(name)
				if f.Pattern != "" && !regexp.MustCompile(f.Pattern).MatchString(v) {
					t.Errorf("%s = %q does not match %s", name, v, f.Pattern)
				}
				if f.Type == idv.FieldDate && !dateRe.MatchString(v) {
					t.Errorf("%s = %q is not DD.MM.YYYY", name, v)
				}
				if f.Type == idv.FieldText && v != strings.ToUpper(v) {
					t.Errorf("%s = %q is not upper case", name, v)
				}
			}
			if d.MRZ == nil {
				if len(tr.MRZLines) != 0 || tr.MRZParsed != nil {
					t.Errorf("MRZ truth on a document without MRZ")
				}
				return
			}
			checkMRZ(t, d.MRZ.Format, tr.MRZLines)
			for _, f := range d.Fields {
				v := tr.Combined[f.Name]
				switch f.MRZ {
				case "date_of_birth", "date_of_expiry":
					iso := tr.MRZParsed[f.MRZ].(string)
					if want := iso[8:10] + "." + iso[5:7] + "." + iso[0:4]; v != want {
						t.Errorf("%s printed %s, MRZ %s", f.Name, v, iso)
					}
				case "document_number", "sex", "surname", "given_names", "nationality":
					if got := tr.MRZParsed[f.MRZ].(string); got != v {
						t.Errorf("%s printed %q, MRZ %q", f.Name, v, got)
					}
				}
			}
			if tr.MRZParsed["all_checks_pass"] != true {
				t.Errorf("all_checks_pass is not true")
			}
		})
	}
}

// TestEveryDefinitionRendersBothSides checks each side has the document's
// size and ink in every field zone and the MRZ and barcode zones.
func TestEveryDefinitionRendersBothSides(t *testing.T) {
	reg := docdefs.Default()
	gen := newTestGenerator(t, Options{Definitions: reg.Drawn(), Seed: 3, Difficulty: Easy})
	for i, d := range reg.Drawn() {
		t.Run(d.Config, func(t *testing.T) {
			s, err := gen.Sample(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			w, h := sideSize(d)
			for side, img := range map[string]*image.RGBA{"front": s.FrontCard, "back": s.BackCard} {
				if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
					t.Fatalf("%s is %v, want %dx%d", side, img.Bounds(), w, h)
				}
				var zones []idv.Zone
				for _, f := range d.Fields {
					if f.Zone.Side == side {
						zones = append(zones, f.Zone)
					}
				}
				if d.MRZ != nil && d.MRZ.Zone.Side == side {
					zones = append(zones, d.MRZ.Zone)
				}
				if d.Barcode != nil && d.Barcode.Zone.Side == side {
					zones = append(zones, d.Barcode.Zone)
				}
				for _, z := range zones {
					if dark := darkShare(img, z); dark < 0.01 {
						t.Errorf("%s zone %+v has %.3f dark pixels: nothing printed", side, z, dark)
					}
				}
			}
			for name, b := range map[string][]byte{"front": s.Front, "back": s.Back, "selfie": s.Selfie} {
				img, err := jpeg.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if long := max(img.Bounds().Dx(), img.Bounds().Dy()); long < 1200 || long > 1600 {
					t.Errorf("%s long edge %d", name, long)
				}
			}
		})
	}
}

// darkShare is the share of pixels in a zone darker than 110.
func darkShare(img *image.RGBA, z idv.Zone) float64 {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	x0, y0 := int(z.X*float64(w)), int(z.Y*float64(h))
	x1, y1 := int((z.X+z.W)*float64(w)), int((z.Y+z.H)*float64(h))
	n, dark := 0, 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			i := img.PixOffset(x, y)
			l := 0.299*float64(img.Pix[i]) + 0.587*float64(img.Pix[i+1]) + 0.114*float64(img.Pix[i+2])
			if l < 110 {
				dark++
			}
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(dark) / float64(n)
}

// TestQRDecodes reads the QR code of every definition that prints one back
// from the flat card and expects the truth's text.
func TestQRDecodes(t *testing.T) {
	reg := docdefs.Default()
	gen := newTestGenerator(t, Options{Definitions: reg.Drawn(), Seed: 5, Difficulty: Easy})
	found := 0
	for i, d := range reg.Drawn() {
		if d.Barcode == nil || d.Barcode.Kind != "qr" {
			continue
		}
		found++
		s, err := gen.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		img := s.BackCard
		if d.Barcode.Zone.Side == "front" {
			img = s.FrontCard
		}
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		z := d.Barcode.Zone
		crop := img.SubImage(image.Rect(int((z.X-0.03)*float64(w)), int((z.Y-0.03)*float64(h)), int((z.X+z.W+0.03)*float64(w)), int((z.Y+z.H+0.03)*float64(h))))
		bmp, err := gozxing.NewBinaryBitmapFromImage(crop)
		if err != nil {
			t.Fatal(err)
		}
		res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
		if err != nil {
			t.Fatalf("%s: QR does not decode: %v", d.Config, err)
		}
		if res.GetText() != s.Truth.Barcode.Text {
			t.Errorf("%s: QR says %q, truth %q", d.Config, res.GetText(), s.Truth.Barcode.Text)
		}
	}
	if found == 0 {
		t.Fatal("no definition prints a QR code")
	}
}

// TestDeterminism renders the same samples twice and expects identical
// bytes, and different bytes for another seed.
func TestDeterminism(t *testing.T) {
	defs := docdefs.Default().Drawn()
	a := newTestGenerator(t, Options{Definitions: defs, Seed: 11, Difficulty: Hard, Attacks: true})
	b := newTestGenerator(t, Options{Definitions: defs, Seed: 11, Difficulty: Hard, Attacks: true})
	c := newTestGenerator(t, Options{Definitions: defs, Seed: 12, Difficulty: Hard, Attacks: true})
	for _, i := range []int{1, 2} {
		sa, err := a.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := c.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(sa.Truth)
		jb, _ := json.Marshal(sb.Truth)
		jc, _ := json.Marshal(sc.Truth)
		if !bytes.Equal(sa.Front, sb.Front) || !bytes.Equal(sa.Back, sb.Back) || !bytes.Equal(sa.Selfie, sb.Selfie) || !bytes.Equal(ja, jb) {
			t.Errorf("sample %d differs between runs with the same seed", i)
		}
		if bytes.Equal(sa.Front, sc.Front) || bytes.Equal(ja, jc) {
			t.Errorf("sample %d is the same for seeds 11 and 12", i)
		}
	}
}

// TestAttacksDoWhatTheySay renders one sample of each attack kind and
// measures the property the label promises.
func TestAttacksDoWhatTheySay(t *testing.T) {
	defs := docdefs.Default().Drawn()
	gen := newTestGenerator(t, Options{Definitions: defs, Seed: 21, Difficulty: Easy, Attacks: true, AttackKindsUsed: AllAttackKinds})
	seen := map[string]bool{}
	for i := 0; i < 4*len(defs) && len(seen) < len(AllAttackKinds); i++ {
		kind := gen.AttackFor(i)
		if kind == "" || seen[kind] {
			continue
		}
		seen[kind] = true
		s, err := gen.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		if s.Truth.Attack == nil || *s.Truth.Attack != kind {
			t.Fatalf("sample %d: attack %v, want %s", i, s.Truth.Attack, kind)
		}
		t.Run(kind, func(t *testing.T) {
			front := decode(t, s.Front)
			switch kind {
			case AttackPrint, AttackScreen:
				if s.Truth.Capture.Selfie.Recapture == nil {
					t.Fatal("no recapture parameters")
				}
				// a print or screen held in the camera's view: the whole
				// frame is not the face scene; the sheet or device edge
				// leaves background around it
				if f := s.Truth.Capture.Selfie.Recapture.AreaFraction; f > 0.93 {
					t.Errorf("presented picture fills %.2f of the frame: no edge visible", f)
				}
			case AttackPhotoSwap:
				p := s.Truth.Person
				if p.CardPerson == p.Name || p.SelfiePerson != p.CardPerson || !s.Truth.SelfieSamePerson {
					t.Errorf("photo swap people: %+v", p)
				}
			case AttackEditedField, AttackEditedMRZ:
				field := s.Truth.AttackDetail["field"].(string)
				if s.Truth.Combined[field] == s.Truth.AttackDetail["original_value"] {
					t.Errorf("edited %s still reads the original", field)
				}
				if _, ok := s.Truth.AttackDetail["grade"].(string); !ok {
					t.Errorf("no grade in %v", s.Truth.AttackDetail)
				}
			case AttackPhotocopy:
				// inside the card the copy is grey: colour varies far less
				// than on the same document photographed clean (the light's
				// colour cast is uniform, so it does not count)
				clean, err := gen.Sample(context.Background(), i+len(defs))
				if err != nil || clean.Truth.Attack != nil {
					t.Fatalf("no clean twin: %v", err)
				}
				cp := quadChromaSpread(front, s.Truth.Capture.Front.Corners)
				cl := quadChromaSpread(decode(t, clean.Front), clean.Truth.Capture.Front.Corners)
				if cp > 0.5*cl {
					t.Errorf("photocopy colour spread %.2f, clean %.2f: not greyscale", cp, cl)
				}
			case AttackDocScreen, AttackColourPrint:
				// a panel's subpixels or a print's halftone dots: colour
				// that changes from one pixel to the next inside the card,
				// far more than on the same document photographed clean
				clean, err := gen.Sample(context.Background(), i+len(defs))
				if err != nil || clean.Truth.Attack != nil {
					t.Fatalf("no clean twin: %v", err)
				}
				if s.Truth.Capture.Front == nil || s.Truth.Capture.Back == nil {
					t.Fatal("a recaptured card is photographed on both sides")
				}
				rc := quadFineChroma(front, s.Truth.Capture.Front.Corners)
				cl := quadFineChroma(decode(t, clean.Front), clean.Truth.Capture.Front.Corners)
				t.Logf("fine colour texture %.2f, clean twin %.2f", rc, cl)
				if rc < 5*cl {
					t.Errorf("fine colour texture %.2f, clean %.2f: no screen or halftone visible", rc, cl)
				}
			case AttackScreenshot:
				if s.Truth.Capture.Front != nil {
					t.Error("screenshot has camera parameters")
				}
				b := front.Bounds()
				if b.Dx() != 738 || b.Dy() != 1600 {
					t.Errorf("screenshot is %v, want a 738x1600 phone screen", b)
				}
			}
		})
	}
	if len(seen) != len(AllAttackKinds) {
		t.Fatalf("saw attacks %v", seen)
	}
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// quadChromaSpread is the mean absolute deviation of the colour
// differences (R-G, G-B) over the middle of a quadrilateral.
func quadChromaSpread(img image.Image, c [4][2]float64) float64 {
	var rg, gb []float64
	for u := 0.2; u <= 0.8; u += 0.02 {
		for v := 0.2; v <= 0.8; v += 0.02 {
			top := [2]float64{c[0][0] + (c[1][0]-c[0][0])*u, c[0][1] + (c[1][1]-c[0][1])*u}
			bot := [2]float64{c[3][0] + (c[2][0]-c[3][0])*u, c[3][1] + (c[2][1]-c[3][1])*u}
			x, y := top[0]+(bot[0]-top[0])*v, top[1]+(bot[1]-top[1])*v
			r, g, b, _ := img.At(int(x), int(y)).RGBA()
			rg = append(rg, float64(r>>8)-float64(g>>8))
			gb = append(gb, float64(g>>8)-float64(b>>8))
		}
	}
	mad := func(xs []float64) float64 {
		m := 0.0
		for _, x := range xs {
			m += x
		}
		m /= float64(len(xs))
		d := 0.0
		for _, x := range xs {
			d += math.Abs(x - m)
		}
		return d / float64(len(xs))
	}
	return mad(rg) + mad(gb)
}

// quadFineChroma is the mean absolute change of R-G between neighbouring
// pixels over the middle of a quadrilateral: fine colour structure.
func quadFineChroma(img image.Image, c [4][2]float64) float64 {
	rg := func(x, y int) float64 {
		r, g, _, _ := img.At(x, y).RGBA()
		return float64(r>>8) - float64(g>>8)
	}
	sum, n := 0.0, 0
	for u := 0.2; u <= 0.8; u += 0.01 {
		for v := 0.2; v <= 0.8; v += 0.01 {
			top := [2]float64{c[0][0] + (c[1][0]-c[0][0])*u, c[0][1] + (c[1][1]-c[0][1])*u}
			bot := [2]float64{c[3][0] + (c[2][0]-c[3][0])*u, c[3][1] + (c[2][1]-c[3][1])*u}
			x, y := int(top[0]+(bot[0]-top[0])*v), int(top[1]+(bot[1]-top[1])*v)
			sum += math.Abs(rg(x+1, y)-rg(x, y)) + math.Abs(rg(x, y+1)-rg(x, y))
			n += 2
		}
	}
	return sum / float64(n)
}

// Every definition is once clean and once attacked in each run of
// 2*len(defs) samples, whether the number of definitions is even or odd.
func TestAttackScheduleAlternates(t *testing.T) {
	all := docdefs.Default().Drawn()
	for _, n := range []int{1, 2, 3, 12, 13} {
		gen := &Generator{opts: Options{Definitions: all[:n], Attacks: true}}
		for i := 0; i < 4*n; i++ {
			if (gen.AttackFor(i) == "") == (gen.AttackFor(i+n) == "") {
				t.Errorf("%d definitions: samples %d and %d of definition %d are both %q", n, i, i+n, i%n, gen.AttackFor(i))
			}
		}
	}
}

func TestAttackKindsUsedValidated(t *testing.T) {
	defs := docdefs.Default().Drawn()
	if _, err := New(Options{Definitions: defs, Attacks: true, AttackKindsUsed: []string{AttackDocScreen, "hologram_sticker"}}); err == nil || !strings.Contains(err.Error(), "hologram_sticker") {
		t.Errorf("unknown kind: %v", err)
	}
	gen := &Generator{opts: Options{Definitions: defs[:1], Attacks: true, AttackKindsUsed: []string{AttackColourPrint}}}
	for i := 0; i < 8; i++ {
		if k := gen.AttackFor(i); k != "" && k != AttackColourPrint {
			t.Errorf("sample %d: %s, want only %s", i, k, AttackColourPrint)
		}
	}
}

// TestEditedFieldMRZRecomputed: a forger who writes the MRZ again leaves
// one whose check digits pass and that carries the edited value; one who
// does not leaves the original value in it.
func TestEditedFieldMRZRecomputed(t *testing.T) {
	reg := docdefs.Default()
	d, ok := reg.Definition("ke_passport")
	if !ok {
		t.Fatal("no ke_passport")
	}
	for _, kind := range []string{AttackEditedField, AttackEditedMRZ} {
		t.Run(kind, func(t *testing.T) {
			gen := newTestGenerator(t, Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 5, Difficulty: Easy, Attacks: true, AttackKindsUsed: []string{kind}})
			checked := 0
			for i := 0; i < 12 && checked < 3; i++ {
				if gen.AttackFor(i) != kind {
					continue
				}
				s, err := gen.Sample(context.Background(), i)
				if err != nil {
					t.Fatal(err)
				}
				field := s.Truth.AttackDetail["field"].(string)
				f, _ := d.Field(field)
				if f.MRZ == "" {
					continue
				}
				checked++
				m, err := mrz.Parse(s.Truth.MRZLines, mrz.Options{})
				if err != nil || !m.AllChecksPass {
					t.Fatalf("MRZ %v: %v (checks pass %v)", s.Truth.MRZLines, err, m != nil && m.AllChecksPass)
				}
				got := fmt.Sprint(s.Truth.MRZParsed[f.MRZ])
				edited := s.Truth.Combined[field]
				if f.Type == idv.FieldDate {
					tm, _ := time.Parse("02.01.2006", edited)
					edited = tm.Format("2006-01-02")
				}
				if recomputed := got == edited; recomputed != (kind == AttackEditedMRZ) {
					t.Errorf("%s: MRZ %s holds %q, printed %q, recomputed %v", kind, f.MRZ, got, edited, recomputed)
				}
				if s.Truth.AttackDetail["mrz_recomputed"] != (kind == AttackEditedMRZ) {
					t.Errorf("mrz_recomputed %v", s.Truth.AttackDetail["mrz_recomputed"])
				}
				// a recomputed MRZ is reprinted by the forger: the lines it
				// changed, and only those
				rp, _ := s.Truth.AttackDetail["mrz_reprint"].(map[string]any)
				if (rp != nil) != (kind == AttackEditedMRZ) {
					t.Errorf("%s: mrz_reprint %v", kind, rp)
				}
				if rp != nil {
					lines, _ := rp["lines"].([]int)
					if len(lines) == 0 || len(lines) == len(s.Truth.MRZLines) {
						t.Errorf("reprinted lines %v of %d", rp["lines"], len(s.Truth.MRZLines))
					}
				}
			}
			if checked == 0 {
				t.Fatal("no MRZ-backed field was edited")
			}
		})
	}
}

// TestPhotoSwapMethods: swaps are made both ways, graded from subtle to
// obvious, and a digital one is saved upright at the editor's quality.
func TestPhotoSwapMethods(t *testing.T) {
	defs := docdefs.Default().Drawn()
	gen := newTestGenerator(t, Options{Definitions: defs, Seed: 9, Difficulty: Easy, Attacks: true, AttackKindsUsed: []string{AttackPhotoSwap}})
	methods, grades := map[string]int{}, map[string]int{}
	for i := 0; i < 4*len(defs); i++ {
		if gen.AttackFor(i) != AttackPhotoSwap {
			continue
		}
		s, err := gen.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := s.Truth.AttackDetail["method"].(string)
		methods[m]++
		grades[s.Truth.AttackDetail["grade"].(string)]++
		if m == SwapDigital && (s.Truth.Capture.Front.EXIFOrientation != 1 || s.Truth.AttackDetail["camera_jpeg_quality"] == nil) {
			t.Errorf("digital swap %d: orientation %d, detail %v", i, s.Truth.Capture.Front.EXIFOrientation, s.Truth.AttackDetail)
		}
		if s.Truth.AttackDetail["ghost_image_shows"] != "original_person" {
			t.Errorf("swap %d: ghost shows %v", i, s.Truth.AttackDetail["ghost_image_shows"])
		}
	}
	if methods[SwapPaste] == 0 || methods[SwapDigital] == 0 {
		t.Errorf("methods %v: want both", methods)
	}
	if grades[GradeSubtle] == 0 || grades[GradeObvious] == 0 {
		t.Errorf("grades %v: want subtle and obvious", grades)
	}
}
