package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/sqlite"
	"github.com/tambua/tambua/server/webhook"
)

var (
	identOnce    sync.Once
	ident        *webhook.Identity
	identCertPEM []byte
	identKeyPEM  []byte
)

// identity is the service's client certificate, made once per test run.
func identity(tb testing.TB) *webhook.Identity {
	tb.Helper()
	identOnce.Do(func() {
		caPEM, certPEM, keyPEM, err := webhook.GenerateClientIdentity("test webhook client", time.Now(), time.Hour)
		if err != nil {
			panic(err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			panic(err)
		}
		ident = &webhook.Identity{Cert: cert, CAPEM: caPEM}
		identCertPEM, identKeyPEM = certPEM, keyPEM
	})
	return ident
}

// got is one request a receiver saw.
type got struct {
	Method     string
	Path       string
	Header     http.Header
	Body       []byte
	ClientCert *x509.Certificate
	At         time.Time
}

// receiver is a real HTTPS endpoint that requires and verifies the
// service's client certificate, records every request and answers with
// the status code status returns.
type receiver struct {
	*httptest.Server
	CAPEM string

	mu     sync.Mutex
	reqs   []got
	status func(n int) int
	delay  time.Duration
	clock  func() time.Time
	// hold, when set, keeps every request waiting until it is closed or
	// the caller gives up: a receiver that hangs.
	hold chan struct{}
	// open counts requests being answered; peak is the most at once
	// since the last resetPeak.
	open, peak int
}

func newReceiver(tb testing.TB, status func(n int) int) *receiver {
	tb.Helper()
	rc := &receiver{status: status, clock: time.Now}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		g := got{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, At: rc.clock()}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			g.ClientCert = r.TLS.PeerCertificates[0]
		}
		rc.reqs = append(rc.reqs, g)
		n := len(rc.reqs)
		delay, hold := rc.delay, rc.hold
		code := 200
		if rc.status != nil {
			code = rc.status(n)
		}
		rc.open++
		rc.peak = max(rc.peak, rc.open)
		rc.mu.Unlock()
		defer func() {
			rc.mu.Lock()
			rc.open--
			rc.mu.Unlock()
		}()
		if delay > 0 {
			time.Sleep(delay)
		}
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				// The client gave up: a hanging receiver answers nothing.
				// Writing 200 here raced the client's own deadline and,
				// now and then, reached it first: an attempt that had
				// timed out was recorded a success.
				panic(http.ErrAbortHandler)
			}
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(identity(tb).CAPEM)
	rc.Server.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	rc.Server.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	rc.StartTLS()
	tb.Cleanup(rc.Close)
	rc.CAPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}))
	return rc
}

func (rc *receiver) requests() []got {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]got(nil), rc.reqs...)
}

// resetPeak starts a new count of concurrent requests and returns the
// previous peak.
func (rc *receiver) resetPeak() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	p := rc.peak
	rc.peak = rc.open
	return p
}

// openNow is how many requests are being answered.
func (rc *receiver) openNow() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.open
}

func (rc *receiver) setStatus(f func(n int) int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.status = f
}

func always(code int) func(int) int { return func(int) int { return code } }

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a real SQLite store with one organisation, a dispatcher on a fake
// clock and a recording mailer.
type env struct {
	db     *sqlite.DB
	org    int64
	clock  *fakeClock
	mailer *webhook.DevMailer
	d      *webhook.Dispatcher
	reg    *prometheus.Registry
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	return newEnvAt(tb, filepath.Join(tb.TempDir(), "tambua.db"))
}

func newEnvAt(tb testing.TB, path string) *env {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	org, err := db.CreateOrganisation(ctx, "Acme")
	require.NoError(tb, err)
	e := &env{db: db, org: org.ID, clock: newClock(), mailer: &webhook.DevMailer{}, reg: prometheus.NewRegistry()}
	sender := webhook.NewSender(identity(tb), &webhook.Guard{AllowPrivate: true})
	e.d = &webhook.Dispatcher{Store: db, Sender: sender, Mailer: e.mailer, Now: e.clock.Now, AlertTo: "ops@example.com",
		Logger: slog.New(slog.DiscardHandler), Metrics: webhook.NewMetrics(e.reg)}
	return e
}

// hook creates an active event notification webhook for the receiver.
func (e *env) hook(tb testing.TB, rc *receiver, secret string, events ...string) webhook.Webhook {
	tb.Helper()
	w := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: e.org, Type: webhook.TypeEventNotification,
		Name: "receiver", URL: rc.URL + "/hooks", CACertificate: rc.CAPEM, Secret: secret, Events: events}
	require.NoError(tb, w.Normalize())
	require.NoError(tb, e.db.CreateWebhook(context.Background(), w))
	require.NoError(tb, e.db.SetWebhookStatus(context.Background(), w.ID, webhook.StatusActive))
	w, err := e.db.Webhook(context.Background(), w.ID)
	require.NoError(tb, err)
	return w
}

// emit writes an event to the outbox the way the server does.
func (e *env) emit(tb testing.TB, event string, data any) string {
	tb.Helper()
	raw, err := json.Marshal(data)
	require.NoError(tb, err)
	id := webhook.NewEventID()
	require.NoError(tb, e.db.AddEvents(context.Background(), server.Event{EventID: id, Event: event, OrganisationID: e.org, Data: raw}))
	return id
}

func (e *env) step(tb testing.TB) {
	tb.Helper()
	require.NoError(tb, e.d.Step(context.Background()))
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func itoa(n int) string { return strconv.Itoa(n) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func poolOf(tb testing.TB, pemText []byte) *x509.CertPool {
	tb.Helper()
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pemText) {
		tb.Fatal("no certificate in PEM")
	}
	return p
}

func timeNow() time.Time { return time.Now() }

// metric returns the value of a counter series from the env's registry.
func (e *env) metric(tb testing.TB, name, label, value string) float64 {
	tb.Helper()
	mfs, err := e.reg.Gather()
	require.NoError(tb, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
