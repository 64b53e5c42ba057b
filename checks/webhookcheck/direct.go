package webhookcheck

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/tambua/tambua/idv"
)

// DirectCaller calls the URL named by the step's parameters:
//
//	url            https endpoint (required)
//	ca_file        PEM file of the CA that signed the endpoint (required)
//	secret         HMAC key for X-Service-Signature (optional)
//	method         POST (default), PUT or PATCH
//	require_success, require_score (booleans, default true)
//	min_threshold  number in [0, 1], default 0.85
//
// and presents the client certificate of the settings webhook_client_cert
// and webhook_client_key when they are set. It does not screen addresses:
// it serves embedders whose workflow files are their own. The server uses
// its own Caller instead.
type DirectCaller struct {
	Settings idv.Settings
}

// CallCheck sends r to the endpoint of its parameters.
func (d *DirectCaller) CallCheck(ctx context.Context, r Request) (Reply, error) {
	p := r.Params
	url, _ := p["url"].(string)
	if !strings.HasPrefix(url, "https://") {
		return Reply{}, errors.New("webhookcheck: step parameter url must be an https URL")
	}
	caFile, _ := p["ca_file"].(string)
	if caFile == "" {
		return Reply{}, errors.New("webhookcheck: step parameter ca_file (PEM) is required for mutual TLS")
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return Reply{}, fmt.Errorf("webhookcheck: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return Reply{}, fmt.Errorf("webhookcheck: %s holds no PEM certificate", caFile)
	}
	conf := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if cf, kf := d.Settings.Get("webhook_client_cert", ""), d.Settings.Get("webhook_client_key", ""); cf != "" && kf != "" {
		cert, err := tls.LoadX509KeyPair(cf, kf)
		if err != nil {
			return Reply{}, fmt.Errorf("webhookcheck: client certificate: %w", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	crit, err := criteriaFromParams(p)
	if err != nil {
		return Reply{}, err
	}
	method, _ := p["method"].(string)
	if method == "" {
		method = http.MethodPost
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(r.Body))
	if err != nil {
		return Reply{}, fmt.Errorf("webhookcheck: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Service-Webhooks/1.0")
	req.Header.Set("X-Service-Event", "verification.check")
	if secret, _ := p["secret"].(string); secret != "" {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(r.Body)
		req.Header.Set("X-Service-Signature", "sha256="+hex.EncodeToString(m.Sum(nil)))
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: conf, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return Reply{}, fmt.Errorf("webhookcheck: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Reply{}, fmt.Errorf("webhookcheck: reading answer: %w", err)
	}
	return Reply{StatusCode: resp.StatusCode, Body: body, Criteria: crit}, nil
}

func criteriaFromParams(p map[string]any) (Criteria, error) {
	c := DefaultCriteria()
	for key, dst := range map[string]*bool{"require_success": &c.RequireSuccess, "require_score": &c.RequireScore} {
		if v, ok := p[key]; ok {
			b, ok := v.(bool)
			if !ok {
				return c, fmt.Errorf("webhookcheck: step parameter %s must be a boolean", key)
			}
			*dst = b
		}
	}
	if v, ok := p["min_threshold"]; ok {
		f, ok := toFloat(v)
		if !ok || f < 0 || f > 1 {
			return c, errors.New("webhookcheck: step parameter min_threshold must be a number in [0, 1]")
		}
		c.MinThreshold = f
	}
	return c, nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
