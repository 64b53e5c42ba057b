package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// TestHelperProcess is tambua itself when the test binary is re-run with
// TAMBUA_CLI_HELPER=1: the arguments after "--" are the command's. A
// child process is the only way to see what native libraries (tesseract)
// write to the process's standard error.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("TAMBUA_CLI_HELPER") != "1" {
		t.Skip("run as a child by TestServeLogsHoldNoPersonalData")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(Main(args))
}

// TestServeLogsHoldNoPersonalData runs tambua serve as a child process,
// verifies the ICAO specimen passport (holder ERIKSSON, ANNA MARIA) with
// real OCR and MRZ reading, and reads every byte the process wrote to
// standard error: each line must be one of the server's JSON log lines (so
// tesseract's own diagnostics, "Bottom=0, top=69 ... Total count=0", are
// kept out), and none may carry the holder's name (issue 14, "Prove it").
func TestServeLogsHoldNoPersonalData(t *testing.T) {
	passport, err := os.ReadFile(fixtures.Path(t, "ids", "passeye_passport-td3.jpg"))
	require.NoError(t, err)
	data := t.TempDir()
	c := startChild(t, data, "--workers", "1")
	defer c.stop()
	base := c.base
	out := c.stdout.String()
	id, secret := field(t, out, "client_id"), field(t, out, "client_secret")
	// A workflow of the two checks that read the name (the demo's runs
	// every check, past the run timeout under -race on a busy machine).
	wfFile := filepath.Join(t.TempDir(), "wf.yaml")
	require.NoError(t, os.WriteFile(wfFile, []byte("name: Names\ndocument_types: [generic_passport]\nchecks:\n  - name: ocr_extraction\n  - name: mrz_parsing\n"), 0o600))
	code, wfOut, errOut := runCLI(t, "", "workflows", "create", "--data", data, "--client", id, "--secret", secret, "--file", wfFile)
	require.Equal(t, ExitOK, code, errOut)
	wf := field(t, wfOut, "work_flow_id")
	tok := childToken(t, base, id, secret)
	status, result := childUpload(t, base, tok, id, wf, "logs-1", passport)
	require.Equal(t, 200, status, string(result))
	// The holder's name was read, so its absence below means something.
	require.Contains(t, string(result), "ERIKSSON", "the verification did not read the holder's name")
	c.stop()

	lines, raw := 0, []string{}
	sc := bufio.NewScanner(bytes.NewReader(c.stderr.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		lines++
		var obj map[string]any
		if json.Unmarshal([]byte(line), &obj) != nil {
			raw = append(raw, line)
			continue
		}
		upper := strings.ToUpper(line)
		for _, name := range []string{"ERIKSSON", "ANNA", "MARIA"} {
			assert.NotContains(t, upper, name, "a log line carries the holder's name: %s", line)
		}
	}
	t.Logf("server stderr: %d lines, %d not JSON log lines", lines, len(raw))
	assert.Empty(t, raw, "lines on the server's standard error that are not its JSON logs (tesseract's?)")
	assert.Greater(t, lines, 2)
}

// childServer is tambua serve running as a child process.
type childServer struct {
	cmd            *exec.Cmd
	base           string
	stdout, stderr *syncBuf
	done           bool
}

// startChild starts tambua serve on data and waits until it answers.
func startChild(t *testing.T, data string, extra ...string) *childServer {
	t.Helper()
	addr := freeAddr(t)
	args := append([]string{"-test.run=^TestHelperProcess$", "--", "serve", "--addr", addr, "--data", data}, extra...)
	c := &childServer{cmd: exec.Command(os.Args[0], args...), base: "http://" + addr, stdout: &syncBuf{}, stderr: &syncBuf{}}
	c.cmd.Env = append(os.Environ(), "TAMBUA_CLI_HELPER=1")
	c.cmd.Stdout, c.cmd.Stderr = c.stdout, c.stderr
	require.NoError(t, c.cmd.Start())
	t.Cleanup(c.kill)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(c.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return c
		}
		require.True(t, time.Now().Before(deadline), "server did not start: %s", c.stderr.String())
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends the server as an operator would (SIGTERM: it lets running
// verifications finish).
func (c *childServer) stop() {
	if !c.done {
		c.done = true
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		_ = c.cmd.Wait()
	}
}

// kill ends it as a crash would (SIGKILL).
func (c *childServer) kill() {
	if !c.done {
		c.done = true
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	}
}

// syncBuf is a bytes.Buffer safe for a child's output and a test reading.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuf) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// childDemo reads the demo organisation a child printed on its first
// start: its client id, workflow id and organisation id, and a token of
// the client.
func childDemo(t *testing.T, c *childServer) (id, wf string, org int64, tok string) {
	t.Helper()
	out := c.stdout.String()
	id, wf = field(t, out, "client_id"), field(t, out, "work_flow_id")
	org, err := strconv.ParseInt(field(t, out, "organisation_id"), 10, 64)
	require.NoError(t, err)
	return id, wf, org, childToken(t, c.base, id, field(t, out, "client_secret"))
}

func childToken(t *testing.T, base, id, secret string) string {
	t.Helper()
	resp, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	return tok.AccessToken
}

// childUpload sends img as front and back of a generic_passport
// verification; status 0 when the connection broke.
func childUpload(t *testing.T, base, tok, clientID, wf, requestID string, img []byte) (int, []byte) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, slot := range []string{"front", "back"} {
		w, err := mw.CreateFormFile(slot, "capture.jpg")
		require.NoError(t, err)
		_, _ = w.Write(img)
	}
	msg, _ := json.Marshal(map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init", "no_adapter": false,
		"client_id": clientID, "work_flow_id": wf, "config": "generic_passport", "request_id": requestID})
	require.NoError(t, mw.WriteField("message", string(msg)))
	require.NoError(t, mw.Close())
	req, err := http.NewRequest("POST", base+"/upload", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := (&http.Client{Timeout: 3 * time.Minute}).Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}
