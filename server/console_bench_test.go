package server_test

import (
	"net/http"
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user and system CPU time so far: the client
// and the server both run in it.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConsolePages renders the console's main pages for a signed-in
// admin of an organisation with a client, a workflow, a webhook and a
// member, over HTTPS on loopback: session check, store reads, template.
func BenchmarkConsolePages(b *testing.B) {
	ce := newConsoleEnv(b)
	m := ce.signup("bench@example.com", "Bench Ltd")
	o := ce.populate(m, "Bench")
	for _, p := range []struct{ name, path string }{
		{"overview", "/console/overview"},
		{"clients", "/console/clients"},
		{"workflows", "/console/workflows"},
		{"workflow", "/console/workflows/" + o.workflow},
		{"webhooks", "/console/webhooks"},
		{"webhook", "/console/webhooks/" + o.webhook},
		{"units", "/console/units"},
		{"members", "/console/members"},
	} {
		b.Run(p.name, func(b *testing.B) {
			start, n := cpuTime(b), 0
			for b.Loop() {
				req, _ := http.NewRequest("GET", ce.ts.URL+p.path, nil)
				if r := m.do(req); r.status != http.StatusOK {
					b.Fatalf("%s: %d", p.path, r.status)
				}
				n++
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(n), "cpu-ns/op")
		})
	}
}
