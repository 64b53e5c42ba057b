package ocr

import (
	"image"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	mrzpkg "github.com/tambua/tambua/mrz"
	"github.com/tambua/tambua/vision"
)

// mrzBox is the reader's box of an MRZ of width characters drawn at
// pxmm pixels a mm, centred on cx, its foot at bottom (reader.go: from a
// pitch before the first character's centre to half a pitch past the
// last one's edge, width+1 pitches).
func mrzBox(width int, pxmm, cx, bottom, height float64) image.Rectangle {
	w := float64(width+1) * mrzPitchMM * pxmm
	return image.Rect(int(math.Round(cx-w/2)), int(math.Round(bottom-height)), int(math.Round(cx+w/2)), int(math.Round(bottom)))
}

func near(t *testing.T, want, got vision.Point, tol float64, what string) {
	t.Helper()
	assert.InDelta(t, want.X, got.X, tol, "%s x", what)
	assert.InDelta(t, want.Y, got.Y, tol, "%s y", what)
}

// A document placed by its MRZ alone: a passport page scanned to its
// edges at 10 px/mm, read upright, upside down and turned a quarter; a
// card's back with its front scanned above it; and an MRZ of another
// format than the definition's, which places nothing.
func TestPlaceByMRZ(t *testing.T) {
	pass, ok := docdefs.Default().Definition("generic_passport")
	require.True(t, ok)
	card, ok := docdefs.Default().Definition("generic_id_card")
	require.True(t, ok)
	const px = 10.0 // px/mm
	// TD3 page 1250 x 880; its MRZ band's foot where the definition's
	// zone ends (0.98 of the height).
	box := mrzBox(44, px, 625, 0.98*880, 150)
	page := image.Rect(0, 0, 1250, 880)
	corners := vision.Quad{{X: 0, Y: 0}, {X: 1250, Y: 0}, {X: 1250, Y: 880}, {X: 0, Y: 880}}
	for _, tc := range []struct {
		rot    int
		bounds image.Rectangle
		want   vision.Quad
	}{
		{0, page, corners},
		// Upside down: the document's top-left is the capture's
		// bottom-right.
		{180, page, vision.Quad{corners[2], corners[3], corners[0], corners[1]}},
		// Read after turning the capture a quarter clockwise: the
		// capture is 880 wide, the document's top-left at its bottom-left.
		{90, image.Rect(0, 0, 880, 1250), vision.Quad{{X: 0, Y: 1250}, {X: 0, Y: 0}, {X: 880, Y: 0}, {X: 880, Y: 1250}}},
	} {
		pl, ok := placeByMRZ(&mrzpkg.Reading{Format: mrzpkg.TD3, Box: box, Rotation: tc.rot}, pass, tc.bounds)
		require.True(t, ok, "rotation %d", tc.rot)
		for i := range tc.want {
			near(t, tc.want[i], pl.mrzSide[i], 4, "corner")
		}
		assert.Nil(t, pl.other, "a passport page has no other side to place")
	}

	// A TD1 card's back at the foot of an 856 x 1140 scan, its front
	// above it: the back spans the width, the front is a card's height
	// above it with a gap of at most a tenth of the card.
	cardH := card.Size.HeightMM * px
	back := mrzBox(30, px, 428, 1140-(1-0.96)*cardH, 120)
	pl, ok := placeByMRZ(&mrzpkg.Reading{Format: mrzpkg.TD1, Box: back}, card, image.Rect(0, 0, 856, 1140))
	require.True(t, ok)
	near(t, vision.Point{X: 0, Y: 1140 - cardH}, pl.mrzSide[0], 4, "back top-left")
	near(t, vision.Point{X: 856, Y: 1140}, pl.mrzSide[2], 4, "back bottom-right")
	require.NotNil(t, pl.other)
	gap := 0.1 * cardH
	near(t, vision.Point{X: 0, Y: 1140 - 2*cardH - gap}, pl.other[0], 4, "front top-left")
	near(t, vision.Point{X: 856, Y: 1140 - cardH - gap}, pl.other[2], 4, "front bottom-right")

	// The same back alone: no room for another side.
	pl, ok = placeByMRZ(&mrzpkg.Reading{Format: mrzpkg.TD1, Box: mrzBox(30, px, 428, 540-(1-0.96)*cardH, 120)}, card, image.Rect(0, 0, 856, 540))
	require.True(t, ok)
	assert.Nil(t, pl.other)

	// A visa's MRZ, or a passport's read as a card: no document of the
	// definition's format is there.
	_, ok = placeByMRZ(&mrzpkg.Reading{Format: mrzpkg.MRVA, Box: box}, pass, page)
	assert.False(t, ok)
	_, ok = placeByMRZ(&mrzpkg.Reading{Format: mrzpkg.TD3, Box: box}, card, page)
	assert.False(t, ok)
}
