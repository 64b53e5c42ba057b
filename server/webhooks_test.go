package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/checks/webhookcheck"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/webhook"
)

// webhookEnv is a server whose webhook service may call 127.0.0.1 (as
// serve --allow-private-webhooks), with a mutual-TLS receiver.
type webhookEnv struct {
	*env
	svc      *webhook.Service
	sender   *webhook.Sender
	receiver *httptest.Server
	caPEM    string
	got      chan *http.Request
}

func newWebhookEnv(t *testing.T) *webhookEnv {
	t.Helper()
	id, err := webhook.DevIdentity(t.TempDir())
	must(t, err)
	sender := webhook.NewSender(id, &webhook.Guard{AllowPrivate: true})
	svc := &webhook.Service{Sender: sender}
	e := newEnvWith(t, func(c *server.Config) { c.Webhooks = svc })
	svc.Store = e.db

	we := &webhookEnv{env: e, svc: svc, sender: sender, got: make(chan *http.Request, 16)}
	we.receiver = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		we.got <- r
		w.WriteHeader(http.StatusOK)
	}))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(id.CAPEM)
	we.receiver.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	we.receiver.Config.ErrorLog = log.New(io.Discard, "", 0)
	we.receiver.StartTLS()
	t.Cleanup(we.receiver.Close)
	we.caPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: we.receiver.Certificate().Raw}))
	return we
}

