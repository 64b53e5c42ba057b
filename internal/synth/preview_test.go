package synth

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tambua/tambua/docdefs"
)

// TestPreviewCards writes flat renders to $SYNTH_PREVIEW for eyeballing.
func TestPreviewCards(t *testing.T) {
	dir := os.Getenv("SYNTH_PREVIEW")
	if dir == "" {
		t.Skip("set SYNTH_PREVIEW to a folder to write previews")
	}
	r, err := newRenderer()
	if err != nil {
		t.Fatal(err)
	}
	faces, err := loadFaceSet(DefaultFacesDir)
	if err != nil {
		t.Fatal(err)
	}
	today := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for i, d := range docdefs.Default().All() {
		g := newRNG(uint64(i), 1)
		id, err := newIdentity(g, d, today, "M")
		if err != nil {
			t.Fatal(err)
		}
		face, _ := faces.load(faces.people[i%5], faces.photos[faces.people[i%5]][0])
		for _, side := range []string{"front", "back"} {
			start := time.Now()
			img, err := r.renderSide(d, side, sideInput{id: id, face: face, ghost: face, sigSeed: 5, pose: cardPortrait(g, face)})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s %v", d.Config, side, time.Since(start))
			f, _ := os.Create(filepath.Join(dir, d.Config+"_"+side+".png"))
			png.Encode(f, img)
			f.Close()
		}
	}
}
