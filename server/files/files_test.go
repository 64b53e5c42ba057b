package files_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/files"
	"github.com/tambua/tambua/server/store"
)

func TestPutOpen(t *testing.T) {
	root := t.TempDir()
	d, err := files.Open(filepath.Join(root, "files"))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, d.Put(ctx, "v/abc/front.jpg", []byte("one")))
	require.NoError(t, d.Put(ctx, "v/abc/front.jpg", []byte("two")))
	f, _, err := d.Open(ctx, "v/abc/front.jpg")
	require.NoError(t, err)
	b, _ := io.ReadAll(f)
	f.Close()
	assert.Equal(t, "two", string(b))
	_, _, err = d.Open(ctx, "v/abc/none.jpg")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = d.Open(ctx, "v/abc")
	assert.ErrorIs(t, err, store.ErrNotFound, "a folder is not a file")
}

func TestDelete(t *testing.T) {
	root := filepath.Join(t.TempDir(), "files")
	d, err := files.Open(root)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, d.Put(ctx, "v/a/front.jpg", []byte("1")))
	require.NoError(t, d.Put(ctx, "v/b/front.jpg", []byte("2")))
	require.NoError(t, d.Delete(ctx, "v/a/front.jpg"))
	require.NoError(t, d.Delete(ctx, "v/a/front.jpg"), "deleting twice is fine")
	_, err = os.Stat(filepath.Join(root, "v", "a"))
	assert.True(t, os.IsNotExist(err), "the emptied folder is gone")
	_, _, err = d.Open(ctx, "v/b/front.jpg")
	assert.NoError(t, err)
	_, err = os.Stat(root)
	assert.NoError(t, err, "the root stays")
	assert.ErrorIs(t, d.Delete(ctx, "../x"), files.ErrBadKey)
}

func TestKeysCannotEscape(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "secret"), []byte("s"), 0o600))
	d, err := files.Open(filepath.Join(root, "files"))
	require.NoError(t, err)
	ctx := context.Background()
	for _, key := range []string{"../secret", "a/../../secret", "/etc/passwd", "", "a//b", ".hidden", "a/.x", `a\b`, "a b", "é"} {
		assert.False(t, files.ValidKey(key), key)
		assert.ErrorIs(t, d.Put(ctx, key, []byte("x")), files.ErrBadKey, key)
		_, _, err := d.Open(ctx, key)
		assert.ErrorIs(t, err, store.ErrNotFound, key)
	}
	for _, key := range []string{"a", "v/0123/front.jpg", "u/x-y_z/proof_of_address.png"} {
		assert.True(t, files.ValidKey(key), key)
	}
}

func FuzzValidKey(f *testing.F) {
	for _, s := range []string{"v/a/front.jpg", "../x", "a/./b", "a/b/", ""} {
		f.Add(s)
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, key string) {
		if !files.ValidKey(key) {
			return
		}
		p := filepath.Join(root, filepath.FromSlash(key))
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == ".." || len(rel) >= 3 && rel[:3] == "../" || filepath.IsAbs(rel) {
			t.Fatalf("valid key %q escapes the root: %q", key, rel)
		}
	})
}
