package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// Identity is the client certificate the service presents to every
// webhook endpoint (mutual TLS). CAPEM is the certificate of the CA that
// signed it, which receivers add to their trusted client CAs.
type Identity struct {
	Cert  tls.Certificate
	CAPEM []byte
}

// File names of the development identity under the data folder.
const (
	ClientCertFile = "webhook-client.crt"
	ClientKeyFile  = "webhook-client.key"
	ClientCAFile   = "webhook-client-ca.crt"
)

// LoadIdentity reads a configured client certificate and key (PEM). caFile
// is optional.
func LoadIdentity(certFile, keyFile, caFile string) (*Identity, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("webhook: client certificate: %w", err)
	}
	id := &Identity{Cert: cert}
	if caFile != "" {
		if id.CAPEM, err = os.ReadFile(caFile); err != nil {
			return nil, fmt.Errorf("webhook: client CA: %w", err)
		}
	}
	return id, nil
}

// DevIdentity loads the development client identity from dir, generating
// it on first start: a private CA (webhook-client-ca.crt) and a client
// certificate it signed (webhook-client.crt, .key), valid for a year.
func DevIdentity(dir string) (*Identity, error) {
	certFile := filepath.Join(dir, ClientCertFile)
	keyFile := filepath.Join(dir, ClientKeyFile)
	caFile := filepath.Join(dir, ClientCAFile)
	if _, err := os.Stat(certFile); err == nil {
		id, err := LoadIdentity(certFile, keyFile, caFile)
		if err == nil && id.Cert.Leaf != nil && time.Now().Before(id.Cert.Leaf.NotAfter) {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	caPEM, certPEM, keyPEM, err := GenerateClientIdentity("Tambua development webhook client", time.Now(), 365*24*time.Hour)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{caFile, caPEM, 0o644}, {certFile, certPEM, 0o644}, {keyFile, keyPEM, 0o600}} {
		if err := os.WriteFile(f.name, f.data, f.mode); err != nil {
			return nil, err
		}
	}
	return LoadIdentity(certFile, keyFile, caFile)
}

// GenerateClientIdentity makes a CA and a client-authentication
// certificate signed by it, all PEM.
func GenerateClientIdentity(commonName string, now time.Time, validity time.Duration) (caPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName + " CA", Organization: []string{"Tambua"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"Tambua"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(fmt.Sprintf("webhook: crypto/rand: %v", err))
	}
	return n
}
