package webhook_test

import (
	"bytes"
	"testing"

	"github.com/tambua/tambua/server/webhook"
)

// FuzzDecodeInput: webhook bodies from the API never panic the decoder or
// the validation, and whatever validates is a well-formed webhook.
func FuzzDecodeInput(f *testing.F) {
	f.Add([]byte(`{"type":"event_notification","name":"n","url":"https://example.com/h","ca_certificate":"x","events":["units.depleted"]}`))
	f.Add([]byte(`{"type":"verification_check","criteria":{"min_threshold":0.5},"request_schema":{},"headers":[{"name":"X-A","value":"b","enabled":true}]}`))
	f.Add([]byte(`{"name":null,"events":[1]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"response_schema":"x"}`))
	f.Add([]byte(`{"type":"verification_check","request_schema":{"$ref":"#/$defs/a","$defs":{"a":{"pattern":"(["}}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := webhook.DecodeInput(bytes.NewReader(body))
		if err != nil {
			return
		}
		w := webhook.Webhook{}
		if in.Type != nil {
			w.Type = *in.Type
		}
		if in.Name != nil {
			w.Name = *in.Name
		}
		if in.URL != nil {
			w.URL = *in.URL
		}
		if in.CACertificate != nil {
			w.CACertificate = *in.CACertificate
		}
		if in.Headers != nil {
			w.Headers = *in.Headers
		}
		if in.Events != nil {
			w.Events = *in.Events
		}
		w.RequestSchema, w.ResponseSchema = in.RequestSchema, in.ResponseSchema
		if w.Normalize() == nil {
			if w.Method != "POST" || w.Status != webhook.StatusInactive {
				t.Fatalf("normalized webhook %+v", w)
			}
		}
	})
}

// FuzzParseCAPEM: any uploaded CA text is refused or parsed, never a panic.
func FuzzParseCAPEM(f *testing.F) {
	ca, _, _, err := webhook.GenerateClientIdentity("fuzz", timeNow(), 3600e9)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ca)
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	f.Add([]byte{0x30, 0x82, 0x01})
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, pemText []byte) {
		pool, certs, err := webhook.ParseCAPEM(pemText)
		if err == nil && (pool == nil || len(certs) == 0) {
			t.Fatal("accepted without a certificate")
		}
	})
}
