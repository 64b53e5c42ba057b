package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/store"
)

// RunFiles runs the store.FileStore suite. open returns a new, empty file
// store for each subtest.
func RunFiles(t *testing.T, open func(t *testing.T) store.FileStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, fs store.FileStore)
	}{
		{"PutOpen", testPutOpen},
		{"Overwrite", testOverwrite},
		{"Seek", testSeek},
		{"Missing", testMissing},
		{"Delete", testDelete},
		{"Concurrent", testFilesConcurrent},
		{"Sweeper", testSweeper},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

func readAll(t *testing.T, fs store.FileStore, key string) ([]byte, time.Time) {
	t.Helper()
	f, mod, err := fs.Open(context.Background(), key)
	require.NoError(t, err, key)
	defer f.Close()
	b, err := io.ReadAll(f)
	require.NoError(t, err, key)
	return b, mod
}

func testPutOpen(t *testing.T, fs store.FileStore) {
	ctx := context.Background()
	// Every byte value, so nothing on the way treats the file as text.
	data := make([]byte, 3*256+17)
	for i := range data {
		data[i] = byte(i)
	}
	start := time.Now().Add(-2 * time.Second) // object stores keep whole seconds
	require.NoError(t, fs.Put(ctx, "v/abc/front.jpg", data))
	require.NoError(t, fs.Put(ctx, "v/abc/back.png", []byte("back")))
	require.NoError(t, fs.Put(ctx, "empty", nil))
	got, mod := readAll(t, fs, "v/abc/front.jpg")
	assert.Equal(t, data, got)
	assert.False(t, mod.Before(start), "modification time %v is the write's", mod)
	assert.WithinDuration(t, time.Now(), mod, time.Minute)
	got, _ = readAll(t, fs, "v/abc/back.png")
	assert.Equal(t, "back", string(got))
	got, _ = readAll(t, fs, "empty")
	assert.Empty(t, got)
}

func testOverwrite(t *testing.T, fs store.FileStore) {
	ctx := context.Background()
	require.NoError(t, fs.Put(ctx, "v/a/front.jpg", []byte("one, the longer")))
	require.NoError(t, fs.Put(ctx, "v/a/front.jpg", []byte("two")))
	got, _ := readAll(t, fs, "v/a/front.jpg")
	assert.Equal(t, "two", string(got), "a put replaces the whole file")
}

func testSeek(t *testing.T, fs store.FileStore) {
	ctx := context.Background()
	require.NoError(t, fs.Put(ctx, "v/s/file.bin", []byte("0123456789")))
	f, _, err := fs.Open(ctx, "v/s/file.bin")
	require.NoError(t, err)
	defer f.Close()
	// http.ServeContent finds the size by seeking to the end and serves
	// ranges by seeking back.
	size, err := f.Seek(0, io.SeekEnd)
	require.NoError(t, err)
	assert.EqualValues(t, 10, size)
	_, err = f.Seek(4, io.SeekStart)
	require.NoError(t, err)
	buf := make([]byte, 3)
	_, err = io.ReadFull(f, buf)
	require.NoError(t, err)
	assert.Equal(t, "456", string(buf))
	_, err = f.Seek(-2, io.SeekCurrent)
	require.NoError(t, err)
	rest, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "56789", string(rest))
}

func testMissing(t *testing.T, fs store.FileStore) {
	ctx := context.Background()
	require.NoError(t, fs.Put(ctx, "v/x/front.jpg", []byte("x")))
	for _, key := range []string{"v/x/none.jpg", "v/x", "v", "nothing/at/all"} {
		_, _, err := fs.Open(ctx, key)
		assert.ErrorIs(t, err, store.ErrNotFound, "%q is not a file", key)
	}
	for _, key := range []string{"../secret", "a//b", ".hidden", ""} {
		assert.Error(t, fs.Put(ctx, key, []byte("x")), "%q is refused", key)
		_, _, err := fs.Open(ctx, key)
		assert.ErrorIs(t, err, store.ErrNotFound, key)
	}
}

func testDelete(t *testing.T, fs store.FileStore) {
	ctx := context.Background()
	require.NoError(t, fs.Put(ctx, "v/a/front.jpg", []byte("1")))
	require.NoError(t, fs.Put(ctx, "v/a/back.jpg", []byte("2")))
	require.NoError(t, fs.Delete(ctx, "v/a/front.jpg"))
	_, _, err := fs.Open(ctx, "v/a/front.jpg")
	assert.ErrorIs(t, err, store.ErrNotFound)
	require.NoError(t, fs.Delete(ctx, "v/a/front.jpg"), "deleting twice is fine")
	require.NoError(t, fs.Delete(ctx, "v/never/there.jpg"), "deleting what never was is fine")
	got, _ := readAll(t, fs, "v/a/back.jpg")
	assert.Equal(t, "2", string(got), "the neighbour stays")
}

func testFilesConcurrent(t *testing.T, fs store.FileStore) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("v/c%d/front.jpg", i)
			body := bytes.Repeat([]byte{byte(i)}, 4096+i)
			if err := fs.Put(ctx, key, body); err != nil {
				errs <- err
				return
			}
			f, _, err := fs.Open(ctx, key)
			if err != nil {
				errs <- err
				return
			}
			got, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				errs <- err
				return
			}
			if !bytes.Equal(got, body) {
				errs <- errors.New(key + ": read back differs")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// testSweeper: a store with store.FileSweeper lists a folder's entries,
// removes a folder whole and the files older than a time; a store without
// it keeps everything (the server skips the sweep).
func testSweeper(t *testing.T, fs store.FileStore) {
	sw, ok := fs.(store.FileSweeper)
	if !ok {
		t.Skip("no store.FileSweeper")
	}
	ctx := context.Background()
	for _, k := range []string{"v/a/front.jpg", "v/a/back.jpg", "v/b/front.jpg", "vx/c/front.jpg", "u/d/doc.jpg", "u/e/doc.jpg"} {
		require.NoError(t, fs.Put(ctx, k, []byte(k)))
	}
	names, err := sw.List(ctx, "v")
	require.NoError(t, err)
	sort.Strings(names)
	assert.Equal(t, []string{"a", "b"}, names, "entries directly under v, not under vx")
	names, err = sw.List(ctx, "nothing")
	require.NoError(t, err)
	assert.Empty(t, names, "a missing folder is empty")

	require.NoError(t, sw.RemoveAll(ctx, "v/a"))
	_, _, err = fs.Open(ctx, "v/a/front.jpg")
	assert.ErrorIs(t, err, store.ErrNotFound)
	names, err = sw.List(ctx, "v")
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, names)
	require.NoError(t, sw.RemoveAll(ctx, "v/a"), "removing a missing folder is no error")

	// Object stores keep whole seconds: bounds an hour away either side.
	n, err := sw.RemoveOlder(ctx, "u", time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "nothing that old")
	n, err = sw.RemoveOlder(ctx, "u", time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, _, err = fs.Open(ctx, "u/d/doc.jpg")
	assert.ErrorIs(t, err, store.ErrNotFound)
	for _, k := range []string{"v/b/front.jpg", "vx/c/front.jpg"} {
		got, _ := readAll(t, fs, k)
		assert.Equal(t, k, string(got), "outside the prefix: kept")
	}
	n, err = sw.RemoveTemp(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "whole writes leave no temporary files")
	got, _ := readAll(t, fs, "v/b/front.jpg")
	assert.Equal(t, "v/b/front.jpg", string(got), "and RemoveTemp keeps real files")
}
