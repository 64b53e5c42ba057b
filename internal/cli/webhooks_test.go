package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tambua/tambua/server/webhook"
)

// run runs one tambua command line and returns its exit status and output.
func runWH(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code := Run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func TestWebhooksCLI(t *testing.T) {
	data := t.TempDir()
	id, err := webhook.DevIdentity(data) // the identity the commands present
	if err != nil {
		t.Fatal(err)
	}
	var got []*http.Request
	rc, rcCA := mtlsReceiver(t, id.CAPEM, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r)
		w.WriteHeader(http.StatusAccepted)
	})
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(rcCA), 0o600); err != nil {
		t.Fatal(err)
	}

	if code, _, stderr := runWH(t, "org", "create", "--data", data, "--name", "Acme"); code != 0 {
		t.Fatal(stderr)
	}
	create := []string{"webhooks", "create", "--data", data, "--org", "1", "--name", "Hook", "--url", rc.URL + "/in",
		"--ca-file", caFile, "--secret", "s3cret", "--events", "verification.completed, units.depleted", "--method", "PUT", "--header", "X-Version: 9"}
	if code, _, stderr := runWH(t, create...); code != ExitBadInput || !strings.Contains(stderr, "not publicly reachable") {
		t.Fatalf("private URL without --allow-private: exit %d, %s", code, stderr)
	}
	code, out, stderr := runWH(t, append(create, "--allow-private")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	var w struct {
		ID, Status, Method string
		Events             []string
		Headers            []webhook.Header
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		t.Fatal(err)
	}
	if w.Status != "inactive" || w.Method != "PUT" || len(w.Events) != 2 || len(w.Headers) != 1 || w.Headers[0].Name != "X-Version" {
		t.Fatalf("created %+v", w)
	}

	steps := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"webhooks", "list", "--org", "1"}, 0, `"event_count": 2`},
		{[]string{"webhooks", "show", w.ID}, 0, `"has_secret": true`},
		{[]string{"webhooks", "pause", w.ID}, ExitBadInput, ""},
		{[]string{"webhooks", "activate", w.ID}, 0, `"status": "active"`},
		{[]string{"webhooks", "test", w.ID, "--event", "units.depleted", "--allow-private"}, 0, `"outcome": "success"`},
		{[]string{"webhooks", "test", w.ID, "--event", "nope", "--allow-private"}, ExitBadInput, ""},
		{[]string{"webhooks", "validate", w.ID, "--allow-private"}, 0, `"valid": true`},
		{[]string{"webhooks", "pause", w.ID}, 0, `"status": "paused"`},
		{[]string{"webhooks", "resume", w.ID}, 0, `"status": "active"`},
		{[]string{"webhooks", "stats", w.ID}, 0, `"total_deliveries": 0`},
		{[]string{"webhooks", "logs", w.ID, "--status", "Nope"}, ExitBadInput, ""},
		{[]string{"webhooks", "show", "wh_unknown"}, ExitBadInput, ""},
		{[]string{"webhooks", "show"}, ExitBadInput, ""},
		{[]string{"webhooks", "list"}, ExitBadInput, ""},
		// --json is accepted (the output is JSON either way), anywhere.
		{[]string{"webhooks", "show", w.ID, "--json"}, 0, `"has_secret": true`},
		{[]string{"webhooks", "list", "--json", "--org", "1"}, 0, `"event_count": 2`},
		{[]string{"webhooks", "logs", w.ID, "--json", "--format", "csv"}, ExitBadInput, ""},
		{[]string{"webhooks", "show", w.ID, "extra"}, ExitBadInput, ""},
	}
	for _, s := range steps {
		code, out, stderr := runWH(t, append(s.args, "--data", data)...)
		if code != s.code || !strings.Contains(out, s.want) {
			t.Errorf("%v: exit %d (want %d), out %q, err %q", s.args, code, s.code, out, stderr)
		}
	}
	if len(got) != 1 || got[0].Method != "PUT" || got[0].Header.Get("X-Version") != "9" {
		t.Fatalf("receiver saw %d requests", len(got))
	}

	// A logged attempt, exported as CSV.
	_, out, _ = runWH(t, "webhooks", "logs", w.ID, "--data", data, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 1 || rows[0][0] != "timestamp" {
		t.Fatalf("empty log as CSV: %q %v", out, err)
	}
	if code, out, _ := runWH(t, "webhooks", "delete", w.ID, "--data", data); code != 0 || !strings.Contains(out, w.ID) {
		t.Fatalf("delete: %d %s", code, out)
	}
	if code, _, _ := runWH(t, "webhooks", "show", w.ID, "--data", data); code != ExitBadInput {
		t.Fatalf("show after delete: exit %d", code)
	}
}

func TestBenchWebhooks(t *testing.T) {
	code, out, stderr := runWH(t, "bench", "webhooks", "--events", "30", "--webhooks", "2")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"deliveries  60 (30 events x 2 webhooks)", "throughput", "p95", "per delivery"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runWH(t, "bench", "webhooks", "--events", "0"); code != ExitBadInput {
		t.Errorf("--events 0: exit %d", code)
	}
}