func (e *env) call(method, path, token string, body any) response {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		must(e.t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.ts.URL+path, rd)
	must(e.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.do(req)
}

func TestWebhookAPI(t *testing.T) {
	e := newWebhookEnv(t)
	tok := e.token()

	r := e.call("GET", "/v1/webhooks", "", nil)
	assert.Equal(t, 401, r.status)
	assert.Equal(t, 401, r.code())

	create := map[string]any{"type": "event_notification", "name": "Orders", "url": e.receiver.URL + "/in",
		"ca_certificate": e.caPEM, "secret": "s3cret", "events": []string{"verification.completed", "units.low_balance"},
		"headers": []map[string]any{{"name": "X-Version", "value": "7", "enabled": true}}}
	r = e.call("POST", "/v1/webhooks", tok, create)
	require.Equal(t, 201, r.status, string(r.body))
	id := r.str("id")
	assert.Equal(t, "inactive", r.str("status"))
	assert.Equal(t, "POST", r.str("method"))
	assert.Equal(t, true, r.obj["has_secret"])
	assert.NotContains(t, string(r.body), "s3cret", "the secret is never returned")

	for name, bad := range map[string]map[string]any{
		"http url":      {"type": "event_notification", "name": "x", "url": "http://example.com", "ca_certificate": e.caPEM, "events": []string{"units.depleted"}},
		"unknown event": {"type": "event_notification", "name": "x", "url": e.receiver.URL, "ca_certificate": e.caPEM, "events": []string{"nope"}},
		"no CA":         {"type": "event_notification", "name": "x", "url": e.receiver.URL, "events": []string{"units.depleted"}},
		"bad method":    {"type": "event_notification", "name": "x", "url": e.receiver.URL, "ca_certificate": e.caPEM, "events": []string{"units.depleted"}, "method": "GET"},
		"reserved hdr":  {"type": "event_notification", "name": "x", "url": e.receiver.URL, "ca_certificate": e.caPEM, "events": []string{"units.depleted"}, "headers": []map[string]any{{"name": "X-Service-Signature", "value": "x", "enabled": true}}},
		"threshold":     {"type": "verification_check", "name": "x", "url": e.receiver.URL, "ca_certificate": e.caPEM, "criteria": map[string]any{"min_threshold": 1.5}},
		"unknown field": {"type": "verification_check", "name": "x", "url": e.receiver.URL, "ca_certificate": e.caPEM, "colour": "red"},
	} {
		r := e.call("POST", "/v1/webhooks", tok, bad)
		assert.Equal(t, 400, r.status, name)
		assert.Equal(t, 104, r.code(), name)
	}

	r = e.call("GET", "/v1/webhooks", tok, nil)
	require.Equal(t, 200, r.status)
	list := r.obj["webhooks"].([]any)
	require.Len(t, list, 1)
	assert.Equal(t, 2.0, list[0].(map[string]any)["event_count"])

	r = e.call("PATCH", "/v1/webhooks/"+id, tok, map[string]any{"type": "verification_check"})
	assert.Equal(t, 104, r.code(), "type is fixed")
	r = e.call("PATCH", "/v1/webhooks/"+id, tok, map[string]any{"name": "Orders v2"})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "Orders v2", r.str("name"))
	assert.Equal(t, 104, e.call("POST", "/v1/webhooks/"+id+"/pause", tok, nil).code(), "inactive cannot pause")
	r = e.call("POST", "/v1/webhooks/"+id+"/activate", tok, nil)
	require.Equal(t, 200, r.status)
	assert.Equal(t, "active", r.str("status"))

	r = e.call("POST", "/v1/webhooks/"+id+"/validate-certificate", tok, nil)
	require.Equal(t, 200, r.status)
	assert.Equal(t, true, r.obj["valid"], string(r.body))

	r = e.call("POST", "/v1/webhooks/"+id+"/test", tok, map[string]any{"event": "units.low_balance"})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, "success", r.str("outcome"))
	got := <-e.got
	assert.Equal(t, "7", got.Header.Get("X-Version"))
	body, _ := io.ReadAll(got.Body)
	require.NoError(t, webhook.Verify("s3cret", body, got.Header.Get("X-Service-Signature")))
	assert.Equal(t, 104, e.call("POST", "/v1/webhooks/"+id+"/test", tok, map[string]any{"event": "x.y"}).code())

	// A real event through the outbox and the dispatcher lands in the log.
	must(t, e.db.AddEvents(context.Background(), server.Event{EventID: webhook.NewEventID(), Event: "verification.completed", OrganisationID: e.org.ID, Data: json.RawMessage(`{"verification_id":"v"}`)}))
	d := &webhook.Dispatcher{Store: e.db, Sender: e.sender, Logger: slog.New(slog.DiscardHandler)}
	must(t, d.Step(context.Background()))
	<-e.got
	r = e.call("GET", "/v1/webhooks/"+id+"/logs?status=Success&event=verification.completed&from=2000-01-01", tok, nil)
	require.Equal(t, 200, r.status, string(r.body))
	assert.Len(t, r.obj["logs"], 1)
	r = e.call("GET", "/v1/webhooks/"+id+"/logs?format=csv", tok, nil)
	require.Equal(t, 200, r.status)
	assert.Equal(t, "text/csv; charset=utf-8", r.header.Get("Content-Type"))
	rows, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, "verification.completed", rows[1][1])
	assert.Equal(t, "Success", rows[1][2])
	assert.Equal(t, 104, e.call("GET", "/v1/webhooks/"+id+"/logs?status=Bad", tok, nil).code())
	assert.Equal(t, 104, e.call("GET", "/v1/webhooks/"+id+"/logs?from=yesterday", tok, nil).code())
	r = e.call("GET", "/v1/webhooks/"+id+"/stats", tok, nil)
	require.Equal(t, 200, r.status)
	assert.Equal(t, 1.0, r.obj["total_deliveries"])
	assert.Equal(t, 1.0, r.obj["success_rate"])

	r = e.call("POST", "/v1/webhooks/"+id+"/pause", tok, nil)
	assert.Equal(t, "paused", r.str("status"))
	r = e.call("POST", "/v1/webhooks/"+id+"/resume", tok, nil)
	assert.Equal(t, "active", r.str("status"))

	// Another organisation sees nothing.
	org2, err := e.admin.CreateOrganisation(context.Background(), "Other")
	must(t, err)
	c2, s2, err := e.admin.CreateClient(context.Background(), org2.ID, "other")
	must(t, err)
	tok2 := e.tokenFor(c2.ID, s2)
	assert.Equal(t, 404, e.call("GET", "/v1/webhooks/"+id, tok2, nil).status)
	assert.Equal(t, 404, e.call("DELETE", "/v1/webhooks/"+id, tok2, nil).status)
	r = e.call("GET", "/v1/webhooks", tok2, nil)
	assert.Empty(t, r.obj["webhooks"])

	assert.Equal(t, 405, e.call("PUT", "/v1/webhooks/"+id, tok, nil).status)
	assert.Equal(t, 204, e.call("DELETE", "/v1/webhooks/"+id, tok, nil).status)
	assert.Equal(t, 404, e.call("GET", "/v1/webhooks/"+id, tok, nil).status)
	assert.Equal(t, 404, e.call("GET", "/v1/webhooks/"+id+"/logs", tok, nil).status)
}

