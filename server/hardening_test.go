package server_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server"
)

// scopedToken is an SDK access token scoped to wf, minted from the
// workflow's refresh token as the SDK does.
func (e *env) scopedToken(wf server.Workflow) string {
	e.t.Helper()
	r := e.postJSON("/postdata", "", envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": wf.RefreshToken}))
	if r.status != 200 {
		e.t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	return r.str("access_token")
}

// TestReplayOnlyToTheSameRequest is issue 14's first serious defect: a
// stored result was replayed on (client, request_id) alone, so a token of
// workflow A read workflow B's verification by guessing its request_id.
func TestReplayOnlyToTheSameRequest(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	backend := e.token()
	selfie := jpegBytes(t, blocks(3, 480, 300))
	first := e.upload(backend, e.uploadMessage(e.wfFace, map[string]any{"request_id": "order-7", "metadata": map[string]any{"a": "1", "b": 2}}),
		part{"front", front}, part{"back", back}, part{"selfie", selfie})
	require.Equal(t, 200, first.status, string(first.body))
	balance, runs := e.balance(), e.ocr.runs.Load()

	t.Run("another workflow's scoped token gets a conflict, not the result", func(t *testing.T) {
		sdk := e.scopedToken(e.wfOCR)
		r := e.upload(sdk, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "order-7"}), part{"front", front}, part{"back", back})
		assert.Equal(t, 409, r.status, string(r.body))
		assert.Equal(t, 409, r.code())
		assert.NotContains(t, string(r.body), first.str("idv_unique_id"))
		assert.NotContains(t, string(r.body), "/files/")
	})
	t.Run("the backend token naming another workflow gets a conflict", func(t *testing.T) {
		r := e.upload(backend, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "order-7"}), part{"front", front}, part{"back", back})
		assert.Equal(t, 409, r.status, string(r.body))
	})
	t.Run("other images, config or metadata under the same request_id conflict", func(t *testing.T) {
		for name, r := range map[string]response{
			"image": e.upload(backend, e.uploadMessage(e.wfFace, map[string]any{"request_id": "order-7", "metadata": map[string]any{"a": "1", "b": 2}}),
				part{"front", back}, part{"back", front}, part{"selfie", selfie}),
			"config": e.upload(backend, e.uploadMessage(e.wfFace, map[string]any{"request_id": "order-7", "config": "ke_passport", "metadata": map[string]any{"a": "1", "b": 2}}),
				part{"front", front}, part{"back", back}, part{"selfie", selfie}),
			"metadata": e.upload(backend, e.uploadMessage(e.wfFace, map[string]any{"request_id": "order-7", "metadata": map[string]any{"a": "2", "b": 2}}),
				part{"front", front}, part{"back", back}, part{"selfie", selfie}),
		} {
			assert.Equal(t, 409, r.status, "%s: %s", name, r.body)
		}
	})
	t.Run("the same request replays, metadata key order aside", func(t *testing.T) {
		msg := e.uploadMessage(e.wfFace, map[string]any{"request_id": "order-7"})
		msg["metadata"] = map[string]any{"b": 2, "a": "1"}
		r := e.upload(e.scopedToken(e.wfFace), msg, part{"front", front}, part{"back", back}, part{"selfie", selfie})
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, first.str("idv_unique_id"), r.str("idv_unique_id"))
	})
	assert.Equal(t, balance, e.balance(), "nothing more billed")
	assert.Equal(t, runs, e.ocr.runs.Load(), "nothing more run")
}
