// Package files is the local image store of the reference server: one file
// per key under a root folder, written atomically.
package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tambua/tambua/server/store"
)

// ErrBadKey is returned for a key that is not a clean relative path of
// safe characters.
var ErrBadKey = errors.New("files: invalid key")

// Dir stores files under a folder.
type Dir struct {
	root string
}

var _ store.FileStore = (*Dir)(nil)

// Open returns a store rooted at dir, creating it.
func Open(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Dir{root: abs}, nil
}

// Ping checks that the folder is there and a folder (readiness: a
// volume that was unmounted under the server).
func (d *Dir) Ping(ctx context.Context) error {
	fi, err := os.Stat(d.root)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("files: %s is not a folder", d.root)
	}
	return nil
}

// ValidKey reports whether key is safe to use as a path: segments of
// [A-Za-z0-9_.-] separated by '/', none empty, none starting with a dot
// (store.ValidFileKey, shared with the object store).
func ValidKey(key string) bool { return store.ValidFileKey(key) }

func (d *Dir) path(key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}

// Put writes data under key through a temporary file and a rename, so a
// reader never sees half a file.
func (d *Dir) Put(ctx context.Context, key string, data []byte) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("files: write %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("files: write %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// Open opens the file under key; store.ErrNotFound when there is none.
func (d *Dir) Open(ctx context.Context, key string) (io.ReadSeekCloser, time.Time, error) {
	p, err := d.path(key)
	if err != nil {
		return nil, time.Time{}, store.ErrNotFound
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, time.Time{}, store.ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("files: %w", err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, time.Time{}, store.ErrNotFound
	}
	return f, st.ModTime(), nil
}

// Delete removes the file under key and the folders it leaves empty.
func (d *Dir) Delete(ctx context.Context, key string) error {
	p, err := d.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("files: %w", err)
	}
	// Remove fails on a folder that is not empty, which is what we want.
	for dir := filepath.Dir(p); dir != d.root && strings.HasPrefix(dir, d.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// RemoveOlder removes the files under prefix (a folder key, or "" for all)
// last modified before t, and the folders that leaves empty. It returns how
// many files it removed.
func (d *Dir) RemoveOlder(ctx context.Context, prefix string, before time.Time) (int, error) {
	return d.remove(ctx, prefix, func(name string, mod time.Time) bool { return mod.Before(before) })
}

// RemoveTemp removes the temporary files of writes a crash interrupted
// (".put-*", which Put renames or removes itself) last modified before t.
func (d *Dir) RemoveTemp(ctx context.Context, before time.Time) (int, error) {
	return d.remove(ctx, "", func(name string, mod time.Time) bool {
		return strings.HasPrefix(name, ".put-") && mod.Before(before)
	})
}

// List returns the names directly under the folder key prefix.
func (d *Dir) List(ctx context.Context, prefix string) ([]string, error) {
	p, err := d.path(prefix)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, nil
}

// RemoveAll removes the folder key prefix and everything under it.
func (d *Dir) RemoveAll(ctx context.Context, prefix string) error {
	p, err := d.path(prefix)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

func (d *Dir) remove(ctx context.Context, prefix string, drop func(name string, mod time.Time) bool) (int, error) {
	root := d.root
	if prefix != "" {
		p, err := d.path(prefix)
		if err != nil {
			return 0, err
		}
		root = p
	}
	n := 0
	var dirs []string
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			if p != root {
				dirs = append(dirs, p)
			}
			return nil
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !drop(e.Name(), info.ModTime()) {
			return nil
		}
		if err := os.Remove(p); err == nil {
			n++
		}
		return nil
	})
	// Deepest first: a folder emptied by the removal of its children goes
	// too; Remove fails on one that is not empty.
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
	if err != nil {
		return n, fmt.Errorf("files: %w", err)
	}
	return n, nil
}

var _ store.FileSweeper = (*Dir)(nil)
