package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/s3"
	"github.com/tambua/tambua/server/webhook"
)

// sharedIdentity writes what replicas share, a signing key file and a
// webhook client certificate, key and CA, and returns the serve flags
// that name them: --keys-file F, --webhook-client-cert C,
// --webhook-client-key K, --webhook-client-ca A.
func sharedIdentity(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	key, err := server.GenerateSigningKey()
	require.NoError(t, err)
	caPEM, certPEM, keyPEM, err := webhook.GenerateClientIdentity("replicas", time.Now(), time.Hour)
	require.NoError(t, err)
	files := map[string][]byte{"keys": []byte(key + "\n"), "client.crt": certPEM, "client.key": keyPEM, "ca.crt": caPEM}
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	return []string{"--keys-file", filepath.Join(dir, "keys"),
		"--webhook-client-cert", filepath.Join(dir, "client.crt"), "--webhook-client-key", filepath.Join(dir, "client.key"),
		"--webhook-client-ca", filepath.Join(dir, "ca.crt")}
}

// TestServePostgresS3: `serve --db postgres://... --files s3://...` keeps
// nothing in --data but the webhook development identity: a second
// replica with another data folder finds the demo organisation, and the
// signing keys, in the database.
func TestServePostgresS3(t *testing.T) {
	pg := pgtest.Shared(t)
	gw := s3test.Shared(t)
	gw.Env(t)
	dsn, bucket := pg.NewDatabase(t), gw.NewBucketURL()
	ident := sharedIdentity(t)

	// Without the shared keys, or without the shared webhook identity, a
	// replica refuses to start, saying what to set.
	code, _, errOut := runCLI(t, "", "serve", "--data", t.TempDir(), "--addr", freeAddr(t), "--db", dsn, "--files", bucket)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "replicas on one database must share their signing keys")
	assert.Contains(t, errOut, "TAMBUA_SIGNING_KEY")
	code, _, errOut = runCLI(t, "", "serve", "--data", t.TempDir(), "--addr", freeAddr(t), "--db", dsn, "--files", bucket, ident[0], ident[1])
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, errOut, "one webhook client certificate")
	code, _, errOut = runCLI(t, "", "units", "add", "5", "--org", "1", "--db", dsn)
	assert.Equal(t, ExitBadInput, code, "the admin commands mint tokens: they need the keys too")
	assert.Contains(t, errOut, "TAMBUA_SIGNING_KEY")

	first := t.TempDir()
	addr, out, stop := serve(t, first, append([]string{"--db", dsn, "--files", bucket}, ident...)...)
	id, secret := field(t, out.String(), "client_id"), field(t, out.String(), "client_secret")
	token := func(addr string) int {
		resp, err := http.PostForm("http://"+addr+"/oauth/token", map[string][]string{
			"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, token(addr))
	stop()
	_, err := os.Stat(filepath.Join(first, "tambua.db"))
	assert.True(t, os.IsNotExist(err), "no SQLite file with --db")
	_, err = os.Stat(filepath.Join(first, "files"))
	assert.True(t, os.IsNotExist(err), "no image folder with --files")
	cfg, err := s3.ParseURL(bucket)
	require.NoError(t, err)
	cfg.Create = false
	_, err = s3.New(context.Background(), cfg)
	assert.NoError(t, err, "the bucket was made on first start")

	_, err = os.Stat(filepath.Join(first, webhook.ClientCAFile))
	assert.True(t, os.IsNotExist(err), "no development webhook identity with --db")

	addr2, out2, stop2 := serve(t, t.TempDir(), append([]string{"--db", dsn, "--files", bucket}, ident...)...)
	assert.NotContains(t, out2.String(), "client_secret", "the second replica finds the demo in the database")
	assert.Equal(t, 200, token(addr2), "and the same credentials")
	stop2()

	// The administration commands take --db too.
	code, out3, errOut := runCLI(t, "", "org", "create", "--data", t.TempDir(), "--db", dsn, "--name", "Acme", ident[0], ident[1])
	require.Equal(t, ExitOK, code, errOut)
	assert.Equal(t, "2", field(t, out3, "organisation_id"), "the demo organisation is 1, in the same database")
	code, out3, errOut = runCLI(t, "", "units", "add", "500", "--org", "2", "--json", "--db", dsn, ident[0], ident[1])
	require.Equal(t, ExitOK, code, errOut)
	assert.JSONEq(t, `{"organisation_id":2,"added":500,"balance":500}`, out3, "--json and flags after the argument, on --db")

	// tambua migrate copies a SQLite installation into a fresh database
	// and bucket, and serve runs on them with the same credentials.
	code, _, errOut = runCLI(t, "", "migrate", "--data", first)
	assert.Equal(t, ExitBadInput, code, errOut)
	local := t.TempDir()
	_, out4, stop3 := serve(t, local)
	id, secret = field(t, out4.String(), "client_id"), field(t, out4.String(), "client_secret")
	stop3()
	dsn2, bucket2 := pg.NewDatabase(t), gw.NewBucketURL()
	code, out5, errOut := runCLI(t, "", "migrate", "--data", local, "--db", dsn2, "--files", bucket2)
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out5, "organisations        1 rows")
	assert.Contains(t, out5, "tambua keys export")
	// The installation's own keys, exported, keep its tokens valid.
	code, keys, errOut := runCLI(t, "", "keys", "export", "--data", local)
	require.Equal(t, ExitOK, code, errOut)
	keysFile := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(keysFile, []byte(keys), 0o600))
	addr4, out6, stop4 := serve(t, t.TempDir(), "--db", dsn2, "--files", bucket2, "--keys-file", keysFile, ident[2], ident[3], ident[4], ident[5], ident[6], ident[7])
	assert.NotContains(t, out6.String(), "client_secret")
	assert.Equal(t, 200, token(addr4), "the migrated client's secret works")
	stop4()

	for _, bad := range [][]string{{"--db", "mysql://x/y"}, {"--files", "gs://bucket"}, {"--files", "s3://b?nope=1"}} {
		code, _, errOut := runCLI(t, "", append([]string{"serve", "--data", t.TempDir(), "--addr", freeAddr(t)}, bad...)...)
		assert.NotEqual(t, ExitOK, code, "%v: %s", bad, errOut)
	}
}
