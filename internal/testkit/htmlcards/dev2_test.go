package htmlcards

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
)

func TestNameCase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"WANJIKU NJERI KAMAU", "Wanjiku Njeri Kamau"},
		{"NDUNG'U", "Ndung'u"},
		{"O'NEILL", "O'Neill"},
		{"MUKURWE-INI", "Mukurwe-Ini"},
		{"JUAN D'SOUZA", "Juan D'Souza"},
	} {
		t.Run(tc.in, func(t *testing.T) { assert.Equal(t, tc.want, nameCase(tc.in)) })
	}
}

func TestLowerCase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"DATE OF BIRTH", "date of birth"},
		{"NIN", "NIN"},
		{"Namba ya Kitambulisho", "namba ya kitambulisho"},
		{"D.O.B.", "D.O.B."},
		{"VOTER ID NO.", "voter ID no."},
	} {
		t.Run(tc.in, func(t *testing.T) { assert.Equal(t, tc.want, lowerCase(tc.in)) })
	}
}

// TestDev2Draws: the arrangement draws give what docs/synth.md says of
// dev2: the photo at the right on about 70 % of ID-1 cards and never on
// the passport page, tables on about three cards in four; the looks
// letter-space about half the cards' captions, at 0.38 to 0.6 of the
// value.
func TestDev2Draws(t *testing.T) {
	reg := docdefs.Default()
	id1, _ := reg.Definition("ghana_voter_id")
	pp, _ := reg.Definition("generic_passport")
	r := rand.New(rand.NewPCG(3, 4))
	const n = 2000
	right, tables, spaced, ppRight := 0, 0, 0, 0
	for range n {
		lk := newLook(r, Dev2, id1)
		assert.GreaterOrEqual(t, lk.captionRatio, 0.38)
		assert.LessOrEqual(t, lk.captionRatio, 0.6)
		if lk.captionSpacing >= 0.1 {
			spaced++
		}
		a := drawArrangement(r, id1, lk, nil)
		if a.photoRight {
			right++
		}
		if a.mode == "table" {
			tables++
		}
		if drawArrangement(r, pp, newLook(r, Dev2, pp), nil).photoRight {
			ppRight++
		}
	}
	assert.InDelta(t, 0.7, float64(right)/n, 0.05)
	assert.InDelta(t, 0.75, float64(tables)/n, 0.05)
	assert.InDelta(t, 0.5, float64(spaced)/n, 0.05)
	assert.Zero(t, ppRight)
}

// TestFieldBlockFallsBackToTable: inline captions that would take most
// of the row, or rows that do not fit captions above values, are set as
// a table; a table keeps its pairs when a row each is too tall.
func TestFieldBlockFallsBackToTable(t *testing.T) {
	base := arrangement{line: 3, capLine: 1.5, gap: 1.5, tableGap: 0.5, capPx: 15, cardW: id1W,
		labels: map[string]string{"a": "SURNAME", "b": "GIVEN NAMES", "c": "SEX", "long": "DATE OF BIRTH / DATE DE NAISSANCE / GEBURTSDATUM"}}
	for _, tc := range []struct {
		name      string
		mode      string
		pairs     bool
		h         float64
		rows      [][]string
		wantMode  string
		wantRows  int
		wantClass string
	}{
		{"inline fits", "right", false, 30, [][]string{row("a"), row("b", "c")}, "right", 3, ""},
		{"inline caption too long", "right", false, 30, [][]string{row("long"), row("b", "c")}, "table", 3, ""},
		{"below fits", "below", false, 30, [][]string{row("a"), row("b", "c")}, "below", 2, ""},
		{"below too tall", "below", false, 11, [][]string{row("a"), row("b", "c")}, "table", 3, ""},
		{"table, a row each", "table", false, 30, [][]string{row("a"), row("b", "c")}, "table", 3, ""},
		{"table keeps pairs", "table", true, 30, [][]string{row("a"), row("b", "c")}, "table", 2, "two"},
		{"pairs when singles do not fit", "table", false, 8, [][]string{row("a"), row("b", "c")}, "table", 2, "two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := base
			a.mode, a.pairs = tc.mode, tc.pairs
			b := a.fieldBlock(0, 0, 55, tc.h, tc.rows...)
			assert.Equal(t, tc.wantMode, b.mode)
			assert.Len(t, b.rows, tc.wantRows)
			assert.Equal(t, tc.wantClass, b.cls)
		})
	}
}

// TestDev2EveryArrangement renders two more documents of every
// definition in dev2 (other arrangements than the style test's) and
// requires each to lay out without a layout error.
func TestDev2EveryArrangement(t *testing.T) {
	defs := docdefs.Default().Drawn()
	g := generator(t, Dev2, true)
	for i := len(defs); i < 3*len(defs); i++ {
		_, err := g.Sample(context.Background(), i)
		require.NoError(t, err, defs[i%len(defs)].Config)
	}
}
