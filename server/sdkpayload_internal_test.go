package server

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSDKPayloadGolden decodes a submitVerification payload the
// TypeScript SDK core compressed (sdk/test/core.test.mjs writes the file
// with UPDATE=1 and checks its own output against it byte for byte), so
// the SDK's raw deflate and base64 and the server's decoder are held to
// one file from both sides.
func TestSDKPayloadGolden(t *testing.T) {
	raw, err := os.ReadFile("../sdk/test/testdata/payload.json")
	require.NoError(t, err)
	var golden struct {
		Payload map[string]string `json:"payload"`
		Wire    string            `json:"wire"`
	}
	require.NoError(t, json.Unmarshal(raw, &golden))
	out, aerr := inflatePayload(golden.Wire, 1<<20)
	require.Nil(t, aerr)
	var got map[string]string
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, golden.Payload, got)
	assert.Contains(t, got["config"], "Ñandú", "UTF-8 survives")
}
