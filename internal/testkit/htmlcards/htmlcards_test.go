package htmlcards

import (
	"context"
	"errors"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/mrz"
)

// generator starts a generator over every built-in definition, or skips
// when Chromium or the face photos are missing outside CI.
func generator(t *testing.T, s Style, flat bool) *Generator {
	t.Helper()
	defs := docdefs.Default().Drawn()
	g, err := New(context.Background(), Options{Definitions: defs, Style: s, Seed: 11, Difficulty: Easy, FlatOnly: flat})
	if err != nil && os.Getenv("CI") == "" {
		if errors.Is(err, ErrNoChromium) || strings.Contains(err.Error(), "face photos") {
			t.Skipf("skipping outside CI: %v", err)
		}
	}
	require.NoError(t, err)
	t.Cleanup(g.Close)
	return g
}

// fieldSide is the side a definition prints a field on.
func fieldSide(f idv.FieldDef) string {
	if f.Side != "" {
		return f.Side
	}
	return f.Zone.Side
}

// TestEveryDefinitionEveryStyle renders one document of every definition
// in each style and checks what a reader is scored against: every value
// fits its field's pattern and normalises to the truth, the MRZ's check
// digits pass and it agrees with the printed fields, every field is
// printed on its side with a caption the definition gives, nothing
// overlaps (the page reports it: Sample fails), and the styles place
// their fields differently: eval and dev2 each apart from dev. Each
// style is a subtest (-run 'TestEveryDefinitionEveryStyle/dev2$' renders
// only dev2); the comparisons run when both of their styles did.
func TestEveryDefinitionEveryStyle(t *testing.T) {
	defs := docdefs.Default().Drawn()
	placed := map[Style]map[string]map[string]FieldLayout{}
	for _, st := range Styles {
		t.Run(string(st), func(t *testing.T) {
			placed[st] = renderEveryDefinition(t, st, defs)
		})
	}
	for _, pair := range [][2]Style{{Dev, Eval}, {Dev, Dev2}} {
		a, b := placed[pair[0]], placed[pair[1]]
		if a == nil || b == nil {
			continue
		}
		for _, d := range defs {
			apart, n := meanApart(a[d.Config], b[d.Config])
			require.Positive(t, n, d.Config)
			assert.Greater(t, apart, 0.05, "%s: %s and %s place the fields alike", d.Config, pair[0], pair[1])
		}
	}
}

// renderEveryDefinition renders one flat document of every definition in
// style st, checks it, and returns where each definition's fields went.
func renderEveryDefinition(t *testing.T, st Style, defs []*idv.DocumentDefinition) map[string]map[string]FieldLayout {
	ctx := context.Background()
	g := generator(t, st, true)
	placed := map[string]map[string]FieldLayout{}
	for i, d := range defs {
		smp, err := g.Sample(ctx, i)
		require.NoError(t, err, "%s %s", st, d.Config)
		tr := smp.Truth
		placed[d.Config] = tr.Layout
		require.Equal(t, len(d.Sides), len(tr.Sides), d.Config)
		for _, f := range d.Fields {
			re := regexp.MustCompile(f.Pattern)
			v := tr.Printed[f.Name]
			assert.Truef(t, re.MatchString(tr.Combined[f.Name]) || !contains(d.FieldSchema, f.Name),
				"%s %s.%s: %q does not match %s", st, d.Config, f.Name, tr.Combined[f.Name], f.Pattern)
			if f.Fixed != "" {
				continue
			}
			norm, ok := ocr.Normalize(f, v)
			assert.Truef(t, ok, "%s %s.%s: printed %q does not normalise", st, d.Config, f.Name, v)
			assert.Equalf(t, tr.Combined[f.Name], norm, "%s %s.%s: printed %q", st, d.Config, f.Name, v)
			lay, ok := tr.Layout[f.Name]
			if assert.Truef(t, ok, "%s %s.%s is not printed", st, d.Config, f.Name) {
				assert.Equal(t, fieldSide(f), lay.Side, "%s %s.%s side", st, d.Config, f.Name)
				assert.Positive(t, lay.ValueBox[2], "%s %s.%s value box", st, d.Config, f.Name)
				assert.Truef(t, captionFromDefinition(f, lay.Label),
					"%s %s.%s: caption %q is not a spelling the definition gives", st, d.Config, f.Name, lay.Label)
			}
		}
		if d.MRZ != nil {
			m, err := mrz.Parse(tr.MRZLines, mrz.Options{Now: ReferenceDate})
			require.NoError(t, err, d.Config)
			assert.True(t, m.AllChecksPass, "%s %s: MRZ check digits %v", st, d.Config, tr.MRZLines)
			for _, f := range d.Fields {
				want := tr.Combined[f.Name]
				switch f.MRZ {
				case "document_number":
					assert.Equal(t, want, m.DocumentNumber, d.Config)
				case "date_of_birth":
					assert.Equal(t, want, isoToDots(m.DateOfBirth), d.Config)
				case "date_of_expiry":
					assert.Equal(t, want, isoToDots(m.DateOfExpiry), d.Config)
				case "sex":
					assert.Equal(t, want, m.Sex, d.Config)
				case "optional_data":
					assert.Equal(t, want, m.OptionalData, d.Config)
				}
			}
		}
	}
	return placed
}

