package ocr

import (
	"context"
	"image"
	"image/draw"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/stretchr/testify/assert"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/cardtest"
	"github.com/tambua/tambua/vision"
)

func TestAnyDate(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	birth := field(t, "generic_passport", "date_of_birth")
	expiry := field(t, "generic_passport", "date_of_expiry")
	cases := []struct {
		raw, want string
		expiry    bool
	}{
		{raw: "22.06.1969", want: "22.06.1969"},
		{raw: "25.12.1982.", want: "25.12.1982"},
		{raw: "1960-02-08", want: "08.02.1960"},
		{raw: "1960.02.08", want: "08.02.1960"},
		{raw: "01 JAN 1976", want: "01.01.1976"},
		{raw: "12 AUG/AOUT 74", want: "12.08.1974"},
		{raw: "12 AUGUST AOUT 74", want: "12.08.1974"},
		{raw: "03 MAR 05", want: "03.03.2005"},
		{raw: "15 APR/AVR 12", want: "15.04.2012", expiry: true},
		// The national month first, one letter from another English
		// month (Ukrainian СЕР, August, read CEP): the English one rules.
		{raw: "24 CEP/AUG 91", want: "24.08.1991"},
		{raw: "25 BEP SEP 13", want: "25.09.2013", expiry: true},
		{raw: "12 08 1964", want: "12.08.1964"},
		{raw: "O1.07.2009", want: "01.07.2009"},
		{raw: "12081964", want: "12.08.1964"},
		// Not a calendar date, or not a date at all.
		{raw: "31.02.1990", want: ""},
		{raw: "SPECIMEN", want: ""},
		{raw: "5622/0612", want: ""},
		{raw: "", want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			f := birth
			if tc.expiry {
				f = expiry
			}
			assert.Equal(t, tc.want, anyDate(tc.raw, f, now))
		})
	}
}

// glyphPage draws lines of glyph-like blocks h px tall (and specks of
// noise that stand alone) on white.
func glyphPage(h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 600, 400))
	for i := range g.Pix {
		g.Pix[i] = 240
	}
	for line := 0; line < 4; line++ {
		y0 := 40 + line*3*h
		for k := 0; 30+(k+1)*h <= 580; k++ {
			x0 := 30 + k*(h*2/3+h/3)
			for y := y0; y < y0+h; y++ {
				for x := x0; x < x0+h*2/3; x++ {
					// An O: a ring, not a solid block.
					if x-x0 < 2 || x0+h*2/3-x <= 2 || y-y0 < 2 || y0+h-y <= 2 {
						g.Pix[y*g.Stride+x] = 20
					}
				}
			}
		}
	}
	for k := 0; k < 30; k++ {
		x, y := 20+k*19, 380
		g.Pix[y*g.Stride+x] = 0
	}
	return g
}

func TestGlyphHeightAndScale(t *testing.T) {
	assert.Equal(t, 12, glyphHeight(glyphPage(12)))
	assert.InDelta(t, 22.0/12, pageScale(glyphPage(12), 0), 1e-9)
	assert.Equal(t, 30, glyphHeight(glyphPage(30)))
	assert.Equal(t, 1.0, pageScale(glyphPage(30), 0))
	// Small on the side but not in the capture: sharp, read as it is.
	assert.Equal(t, 1.0, pageScale(glyphPage(12), 1))
	assert.InDelta(t, 22.0/12, pageScale(glyphPage(12), 0.4), 1e-9)
	// Tiny print: the scale is bounded.
	assert.Equal(t, maxPageScale, pageScale(glyphPage(8), 0.4))
	// A blank page says nothing.
	assert.Equal(t, 0, glyphHeight(image.NewGray(image.Rect(0, 0, 100, 100))))
	assert.Equal(t, 1.0, pageScale(image.NewGray(image.Rect(0, 0, 100, 100)), 0.4))
}

func TestUpscaledAndUnscale(t *testing.T) {
	g := glyphPage(12)
	u := upscaled(g, 1.5)
	assert.Equal(t, image.Rect(0, 0, 900, 600), u.Bounds())
	ws := []word{{box: image.Rect(30, 60, 90, 81)}}
	unscaleWords(ws, 1.5)
	assert.Equal(t, image.Rect(20, 40, 60, 54), ws[0].box)
}