// TestWebhookAPIRefusesPrivateURLs: without --allow-private-webhooks the
// API refuses URLs that lead to loopback, private or metadata addresses,
// including a name that resolves to 127.0.0.1.
func TestWebhookAPIRefusesPrivateURLs(t *testing.T) {
	e := newEnv(t)
	tok := e.token()
	ca, _, _, err := webhook.GenerateClientIdentity("ca", time.Now(), time.Hour)
	must(t, err)
	for _, u := range []string{"https://127.0.0.1:8443/x", "https://localhost/x", "https://10.0.0.8/x", "https://169.254.169.254/latest", "https://[::1]/x", "https://100.64.0.1/x"} {
		r := e.call("POST", "/v1/webhooks", tok, map[string]any{"type": "event_notification", "name": "x", "url": u,
			"ca_certificate": string(ca), "events": []string{"units.depleted"}})
		assert.Equal(t, 400, r.status, u)
		assert.Contains(t, string(r.body), "not publicly reachable", u)
	}
}

// TestClientCreditsLowEvent: the debit that leaves fewer units than ten
// verifications of the workflow records client.credits.low, once, in the
// transaction of the verification.
func TestClientCreditsLowEvent(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	// OCR only costs 2: the line is 20 units. 1000 units less 979 is 21.
	_, err := e.admin.AddUnits(ctx, e.org.ID, -979)
	must(t, err)
	front, back := captures(t)
	tok := e.token()
	for i := range 2 {
		r := e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "credits-" + string(rune('a'+i))}),
			part{"front", front}, part{"back", back})
		require.Equal(t, 200, r.status, string(r.body))
	}
	evs := e.events()[webhook.EventClientCreditsLow]
	require.Len(t, evs, 1, "fired when crossing the line, not again below it")
	var d webhook.ClientCreditsLow
	require.NoError(t, json.Unmarshal(evs[0].Data, &d))
	assert.Equal(t, webhook.ClientCreditsLow{ClientID: e.client.ID, WorkflowID: e.wfOCR.ID, CurrentBalance: 19,
		UnitsPerVerification: 2, VerificationsRemaining: 9}, d)
	assert.Equal(t, e.org.ID, evs[0].OrganisationID)
}

func TestCreditsLowBoundaries(t *testing.T) {
	tests := []struct {
		before, after, cost int64
		want                bool
	}{
		{21, 19, 2, true},
		{20, 18, 2, true},
		{19, 17, 2, false},
		{25, 20, 5, false},
		{50, 45, 5, true},
		{10, 0, 0, false},
	}
	for _, tc := range tests {
		_, got := server.CreditsLowEventForTest(1, "c", "w", tc.before, tc.after, tc.cost)
		assert.Equal(t, tc.want, got, "%+v", tc)
	}
}

// slowOCR holds the only worker long enough for a second request to time
// out in the queue.
type slowOCR struct{ ocrStandIn }

func (s *slowOCR) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	select {
	case <-time.After(1500 * time.Millisecond):
	case <-ctx.Done():
	}
	return s.ocrStandIn.Run(ctx, c)
}

