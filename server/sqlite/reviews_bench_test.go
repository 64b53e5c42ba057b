package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/store"
)

// BenchmarkReviewQueue10k reads what the queue page needs (the 50 oldest
// open cases and the count with the oldest's age) of an organisation with
// 10,000 cases in review.
func BenchmarkReviewQueue10k(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "t.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	org, err := db.CreateOrganisation(ctx, "Org")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.AddUnits(ctx, org.ID, 1_000_000, "bench"); err != nil {
		b.Fatal(err)
	}
	c := store.Client{ID: idv.NewRequestID(), OrganisationID: org.ID, SecretHash: "h", Active: true}
	if err := db.CreateClient(ctx, c); err != nil {
		b.Fatal(err)
	}
	res := json.RawMessage(`{"verification_decision":"review","decision_reasons":["face_low_confidence"]}`)
	for range 10_000 {
		claim := store.Claim{ID: idv.NewID(), ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "wf", RequestID: idv.NewRequestID(), Units: 1}
		if err := db.ClaimVerification(ctx, claim); err != nil {
			b.Fatal(err)
		}
		if _, err := db.CompleteVerification(ctx, store.Verification{ID: claim.ID, ClientID: c.ID, OrganisationID: org.ID, WorkflowID: "wf",
			RequestID: claim.RequestID, Units: 1, Decision: "review", Result: res, Files: map[string]string{}}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		cases, err := db.ListReviews(ctx, org.ID, store.ReviewFilter{Limit: 50})
		if err != nil || len(cases) != 50 {
			b.Fatal(err, len(cases))
		}
		if n, _, err := db.CountReviews(ctx, org.ID); err != nil || n != 10_000 {
			b.Fatal(err, n)
		}
	}
}
