package cli

import (
	"os"
	"testing"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
)

// TestMain stops the PostgreSQL cluster and the S3 gateway the tests of
// this binary share, when one was started.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	s3test.StopShared()
	os.Exit(code)
}
