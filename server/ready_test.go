package server_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/tambua/tambua/server"
)

// TestReadiness: /readyz is ready only while the database answers at the
// expected migrations, the image folder is there and the server is not
// draining; /healthz (liveness) answers throughout.
func TestReadiness(t *testing.T) {
	e := newEnv(t)
	ready := func() (int, server.Readiness) {
		t.Helper()
		r := e.get(e.ts.URL + "/readyz")
		var rd server.Readiness
		require.NoError(t, json.Unmarshal(r.body, &rd), string(r.body))
		assert.Equal(t, 200, e.get(e.ts.URL+"/healthz").status, "liveness does not depend on readiness")
		return r.status, rd
	}
	code, rd := ready()
	assert.Equal(t, 200, code)
	assert.Equal(t, server.Readiness{Status: "ready", Database: "ok", Files: "ok", Migrations: "ok"}, rd)

	// The image volume disappears, then comes back.
	files := filepath.Join(e.dir, "files")
	require.NoError(t, os.Rename(files, files+".away"))
	code, rd = ready()
	assert.Equal(t, 503, code)
	assert.Equal(t, server.Readiness{Status: "unavailable", Database: "ok", Files: "unreachable", Migrations: "ok"}, rd)
	require.NoError(t, os.Rename(files+".away", files))

	// The database lacks a migration this build expects (restored from an
	// older backup under a running server).
	raw, err := sql.Open("sqlite", filepath.Join(e.dir, "tambua.db"))
	require.NoError(t, err)
	defer raw.Close()
	var last string
	require.NoError(t, raw.QueryRow("SELECT MAX(version) FROM schema_migrations").Scan(&last))
	_, err = raw.Exec("DELETE FROM schema_migrations WHERE version = ?", last)
	require.NoError(t, err)
	code, rd = ready()
	assert.Equal(t, 503, code)
	assert.Equal(t, "pending: "+last, rd.Migrations)
	_, err = raw.Exec("INSERT INTO schema_migrations(version, applied_at) VALUES (?, '2026-01-01T00:00:00Z')", last)
	require.NoError(t, err)
	code, _ = ready()
	assert.Equal(t, 200, code)

	e.srv.Drain()
	code, rd = ready()
	assert.Equal(t, 503, code)
	assert.Equal(t, "draining", rd.Status)
	assert.Equal(t, "ok", rd.Database)

	require.NoError(t, e.db.Close())
	code, rd = ready()
	assert.Equal(t, 503, code)
	assert.Equal(t, "unreachable", rd.Database)
}
