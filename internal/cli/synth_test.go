package cli

import (
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func TestSynthWritesSamples(t *testing.T) {
	fixtures.Need(t, synth.DefaultFacesDir, "dlib face photos (libdlib-dev)")
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "synth", "--out", dir, "--count", "2", "--seed", "7", "--difficulty", "easy", "--config", "ke_national_id", "--attacks")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "wrote 2 samples")
	for _, name := range []string{"00000_ke_national_id", "00001_ke_national_id"} {
		for _, f := range []string{"front.jpg", "back.jpg", "selfie.jpg", "truth.json"} {
			_, err := os.Stat(filepath.Join(dir, name, f))
			require.NoError(t, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "00000_ke_national_id", "truth.json"))
	require.NoError(t, err)
	var truth struct {
		Config   string            `json:"config"`
		Combined map[string]string `json:"combined"`
		MRZLines []string          `json:"mrz_lines"`
		Attack   *string           `json:"attack"`
	}
	require.NoError(t, json.Unmarshal(b, &truth))
	assert.Equal(t, "ke_national_id", truth.Config)
	assert.Len(t, truth.MRZLines, 3)
	assert.NotEmpty(t, truth.Combined["full_name"])
}

func TestSynthGallery(t *testing.T) {
	fixtures.Need(t, synth.DefaultFacesDir, "dlib face photos (libdlib-dev)")
	out := filepath.Join(t.TempDir(), "g.png")
	code, _, errOut := runCLI(t, "", "synth", "--gallery", out, "--count", "1", "--config", "ghana_voter_id")
	require.Equal(t, ExitOK, code, errOut)
	img := decodePNG(t, out)
	assert.Greater(t, img.Bounds().Dx(), 600)
}

// TestSynthVariantFlatGallery draws a held-out card flat and checks its
// truth names the family and where each field went.
func TestSynthVariantFlatGallery(t *testing.T) {
	fixtures.Need(t, synth.DefaultFacesDir, "dlib face photos (libdlib-dev)")
	dir := t.TempDir()
	out := filepath.Join(dir, "g.png")
	code, _, errOut := runCLI(t, "", "synth", "--gallery", out, "--flat", "--out", dir, "--count", "1", "--config", "ke_maisha_card", "--variant", "heldout")
	require.Equal(t, ExitOK, code, errOut)
	img := decodePNG(t, out)
	assert.Greater(t, img.Bounds().Dx(), 1000)
	b, err := os.ReadFile(filepath.Join(dir, "00000_ke_maisha_card", "truth.json"))
	require.NoError(t, err)
	var truth struct {
		Layout struct {
			Variant string `json:"variant"`
			Fields  map[string]struct {
				Side     string     `json:"side"`
				ValueBox [4]float64 `json:"value_box"`
			} `json:"fields"`
		} `json:"layout"`
	}
	require.NoError(t, json.Unmarshal(b, &truth))
	assert.Equal(t, "heldout", truth.Layout.Variant)
	sur, ok := truth.Layout.Fields["surname"]
	require.True(t, ok, "no surname in %+v", truth.Layout.Fields)
	assert.Equal(t, "front", sur.Side)
	assert.Greater(t, sur.ValueBox[2], 0.0)
}

func TestSynthBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"synth"},
		{"synth", "--out", t.TempDir(), "--difficulty", "extreme"},
		{"synth", "--out", t.TempDir(), "--config", "no_such_card"},
		{"synth", "--out", t.TempDir(), "--count", "-3"},
		{"synth", "--out", t.TempDir(), "stray"},
		{"synth", "--out", t.TempDir(), "--variant", "wobbly"},
		{"synth", "--out", t.TempDir(), "--flat"},
	} {
		code, _, errOut := runCLI(t, "", args...)
		assert.Equal(t, ExitBadInput, code, "%v: %s", args, errOut)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}
