package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/sqlite"
)

func TestParseKeys(t *testing.T) {
	gen, err := server.GenerateSigningKey()
	require.NoError(t, err)
	k32 := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	k40 := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{9}, 40))
	tests := []struct {
		name, in string
		err      string
	}{
		{"generated", gen, ""},
		{"with newline", gen + "\n", ""},
		{"url-safe unpadded", k40, ""},
		{"pair", k32 + ":" + k40, ""},
		{"empty", "", "empty"},
		{"short", base64.StdEncoding.EncodeToString(make([]byte, 16)), "16 bytes, want at least 32"},
		{"not base64", "not a key!", "not base64"},
		{"pair with a short half", k32 + ":" + base64.StdEncoding.EncodeToString(make([]byte, 8)), "files key"},
		{"pair with an empty half", ":" + k32, "token key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := server.ParseKeys(tc.in)
			if tc.err != "" {
				assert.ErrorIs(t, err, server.ErrBadSigningKey)
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, k.Token, 32)
			assert.GreaterOrEqual(t, len(k.Files), 32)
			assert.NotEqual(t, k.Token, k.Files, "two keys, not one")
			again, err := server.ParseKeys(tc.in)
			require.NoError(t, err)
			assert.Equal(t, k, again, "every replica derives the same keys")
		})
	}
	a, _ := server.ParseKeys(k32)
	b, _ := server.ParseKeys(gen)
	assert.NotEqual(t, a.Token, b.Token)
}

// TestExportKeys: the keys a database holds round-trip through the
// shared-key value, so an installation keeps them when it moves to it.
func TestExportKeys(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	require.NoError(t, err)
	defer db.Close()
	stored, err := server.LoadKeys(ctx, db)
	require.NoError(t, err)
	v, err := server.ExportKeys(ctx, db)
	require.NoError(t, err)
	assert.True(t, strings.Contains(v, ":"))
	got, err := server.ParseKeys(v)
	require.NoError(t, err)
	assert.Equal(t, stored, got)
}

func FuzzParseKeys(f *testing.F) {
	gen, _ := server.GenerateSigningKey()
	for _, s := range []string{gen, gen + ":" + gen, "", ":", "::", "a:b", strings.Repeat("A", 44), " \n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := server.ParseKeys(s)
		if err != nil {
			return
		}
		if len(k.Token) < server.MinKeyBytes || len(k.Files) < server.MinKeyBytes {
			t.Fatalf("accepted a short key from %q", s)
		}
	})
}
