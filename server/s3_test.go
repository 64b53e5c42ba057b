package server_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/s3"
)

// TestFileURLsThroughS3: with the images in an S3 bucket (a real
// versitygw on loopback), signed file URLs are served by the server from
// the bucket, refused when tampered with, and minted afresh on a replay.
func TestFileURLsThroughS3(t *testing.T) {
	gw, err := s3test.Start()
	if err != nil && strings.Contains(err.Error(), "not installed") {
		s3test.Shared(t) // skips, or fails in CI
	}
	require.NoError(t, err)
	t.Cleanup(gw.Stop)
	gw.Env(t)
	bucket, err := s3.Open(context.Background(), gw.NewBucketURL())
	require.NoError(t, err)

	e := &env{t: t, dir: t.TempDir(), ocr: &ocrStandIn{}, logs: &syncBuffer{},
		wrapFiles: func(server.FileStore) server.FileStore { return bucket }}
	e.start()
	ctx := context.Background()
	e.org, err = e.admin.CreateOrganisation(ctx, "Org")
	require.NoError(t, err)
	_, err = e.admin.AddUnits(ctx, e.org.ID, 100)
	require.NoError(t, err)
	e.client, e.secret, err = e.admin.CreateClient(ctx, e.org.ID, "c")
	require.NoError(t, err)
	wf := e.createWorkflow("OCR", "ocr_extraction")
	front, back := captures(t)
	msg := e.uploadMessage(wf, map[string]any{"request_id": "s3-1"})
	r := e.upload(e.token(), msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	u := r.obj["images"].(map[string]any)["front_id"].(string)
	assert.Zero(t, e.storedFiles(), "nothing in the local folder")

	got := e.get(u)
	require.Equal(t, 200, got.status)
	seg := strings.SplitN(strings.TrimPrefix(u, e.ts.URL+"/files/"), "/", 3)
	require.Len(t, seg, 3)
	f, _, err := bucket.Open(ctx, seg[2])
	require.NoError(t, err, "the image is in the bucket under the URL's key")
	want, err := io.ReadAll(f)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, want, got.body, "served from the bucket")

	flip := []byte(seg[1])
	flip[0] ^= 1
	assert.Equal(t, 403, e.get(e.ts.URL+"/files/"+seg[0]+"/"+string(flip)+"/"+seg[2]).status)

	again := e.upload(e.token(), msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, again.status, string(again.body))
	u2 := again.obj["images"].(map[string]any)["front_id"].(string)
	assert.Equal(t, 200, e.get(u2).status, "a replay's fresh URL works")
}
