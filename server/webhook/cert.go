package webhook

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// CertificateDetails describe one certificate of the uploaded CA PEM.
type CertificateDetails struct {
	Subject           string    `json:"subject"`
	Issuer            string    `json:"issuer"`
	SerialNumber      string    `json:"serial_number"`
	NotBefore         time.Time `json:"not_before"`
	NotAfter          time.Time `json:"not_after"`
	IsCA              bool      `json:"is_ca"`
	DNSNames          []string  `json:"dns_names,omitempty"`
	FingerprintSHA256 string    `json:"fingerprint_sha256"`
	Expired           bool      `json:"expired"`
	NotYetValid       bool      `json:"not_yet_valid"`
	ExpiresInDays     int       `json:"expires_in_days"`
}

// CertificateReport is the answer of ValidateCertificate.
type CertificateReport struct {
	Valid        bool                 `json:"valid"`
	Certificates []CertificateDetails `json:"certificates"`
	// Handshake is "ok", or why the TLS handshake with the URL failed.
	Handshake   string `json:"handshake"`
	HandshakeOK bool   `json:"handshake_ok"`
	// ServerCertificate is the leaf the endpoint presented.
	ServerCertificate *CertificateDetails `json:"server_certificate,omitempty"`
	Problems          []string            `json:"problems"`
}

func details(c *x509.Certificate, now time.Time) CertificateDetails {
	sum := sha256.Sum256(c.Raw)
	return CertificateDetails{
		Subject: c.Subject.String(), Issuer: c.Issuer.String(), SerialNumber: c.SerialNumber.Text(16),
		NotBefore: c.NotBefore.UTC(), NotAfter: c.NotAfter.UTC(), IsCA: c.IsCA, DNSNames: c.DNSNames,
		FingerprintSHA256: hex.EncodeToString(sum[:]),
		Expired:           now.After(c.NotAfter), NotYetValid: now.Before(c.NotBefore),
		ExpiresInDays: int(c.NotAfter.Sub(now).Hours() / 24),
	}
}

// ValidateCertificate checks a webhook's CA certificate: PEM (not DER),
// within its validity period, details extracted, and a real TLS handshake
// with the webhook URL that trusts only that CA and presents the service's
// client certificate. The address guard applies to the handshake too.
func (s *Sender) ValidateCertificate(ctx context.Context, rawURL, caPEM string, now time.Time) CertificateReport {
	rep := CertificateReport{Certificates: []CertificateDetails{}, Problems: []string{}}
	pool, certs, err := ParseCAPEM([]byte(caPEM))
	if err != nil {
		rep.Problems = append(rep.Problems, strings.TrimPrefix(err.Error(), "webhook: "))
		rep.Handshake = "not attempted"
		return rep
	}
	for _, c := range certs {
		d := details(c, now)
		rep.Certificates = append(rep.Certificates, d)
		if d.Expired {
			rep.Problems = append(rep.Problems, fmt.Sprintf("certificate %q expired on %s", d.Subject, d.NotAfter.Format("2006-01-02")))
		}
		if d.NotYetValid {
			rep.Problems = append(rep.Problems, fmt.Sprintf("certificate %q is not valid before %s", d.Subject, d.NotBefore.Format("2006-01-02")))
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		rep.Problems = append(rep.Problems, "url must be an https URL")
		rep.Handshake = "not attempted"
		return rep
	}
	if err := s.Guard.CheckURL(ctx, rawURL); err != nil {
		rep.Problems = append(rep.Problems, strings.TrimPrefix(err.Error(), "webhook: "))
		rep.Handshake = "not attempted"
		return rep
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	conf := &tls.Config{RootCAs: pool, ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	if s.Identity != nil {
		cert := s.Identity.Cert
		conf.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	td := &tls.Dialer{NetDialer: s.Guard.Dialer(), Config: conf}
	conn, err := td.DialContext(dctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		rep.Handshake = handshakeProblem(err)
		rep.Problems = append(rep.Problems, "TLS handshake: "+rep.Handshake)
		return rep
	}
	tc := conn.(*tls.Conn)
	// In TLS 1.3 the server judges the client certificate after the
	// handshake returns; a one-byte read makes its verdict arrive.
	_ = tc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var one [1]byte
	if _, rerr := tc.Read(one[:]); rerr != nil {
		var ne net.Error
		if !(errors.As(rerr, &ne) && ne.Timeout()) && classify(rerr) == KindTLS {
			conn.Close()
			rep.Handshake = handshakeProblem(rerr)
			rep.Problems = append(rep.Problems, "TLS handshake: "+rep.Handshake)
			return rep
		}
	}
	if st := tc.ConnectionState(); len(st.PeerCertificates) > 0 {
		d := details(st.PeerCertificates[0], now)
		rep.ServerCertificate = &d
	}
	conn.Close()
	rep.Handshake, rep.HandshakeOK = "ok", true
	rep.Valid = len(rep.Problems) == 0
	return rep
}

func handshakeProblem(err error) string {
	var unknown x509.UnknownAuthorityError
	var verr *tls.CertificateVerificationError
	var hostErr x509.HostnameError
	var addrErr *AddressError
	switch {
	case errors.As(err, &addrErr):
		return addrErr.Error()
	case errors.As(err, &hostErr):
		return "the server certificate does not name this host: " + hostErr.Error()
	case errors.As(err, &unknown), errors.As(err, &verr):
		return "the server certificate is not signed by the uploaded CA: " + err.Error()
	}
	return err.Error()
}
