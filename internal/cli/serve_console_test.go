package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server"
)

// TestServeConsolePostgres: with --db the console is mounted and its
// accounts live in PostgreSQL, so a member signed up through one replica
// is signed in on another (the session cookie is checked against the
// shared signing key and the sessions table), and signing out on one ends
// the session on both.
func TestServeConsolePostgres(t *testing.T) {
	pg := pgtest.Shared(t)
	gw := s3test.Shared(t)
	gw.Env(t)
	dsn, bucket := pg.NewDatabase(t), gw.NewBucketURL()
	flags := append([]string{"--db", dsn, "--files", bucket}, sharedIdentity(t)...)
	dataA := t.TempDir()
	addrA, _, stopA := serve(t, dataA, flags...)
	defer stopA()
	addrB, _, stopB := serve(t, t.TempDir(), flags...)
	defer stopB()

	// One browser: cookies are per host, not per port, so the jar sends
	// the session to both replicas as a balancer's single origin would.
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	csrf := ""
	call := func(addr, method, path string, body any) (int, map[string]any) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			raw, err := json.Marshal(body)
			require.NoError(t, err)
			rd = bytes.NewReader(raw)
		}
		req, err := http.NewRequest(method, "http://"+addr+path, rd)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		resp, err := browser.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &out)
		return resp.StatusCode, out
	}

	st, body := call(addrA, "POST", "/console/api/signup/code", map[string]string{"email": "ada@example.com"})
	require.Equal(t, http.StatusAccepted, st, "the console is mounted on PostgreSQL: %v", body)
	code := mailedCode(t, filepath.Join(dataA, "mailbox"))
	st, body = call(addrA, "POST", "/console/api/signup", server.SignupInput{Email: "ada@example.com", Code: code, Name: "Ada",
		Password: "correct horse battery", Organisation: "Acme", Industry: "Lending", MonthlyVolume: "under 1,000"})
	require.Equal(t, http.StatusOK, st, "%v", body)
	csrf, _ = body["csrf_token"].(string)
	require.NotEmpty(t, csrf)

	st, body = call(addrB, "GET", "/console/api/me", nil)
	require.Equal(t, http.StatusOK, st, "the other replica knows the session: %v", body)
	st, body = call(addrB, "POST", "/console/api/clients", map[string]string{"name": "backend"})
	require.Equal(t, http.StatusCreated, st, "%v", body)
	clientID, _ := body["client_id"].(string)
	st, body = call(addrA, "GET", "/console/api/clients", nil)
	require.Equal(t, http.StatusOK, st, "%v", body)
	raw, _ := json.Marshal(body)
	assert.Contains(t, string(raw), clientID, "a client made on one replica is listed on the other")

	st, _ = call(addrB, "DELETE", "/console/api/session", nil)
	require.Equal(t, http.StatusNoContent, st)
	st, _ = call(addrA, "GET", "/console/api/me", nil)
	assert.Equal(t, http.StatusUnauthorized, st, "signed out on B is signed out on A")
}

var mailedCodeRE = regexp.MustCompile(`\b(\d{6})\b`)

// mailedCode is the 6-digit code in the one message of a mailbox folder.
func mailedCode(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1, "one message in %s", dir)
	b, err := os.ReadFile(filepath.Join(dir, ents[0].Name()))
	require.NoError(t, err)
	m := mailedCodeRE.FindStringSubmatch(string(b))
	require.NotNil(t, m, "no code in %q", b)
	return m[1]
}
