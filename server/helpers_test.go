package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/files"
	"github.com/tambua/tambua/server/sqlite"
)

// The server is tested through real HTTPS on a real SQLite file. The
// checks below are test-only but do real work on the images, so verdicts
// follow the input: a flat image is unreadable to the OCR stand-in, and
// the face stand-in compares perceptual hashes of front and selfie.

// ocrStandIn decodes the front capture, measures its contrast and fills the
// document's field schema with what it can tell: the fixed fields.
type ocrStandIn struct{ runs atomic.Int64 }

func (o *ocrStandIn) Name() string { return idv.CheckOCR }
func (o *ocrStandIn) Cost() int    { return 2 }
func (o *ocrStandIn) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	o.runs.Add(1)
	img, err := decode(c.Images[idv.SlotFront].Data)
	if err != nil {
		return idv.Outcome{}, err
	}
	c.SetDerived(idv.ImageFrontRectified, img)
	sd := lumaStdDev(img)
	values := map[string]string{}
	for _, f := range c.Definition.Fields {
		values[f.Name] = f.Fixed
	}
	c.SetFields(c.Definition.FieldSchema, values)
	c.SetDocumentType(c.Definition.Config)
	if sd < 8 {
		return idv.Failed("document_unreadable"), nil
	}
	return idv.Passed(math.Min(1, sd/64), idv.ScorePiece{Name: "contrast", Value: sd, Weight: 1}), nil
}

// faceStandIn compares 8x8 average hashes of front and selfie.
type faceStandIn struct{}

func (faceStandIn) Name() string { return idv.CheckFace }
func (faceStandIn) Cost() int    { return 3 }
func (faceStandIn) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	sel, ok := c.Images[idv.SlotSelfie]
	if !ok {
		return idv.Outcome{}, fmt.Errorf("no selfie")
	}
	a, err := decode(c.Images[idv.SlotFront].Data)
	if err != nil {
		return idv.Outcome{}, err
	}
	b, err := decode(sel.Data)
	if err != nil {
		return idv.Outcome{}, err
	}
	ha, hb := aHash(a), aHash(b)
	diff := 0
	for i := range ha {
		if ha[i] != hb[i] {
			diff++
		}
	}
	sim := 1 - float64(diff)/64
	c.SetSection("photo_comparison", map[string]any{"match": sim >= c.Step.Threshold, "similarity": sim, "threshold": c.Step.Threshold, "model": "ahash-test"})
	return idv.Passed(sim), nil
}

func decode(b []byte) (image.Image, error) {
	img, _, err := image.Decode(bytes.NewReader(b))
	return img, err
}

func luma(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

func lumaStdDev(img image.Image) float64 {
	bd := img.Bounds()
	var sum, sq, n float64
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		for x := bd.Min.X; x < bd.Max.X; x += 2 {
			l := luma(img.At(x, y))
			sum += l
			sq += l * l
			n++
		}
	}
	m := sum / n
	return math.Sqrt(math.Max(0, sq/n-m*m))
}

func aHash(img image.Image) [64]bool {
	bd := img.Bounds()
	var cells [64]float64
	for i := range 64 {
		cx, cy := i%8, i/8
		x := bd.Min.X + (2*cx+1)*bd.Dx()/16
		y := bd.Min.Y + (2*cy+1)*bd.Dy()/16
		cells[i] = luma(img.At(x, y))
	}
	var mean float64
	for _, v := range cells {
		mean += v / 64
	}
	var h [64]bool
	for i, v := range cells {
		h[i] = v > mean
	}
	return h
}

// blocks draws a w x h image of random grey blocks from seed: textured
// enough for the OCR stand-in, and two seeds give different hashes.
func blocks(seed uint64, w, h int) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	const cell = 16
	for by := 0; by < h; by += cell {
		for bx := 0; bx < w; bx += cell {
			v := uint8(r.IntN(256))
			for y := by; y < min(by+cell, h); y++ {
				for x := bx; x < min(bx+cell, w); x++ {
					img.Set(x, y, color.RGBA{v, v, v, 255})
				}
			}
		}
	}
	return img
}

func flat(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	return img
}

func jpegBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// env is one server on a data folder, with an organisation, a client and
// two workflows (OCR only; OCR and face matching).
type env struct {
	t     testing.TB
	dir   string
	clock atomic.Int64 // offset from real time, in nanoseconds
	ocr   *ocrStandIn
	logs  *syncBuffer
	// configure and extra adjust the server config and add checks.
	configure func(*server.Config)
	extra     []idv.Check
	// wrapFiles, when set, wraps the file store (fault injection).
	wrapFiles func(server.FileStore) server.FileStore

	db     *sqlite.DB
	srv    *server.Server
	ts     *httptest.Server
	admin  *server.Admin
	http   *http.Client
	engine *idv.Engine

	org    server.Organisation
	client server.Client
	secret string
	wfOCR  server.Workflow
	wfFace server.Workflow
}

func (e *env) keys() server.Keys {
	e.t.Helper()
	k, err := server.LoadKeys(context.Background(), e.db)
	must(e.t, err)
	return k
}

func (e *env) now() time.Time { return time.Now().Add(time.Duration(e.clock.Load())) }

func newEnv(t testing.TB, limits ...server.Limits) *env {
	t.Helper()
	lim := server.DefaultLimits
	if len(limits) > 0 {
		lim = limits[0]
	}
	return newEnvWith(t, func(c *server.Config) { c.Limits = lim })
}

// newEnvWith builds an env whose server config is adjusted by configure
// and whose engine also has the extra checks.
func newEnvWith(t testing.TB, configure func(*server.Config), extra ...idv.Check) *env {
	t.Helper()
	e := &env{t: t, dir: t.TempDir(), ocr: &ocrStandIn{}, logs: &syncBuffer{}, configure: configure, extra: extra}
	e.start()
	ctx := context.Background()
	var err error
	e.org, err = e.admin.CreateOrganisation(ctx, "Test org")
	must(t, err)
	_, err = e.admin.AddUnits(ctx, e.org.ID, 1000)
	must(t, err)
	e.client, e.secret, err = e.admin.CreateClient(ctx, e.org.ID, "test")
	must(t, err)
	e.wfOCR = e.createWorkflow("OCR only", idv.CheckOCR)
	e.wfFace = e.createWorkflow("OCR and face", idv.CheckOCR, idv.CheckFace)
	return e
}

func (e *env) createWorkflow(name string, checks ...string) server.Workflow {
	e.t.Helper()
	def := idv.Workflow{Name: name, DocumentTypes: []string{"kenya_national_id", "ke_passport"},
		ReactNativeSDK: &idv.SDKConfig{Title: "Verify", Colors: &idv.SDKColors{Primary: "#003366"}}}
	for _, c := range checks {
		def.Checks = append(def.Checks, idv.CheckSpec{Name: c})
	}
	w, err := e.admin.CreateWorkflow(context.Background(), e.client.ID, e.secret, def)
	must(e.t, err)
	return w
}

// start opens the data folder and serves it.
func (e *env) start() {
	t := e.t
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(e.dir, "tambua.db"))
	must(t, err)
	keys, err := server.LoadKeys(ctx, db)
	must(t, err)
	// As tambua serve does at start.
	_, err = db.ReleaseClaimsBefore(ctx, time.Now())
	must(t, err)
	fs, err := files.Open(filepath.Join(e.dir, "files"))
	must(t, err)
	defs := docdefs.Default()
	e.engine = idv.New(idv.WithDefinitions(defs), idv.WithChecks(append([]idv.Check{e.ocr, faceStandIn{}}, e.extra...)...))
	var h http.Handler
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	cfg := server.Config{BaseURL: ts.URL, Limits: server.DefaultLimits, Now: e.now, Logger: slog.New(slog.NewJSONHandler(e.logs, nil))}
	if e.configure != nil {
		e.configure(&cfg)
	}
	var store server.FileStore = fs
	if e.wrapFiles != nil {
		store = e.wrapFiles(fs)
	}
	srv, err := server.New(cfg, db, store, e.engine, defs, keys)
	must(t, err)
	h = srv
	e.db, e.srv, e.ts, e.http = db, srv, ts, ts.Client()
	e.http.Timeout = 2 * time.Minute
	e.admin = server.NewAdmin(db, keys)
	t.Cleanup(e.stop)
}

