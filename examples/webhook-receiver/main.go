// Command webhook-receiver is an example endpoint for Tambua's outbound
// webhooks. It serves HTTPS with mutual TLS (it accepts only clients whose
// certificate the service's client CA signed), checks X-Service-Signature
// with webhook.Verify over the raw body, answers 401 on a mismatch, and
// deduplicates deliveries on event_id, as the spec asks of receivers.
//
//	go run ./examples/webhook-receiver --client-ca data/webhook-client-ca.crt --secret s3cret
//
// Without --cert and --key it makes a self-signed server certificate for
// localhost and 127.0.0.1 and writes it to --ca-out: upload that file as
// the webhook's CA certificate (tambua webhooks create --ca-file).
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/tambua/tambua/server/webhook"
)

// Receiver handles deliveries.
type Receiver struct {
	Secret string
	// Handle is called once per event_id.
	Handle func(env webhook.Envelope)

	mu   sync.Mutex
	seen map[string]time.Time
}

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Read the raw bytes: the signature covers them exactly, so verify
	// before decoding.
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	if rc.Secret != "" {
		if err := webhook.Verify(rc.Secret, body, r.Header.Get(webhook.HeaderSignature)); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
	}
	var env webhook.Envelope
	if err := json.Unmarshal(body, &env); err != nil || env.EventID == "" {
		// 4xx: the service will not retry a payload we cannot read.
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	if rc.seen == nil {
		rc.seen = map[string]time.Time{}
	}
	_, dup := rc.seen[env.EventID]
	rc.seen[env.EventID] = time.Now()
	rc.mu.Unlock()
	if !dup && rc.Handle != nil {
		rc.Handle(env)
	}
	w.WriteHeader(http.StatusNoContent)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9443", "listen address")
	certFile := flag.String("cert", "", "server certificate (PEM); generated when empty")
	keyFile := flag.String("key", "", "server key (PEM)")
	caOut := flag.String("ca-out", "receiver-ca.pem", "where to write the generated certificate, to upload as the webhook's CA")
	clientCA := flag.String("client-ca", "", "the service's client CA (PEM), e.g. DATA/webhook-client-ca.crt (required)")
	secret := flag.String("secret", os.Getenv("WEBHOOK_SECRET"), "webhook secret (env WEBHOOK_SECRET)")
	flag.Parse()
	if err := run(*addr, *certFile, *keyFile, *caOut, *clientCA, *secret); err != nil {
		log.Fatal(err)
	}
}

func run(addr, certFile, keyFile, caOut, clientCA, secret string) error {
	if clientCA == "" {
		return errors.New("--client-ca is required: mutual TLS accepts only the service's certificate")
	}
	caPEM, err := os.ReadFile(clientCA)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("%s holds no PEM certificate", clientCA)
	}
	var cert tls.Certificate
	if certFile != "" {
		cert, err = tls.LoadX509KeyPair(certFile, keyFile)
	} else {
		var certPEM []byte
		cert, certPEM, err = selfSigned()
		if err == nil {
			err = os.WriteFile(caOut, certPEM, 0o644)
			log.Printf("server certificate written to %s: upload it as the webhook's CA certificate", caOut)
		}
	}
	if err != nil {
		return err
	}
	rc := &Receiver{Secret: secret, Handle: func(env webhook.Envelope) {
		log.Printf("event %s %s org=%d test=%v data=%s", env.Event, env.EventID, env.OrganisationID, env.Test, env.Data)
	}}
	srv := &http.Server{Addr: addr, Handler: rc, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert,
			ClientCAs: pool, MinVersion: tls.VersionTLS12}}
	log.Printf("listening on https://%s", addr)
	return srv.ListenAndServeTLS("", "")
}

// selfSigned makes a server certificate for localhost and 127.0.0.1.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "webhook-receiver"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	c, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
	return c, certPEM, err
}
