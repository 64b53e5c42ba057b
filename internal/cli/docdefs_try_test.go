package cli

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/testkit/cardtest"
)

func TestDocdefsValidate(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("../../docdefs/defs/kenya_national_id.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kenya_national_id.yaml"), good, 0o644))
	code, out, _ := runCLI(t, "", "docdefs", "validate", dir)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "kenya_national_id.yaml: ok")

	// Two fields of the front captioned alike: refused, with the reason.
	bad := strings.Replace(string(good), `label: "ID NUMBER:"`, `label: "SERIAL NUMBER"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kenya_national_id.yaml"), []byte(bad), 0o644))
	code, out, _ = runCLI(t, "", "docdefs", "validate", dir)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, "both have the label")
}

func TestDocdefsTry(t *testing.T) {
	def, _ := docdefs.Default().Definition("kenya_national_id")
	r := rand.New(rand.NewPCG(7, 3))
	printed, truth := cardtest.Values(def, r)
	dir := t.TempDir()
	paths := map[string]string{}
	for _, side := range def.Sides {
		card, err := cardtest.Side(def, side, printed, cardtest.MRZ(def, truth), 10)
		if err != nil {
			t.Skipf("fonts: %v", err)
		}
		data, _, err := cardtest.Photo(card, cardtest.Scene{Width: 1600, Height: 1200, Fill: 0.75, Seed: 9, Quality: 90})
		require.NoError(t, err)
		paths[side] = filepath.Join(dir, side+".jpg")
		require.NoError(t, os.WriteFile(paths[side], data, 0o644))
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "", "docdefs", "try", "--config", "kenya_national_id", "--front", paths["front"], "--back", paths["back"], "--out", out)
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"front.png", "back.png", "result.json"} {
		_, err := os.Stat(filepath.Join(out, f))
		assert.NoError(t, err, f)
	}
	var res tryResult
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &res))
	// Most fields are found by their captions and read as printed; none
	// is read as something else.
	byLabel := 0
	for name, v := range res.Fields {
		if f, _ := def.Field(name); f.Fixed != "" || v == "" {
			continue
		}
		assert.Equal(t, truth[name], v, name)
		if res.Located[name].How == "label" {
			byLabel++
		}
	}
	assert.GreaterOrEqual(t, byLabel, 6, stdout)
}
