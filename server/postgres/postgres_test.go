package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/server/postgres"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestConformance(t *testing.T) {
	c := pgtest.Shared(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, c.NewDatabase(t))
	})
}

// TestMigrationsUnderLock: replicas starting together on an empty
// database apply each migration once and all come up.
func TestMigrationsUnderLock(t *testing.T) {
	dsn := pgtest.Shared(t).NewDatabase(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	dbs := make([]*postgres.DB, 4)
	errs := make([]error, len(dbs))
	for i := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = postgres.Open(ctx, dsn)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err)
		t.Cleanup(func() { dbs[i].Close() })
	}
	want, err := dbs[0].Migrations(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, want)
	for _, db := range dbs[1:] {
		got, err := db.Migrations(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	org, _ := storetest.Fixture(t, dbs[1], 7)
	dbs[0].Close()
	again := open(t, dsn)
	got, err := again.Organisation(ctx, org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 7, got.Balance, "data survives a reopen, migrations are not reapplied")
}

func TestOpenBadDSN(t *testing.T) {
	_, err := postgres.Open(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
	assert.Error(t, err)
	_, err = postgres.Open(context.Background(), "::not a dsn")
	assert.Error(t, err)
}

// BenchmarkVerifications: the storage figures of issue 22 on PostgreSQL
// (the test cluster runs with fsync off).
func BenchmarkVerifications(b *testing.B) {
	db, err := postgres.Open(context.Background(), pgtest.Shared(b).NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.SetParallelism(8)
	storetest.Bench(b, db)
}

func TestWebhookConformance(t *testing.T) {
	c := pgtest.Shared(t)
	storetest.RunWebhooks(t, func(t *testing.T) storetest.WebhookBackend {
		return open(t, c.NewDatabase(t))
	})
}

func TestReviewConformance(t *testing.T) {
	c := pgtest.Shared(t)
	storetest.RunReviews(t, func(t *testing.T) storetest.ReviewBackend {
		return open(t, c.NewDatabase(t))
	})
}
