package webhook_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tambua/tambua/server/webhook"
)

func TestSignKnownVector(t *testing.T) {
	// RFC 4231 test case 2: key "Jefe".
	got := webhook.Sign("Jefe", []byte("what do ya want for nothing?"))
	want := "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
	if got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"event":"verification.completed","event_id":"evt_1"}`)
	good := webhook.Sign("s3cret", body)
	tests := []struct {
		name   string
		secret string
		body   []byte
		header string
		want   error
	}{
		{"valid", "s3cret", body, good, nil},
		{"valid with spaces", "s3cret", body, "  " + good + " ", nil},
		{"missing", "s3cret", body, "", webhook.ErrNoSignature},
		{"wrong secret", "other", body, good, webhook.ErrBadSignature},
		{"body changed", "s3cret", append([]byte(" "), body...), good, webhook.ErrBadSignature},
		{"uppercase hex", "s3cret", body, "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256=")), nil},
		{"no prefix", "s3cret", body, strings.TrimPrefix(good, "sha256="), webhook.ErrMalformed},
		{"sha1 prefix", "s3cret", body, "sha1=" + strings.TrimPrefix(good, "sha256="), webhook.ErrMalformed},
		{"short", "s3cret", body, good[:len(good)-2], webhook.ErrMalformed},
		{"not hex", "s3cret", body, "sha256=" + strings.Repeat("zz", 32), webhook.ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := webhook.Verify(tc.secret, tc.body, tc.header); !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func FuzzVerify(f *testing.F) {
	body := []byte(`{"event":"units.low_balance"}`)
	f.Add("k", body, webhook.Sign("k", body))
	f.Add("k", body, "sha256=")
	f.Add("", []byte{}, "sha256="+strings.Repeat("0", 64))
	f.Add("k", body, "sha256=\x00\xff")
	f.Fuzz(func(t *testing.T, secret string, body []byte, header string) {
		err := webhook.Verify(secret, body, header)
		// Only the true signature verifies (hex is case-insensitive).
		if err == nil && !strings.EqualFold(strings.TrimSpace(header), webhook.Sign(secret, body)) {
			t.Fatalf("Verify accepted %q for a body whose signature is %s", header, webhook.Sign(secret, body))
		}
		if err := webhook.Verify(secret, body, webhook.Sign(secret, body)); err != nil {
			t.Fatalf("Verify refused its own signature: %v", err)
		}
	})
}

func ExampleVerify() {
	secret := "whsec_example"
	body := []byte(`{"event":"verification.completed","event_id":"evt_0"}`)
	header := webhook.Sign(secret, body) // what the service sends as X-Service-Signature
	fmt.Println(webhook.Verify(secret, body, header))
	fmt.Println(webhook.Verify(secret, []byte(`{"tampered":true}`), header))
	// Output:
	// <nil>
	// webhook: signature does not match
}