func (e *env) stop() {
	if e.ts == nil {
		return
	}
	e.ts.Close()
	e.engine.Close()
	e.db.Close()
	e.ts = nil
}

// restart closes the server and the database and opens them again.
func (e *env) restart() {
	e.stop()
	e.start()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// token returns an access token by client credentials.
func (e *env) token() string {
	e.t.Helper()
	return e.tokenFor(e.client.ID, e.secret)
}

func (e *env) tokenFor(id, secret string) string {
	e.t.Helper()
	resp := e.form("/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	if resp.status != 200 {
		e.t.Fatalf("token: %d %s", resp.status, resp.body)
	}
	return resp.str("access_token")
}

type response struct {
	status int
	header http.Header
	body   []byte
	obj    map[string]any
}

func (r response) str(key string) string {
	s, _ := r.obj[key].(string)
	return s
}

// code is v_field39.
func (r response) code() int {
	f, _ := r.obj["v_field39"].(float64)
	return int(f)
}

func (e *env) do(req *http.Request) response {
	e.t.Helper()
	resp, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(e.t, err)
	r := response{status: resp.StatusCode, header: resp.Header, body: body}
	_ = json.Unmarshal(body, &r.obj)
	return r
}

func (e *env) form(path string, v url.Values) response {
	e.t.Helper()
	return e.do(e.formRequest(path, v))
}

func (e *env) formRequest(path string, v url.Values) *http.Request {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+path, strings.NewReader(v.Encode()))
	must(e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

func (e *env) postJSON(path, token string, body any) response {
	e.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case []byte:
		raw = b
	case string:
		raw = []byte(b)
	default:
		var err error
		raw, err = json.Marshal(body)
		must(e.t, err)
	}
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+path, bytes.NewReader(raw))
	must(e.t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.do(req)
}

// part is one multipart part of an /upload.
type part struct {
	name string
	data []byte
}

// uploadMessage is a valid /upload message for a workflow.
func (e *env) uploadMessage(wf server.Workflow, extra map[string]any) map[string]any {
	m := map[string]any{
		"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init", "no_adapter": false,
		"client_id": e.client.ID, "work_flow_id": wf.ID, "config": "kenya_national_id", "country": "Kenya",
	}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// upload sends a multipart /upload with the given message (marshalled when
// it is not a string or nil) and parts.
func (e *env) upload(token string, message any, parts ...part) response {
	e.t.Helper()
	req := e.uploadRequest(token, message, parts...)
	return e.do(req)
}

func (e *env) uploadRequest(token string, message any, parts ...part) *http.Request {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		w, err := mw.CreateFormFile(p.name, "capture.jpg")
		must(e.t, err)
		_, _ = w.Write(p.data)
	}
	switch m := message.(type) {
	case nil:
	case string:
		must(e.t, mw.WriteField("message", m))
	default:
		raw, err := json.Marshal(m)
		must(e.t, err)
		must(e.t, mw.WriteField("message", string(raw)))
	}
	must(e.t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/upload", &b)
	must(e.t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// images are the default captures: a textured front and back.
var (
	imgOnce                       sync.Once
	frontJPEG, backJPEG, flatJPEG []byte
)

func captures(t testing.TB) (front, back []byte) {
	imgOnce.Do(func() {
		frontJPEG = jpegBytes(t, blocks(1, 480, 300))
		backJPEG = jpegBytes(t, blocks(2, 480, 300))
		flatJPEG = jpegBytes(t, flat(480, 300))
	})
	return frontJPEG, backJPEG
}

func (e *env) balance() int64 {
	e.t.Helper()
	o, err := e.db.Organisation(context.Background(), e.org.ID)
	must(e.t, err)
	return o.Balance
}

// storedFiles counts the files under the data folder's files/.
func (e *env) storedFiles() int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(e.dir, "files"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// events returns the outbox events by name.
func (e *env) events() map[string][]server.Event {
	e.t.Helper()
	evs, err := e.db.Events(context.Background(), 0, 100000)
	must(e.t, err)
	out := map[string][]server.Event{}
	for _, ev := range evs {
		out[ev.Event] = append(out[ev.Event], ev)
	}
	return out
}

func (e *env) get(rawURL string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	must(e.t, err)
	return e.do(req)
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
