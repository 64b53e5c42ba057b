// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb
// and pg_ctl from Debian's postgresql package in a temporary folder,
// listening on a free loopback port, one cluster per test binary, one
// fresh database per caller.
//
// PostgreSQL refuses to run as root, and tests here run as root: the
// cluster then runs as the unprivileged user the package creates
// (postgres, or TAMBUA_PG_USER), through runuser.
//
// When PostgreSQL is not installed, tests skip, except in CI (CI=true)
// where they fail: scripts/setup.sh installs it.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// Cluster is a running PostgreSQL server.
type Cluster struct {
	dir   string
	port  int
	bin   string
	runAs string // "" when the current user runs it
	n     atomic.Int64
}

var shared = fixtures.NewLazy("pgtest", Start)

// Main runs a package's tests and stops the shared cluster, if one was
// started, when they are done. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// StopShared stops the shared cluster if one was started: for a TestMain
// that needs more than one of these helpers.
func StopShared() {
	shared.Stop()
}

// Shared returns the test binary's cluster, starting it on first use. It
// skips the test when PostgreSQL is missing, or fails it in CI.
func Shared(tb testing.TB) *Cluster {
	tb.Helper()
	return shared.Get(tb)
}

// binDir finds the newest PostgreSQL server binaries: TAMBUA_PG_BIN, or
// Debian's /usr/lib/postgresql/<major>/bin.
func binDir() (string, error) {
	if d := os.Getenv("TAMBUA_PG_BIN"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl; set TAMBUA_PG_BIN)")
}

func major(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start initialises and starts a new cluster. Stop removes it.
func Start() (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin}
	dir, err := os.MkdirTemp("", "tambua-pg-")
	if err != nil {
		return nil, err
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		c.runAs = os.Getenv("TAMBUA_PG_USER")
		if c.runAs == "" {
			c.runAs = "postgres"
		}
		u, err := user.Lookup(c.runAs)
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs an unprivileged user to run PostgreSQL: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	// trust on loopback only: the cluster lives for one test binary and
	// listens on 127.0.0.1; no sync, the data is thrown away.
	if out, err := c.run("initdb", "-D", data, "-A", "trust", "-U", "tambua", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		c.Stop()
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	// A free port can be taken between our probe and the server's bind:
	// try a few.
	for attempt := 0; ; attempt++ {
		c.port, err = freePort()
		if err != nil {
			c.Stop()
			return nil, err
		}
		// fsync off: the cluster is thrown away, and a test binary should
		// not wait for the disk (benchmarks on it say so).
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200", c.port, dir)
		out, err := c.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start")
		if err == nil {
			break
		}
		if attempt == 3 {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			c.Stop()
			return nil, fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, log)
		}
	}
	return c, nil
}

func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, prog)
	var cmd *exec.Cmd
	if c.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = c.dir // the unprivileged user may not read the caller's folder
	return cmd.CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops the server at once and removes its folder.
func (c *Cluster) Stop() {
	if _, err := os.Stat(filepath.Join(c.dir, "data", "postmaster.pid")); err == nil {
		c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	os.RemoveAll(c.dir)
}

// DSN is the connection string of database name.
func (c *Cluster) DSN(name string) string {
	return fmt.Sprintf("postgres://tambua@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// NewDatabase returns the DSN of an empty schema of its own in the
// cluster's database: a schema, not a database, because creating one
// costs a few milliseconds where CREATE DATABASE costs most of a second.
// Whatever runs on the DSN sees only its schema (search_path); the
// cluster, thrown away with the test binary, takes the schemas with it.
func (c *Cluster) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("t%d", c.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return c.DSN("postgres") + "&search_path=" + name
}
