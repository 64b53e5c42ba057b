package webhookcheck_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/checks/webhookcheck"
	"github.com/tambua/tambua/idv"
)

func ptr[T any](v T) *T { return &v }

func TestEvaluate(t *testing.T) {
	def := webhookcheck.DefaultCriteria()
	lenient := webhookcheck.Criteria{MinThreshold: 0.5}
	tests := []struct {
		name     string
		criteria webhookcheck.Criteria
		status   int
		body     string
		want     idv.Status
		conf     *float64
		reason   string
		err      bool
	}{
		{name: "pass", criteria: def, status: 200, body: `{"success":true,"score":0.93,"data":{"result":"match","reason":"ok"}}`, want: idv.StatusPassed, conf: ptr(0.93)},
		{name: "exactly at threshold", criteria: def, status: 200, body: `{"success":true,"score":0.85}`, want: idv.StatusPassed, conf: ptr(0.85)},
		{name: "below threshold", criteria: def, status: 200, body: `{"success":true,"score":0.6,"data":{"result":"weak"}}`, want: idv.StatusReview, conf: ptr(0.6), reason: "custom_check_low_score"},
		{name: "success false", criteria: def, status: 200, body: `{"success":false,"score":0.99,"data":{"result":"fraud","reason":"blocklisted"}}`, want: idv.StatusFailed, conf: ptr(0.99), reason: "custom_check_failed"},
		{name: "success false without score", criteria: lenient, status: 200, body: `{"success":false}`, want: idv.StatusFailed, reason: "custom_check_failed"},
		{name: "success required and missing", criteria: def, status: 200, body: `{"score":0.9}`, err: true},
		{name: "score required and missing", criteria: def, status: 200, body: `{"success":true}`, err: true},
		{name: "neither required", criteria: lenient, status: 200, body: `{"data":{"result":"ok"}}`, want: idv.StatusPassed},
		{name: "score only, lenient", criteria: lenient, status: 200, body: `{"score":0.4}`, want: idv.StatusReview, conf: ptr(0.4), reason: "custom_check_low_score"},
		{name: "threshold 0 accepts any score", criteria: webhookcheck.Criteria{RequireSuccess: true, RequireScore: true}, status: 200, body: `{"success":true,"score":0}`, want: idv.StatusPassed, conf: ptr(0.0)},
		{name: "HTTP 500", criteria: def, status: 500, body: `{"success":true,"score":1}`, err: true},
		{name: "HTTP 404", criteria: def, status: 404, body: ``, err: true},
		{name: "not JSON", criteria: def, status: 200, body: `<html>`, err: true},
		{name: "array", criteria: def, status: 200, body: `[1]`, err: true},
		{name: "success as string", criteria: def, status: 200, body: `{"success":"true","score":0.9}`, err: true},
		{name: "score above 1", criteria: def, status: 200, body: `{"success":true,"score":1.5}`, err: true},
		{name: "score negative", criteria: def, status: 200, body: `{"success":true,"score":-0.1}`, err: true},
		{name: "data not object", criteria: def, status: 200, body: `{"success":true,"score":0.9,"data":"x"}`, err: true},
		{name: "reason not string", criteria: def, status: 200, body: `{"success":true,"score":0.9,"data":{"reason":5}}`, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := webhookcheck.Evaluate(webhookcheck.Reply{StatusCode: tc.status, Body: []byte(tc.body), Criteria: tc.criteria})
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, out.Status)
			if tc.conf != nil {
				assert.True(t, out.HasConfidence)
				assert.Equal(t, *tc.conf, out.Confidence)
			} else {
				assert.False(t, out.HasConfidence)
			}
			if tc.reason != "" {
				assert.Contains(t, out.Reasons, tc.reason)
			}
		})
	}
}

