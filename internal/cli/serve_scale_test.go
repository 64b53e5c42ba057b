package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server/s3"
)

// TestServePostgresS3: `serve --db postgres://... --files s3://...` keeps
// nothing in --data but the webhook development identity: a second
// replica with another data folder finds the demo organisation, and the
// signing keys, in the database.
func TestServePostgresS3(t *testing.T) {
	pg, err := pgtest.Start()
	if err != nil && strings.Contains(err.Error(), "not installed") {
		pgtest.Shared(t) // skips, or fails in CI
	}
	require.NoError(t, err)
	t.Cleanup(pg.Stop)
	gw, err := s3test.Start()
	if err != nil && strings.Contains(err.Error(), "not installed") {
		s3test.Shared(t)
	}
	require.NoError(t, err)
	t.Cleanup(gw.Stop)
	gw.Env(t)
	dsn, bucket := pg.NewDatabase(t), gw.NewBucketURL()

	first := t.TempDir()
	addr, out, stop := serve(t, first, "--db", dsn, "--files", bucket)
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
	_, err = os.Stat(filepath.Join(first, "tambua.db"))
	assert.True(t, os.IsNotExist(err), "no SQLite file with --db")
	_, err = os.Stat(filepath.Join(first, "files"))
	assert.True(t, os.IsNotExist(err), "no image folder with --files")
	cfg, err := s3.ParseURL(bucket)
	require.NoError(t, err)
	cfg.Create = false
	_, err = s3.New(context.Background(), cfg)
	assert.NoError(t, err, "the bucket was made on first start")

	addr2, out2, stop2 := serve(t, t.TempDir(), "--db", dsn, "--files", bucket)
	assert.NotContains(t, out2.String(), "client_secret", "the second replica finds the demo in the database")
	assert.Equal(t, 200, token(addr2), "and the same credentials")
	stop2()

	// The administration commands take --db too.
	code, out3, errOut := runCLI(t, "", "org", "create", "--data", t.TempDir(), "--db", dsn, "--name", "Acme")
	require.Equal(t, ExitOK, code, errOut)
	assert.Equal(t, "2", field(t, out3, "organisation_id"), "the demo organisation is 1, in the same database")
	code, out3, errOut = runCLI(t, "", "units", "add", "500", "--org", "2", "--json", "--db", dsn)
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
	addr4, out6, stop4 := serve(t, t.TempDir(), "--db", dsn2, "--files", bucket2)
	assert.NotContains(t, out6.String(), "client_secret")
	assert.Equal(t, 200, token(addr4), "the migrated client's secret works")
	stop4()

	for _, bad := range [][]string{{"--db", "mysql://x/y"}, {"--files", "gs://bucket"}, {"--files", "s3://b?nope=1"}} {
		code, _, errOut := runCLI(t, "", append([]string{"serve", "--data", t.TempDir(), "--addr", freeAddr(t)}, bad...)...)
		assert.NotEqual(t, ExitOK, code, "%v: %s", bad, errOut)
	}
}
