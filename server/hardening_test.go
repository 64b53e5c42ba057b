package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "golang.org/x/image/webp" // so that the server sees a WebP as WebP, as before issue 14

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
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

// webpHeader is the start of a lossless WebP of w x h pixels: enough for
// image.DecodeConfig, which is all the server's check read before issue 14.
func webpHeader(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	vp8l := []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24), 0, 0, 0, 0, 0}
	b := []byte("RIFF\x00\x00\x00\x00WEBPVP8L")
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vp8l)))
	b = append(b, vp8l...)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// TestUnreadableImagesAreRefusedBeforeCharging is issue 14's fifth item:
// WebP, which no check decodes, and a corrupt body behind a valid JPEG
// header passed the header check and were charged.
func TestUnreadableImagesAreRefusedBeforeCharging(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	_, format, err := image.DecodeConfig(bytes.NewReader(webpHeader(480, 300)))
	require.NoError(t, err)
	require.Equal(t, "webp", format)
	balance, runs, stored := e.balance(), e.ocr.runs.Load(), e.storedFiles()
	for name, bad := range map[string][]byte{
		"webp":           webpHeader(480, 300),
		"truncated jpeg": front[:len(front)/2],
		"png with a broken stream": func() []byte {
			b := pngBytes(t, blocks(5, 480, 300))
			for i := len(b) / 3; i < len(b)/2; i++ {
				b[i] ^= 0x5a
			}
			return b
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", bad}, part{"back", back})
			assert.Equal(t, 415, r.status, string(r.body))
			assert.Equal(t, 415, r.code())
			d := e.postJSON("/v1/verify", tok, map[string]any{"method": "process_idv", "client_id": e.client.ID, "work_flow_id": e.wfOCR.ID,
				"id_front_image_url": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(bad),
				"id_back_image_url":  "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(back)})
			assert.Equal(t, 415, d.status, string(d.body))
		})
	}
	assert.Equal(t, balance, e.balance(), "nothing billed")
	assert.Equal(t, runs, e.ocr.runs.Load(), "nothing run")
	assert.Equal(t, stored, e.storedFiles(), "nothing stored")
}

// hangingOCR derives an image, as OCR does, then runs until it is
// cancelled: a check that outlives the run deadline.
type hangingOCR struct{ ocrStandIn }

func (h *hangingOCR) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	if _, err := h.ocrStandIn.Run(ctx, c); err != nil {
		return idv.Outcome{}, err
	}
	<-ctx.Done()
	return idv.Outcome{}, ctx.Err()
}

// TestRunTimeoutAnswersReview is issue 14's fourth item: a verification
// that ran past the run timeout answered 502 and dropped
// verification.timeout, because its derived images were stored with the
// expired context.
func TestRunTimeoutAnswersReview(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) { c.RunTimeout = 300 * time.Millisecond }, &hangingOCR{})
	front, back := captures(t)
	r := e.upload(e.token(), e.uploadMessage(e.wfOCR, map[string]any{"request_id": "late-1"}), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "review", r.str("verification_decision"), string(r.body))
	images, _ := r.obj["images"].(map[string]any)
	assert.Contains(t, images, idv.ImageFrontRectified, "the derived image is stored and listed")

	evs := e.events()[webhook.EventVerificationTimeout]
	require.Len(t, evs, 1)
	var d webhook.VerificationTimeout
	require.NoError(t, json.Unmarshal(evs[0].Data, &d))
	assert.Equal(t, "late-1", d.RequestID)
	assert.Equal(t, int64(300), d.TimeoutMS)
	assert.Len(t, e.events()[webhook.EventVerificationReviewRequired], 1)
	assert.Equal(t, int64(998), e.balance(), "billed once, as a verification that ran")
}

