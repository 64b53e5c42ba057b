package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestClusterCPU: work done by the server shows in the cluster's CPU time.
func TestClusterCPU(t *testing.T) {
	c := Shared(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	before := c.CPU()
	// A few hundred milliseconds of server CPU: a sum over generated rows.
	var n int64
	if err := conn.QueryRow(ctx, "SELECT SUM(i) FROM generate_series(1, 3000000) AS i").Scan(&n); err != nil {
		t.Fatal(err)
	}
	used := c.CPU() - before
	if used < 50*time.Millisecond {
		t.Fatalf("the cluster's CPU grew by %v over a query that computes for a while", used)
	}
	if used > 5*time.Minute {
		t.Fatalf("implausible CPU time %v", used)
	}
	t.Logf("server CPU for the query: %v", used)
}