func FuzzEvaluate(f *testing.F) {
	f.Add(200, []byte(`{"success":true,"score":0.9,"data":{"result":"r","reason":"x"}}`), true, true, 0.85)
	f.Add(200, []byte(`{"success":false}`), false, false, 0.0)
	f.Add(500, []byte(`{}`), true, true, 1.0)
	f.Add(200, []byte(`{"score":1e400}`), false, true, 0.5)
	f.Add(200, []byte(`null`), true, false, 0.5)
	f.Fuzz(func(t *testing.T, status int, body []byte, rs, rsc bool, min float64) {
		out, _, err := webhookcheck.Evaluate(webhookcheck.Reply{StatusCode: status, Body: body,
			Criteria: webhookcheck.Criteria{RequireSuccess: rs, RequireScore: rsc, MinThreshold: min}})
		if err != nil {
			return
		}
		switch out.Status {
		case idv.StatusPassed:
			if out.HasConfidence && out.Confidence < min {
				t.Fatalf("passed with score %g below %g", out.Confidence, min)
			}
		case idv.StatusReview, idv.StatusFailed:
		default:
			t.Fatalf("unexpected status %q", out.Status)
		}
		if out.HasConfidence && (out.Confidence < 0 || out.Confidence > 1) {
			t.Fatalf("confidence %g outside [0, 1]", out.Confidence)
		}
	})
}

// endpoint is a real HTTPS verification-check webhook requiring a client
// certificate.
type endpoint struct {
	*httptest.Server
	caFile     string
	mu         sync.Mutex
	answer     string
	status     int
	lastBody   []byte
	lastHeader http.Header
	clientCN   string
	certFile   string
	keyFile    string
}

func newEndpoint(t *testing.T) *endpoint {
	dir := t.TempDir()
	clientCA, clientCAKey := selfSignedCA(t, "client CA")
	certPEM, keyPEM := leaf(t, clientCA, clientCAKey, "tambua-test-client")
	ep := &endpoint{status: 200, certFile: filepath.Join(dir, "c.crt"), keyFile: filepath.Join(dir, "c.key"), caFile: filepath.Join(dir, "ca.pem")}
	require.NoError(t, os.WriteFile(ep.certFile, certPEM, 0o600))
	require.NoError(t, os.WriteFile(ep.keyFile, keyPEM, 0o600))
	ep.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ep.mu.Lock()
		defer ep.mu.Unlock()
		ep.lastBody, ep.lastHeader = body, r.Header.Clone()
		if len(r.TLS.PeerCertificates) > 0 {
			ep.clientCN = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		w.WriteHeader(ep.status)
		_, _ = w.Write([]byte(ep.answer))
	}))
	pool := x509.NewCertPool()
	pool.AddCert(clientCA)
	ep.Server.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	ep.Server.Config.ErrorLog = log.New(io.Discard, "", 0)
	ep.StartTLS()
	t.Cleanup(ep.Close)
	require.NoError(t, os.WriteFile(ep.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ep.Certificate().Raw}), 0o600))
	return ep
}

func (ep *endpoint) set(status int, answer string) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	ep.status, ep.answer = status, answer
}

func selfSignedCA(t *testing.T, cn string) (*x509.Certificate, *ecdsa.PrivateKey) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	c, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return c, key
}

func leaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string) ([]byte, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	require.NoError(t, err)
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd})
}

// ocrStub stands in for OCR extraction, which every workflow starts with:
// it records fields the way the OCR check does.
type ocrStub struct{}

func (ocrStub) Name() string { return idv.CheckOCR }
func (ocrStub) Cost() int    { return 2 }
func (ocrStub) Run(_ context.Context, c *idv.Case) (idv.Outcome, error) {
	c.SetFields([]string{"full_name", "national_id_number"}, map[string]string{"full_name": "JANE DOE", "national_id_number": "12345678"})
	return idv.Passed(0.97), nil
}

type defs map[string]*idv.DocumentDefinition

func (d defs) Definition(c string) (*idv.DocumentDefinition, bool) { v, ok := d[c]; return v, ok }

