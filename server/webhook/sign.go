package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// Header names of an outbound delivery.
const (
	HeaderSignature  = "X-Service-Signature"
	HeaderEvent      = "X-Service-Event"
	HeaderWebhookID  = "X-Webhook-ID"
	HeaderDeliveryID = "X-Delivery-ID"
	UserAgent        = "Service-Webhooks/1.0"
	signaturePrefix  = "sha256="
)

// Errors of Verify.
var (
	ErrNoSignature  = errors.New("webhook: missing signature")
	ErrBadSignature = errors.New("webhook: signature does not match")
	ErrMalformed    = errors.New("webhook: malformed signature header")
)

// Sign returns the X-Service-Signature value of body: "sha256=" and the
// lowercase hex HMAC-SHA256 of the exact body bytes keyed with secret.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// Verify checks an X-Service-Signature header value against body, the raw
// request body exactly as received (before any JSON decoding). It compares
// in constant time and never panics on any header. A receiver answers 401
// when it returns an error.
func Verify(secret string, body []byte, header string) error {
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrNoSignature
	}
	hexSig, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok || len(hexSig) != sha256.Size*2 {
		return ErrMalformed
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return ErrMalformed
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrBadSignature
	}
	return nil
}