// countingReader is a request body of n bytes of JSON padding after head,
// counting what the server pulled.
type countingReader struct {
	head []byte
	n    int64
	read atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	off := c.read.Load()
	if off >= c.n {
		return 0, io.EOF
	}
	k := int64(len(p))
	if off+k > c.n {
		k = c.n - off
	}
	for i := range p[:k] {
		j := off + int64(i)
		switch {
		case j < int64(len(c.head)):
			p[i] = c.head[j]
		case j == c.n-2:
			p[i] = '"'
		case j == c.n-1:
			p[i] = '}'
		default:
			p[i] = 'x'
		}
	}
	c.read.Add(k)
	return int(k), nil
}

// TestPostdataAuthenticatesBeforeReading is issue 14's third item:
// /postdata read and parsed up to 32 MiB before it knew whether the
// operation needed a token.
func TestPostdataAuthenticatesBeforeReading(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) {
		c.Limits.LargeBodies = 1
		c.QueueTimeout = 300 * time.Millisecond
	})
	head := []byte(`{"rpcQueue":"idv-gateway-v2","menu":"auth_config","method":"generateAccessToken","client_id":"` + e.client.ID + `","client_secret":"` + e.secret + `","pad":"`)
	send := func(n int64, token string, chunked bool) (response, int64) {
		body := &countingReader{head: head, n: n}
		req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/postdata", body)
		require.NoError(t, err)
		if !chunked {
			req.ContentLength = n
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := e.http.Do(req)
		if err != nil { // the server may close before the client has written all
			return response{}, body.read.Load()
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := response{status: resp.StatusCode, body: raw}
		_ = json.Unmarshal(raw, &r.obj)
		return r, body.read.Load()
	}

	// A small anonymous body is served as before.
	r, _ := send(2<<10, "", false)
	assert.Equal(t, 200, r.status, string(r.body))
	// A large one is refused as needing a token, without being read.
	for _, chunked := range []bool{false, true} {
		r, pulled := send(31<<20, "", chunked)
		if r.status != 0 {
			assert.Equal(t, 401, r.status, string(r.body))
			assert.Equal(t, 401, r.code())
		}
		t.Logf("chunked=%v: anonymous 31 MiB body: the server pulled %d KiB", chunked, pulled>>10)
		assert.Less(t, pulled, int64(4<<20), "chunked=%v", chunked)
	}
	// So is a stale token's: it only keeps the body small, and a token
	// operation under it still works (an SDK refreshing an expired token).
	r, _ = send(64<<10, "stale.token.here", false)
	assert.Equal(t, 401, r.status, string(r.body))
	ok := e.postJSON("/postdata", "stale.token.here", envelope("auth_config", "refreshAccessToken", map[string]any{"refresh_token": e.wfOCR.RefreshToken}))
	assert.Equal(t, 200, ok.status, string(ok.body))
	// An authenticated caller may send the large body (here a token
	// operation padded to 1 MiB), within the large-body slots.
	tok := e.token()
	r, _ = send(1<<20, tok, false)
	assert.Equal(t, 200, r.status, string(r.body))

	// One slot: while an authenticated body is being read, a second waits
	// the queue timeout and gets the busy answer.
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/postdata", pr)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	held := make(chan int, 1)
	go func() {
		resp, err := e.http.Do(req)
		if err != nil {
			held <- 0
			return
		}
		resp.Body.Close()
		held <- resp.StatusCode
	}()
	_, err = pw.Write(head[:20])
	require.NoError(t, err)
	time.Sleep(150 * time.Millisecond) // the server has the headers and takes the slot
	busy, _ := send(1<<20, tok, false)
	assert.Equal(t, 230, busy.code(), string(busy.body))
	pw.CloseWithError(io.ErrUnexpectedEOF)
	<-held
	r, _ = send(1<<20, tok, false)
	assert.Equal(t, 200, r.status, "the slot is released: %s", r.body)
}

// TestStoreOnlyUploadsAreBoundedAndExpire is issue 14's eighth item:
// no_adapter and single-file uploads stored up to 80 MiB each, unbilled,
// never deleted and not rate-limited.
func TestStoreOnlyUploadsAreBoundedAndExpire(t *testing.T) {
	front, back := captures(t)
	budget := int64(2*len(front) + len(back) + 100)
	e := newEnvWith(t, func(c *server.Config) {
		c.Limits.StoreOnlyBytes = budget
		c.FileURLTTL = time.Hour
	})
	tok := e.token()
	storeOnly := func(parts ...part) response {
		return e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"no_adapter": true}), parts...)
	}
	require.Equal(t, 200, storeOnly(part{"front", front}, part{"back", back}).status)
	require.Equal(t, 200, e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}).status, "a single file is store-only too")
	r := storeOnly(part{"front", front})
	assert.Equal(t, 429, r.status, string(r.body))
	assert.Equal(t, 429, r.code())
	assert.NotEmpty(t, r.header.Get("Retry-After"))
	t.Logf("daily store-only budget %d bytes: third upload refused, Retry-After %s s", budget, r.header.Get("Retry-After"))
	assert.Equal(t, 3, e.storedFiles())
	// A verification is not charged against it.
	v := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	require.Equal(t, 200, v.status, string(v.body))
	assert.Equal(t, 6, e.storedFiles(), "front, back and the derived front_rectified")

	// Once their URLs have expired the store-only files go; the
	// verification's stay.
	sw, err := e.srv.SweepFiles(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 0, sw.StoreOnly, "not yet expired")
	e.clock.Add(int64(time.Hour + time.Minute))
	sw, err = e.srv.SweepFiles(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 3, sw.StoreOnly)
	assert.Equal(t, 3, e.storedFiles(), "the verification's files stay")
}

