package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/files"
	"github.com/tambua/tambua/server/sqlite"
)

func field(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + name + `\s+(\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "no %s in %q", name, out)
	return m[1]
}

func TestAdminCommands(t *testing.T) {
	data := t.TempDir()
	code, out, errOut := runCLI(t, "", "org", "create", "--data", data, "--name", "Acme")
	require.Equal(t, ExitOK, code, errOut)
	org := field(t, out, "organisation_id")

	code, out, errOut = runCLI(t, "", "clients", "create", "--data", data, "--org", org)
	require.Equal(t, ExitOK, code, errOut)
	client, secret := field(t, out, "client_id"), field(t, out, "client_secret")
	assert.Contains(t, errOut, "shown this once")

	wf := writeFile(t, "wf.yaml", "name: KYC basic\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n  - name: face_matching\n")
	unknown := writeFile(t, "unknown.yaml", "name: Atlantis\ndocument_types: [atlantis_id]\nchecks:\n  - name: ocr_extraction\n")
	code, _, errOut = runCLI(t, "", "workflows", "create", "--data", data, "--client", client, "--secret", secret, "--file", unknown)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "unknown config")
	code, _, errOut = runCLI(t, "", "workflows", "create", "--data", data, "--client", client, "--secret", "wrong", "--file", wf)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "Invalid client secret")
	code, out, errOut = runCLI(t, "", "workflows", "create", "--data", data, "--client", client, "--secret", secret, "--file", wf)
	require.Equal(t, ExitOK, code, errOut)
	id := field(t, out, "work_flow_id")
	assert.Equal(t, "5", field(t, out, "units"))
	assert.NotEmpty(t, field(t, out, "refresh_token"))
	code, _, errOut = runCLI(t, "", "workflows", "create", "--data", data, "--client", client, "--secret", secret, "--file", wf)
	assert.Equal(t, ExitBadInput, code, "name unique per client")
	assert.Contains(t, errOut, "already exists")

	code, out, _ = runCLI(t, "", "units", "add", "--data", data, "--org", org, "250")
	require.Equal(t, ExitOK, code)
	assert.Equal(t, "250", field(t, out, "balance"))
	code, _, _ = runCLI(t, "", "units", "add", "--data", data, "--org", org, "-300")
	assert.Equal(t, ExitBadInput, code, "a balance cannot go below zero")
	code, _, _ = runCLI(t, "", "units", "add", "--data", data, "--org", org, "many")
	assert.Equal(t, ExitBadInput, code)
	code, _, _ = runCLI(t, "", "units", "add", "--data", data, "--org", "999", "5")
	assert.Equal(t, ExitBadInput, code)

	code, out, _ = runCLI(t, "", "workflows", "archive", "--data", data, "--id", id)
	require.Equal(t, ExitOK, code)
	assert.Equal(t, "archived", field(t, out, "status"))
	code, out, _ = runCLI(t, "", "workflows", "activate", "--data", data, "--id", id)
	require.Equal(t, ExitOK, code)
	assert.Equal(t, "active", field(t, out, "status"))
	code, out, errOut = runCLI(t, "", "workflows", "duplicate", "--data", data, "--id", id, "--name", "KYC copy", "--secret", secret)
	require.Equal(t, ExitOK, code, errOut)
	assert.NotEqual(t, id, field(t, out, "work_flow_id"))
	edited := writeFile(t, "wf2.yaml", "name: KYC basic\ndocument_types: [ke_passport]\nchecks:\n  - name: ocr_extraction\n")
	code, _, errOut = runCLI(t, "", "workflows", "edit", "--data", data, "--id", id, "--file", edited)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "document types")
	code, out, _ = runCLI(t, "", "workflows", "sdk-token", "--data", data, "--id", id)
	require.Equal(t, ExitOK, code)
	assert.Len(t, strings.Split(strings.TrimSpace(out), "."), 3)

	code, _, _ = runCLI(t, "", "clients", "create", "--data", data)
	assert.Equal(t, ExitBadInput, code)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serve runs tambua serve until the returned stop is called.
func serve(t *testing.T, data string, extra ...string) (addr string, out *bytes.Buffer, stop func()) {
	t.Helper()
	addr = freeAddr(t)
	scheme, client := "http://", http.DefaultClient
	if slices.Contains(extra, "--tls-cert") {
		scheme = "https://"
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	}
	out = &bytes.Buffer{}
	var errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Getenv: func(string) string { return "" }}
	stop = startServe(t, env, client, scheme+addr, &errb, 20*time.Second, append([]string{"serve", "--addr", addr, "--data", data}, extra...)...)
	return addr, out, stop
}

// startServe runs the command args (tambua serve) with env until the
// returned stop is called, once base/healthz answers over client within
// timeout; stderr is what a failure shows.
func startServe(t *testing.T, env *Env, client *http.Client, base string, stderr fmt.Stringer, timeout time.Duration, args ...string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, env, args) }()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d: %s", code, stderr.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "server did not start")
		time.Sleep(50 * time.Millisecond)
	}
	return func() {
		cancel()
		assert.Equal(t, ExitOK, <-done, stderr.String())
	}
}

func TestServeCreatesDemoOnce(t *testing.T) {
	data := t.TempDir()
	addr, out, stop := serve(t, data)
	id, secret := field(t, out.String(), "client_id"), field(t, out.String(), "client_secret")
	resp, err := http.PostForm("http://"+addr+"/oauth/token", map[string][]string{
		"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	stop()
	_, err = os.Stat(filepath.Join(data, "tambua.db"))
	require.NoError(t, err)

	_, out2, stop2 := serve(t, data)
	stop2()
	assert.NotContains(t, out2.String(), "client_secret", "credentials are printed once")
	assert.Contains(t, out.String(), "DEMO: the secret below is live")
	assert.Contains(t, out.String(), "--demo=false")
}

// TestServeWithoutDemo: the demo is easy to turn off (issue 14, low).
func TestServeWithoutDemo(t *testing.T) {
	data := t.TempDir()
	_, out, stop := serve(t, data, "--demo=false")
	stop()
	assert.NotContains(t, out.String(), "client_secret")
	db, err := sqlite.Open(context.Background(), filepath.Join(data, "tambua.db"))
	require.NoError(t, err)
	defer db.Close()
	n, err := db.CountOrganisations(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(0), n, "no demo organisation")
}

func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	_, out, stop := serve(t, filepath.Join(dir, "data"), "--tls-cert", certFile, "--tls-key", keyFile)
	stop()
	assert.Contains(t, out.String(), "https://127.0.0.1:")
	code, _, _ := runCLI(t, "", "serve", "--data", dir, "--tls-cert", certFile)
	assert.Equal(t, ExitBadInput, code)
}

// contrastOCR stands in for OCR in the bench test: it decodes the front and
// fails a flat one.
type contrastOCR struct{}

func (contrastOCR) Name() string { return idv.CheckOCR }
func (contrastOCR) Cost() int    { return 2 }
func (contrastOCR) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	img, _, err := image.Decode(bytes.NewReader(c.Images[idv.SlotFront].Data))
	if err != nil {
		return idv.Outcome{}, err
	}
	b := img.Bounds()
	r0, _, _, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	r1, _, _, _ := img.At(b.Max.X-1, b.Max.Y-1).RGBA()
	if r0 == r1 {
		return idv.Failed("document_unreadable"), nil
	}
	return idv.Passed(0.9), nil
}

func TestBenchUpload(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "tambua.db"))
	require.NoError(t, err)
	defer db.Close()
	keys, err := server.LoadKeys(ctx, db)
	require.NoError(t, err)
	fs, err := files.Open(filepath.Join(dir, "files"))
	require.NoError(t, err)
	admin := server.NewAdmin(db, keys)
	demo, err := admin.EnsureDemo(ctx, 100000, []string{"kenya_national_id"}, []string{idv.CheckOCR})
	require.NoError(t, err)
	engine := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithChecks(contrastOCR{}))
	defer engine.Close()
	var h http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer ts.Close()
	srv, err := server.New(server.Config{BaseURL: ts.URL}, db, fs, engine, docdefs.Default(), keys)
	require.NoError(t, err)
	h = srv

	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(0, 0, color.Black)
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, img, nil))
	front := filepath.Join(dir, "front.jpg")
	require.NoError(t, os.WriteFile(front, b.Bytes(), 0o600))

	code, out, errOut := runCLI(t, "", "bench", "upload", "--url", ts.URL, "--concurrency", "2", "--duration", "1s", "--quiet",
		"--client-id", demo.Client.ID, "--client-secret", demo.Secret, "--workflow", demo.Workflow.ID, "--front", front)
	require.Equal(t, ExitOK, code, errOut)
	for _, k := range []string{"latency p50", "latency p95", "latency p99", "throughput"} {
		assert.Contains(t, out, k)
	}
	n := field(t, out, "succeeded")
	var ok int
	_, err = fmt.Sscan(n, &ok)
	require.NoError(t, err)
	assert.Positive(t, ok)
	o, err := db.Organisation(ctx, demo.Organisation.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 100000-2*ok, o.Balance, "each success billed once")

	code, _, _ = runCLI(t, "", "bench", "upload", "--url", ts.URL)
	assert.Equal(t, ExitBadInput, code)
}

func TestDefaultBaseURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		":8080":          "http://127.0.0.1:8080",
		"0.0.0.0:9000":   "http://127.0.0.1:9000",
		"[::]:9000":      "http://127.0.0.1:9000",
		"idv.local:80":   "http://idv.local:80",
	} {
		assert.Equal(t, want, defaultBaseURL(addr, false), addr)
	}
	assert.Equal(t, "https://127.0.0.1:8443", defaultBaseURL(":8443", true))
}

// TestProbe: the image's health check command exits 0 on 200 only.
func TestProbe(t *testing.T) {
	addr, _, stop := serve(t, t.TempDir(), "--demo=false")
	defer stop()
	code, out, errOut := runCLI(t, "", "probe", "http://"+addr+"/readyz")
	assert.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, `"status":"ready"`)
	code, _, _ = runCLI(t, "", "probe", "--timeout", "2s", "http://"+addr+"/no-such-path")
	assert.Equal(t, ExitFailure, code, "404 is not healthy")
	code, _, _ = runCLI(t, "", "probe", "http://"+freeAddr(t)+"/healthz")
	assert.Equal(t, ExitFailure, code, "nothing listening")
	code, _, _ = runCLI(t, "", "probe", "ftp://x/healthz")
	assert.Equal(t, ExitBadInput, code)
}

// TestServeRefusesUnsafeTimings: a stale-claim age that a live
// verification could outlive, or a webhook lease shorter than an attempt,
// is refused before anything starts.
func TestServeRefusesUnsafeTimings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--stale-claim-age", "60s"}, "must be at least --queue-timeout plus --run-timeout"},
		{[]string{"--queue-timeout", "2s", "--run-timeout", "5s", "--stale-claim-age", "16s"}, "(17s)"},
		{[]string{"--webhook-lease", "30s"}, "receiver timeout plus 5 s"},
		{[]string{"--run-timeout", "0s"}, "must be positive"},
	} {
		code, _, errOut := runCLI(t, "", append([]string{"serve", "--data", t.TempDir(), "--addr", freeAddr(t)}, tc.args...)...)
		assert.Equal(t, ExitBadInput, code, "%v", tc.args)
		assert.Contains(t, errOut, tc.msg, "%v", tc.args)
	}
}
