package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tambua/tambua/server/webhook"
)

func TestReceiver(t *testing.T) {
	var handled []string
	rc := &Receiver{Secret: "s3cret", Handle: func(env webhook.Envelope) { handled = append(handled, env.EventID) }}
	body := []byte(`{"event":"verification.completed","event_id":"evt_1","timestamp":"2026-03-01T10:00:00.000Z","organisation_id":1,"data":{}}`)
	post := func(b []byte, sig string) int {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(b))
		req.Header.Set(webhook.HeaderSignature, sig)
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		return w.Code
	}
	tests := []struct {
		name string
		body []byte
		sig  string
		want int
	}{
		{"valid", body, webhook.Sign("s3cret", body), http.StatusNoContent},
		{"duplicate is accepted, not handled again", body, webhook.Sign("s3cret", body), http.StatusNoContent},
		{"wrong secret", body, webhook.Sign("other", body), http.StatusUnauthorized},
		{"no signature", body, "", http.StatusUnauthorized},
		{"tampered body", append(body[:len(body)-1:len(body)-1], ' ', '}'), webhook.Sign("s3cret", body), http.StatusUnauthorized},
		{"signed but not an event", []byte(`[]`), webhook.Sign("s3cret", []byte(`[]`)), http.StatusBadRequest},
	}
	for _, tc := range tests {
		if got := post(tc.body, tc.sig); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	if len(handled) != 1 || handled[0] != "evt_1" {
		t.Fatalf("handled %v, want [evt_1] once", handled)
	}
}