// flatten lifts a tinted block to paper and keeps the ink on it dark.
func TestFlattenTint(t *testing.T) {
	g := glyphPage(14)
	// A grey block over the right half, as a tint printed on the page.
	for y := 0; y < 400; y++ {
		for x := 300; x < 600; x++ {
			g.Pix[y*g.Stride+x] = max(g.Pix[y*g.Stride+x]/2, 20)
		}
	}
	f := flatten(g)
	paperIn := f.Pix[200*f.Stride+450]
	inkIn := f.Pix[40*f.Stride+30+25*(14*2/3+14/3)+4] // a ring's top edge in the tinted half
	assert.Greater(t, int(paperIn), 200, "tint not lifted")
	assert.Less(t, int(inkIn), 120, "ink lost")
}

func TestGenericLayoutChecks(t *testing.T) {
	d, _ := docdefs.Default().Definition("generic_passport")
	pg := &page{w: 1000, h: 700, words: []word{
		{box: image.Rect(300, 100, 420, 120), text: "Name", conf: 90},
		{box: image.Rect(430, 100, 560, 120), text: "Surname", conf: 90},
		{box: image.Rect(300, 130, 360, 160), text: "LIN,", conf: 90},
		{box: image.Rect(375, 130, 480, 160), text: "MEI-HUA", conf: 90},
		{box: image.Rect(300, 300, 420, 330), text: "REPUBLIC", conf: 90},
		{box: image.Rect(430, 300, 460, 330), text: "OF", conf: 90},
		{box: image.Rect(470, 300, 560, 330), text: "CHINA", conf: 90},
		{box: image.Rect(300, 400, 350, 430), text: "POL", conf: 90},
		{box: image.Rect(100, 600, 130, 620), text: "2a.", conf: 90},
		{box: image.Rect(140, 600, 260, 620), text: "Grewsst", conf: 90},
		{box: image.Rect(300, 600, 340, 620), text: "12.", conf: 90},
	}}
	ly := newLayout(pg, d, "front")
	assert.False(t, ly.wholeRun(image.Rect(428, 298, 462, 332)), "OF of REPUBLIC OF CHINA")
	assert.True(t, ly.wholeRun(image.Rect(298, 398, 352, 432)))
	assert.False(t, ly.wholeRun(image.Rect(298, 298, 422, 332)), "REPUBLIC of REPUBLIC OF CHINA")
	assert.True(t, ly.wholeRun(image.Rect(298, 298, 422, 332), image.Rect(428, 298, 562, 332)), "REPUBLIC before OF CHINA, another field's value")
	s, g, ok := ly.commaSplit(image.Rect(298, 128, 482, 162))
	assert.True(t, ok)
	assert.Equal(t, "LIN", s)
	assert.Equal(t, "MEI-HUA", g)
	_, _, ok = ly.commaSplit(image.Rect(298, 298, 562, 332))
	assert.False(t, ok)
	assert.True(t, ly.numberedCaption(image.Rect(0, 590, 400, 640)))
	assert.False(t, ly.numberedCaption(image.Rect(298, 298, 562, 332)))
	assert.True(t, ly.captionWordStart("SURNA"))
	assert.False(t, ly.captionWordStart("ERIKSSON"))
	assert.False(t, ly.captionWordStart("SURNAME"), "a whole caption word is not a fragment (captionWords says it)")

	rs := map[string]fieldRead{
		"nationality":   {box: image.Rect(428, 298, 462, 332), value: "OF", valid: true},
		"issuing_state": {box: image.Rect(298, 398, 352, 432), value: "POL", valid: true},
		"surname":       {box: image.Rect(298, 128, 482, 162), value: "LIN MEI-HUA", valid: true},
		"given_names":   {box: image.Rect(298, 128, 482, 162), value: "LIN MEI-HUA", valid: true},
	}
	genericChecks(d, ly, rs)
	assert.False(t, rs["nationality"].valid)
	assert.Equal(t, "", rs["nationality"].value)
	assert.Equal(t, "POL", rs["issuing_state"].value)
	assert.Equal(t, "LIN", rs["surname"].value)
	assert.Equal(t, "MEI-HUA", rs["given_names"].value)
}