// TestStartupSweepRemovesWhatACrashLeft: captures of a verification that
// never completed and temporary files of interrupted writes have no record
// and are removed at start (issue 14, low).
func TestStartupSweepRemovesWhatACrashLeft(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	v := e.upload(e.token(), e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	require.Equal(t, 200, v.status, string(v.body))
	root := filepath.Join(e.dir, "files")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "v", "0123456789abcdef"), 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(root, "v", "0123456789abcdef", "front.jpg"), front, 0o640))
	require.NoError(t, os.WriteFile(filepath.Join(root, "v", "0123456789abcdef", ".put-42"), front[:100], 0o640))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".put-7"), front[:100], 0o640))
	require.Equal(t, 6, e.storedFiles())

	sw, err := e.srv.SweepOrphans(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, sw.Orphans)
	assert.Equal(t, 2, sw.Temp)
	assert.Equal(t, 3, e.storedFiles(), "the completed verification's files stay")
	assert.NoDirExists(t, filepath.Join(root, "v", "0123456789abcdef"))
	assert.Equal(t, 200, e.get(v.str("front_url")).status)
}

// TestAdminDebitWhileClaimsPending: an administrator's debit that left
// less than the units held by a running verification turned that
// verification, finished, into a 500 (issue 14, low). The debit is now
// refused; what is not held can still be removed.
func TestAdminDebitWhileClaimsPending(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) { c.Workers = 1 }, &slowOCR{})
	front, back := captures(t)
	tok := e.token()
	done := make(chan response, 1)
	go func() {
		done <- e.do(e.uploadRequest(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back}))
	}()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		_, pending, _, err := e.db.VerificationCounts(ctx, e.org.ID)
		return err == nil && pending == 1
	}, 5*time.Second, 20*time.Millisecond)
	_, err := e.admin.AddUnits(ctx, e.org.ID, -1000)
	assert.ErrorIs(t, err, server.ErrInsufficientUnits)
	t.Logf("debit of all 1000 units with 2 held: %v", err)
	left, err := e.admin.AddUnits(ctx, e.org.ID, -998)
	require.NoError(t, err, "what is not held can be removed")
	assert.Equal(t, int64(2), left)
	r := <-done
	assert.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, int64(0), e.balance())
}

// pngHeader is a PNG signature and IHDR declaring w x h pixels of 16-bit
// RGBA: all image.DecodeConfig reads.
func pngHeader(w, h int) []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 16, 6, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
}

