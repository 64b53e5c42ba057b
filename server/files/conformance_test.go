package files_test

import (
	"path/filepath"
	"testing"

	"github.com/tambua/tambua/server/files"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.RunFiles(t, func(t *testing.T) store.FileStore {
		d, err := files.Open(filepath.Join(t.TempDir(), "files"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	})
}