// A passport page whose small captions were all lost: the place of
// birth is the name line after the date of birth (the sex on a line of
// its own passed over), the authority the one after the date of issue.
// Without the date it follows read, neither is guessed.
func TestGenericPlacesByOrder(t *testing.T) {
	d, _ := docdefs.Default().Definition("generic_passport")
	w := printed(16, 28)
	words := []word{
		w(457, 120, "AB0433181"), w(457, 190, "DUBOIS"), w(457, 260, "CLAIRE"), w(457, 330, "14.07.1962"),
		w(457, 400, "F"), w(457, 470, "UTOPIA"), w(570, 470, "CITY"), w(457, 540, "02.12.2021"), w(845, 540, "01.12.2031"),
		w(457, 610, "PASSPORT"), w(600, 610, "OFFICE"), w(710, 610, "ZENITH"),
	}
	for _, tc := range []struct {
		name       string
		dates      bool
		place, out string
	}{{"dates read", true, "UTOPIA CITY", "PASSPORT OFFICE ZENITH"}, {"dates not read", false, "", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			ly := newLayout(&page{words: words, w: 1500, h: 1000}, d, "front")
			rs := map[string]fieldRead{}
			if tc.dates {
				rs["date_of_birth"] = fieldRead{box: words[3].box, valid: true, value: "14.07.1962", how: "chronology", conf: 95}
				rs["date_of_issue"] = fieldRead{box: words[7].box, valid: true, value: "02.12.2021", how: "chronology", conf: 95}
			}
			var k Check
			if err := k.genericPlaces(context.Background(), d, nil, ly, rs); err != nil {
				t.Fatal(err)
			}
			if got := rs["place_of_birth"].value; got != tc.place {
				t.Errorf("place_of_birth = %q, want %q", got, tc.place)
			}
			if got := rs["authority"].value; got != tc.out {
				t.Errorf("authority = %q, want %q", got, tc.out)
			}
		})
	}
}

