package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
)

// nginxBinary is Debian's nginx (scripts/setup.sh installs it); the test
// skips without it, or fails in CI.
func nginxBinary(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed (scripts/setup.sh installs it)")
	}
	t.Skip("nginx is not installed (skipping outside CI)")
	return ""
}

// TestNginxConfFrontsReplicas runs deploy/nginx.conf under a real nginx in
// front of two replicas on PostgreSQL and S3, the replica addresses and
// the listen port swapped for loopback ones (the compose names do not
// resolve here): the configuration loads, forwards the largest body the
// server takes to the server (an answer in the API's shape, not nginx's
// 413), refuses a larger one itself, and moves requests to the other
// replica when one is gone.
func TestNginxConfFrontsReplicas(t *testing.T) {
	bin := nginxBinary(t)
	pg := pgtest.Shared(t)
	gw := s3test.Shared(t)
	gw.Env(t)
	dsn, bucket := pg.NewDatabase(t), gw.NewBucketURL()
	flags := append([]string{"--db", dsn, "--files", bucket, "--trusted-proxies", "127.0.0.1"}, sharedIdentity(t)...)
	addrA, out, stopA := serve(t, t.TempDir(), flags...)
	stopped := false
	defer func() {
		if !stopped {
			stopA()
		}
	}()
	addrB, _, stopB := serve(t, t.TempDir(), flags...)
	defer stopB()
	id, secret := field(t, out.String(), "client_id"), field(t, out.String(), "client_secret")

	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "nginx.conf"))
	require.NoError(t, err)
	front := freeAddr(t)
	conf := string(raw)
	for old, repl := range map[string]string{"tambua-1:8080": addrA, "tambua-2:8080": addrB, "listen 8080;": "listen " + front + ";"} {
		require.Contains(t, conf, old)
		conf = strings.ReplaceAll(conf, old, repl)
	}
	dir := t.TempDir()
	// Run unprivileged-style in the test's folder: its own pid, logs and
	// body buffers; the worker stays this user (root here) so it can
	// write them.
	conf = fmt.Sprintf("pid %[1]s/nginx.pid;\nerror_log %[1]s/error.log;\nuser %[2]s;\n", dir, currentUser()) +
		strings.Replace(conf, "http {", fmt.Sprintf(`http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;`, dir), 1)
	confFile := filepath.Join(dir, "nginx.conf")
	require.NoError(t, os.WriteFile(confFile, []byte(conf), 0o600))
	check, err := exec.Command(bin, "-t", "-p", dir, "-c", confFile).CombinedOutput()
	require.NoError(t, err, "nginx -t: %s", check)
	cmd := exec.Command(bin, "-p", dir, "-c", confFile, "-g", "daemon off;")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	defer func() {
		cmd.Process.Signal(os.Interrupt) // fast shutdown
		cmd.Wait()
	}()
	base := "http://" + front
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx did not proxy /readyz: %v %s %s", err, logs.String(), errLog)
		}
		time.Sleep(100 * time.Millisecond)
	}

	post := func(size int) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest("POST", base+"/upload", bytes.NewReader(make([]byte, size)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		return resp.StatusCode, body
	}
	// 40 MiB: more than the 32 MiB /upload takes, less than /v1/verify's
	// base64 allowance; the server answers, in its own shape.
	st, body := post(40 << 20)
	assert.Contains(t, body, "v_field39", "status %d: the server answered, not nginx", st)
	// Beyond client_max_body_size nginx refuses it itself.
	st, body = post(50 << 20)
	assert.Equal(t, http.StatusRequestEntityTooLarge, st)
	assert.NotContains(t, body, "v_field39")

	token := func() int {
		resp, err := http.PostForm(base+"/oauth/token", map[string][]string{
			"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 4 {
		assert.Equal(t, 200, token(), "request %d, both replicas up", i)
	}
	// Replica A gone: a POST nginx could not deliver to it goes to B.
	stopA()
	stopped = true
	for i := range 6 {
		assert.Equal(t, 200, token(), "request %d with one replica down", i)
	}
}

// currentUser is the user nginx's worker should run as: this one (a
// master not run as root ignores the directive).
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "nobody"
}
