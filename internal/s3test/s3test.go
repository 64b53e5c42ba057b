// Package s3test starts a real S3-compatible server for tests: versitygw
// (github.com/versity/versitygw, installed by scripts/setup.sh) serving a
// temporary folder over the S3 protocol on a free loopback port, one per
// test binary, with a fresh bucket per caller.
//
// When versitygw is not installed, tests skip, except in CI (CI=true)
// where they fail.
package s3test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// Version is the versitygw release scripts/setup.sh installs.
const Version = "v1.8.0"

// Server is a running versitygw.
type Server struct {
	// Addr is host:port of the S3 endpoint (plain HTTP).
	Addr string
	// Access and Secret are the root credentials.
	Access, Secret string
	dir            string
	cmd            *exec.Cmd
	exited         chan struct{}
	n              atomic.Int64
}

var shared = fixtures.NewLazy("s3test", Start)

// Main runs a package's tests and stops the shared server afterwards.
// Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// StopShared stops the shared server if one was started: for a TestMain
// that needs more than one of these helpers.
func StopShared() {
	shared.Stop()
}

// Shared returns the test binary's server, starting it on first use. It
// skips the test when versitygw is missing, or fails it in CI.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	return shared.Get(tb)
}

// Binary finds versitygw: TAMBUA_VERSITYGW, then PATH, then where go
// install puts it (GOBIN, GOPATH/bin, ~/go/bin).
func Binary() (string, error) {
	if p := os.Getenv("TAMBUA_VERSITYGW"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	var dirs []string
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) == 2 {
			if lines[0] != "" {
				dirs = append(dirs, lines[0])
			}
			if gp := filepath.SplitList(lines[1]); len(gp) > 0 && gp[0] != "" {
				dirs = append(dirs, filepath.Join(gp[0], "bin"))
			}
		}
	}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@%s, or set TAMBUA_VERSITYGW)", Version)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Start runs a new server. Stop ends it and removes its folder.
func Start() (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tambua-s3-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, Access: "tambua" + randomHex(4), Secret: randomHex(20)}
	for _, d := range []string{"data", "meta"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	// A port probed free can be taken before the server binds it: a few
	// tries.
	for attempt := 0; ; attempt++ {
		if err := s.start(bin); err == nil {
			return s, nil
		} else if attempt == 3 {
			s.Stop()
			return nil, err
		}
	}
}

func (s *Server) start(bin string) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.Addr = l.Addr().String()
	l.Close()
	log, err := os.Create(filepath.Join(s.dir, "log"))
	if err != nil {
		return err
	}
	defer log.Close()
	// The sidecar folder keeps object metadata in files, so the data
	// folder's file system needs no extended attributes.
	s.cmd = exec.Command(bin, "--port", s.Addr, "--quiet", "posix", "--sidecar", filepath.Join(s.dir, "meta"), filepath.Join(s.dir, "data"))
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.Access, "ROOT_SECRET_ACCESS_KEY="+s.Secret)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("versitygw: %w", err)
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			out, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			return fmt.Errorf("versitygw exited: %s", out)
		default:
		}
		if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.cmd.Process.Kill()
	<-s.exited
	return fmt.Errorf("versitygw did not listen on %s within 30 s", s.Addr)
}

// Stop ends the server and removes its folder.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		<-s.exited
	}
	os.RemoveAll(s.dir)
}

// Env sets the credentials in the environment variables the product
// reads (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) for the test.
func (s *Server) Env(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
}

// NewBucketURL names a fresh bucket (created on first use by the store,
// create=true) in the s3:// form `tambua serve --files` takes.
func (s *Server) NewBucketURL() string {
	return fmt.Sprintf("s3://tambua-t%d-%s?endpoint=http://%s&region=us-east-1&path_style=true&create=true", s.n.Add(1), randomHex(3), s.Addr)
}