// The MRZ's top: the highest line with fillers, and over it a line of
// the MRZ whose fillers were read as letters; not a value line above it,
// nor a line of lower-case words.
func TestMRZTop(t *testing.T) {
	mrz2 := word{box: image.Rect(71, 940, 1430, 974), text: "MFCTT6<<<7UTO7008278M2802208<<<<<<<<<<<<<<8", conf: 80}
	misread := []word{{box: image.Rect(71, 876, 556, 910), text: "PCUTOPETROVCKKOF", conf: 1}, {box: image.Rect(574, 877, 621, 910), text: "I<", conf: 38},
		{box: image.Rect(662, 876, 808, 910), text: "OHANK", conf: 44}, {box: image.Rect(819, 879, 1430, 906), text: "KKKKEKEEEEEEEEEE", conf: 0}}
	value := word{box: image.Rect(500, 668, 850, 706), text: "2018", conf: 96}
	cases := []struct {
		name  string
		words []word
		want  int
	}{
		{"no MRZ", []word{value}, 1264},
		{"an MRZ line read with its fillers", []word{value, mrz2}, 940},
		{"a line above it read with its fillers as letters", append([]word{value, mrz2}, misread...), 876},
		{"a value line right above it", []word{value, mrz2, {box: image.Rect(71, 900, 400, 930), text: "RIVERTON", conf: 90}}, 940},
		{"lower-case words above it", []word{value, mrz2, {box: image.Rect(71, 900, 1430, 930), text: "Signature", conf: 90}}, 940},
	}
	for _, tc := range cases {
		ly := &layout{pg: &page{words: tc.words, w: 1500, h: 1264}}
		if got := ly.mrzTop(); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A passport page whose captions were all lost, read by the order of
// its data zone: the number has six letters and digits and more (not six
// letters of a caption's key, which keeps only digits that look like
// letters: TN6009357 had five), the date of birth comes three lines after
// the given names (nationality and sex between), a speck at the
// portrait's edge read as i is no line of the zone, one read as a on the
// given names' line is not part of them, and one read as 4 on the
// surname's line does not make it no name's.
func TestGenericOrder(t *testing.T) {
	d, _ := docdefs.Default().Definition("generic_passport")
	w := printed(16, 26)
	words := []word{
		w(904, 224, "UTO"), w(903, 277, "TN6009357"), w(904, 331, "ERIKSSON"), w(904, 384, "ELENA"), w(1000, 384, "EVA"),
		w(904, 437, "UTO"), w(904, 490, "F"), {box: image.Rect(99, 507, 105, 527), text: "i", conf: 41},
		{box: image.Rect(366, 386, 390, 410), text: "a", conf: 70}, {box: image.Rect(1300, 333, 1316, 357), text: "4", conf: 70},
		w(905, 544, "19"), w(950, 544, "OCT"), w(1010, 544, "1971"), w(903, 597, "WESTBROOK"),
	}
	ly := newLayout(&page{words: words, w: 1500, h: 1264}, d, "front")
	card := &vision.Card{Image: image.NewNRGBA(image.Rect(0, 0, 1500, 1264))}
	rs := map[string]fieldRead{}
	k := New(WithWorkers(1))
	if err := k.genericOrder(context.Background(), d, card, ly, rs); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"passport_number": "TN6009357", "surname": "ERIKSSON", "given_names": "ELENA EVA", "date_of_birth": "19.10.1971"} {
		if got := rs[f].value; got != want {
			t.Errorf("%s = %q (%s), want %q", f, got, rs[f].raw, want)
		}
	}
}

// A number the page reading split in two overlapping words (SN24445, and
// S73 of SN2444573, the 5 read twice) is read again whole in its box.
func TestGenericOrderSplitNumber(t *testing.T) {
	d, _ := docdefs.Default().Definition("generic_passport")
	img := image.NewNRGBA(image.Rect(0, 0, 1500, 1264))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	face := testFace(t, cardtest.FontBold, 36)
	dr := font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fixed.P(810, 278)}
	dr.DrawString("SN2444573")
	// The page reading's two words: SN24445 and 573, the 5 in both.
	x7, x6 := 810+dr.MeasureString("SN24445").Ceil(), 810+dr.MeasureString("SN2444").Floor()
	end := dr.Dot.X.Ceil()
	w := printed(16, 26)
	words := []word{
		{box: image.Rect(808, 250, x7, 280), text: "SN24445,", conf: 44}, {box: image.Rect(x6, 250, end, 280), text: "S73", conf: 59},
		w(810, 331, "NOVAK"), w(810, 384, "MARCO"), w(810, 437, "UTO"),
	}
	ly := newLayout(&page{words: words, w: 1500, h: 1264}, d, "front")
	rs := map[string]fieldRead{}
	k := New(WithWorkers(1))
	if err := k.genericOrder(context.Background(), d, &vision.Card{Image: img}, ly, rs); err != nil {
		t.Fatal(err)
	}
	if got := rs["passport_number"].value; got != "SN2444573" {
		t.Errorf("passport_number = %q (%s), want SN2444573", got, rs["passport_number"].raw)
	}
}

// A document number placed weakly (a caption found loosely) that holds no
// digit is a word of the page (LATVIJA right of the Latvian page's
// DOKUMENTS) and is not presented; one read next to its own caption is
// kept whatever it holds, and a weakly placed one with digits is kept.
func TestGenericNumberWithoutDigits(t *testing.T) {
	d, _ := docdefs.Default().Definition("generic_passport")
	pg := &page{w: 1000, h: 700, words: []word{{box: image.Rect(300, 100, 420, 120), text: "LATVIJA", conf: 90}}}
	ly := newLayout(pg, d, "front")
	for _, tc := range []struct {
		how, value string
		keep       bool
	}{
		{"loose", "LATVIJA", false},
		{"zone", "LATVIJA", false},
		{"label", "LATVIJA", true},
		{"loose", "LT000000", true},
	} {
		rs := map[string]fieldRead{"passport_number": {box: image.Rect(298, 98, 422, 122), how: tc.how, value: tc.value, valid: true}}
		genericChecks(d, ly, rs)
		assert.Equal(t, tc.keep, rs["passport_number"].valid, "%s %s", tc.how, tc.value)
	}
}