// TestDefaultPixelCap: the default cap is near what capture needs (16 MP:
// a 12 MP phone photo as taken fits; the 40 MP allowed before let a 16-bit
// PNG take about 320 MB per image per worker). Issue 14, low.
func TestDefaultPixelCap(t *testing.T) {
	assert.Equal(t, int64(16_000_000), server.DefaultLimits.Pixels)
	e := newEnv(t)
	_, back := captures(t)
	tok := e.token()
	for _, c := range []struct {
		w, h int
		want int
	}{{5000, 4000, 413}, {7300, 5470, 413}} {
		img := pngHeader(c.w, c.h)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
		require.NoError(t, err)
		require.Equal(t, c.w, cfg.Width)
		r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", img}, part{"back", back})
		assert.Equal(t, c.want, r.status, "%dx%d: %s", c.w, c.h, r.body)
	}
	// 4032 x 3024, a 12 MP phone photo, passes the cap: its (truncated)
	// data is what is refused here, with 415.
	r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", pngHeader(4032, 3024)}, part{"back", back})
	assert.Equal(t, 415, r.status, string(r.body))
}

func (e *env) metrics(token string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.ts.URL+"/metrics", nil)
	must(e.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.do(req)
}

// TestMetricsAreNotPublic: /metrics was public on the API listener (issue
// 14, low). It now needs the metrics token there, or is absent, and
// MetricsHandler serves it where only operators reach.
func TestMetricsAreNotPublic(t *testing.T) {
	e := newEnv(t)
	r := e.metrics("")
	assert.Equal(t, 404, r.status)
	assert.NotContains(t, string(r.body), "tambua_http_requests_total")
	rec := httptest.NewRecorder()
	e.srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	assert.Equal(t, 200, rec.Code)
	assert.Contains(t, rec.Body.String(), "tambua_http_requests_total")

	e = newEnvWith(t, func(c *server.Config) { c.MetricsToken = "m-token" })
	for _, tok := range []string{"", "wrong", e.token()} {
		r := e.metrics(tok)
		assert.Equal(t, 401, r.status, "token %q", tok)
		assert.NotContains(t, string(r.body), "tambua_http_requests_total")
	}
	r = e.metrics("m-token")
	assert.Equal(t, 200, r.status)
	assert.Contains(t, string(r.body), "tambua_http_requests_total")
}

// TestQueueTimeoutCoversTheBodySlotWait: a request waits at most the queue
// timeout in all, for a large-body slot and then for a worker, before its
// checks start (else a client could wait twice the queue timeout plus the
// run, past the 120 s the spec asks it to wait).
func TestQueueTimeoutCoversTheBodySlotWait(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) {
		c.Workers, c.QueueTimeout = 1, time.Second
		c.Limits.LargeBodies = 2
	}, &slowOCR{})
	tok := e.token()
	front, back := captures(t)
	first := make(chan response, 1)
	go func() { // holds the worker for 1.5 s, and a slot
		first <- e.do(e.uploadRequest(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back}))
	}()
	time.Sleep(150 * time.Millisecond)
	pr, pw := io.Pipe() // holds the other slot until closed
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/upload", pr)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	held := make(chan struct{})
	go func() {
		if resp, err := e.http.Do(req); err == nil {
			resp.Body.Close()
		}
		close(held)
	}()
	_, err = pw.Write([]byte("--x\r\n"))
	require.NoError(t, err)
	go func() {
		// The slot is held 0.9 s: waiting for it and then a whole queue
		// timeout for the worker would take 1.9 s and, the worker being
		// free again at 1.65 s, run the request (200, not 230).
		time.Sleep(900 * time.Millisecond)
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}()
	start := time.Now()
	r := e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "waits-1"}), part{"front", front}, part{"back", back})
	waited := time.Since(start)
	assert.Equal(t, 230, r.code(), string(r.body))
	t.Logf("queue timeout 1 s: slot wait and worker wait together ended after %s", waited.Round(10*time.Millisecond))
	// 1 s is the answer; the margin is for a loaded machine (1.62 s was
	// seen with the 0.6 s hold this test had before).
	assert.Less(t, waited, 1850*time.Millisecond)
	assert.Equal(t, 200, (<-first).status)
	<-held
}