// TestVerificationTimeoutEvent: a request that finds no free worker before
// the queue timeout is refused with 230 and records verification.timeout.
func TestVerificationTimeoutEvent(t *testing.T) {
	e := newEnvWith(t, func(c *server.Config) { c.Workers, c.QueueTimeout = 1, 300*time.Millisecond }, &slowOCR{})
	tok := e.token()
	front, back := captures(t)

	first := make(chan response, 1)
	go func() {
		first <- e.do(e.uploadRequest(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "slow-1"}), part{"front", front}, part{"back", back}))
	}()
	time.Sleep(200 * time.Millisecond) // the first holds the worker
	r := e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "slow-2"}), part{"front", front}, part{"back", back})
	assert.Equal(t, 230, r.code(), string(r.body))
	assert.Equal(t, 200, (<-first).status)

	evs := e.events()[webhook.EventVerificationTimeout]
	require.Len(t, evs, 1)
	var d webhook.VerificationTimeout
	require.NoError(t, json.Unmarshal(evs[0].Data, &d))
	assert.Equal(t, "slow-2", d.RequestID)
	assert.Equal(t, e.wfOCR.ID, d.WorkflowID)
	assert.Equal(t, int64(300), d.TimeoutMS)
	assert.GreaterOrEqual(t, d.ElapsedMS, int64(300))
	assert.Equal(t, int64(998), e.balance(), "the timed-out request is not billed")
}

// TestEventDataShapes: the data the server writes for each event decodes,
// strictly, into the documented type of package webhook (the shapes of
// docs/webhooks.md and of test deliveries).
func TestEventDataShapes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	front, back := captures(t)
	tok := e.token()
	r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	r = e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", flatJPEG}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	_, err := e.admin.SetWorkflowStatus(ctx, e.wfOCR.ID, idv.WorkflowArchived)
	must(t, err)
	_, err = e.admin.SetWorkflowStatus(ctx, e.wfOCR.ID, idv.WorkflowActive)
	must(t, err)
	_, err = e.admin.AddUnits(ctx, e.org.ID, -(e.balance() - 51))
	must(t, err)
	r = e.upload(tok, e.uploadMessage(e.wfFace, nil), part{"front", front}, part{"back", back}, part{"selfie", front})
	require.Equal(t, 200, r.status, string(r.body))

	types := map[string]any{
		webhook.EventVerificationStarted:   &webhook.VerificationStarted{},
		webhook.EventVerificationCompleted: &webhook.VerificationCompleted{},
		webhook.EventVerificationFailed:    &webhook.VerificationFailed{},
		webhook.EventWorkflowCreated:       &webhook.WorkflowChanged{},
		webhook.EventWorkflowActivated:     &webhook.WorkflowChanged{},
		webhook.EventWorkflowDeactivated:   &webhook.WorkflowChanged{},
		webhook.EventUnitsLowBalance:       &webhook.UnitsLowBalance{},
	}
	evs := e.events()
	for name, v := range types {
		require.NotEmpty(t, evs[name], name)
		for _, ev := range evs[name] {
			dec := json.NewDecoder(bytes.NewReader(ev.Data))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(v), "%s: %s", name, ev.Data)
		}
	}
	// The sample data of test deliveries has the same shapes.
	for _, name := range webhook.Events {
		raw, err := json.Marshal(webhook.SampleData(name, time.Now()))
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(raw, []byte("{")), name)
	}
}

// TestWorkflowEventsAreTransactional: a workflow change that fails writes
// no event; one that succeeds writes exactly its event.
func TestWorkflowEventsAreTransactional(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	before := len(e.events()[webhook.EventWorkflowCreated])
	_, err := e.admin.CreateWorkflow(ctx, e.client.ID, e.secret, idv.Workflow{Name: e.wfOCR.Definition.Name,
		DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}})
	require.ErrorIs(t, err, server.ErrWorkflowName)
	assert.Len(t, e.events()[webhook.EventWorkflowCreated], before, "no event for a refused workflow")

	def := e.wfFace.Definition
	def.Name = e.wfOCR.Definition.Name // taken
	_, err = e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
	require.Error(t, err)
	assert.Empty(t, e.events()[webhook.EventWorkflowUpdated])

	def.Name = "Renamed"
	_, err = e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
	require.NoError(t, err)
	evs := e.events()[webhook.EventWorkflowUpdated]
	require.Len(t, evs, 1)
	var d webhook.WorkflowChanged
	require.NoError(t, json.Unmarshal(evs[0].Data, &d))
	assert.Equal(t, webhook.WorkflowChanged{WorkflowID: e.wfFace.ID, WorkflowName: "Renamed", ClientID: e.client.ID, Status: "active"}, d)
	assert.Equal(t, e.org.ID, evs[0].OrganisationID)
}

