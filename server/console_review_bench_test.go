package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/store/storetest"
	"github.com/tambua/tambua/server/webhook"
)

// BenchmarkReviewQueuePage renders the console's queue page (first page
// of 50, counts, oldest age, filters with the workflows and reviewers)
// for a reviewer of an organisation with 10,000 cases in review, over
// HTTP with the session cookie, as a browser asks for it. The issue's
// target is under 300 ms.
func BenchmarkReviewQueuePage(b *testing.B) {
	for _, q := range []string{"", "?sort=newest&reason=face_low_confidence&assignee=none"} {
		b.Run("10k"+strings.ReplaceAll(q, "&", ","), func(b *testing.B) {
			mail := &webhook.DevMailer{}
			ce := &consoleEnv{env: newEnvWith(b, func(c *server.Config) { c.Mailer = mail }), mail: mail}
			m := ce.signup("ada@a.example", "Org A")
			ctx := context.Background()
			if _, err := ce.admin.AddUnits(ctx, m.orgID(), 10_000); err != nil {
				b.Fatal(err)
			}
			org, err := ce.db.Organisation(ctx, m.orgID())
			if err != nil {
				b.Fatal(err)
			}
			_, cl := storetest.Fixture(b, ce.db, 0)
			cl.OrganisationID = org.ID
			for i := range 10_000 {
				storetest.Complete(b, ce.db, org, cl, "wf-"+string(rune('a'+i%3)), "review")
			}
			cpu := bench.ProcessCPU()
			b.ResetTimer()
			for b.Loop() {
				req, _ := http.NewRequest("GET", ce.ts.URL+"/console/reviews"+q, nil)
				r := m.do(req)
				if r.status != 200 || !strings.Contains(string(r.body), `id="open-count">10000<`) {
					b.Fatalf("%d: %.300s", r.status, r.body)
				}
			}
			// CPU of the whole process (server and client in one): the
			// wall time is shared with whatever else the machine runs.
			b.ReportMetric(bench.Millis(bench.ProcessCPU()-cpu)/float64(b.N), "cpu-ms/page")
			b.ReportMetric(bench.Millis(b.Elapsed())/float64(b.N), "ms/page")
		})
	}
}