// TestCheckInEngine runs custom_webhook as an ordinary engine check, built
// from the registry, against a real mutual-TLS endpoint.
func TestCheckInEngine(t *testing.T) {
	ep := newEndpoint(t)
	eng := idv.New(idv.WithChecks(ocrStub{}), idv.WithDefinitions(engineDefs(t)),
		idv.WithSettings(idv.Settings{"webhook_client_cert": ep.certFile, "webhook_client_key": ep.keyFile}))
	defer eng.Close()
	wf := &idv.Workflow{Name: "custom", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{
		{Name: idv.CheckOCR},
		{Name: idv.CheckCustomWebhook, Params: map[string]any{"url": ep.URL + "/check", "ca_file": ep.caFile, "secret": "k", "min_threshold": 0.8, "tier": "gold"}},
	}}
	p, err := eng.Prepare(wf)
	require.NoError(t, err)
	assert.Equal(t, 5, p.Cost(), "OCR 2 + custom webhook 3")

	tests := []struct {
		name     string
		status   int
		answer   string
		decision idv.Decision
		check    idv.Status
	}{
		{"accept", 200, `{"success":true,"score":0.95,"data":{"result":"clear","reason":"no match in registry"}}`, idv.Accept, idv.StatusPassed},
		{"below the webhook threshold", 200, `{"success":true,"score":0.75}`, idv.Review, idv.StatusReview},
		{"the webhook's threshold decides when the workflow sets none", 200, `{"success":true,"score":0.81}`, idv.Accept, idv.StatusPassed},
		{"failed", 200, `{"success":false,"score":0.2,"data":{"result":"fraud","reason":"listed"}}`, idv.Reject, idv.StatusFailed},
		{"server error", 503, `oops`, idv.Review, idv.StatusError},
		{"bad answer", 200, `{"success":true}`, idv.Review, idv.StatusError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ep.set(tc.status, tc.answer)
			res, err := p.Verify(context.Background(), idv.Input{Config: "kenya_national_id", ClientID: "c1", WorkflowID: "wf1", RequestID: "r1"})
			require.NoError(t, err)
			assert.Equal(t, tc.decision, res.Decision, "%v", res.DecisionReasons)
			assert.Equal(t, tc.check, res.CheckResults[1].Status)
			assert.Equal(t, 3, res.CheckResults[1].Units)
		})
	}

	// A threshold the workflow sets is held against the score as well.
	strict := 0.85
	wf.Checks[1].Threshold = &strict
	p, err = eng.Prepare(wf)
	require.NoError(t, err)
	ep.set(200, `{"success":true,"score":0.81}`)
	res, err := p.Verify(context.Background(), idv.Input{Config: "kenya_national_id", ClientID: "c1", WorkflowID: "wf1", RequestID: "r1"})
	require.NoError(t, err)
	assert.Equal(t, idv.Review, res.Decision)
	assert.Equal(t, []string{"custom_check_low_score"}, res.DecisionReasons)

	ep.mu.Lock()
	defer ep.mu.Unlock()
	assert.Equal(t, "tambua-test-client", ep.clientCN)
	assert.Equal(t, "Service-Webhooks/1.0", ep.lastHeader.Get("User-Agent"))
	assert.NotEmpty(t, ep.lastHeader.Get("X-Service-Signature"))
	var in webhookcheck.Input
	require.NoError(t, json.Unmarshal(ep.lastBody, &in))
	assert.Equal(t, "JANE DOE", in.Fields["full_name"])
	assert.Equal(t, "r1", in.RequestID)
	assert.Equal(t, "gold", in.Params["tier"])
	_, leaked := in.Params["secret"]
	assert.False(t, leaked, "the secret is not sent in the body")
}

func engineDefs(t *testing.T) idv.Definitions {
	return defs{"kenya_national_id": {Config: "kenya_national_id", FieldSchema: []string{"full_name", "national_id_number"}}}
}

func TestDirectCallerErrors(t *testing.T) {
	d := &webhookcheck.DirectCaller{}
	for _, params := range []map[string]any{
		{},
		{"url": "http://example.com"},
		{"url": "https://example.com"},
		{"url": "https://example.com", "ca_file": "/nonexistent.pem"},
	} {
		_, err := d.CallCheck(context.Background(), webhookcheck.Request{Params: params})
		require.Error(t, err)
	}
	var target error = webhookcheck.ErrResponse
	_, _, err := webhookcheck.Evaluate(webhookcheck.Reply{StatusCode: 502})
	assert.True(t, errors.Is(err, target))
}