// TestCustomWebhookCheckThroughUpload: a workflow with the custom_webhook
// step, run through /upload, calls the organisation's verification check
// webhook over mutual TLS, judges its answer by the webhook's criteria and
// bills the check's 3 units.
func TestCustomWebhookCheckThroughUpload(t *testing.T) {
	ctx := context.Background()
	id, err := webhook.DevIdentity(t.TempDir())
	must(t, err)
	sender := webhook.NewSender(id, &webhook.Guard{AllowPrivate: true})
	svc := &webhook.Service{Sender: sender}
	caller := &webhook.CheckCaller{Sender: sender}
	e := newEnvWith(t, func(c *server.Config) { c.Webhooks = svc }, webhookcheck.New(caller))
	svc.Store, caller.Store = e.db, e.db
	caller.OrgOf = func(ctx context.Context, clientID string) (int64, error) {
		c, err := e.db.Client(ctx, clientID)
		return c.OrganisationID, err
	}

	answer := make(chan string, 1)
	var got []byte
	rc := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		if webhook.Verify("k", got, r.Header.Get("X-Service-Signature")) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, <-answer)
	}))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(id.CAPEM)
	rc.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	rc.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.StartTLS()
	defer rc.Close()
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}))

	tok := e.token()
	r := e.call("POST", "/v1/webhooks", tok, map[string]any{"type": "verification_check", "name": "Registry", "url": rc.URL,
		"ca_certificate": caPEM, "secret": "k", "criteria": map[string]any{"min_threshold": 0.7}})
	require.Equal(t, 201, r.status, string(r.body))
	hookID := r.str("id")
	require.Equal(t, 200, e.call("POST", "/v1/webhooks/"+hookID+"/activate", tok, nil).status)

	wf, err := e.admin.CreateWorkflow(ctx, e.client.ID, e.secret, idv.Workflow{Name: "With registry", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}, {Name: idv.CheckCustomWebhook, Threshold: ptrTo(0.6), Params: map[string]any{"webhook_id": hookID}}}})
	must(t, err)
	front, back := captures(t)
	tests := []struct {
		answer   string
		decision string
		status   string
	}{
		{`{"success":true,"score":0.93,"data":{"result":"clear","reason":"not listed"}}`, "accept", "passed"},
		{`{"success":true,"score":0.65,"data":{"result":"weak"}}`, "review", "review"},
		{`{"success":false,"score":0.9,"data":{"result":"listed","reason":"registry hit"}}`, "reject", "failed"},
		{`{"score":0.9}`, "review", "error"},
	}
	balance := e.balance()
	for _, tc := range tests {
		answer <- tc.answer
		r := e.upload(tok, e.uploadMessage(wf, nil), part{"front", front}, part{"back", back})
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, tc.decision, r.str("verification_decision"), tc.answer)
		checks := r.obj["check_results"].([]any)
		cr := checks[1].(map[string]any)
		assert.Equal(t, "custom_webhook", cr["name"])
		assert.Equal(t, tc.status, cr["status"], tc.answer)
		assert.Equal(t, 3.0, cr["units"])
		assert.Equal(t, 5.0, r.obj["units_consumed"])
		balance -= 5
		assert.Equal(t, balance, e.balance())
	}
	var in webhookcheck.Input
	require.NoError(t, json.Unmarshal(got, &in))
	assert.Equal(t, wf.ID, in.WorkflowID)
	assert.Equal(t, e.client.ID, in.ClientID)
	assert.NotEmpty(t, in.FieldSchema)

	r = e.call("GET", "/v1/webhooks/"+hookID+"/stats", tok, nil)
	assert.Equal(t, 4.0, r.obj["total_deliveries"], "each call is logged")
}

func ptrTo[T any](v T) *T { return &v }
