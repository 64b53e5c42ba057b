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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/testdata"
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
	passport, err := os.ReadFile(testdata.Path(t, "ids", "passeye_passport-td3.jpg"))
	require.NoError(t, err)
	addr := freeAddr(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "serve", "--addr", addr, "--data", t.TempDir(), "--workers", "1")
	cmd.Env = append(os.Environ(), "TAMBUA_CLI_HELPER=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	}
	defer stop()
	base := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		require.True(t, time.Now().Before(deadline), "server did not start: %s", stderr.String())
		time.Sleep(100 * time.Millisecond)
	}
	out := stdout.String()
	id, secret, wf := field(t, out, "client_id"), field(t, out, "client_secret"), field(t, out, "work_flow_id")

	resp, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	require.NoError(t, err)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	resp.Body.Close()

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, slot := range []string{"front", "back"} {
		w, err := mw.CreateFormFile(slot, "passport.jpg")
		require.NoError(t, err)
		_, _ = w.Write(passport)
	}
	msg, _ := json.Marshal(map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init", "no_adapter": false,
		"client_id": id, "work_flow_id": wf, "config": "generic_passport", "request_id": "logs-1"})
	require.NoError(t, mw.WriteField("message", string(msg)))
	require.NoError(t, mw.Close())
	req, err := http.NewRequest("POST", base+"/upload", &body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	resp, err = (&http.Client{Timeout: 3 * time.Minute}).Do(req)
	require.NoError(t, err)
	result, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, string(result))
	// The holder's name was read, so its absence below means something.
	require.Contains(t, string(result), "ERIKSSON", "the verification did not read the holder's name")
	stop()

	lines, raw := 0, []string{}
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
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
