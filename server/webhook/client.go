package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Timeout is how long a receiver has to answer.
const Timeout = 30 * time.Second

// maxResponseBody bounds how much of a receiver's answer is read.
const maxResponseBody = 1 << 20

// Sender makes outbound webhook requests: mutual TLS trusting only the
// webhook's CA, presenting the service's identity, through the guarded
// dialer, with no proxy from the environment (a proxy would bypass the
// address checks).
type Sender struct {
	Identity *Identity
	Guard    *Guard
	// Timeout of one request; Timeout (30 s) when zero.
	Timeout time.Duration

	mu      sync.Mutex
	clients map[[32]byte]*http.Client
}

// NewSender returns a sender.
func NewSender(id *Identity, g *Guard) *Sender {
	if g == nil {
		g = &Guard{}
	}
	return &Sender{Identity: id, Guard: g}
}

func (s *Sender) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return Timeout
}

// ParseCAPEM returns the pool of the CA certificates in pemText. It refuses
// DER (binary) input and anything that is not a PEM certificate.
func ParseCAPEM(pemText []byte) (*x509.CertPool, []*x509.Certificate, error) {
	trimmed := bytes.TrimSpace(pemText)
	if len(trimmed) == 0 {
		return nil, nil, errors.New("webhook: CA certificate is empty")
	}
	if trimmed[0] == 0x30 {
		return nil, nil, errors.New("webhook: CA certificate is DER (binary); upload it in PEM format (-----BEGIN CERTIFICATE-----)")
	}
	var certs []*x509.Certificate
	rest := trimmed
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, nil, fmt.Errorf("webhook: CA PEM holds a %q block, want CERTIFICATE", block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, nil, fmt.Errorf("webhook: CA certificate: %w", err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, nil, errors.New("webhook: CA certificate is not PEM (no -----BEGIN CERTIFICATE----- block)")
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, certs, nil
}

// client returns the HTTP client for a CA, cached by the CA's hash.
func (s *Sender) client(caPEM string) (*http.Client, error) {
	key := sha256.Sum256([]byte(caPEM))
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.clients[key]; ok {
		return c, nil
	}
	pool, _, err := ParseCAPEM([]byte(caPEM))
	if err != nil {
		return nil, err
	}
	tlsConf := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if s.Identity != nil {
		cert := s.Identity.Cert
		tlsConf.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	d := s.Guard.Dialer()
	d.Timeout = 10 * time.Second
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSClientConfig:       tlsConf,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: s.timeout(),
	}
	c := &http.Client{
		Transport: tr,
		Timeout:   s.timeout(),
		// Redirects would leave the address and TLS checks behind.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if s.clients == nil {
		s.clients = map[[32]byte]*http.Client{}
	}
	s.clients[key] = c
	return c, nil
}

// Outcome kinds of one attempt.
const (
	KindSuccess   = "success"
	KindHTTPError = "http_error"
	KindTLS       = "tls_error"
	KindTimeout   = "timeout"
	KindConnect   = "connection_error"
	KindRefused   = "refused" // the address guard or a bad configuration
)

// Attempt is the result of one request.
type Attempt struct {
	Kind       string
	StatusCode int
	Duration   time.Duration
	Body       []byte
	Err        error
}

// Retryable reports whether a failed attempt may be tried again: 5xx,
// timeouts and connection errors are; 4xx, TLS verification failures and
// refused addresses are not. A 3xx is not retried either: redirects are
// not followed (they would leave the address and TLS checks behind), and
// the same request to the same URL would be redirected again, so like a
// 4xx it is the receiver's configuration that must change.
func (a Attempt) Retryable() bool {
	switch a.Kind {
	case KindHTTPError:
		return a.StatusCode >= 500
	case KindTimeout, KindConnect:
		return true
	}
	return false
}

// ErrorText is the error message shown in logs.
func (a Attempt) ErrorText() string {
	switch {
	case a.Kind == KindSuccess:
		return ""
	case a.Kind == KindHTTPError:
		return fmt.Sprintf("HTTP %d", a.StatusCode)
	case a.Err != nil:
		return a.Kind + ": " + a.Err.Error()
	}
	return a.Kind
}

// Request is one outbound call.
type Request struct {
	URL        string
	Method     string
	CAPEM      string
	Secret     string
	Event      string
	WebhookID  string
	DeliveryID string
	Headers    []Header
	Body       []byte
}

// Do sends one request and classifies its result. It never returns an
// error: every failure is an Attempt of some kind.
func (s *Sender) Do(ctx context.Context, r Request) Attempt {
	start := time.Now()
	fail := func(kind string, err error) Attempt {
		return Attempt{Kind: kind, Err: err, Duration: time.Since(start)}
	}
	c, err := s.client(r.CAPEM)
	if err != nil {
		return fail(KindRefused, err)
	}
	if _, err := url.Parse(r.URL); err != nil || !strings.HasPrefix(r.URL, "https://") {
		return fail(KindRefused, fmt.Errorf("webhook: URL must be https"))
	}
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return fail(KindRefused, err)
	}
	for _, h := range r.Headers {
		if h.Enabled {
			req.Header.Set(h.Name, h.Value)
		}
	}
	// The service's own headers are set last so no custom header can
	// replace them.
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set(HeaderEvent, r.Event)
	req.Header.Set(HeaderWebhookID, r.WebhookID)
	req.Header.Set(HeaderDeliveryID, r.DeliveryID)
	if r.Secret != "" {
		req.Header.Set(HeaderSignature, Sign(r.Secret, r.Body))
	}
	resp, err := c.Do(req)
	if err != nil {
		return fail(classify(err), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	a := Attempt{StatusCode: resp.StatusCode, Duration: time.Since(start), Body: body, Kind: KindHTTPError}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		a.Kind = KindSuccess
	}
	return a
}

// classify maps a transport error to an attempt kind.
func classify(err error) string {
	var addrErr *AddressError
	var verr *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var alert tls.AlertError
	var recHeader tls.RecordHeaderError
	switch {
	case errors.As(err, &addrErr):
		return KindRefused
	case errors.As(err, &verr), errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		return KindTLS
	case errors.As(err, &alert), errors.As(err, &recHeader):
		// The receiver refused our certificate, or does not speak TLS.
		return KindTLS
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return KindTimeout
	}
	// A TLS alert sent by the peer after the handshake (TLS 1.3 client
	// certificate rejection) surfaces as a plain error string.
	if msg := err.Error(); strings.Contains(msg, "tls: ") && (strings.Contains(msg, "certificate") || strings.Contains(msg, "handshake")) {
		return KindTLS
	}
	return KindConnect
}
