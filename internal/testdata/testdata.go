// Package testdata finds the shared public test data (../shared/testdata, or
// $TAMBUA_TESTDATA) and the dlib models for tests. A test that needs them
// fails when they are missing in CI (CI is set) and skips otherwise.
package testdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root is the repository root, found from this file's location.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Dir returns the shared test data folder, or ends the test: Fatal in CI,
// Skip elsewhere.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TAMBUA_TESTDATA")
	if dir == "" {
		dir = filepath.Join(Root(), "..", "shared", "testdata")
	}
	return need(tb, dir, "shared test data (set TAMBUA_TESTDATA)")
}

// Path returns a file or folder inside the shared test data.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	return need(tb, p, "test data file")
}

// Models returns the folder of the dlib models that make setup fetches.
func Models(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("TAMBUA_MODELS")
	if dir == "" {
		dir = filepath.Join(Root(), "models")
	}
	return need(tb, filepath.Join(dir, "dlib_face_recognition_resnet_model_v1.dat"), "dlib models (run make setup)")[:len(dir)]
}

// Need returns path if it exists, or ends the test as Dir does.
func Need(tb testing.TB, path, what string) string {
	tb.Helper()
	return need(tb, path, what)
}

func need(tb testing.TB, path, what string) string {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s missing at %s: %v", what, path, err)
		}
		tb.Skipf("%s missing at %s (skipping outside CI)", what, path)
	}
	return path
}
