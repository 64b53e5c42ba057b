package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

// BenchmarkVerifications: the storage figures of issue 22 on SQLite.
func BenchmarkVerifications(b *testing.B) {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.SetParallelism(8)
	storetest.Bench(b, db)
}

func TestWebhookConformance(t *testing.T) {
	storetest.RunWebhooks(t, func(t *testing.T) storetest.WebhookBackend {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

func TestReviewConformance(t *testing.T) {
	storetest.RunReviews(t, func(t *testing.T) storetest.ReviewBackend {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
