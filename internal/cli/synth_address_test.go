package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSynthAddress(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "synth", "address", "--out", dir, "--n", "3", "--seed", "5", "--families", "heldout")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "wrote 3 documents")
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	require.NoError(t, err)
	var truth []addressTruth
	require.NoError(t, json.Unmarshal(b, &truth))
	require.Len(t, truth, 3)
	for _, tr := range truth {
		data, err := os.ReadFile(filepath.Join(dir, tr.File))
		require.NoError(t, err, tr.File)
		assert.Equal(t, "heldout", tr.Family)
		assert.NotEmpty(t, tr.Decision)
		if tr.Format == "photo" {
			assert.Equal(t, []byte{0xff, 0xd8}, data[:2], "%s is a JPEG", tr.File)
		} else {
			assert.Equal(t, "%PDF-", string(data[:5]), "%s is a PDF", tr.File)
		}
	}
	for _, bad := range [][]string{{"synth", "address"}, {"synth", "address", "--out", dir, "--families", "nope"}, {"synth", "address", "--out", dir, "--n", "0"}} {
		code, _, _ := runCLI(t, "", bad...)
		assert.Equal(t, ExitBadInput, code, "%v", bad)
	}
}