// meanApart is how far, on average, the value boxes of the fields two
// renderings share lie apart (in shares of the side), and how many.
func meanApart(a, b map[string]FieldLayout) (float64, int) {
	sum, n := 0.0, 0
	for name, x := range a {
		if y, ok := b[name]; ok {
			sum += math.Hypot(x.ValueBox[0]-y.ValueBox[0], x.ValueBox[1]-y.ValueBox[1])
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func isoToDots(iso string) string {
	t, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return iso
	}
	return t.Format("02.01.2006")
}

// captionFromDefinition: the caption printed is one of the field's
// labels, or several joined by " / ", in any case, with or without a
// trailing colon.
func captionFromDefinition(f idv.FieldDef, caption string) bool {
	norm := func(s string) string { return strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(s), ":")) }
	all := map[string]bool{}
	for _, l := range f.AllLabels() {
		all[norm(l)] = true
	}
	if all[norm(caption)] {
		return true
	}
	for _, part := range strings.Split(caption, " / ") {
		if !all[norm(part)] {
			return false
		}
	}
	return true
}

// TestGenericLabelsAreTheDefinitions: every caption in genericLabels is
// one the definitions of its field list, in at least one generic
// definition.
func TestGenericLabelsAreTheDefinitions(t *testing.T) {
	reg := docdefs.Default()
	for field, langs := range genericLabels {
		for lang, caption := range langs {
			found := false
			for _, c := range []string{"generic_passport", "generic_id_card", "generic_td2"} {
				d, _ := reg.Definition(c)
				if f, ok := d.Field(field); ok && containsFold(f.AllLabels(), caption) {
					found = true
				}
			}
			assert.Truef(t, found, "%s %s: %q is in no generic definition", field, lang, caption)
		}
	}
}

// TestHolderValues draws many holders of every definition: values fit
// their patterns and MRZs parse with every check passing.
func TestHolderValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range docdefs.Default().Drawn() {
		for range 40 {
			h, err := newHolder(r, d, dateStyle(r.IntN(4)))
			require.NoError(t, err, d.Config)
			for _, f := range d.Fields {
				if f.Fixed != "" {
					continue
				}
				norm, ok := ocr.Normalize(f, h.printed[f.Name])
				require.Truef(t, ok, "%s.%s: %q", d.Config, f.Name, h.printed[f.Name])
				require.Equal(t, h.combined[f.Name], norm, "%s.%s", d.Config, f.Name)
			}
			if d.MRZ != nil {
				m, err := mrz.Parse(h.mrz, mrz.Options{Now: ReferenceDate})
				require.NoError(t, err)
				require.True(t, m.AllChecksPass, "%s %v", d.Config, h.mrz)
			}
		}
	}
}

// TestPhotograph: the corners reported are where the card is (the pixel
// at the centre of the reported outline is the card's, the corners are
// inside the frame) and easy keeps the card large.
func TestPhotograph(t *testing.T) {
	card := newSolid(1027, 648)
	for _, lv := range []Difficulty{Easy, Medium} {
		for i := range 6 {
			jpg, c, err := photograph(rand.New(rand.NewPCG(uint64(i), 9)), card, 38, lv)
			require.NoError(t, err)
			require.NotEmpty(t, jpg)
			for _, p := range c.Corners {
				assert.True(t, p[0] >= 0 && p[0] <= photoW && p[1] >= 0 && p[1] <= photoH, "%s corner %v", lv, p)
			}
			if lv == Easy {
				assert.GreaterOrEqual(t, c.Fill, 0.5, "easy fill")
				assert.LessOrEqual(t, math.Abs(c.TiltX), 5.0)
			}
		}
	}
}

func newSolid(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 200, 210, 190, 255
	}
	return img
}
