package webhook_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

func TestNormalize(t *testing.T) {
	ca, _, _, err := webhook.GenerateClientIdentity("ca", time.Now(), time.Hour)
	require.NoError(t, err)
	valid := func() webhook.Webhook {
		return webhook.Webhook{Type: webhook.TypeEventNotification, Name: " Orders ", URL: "https://hooks.example.com/in",
			CACertificate: string(ca), Events: []string{webhook.EventUnitsDepleted}}
	}
	w := valid()
	require.NoError(t, w.Normalize())
	assert.Equal(t, "Orders", w.Name)
	assert.Equal(t, "POST", w.Method)
	assert.Equal(t, webhook.StatusInactive, w.Status)

	vc := webhook.Webhook{Type: webhook.TypeVerificationCheck, Name: "check", URL: "https://c.example.com", CACertificate: string(ca), Method: "patch"}
	require.NoError(t, vc.Normalize())
	assert.Equal(t, webhook.DefaultCriteria(), *vc.Criteria)
	assert.Equal(t, "PATCH", vc.Method)

	tests := []struct {
		name   string
		change func(w *webhook.Webhook)
		want   string
	}{
		{"type", func(w *webhook.Webhook) { w.Type = "other" }, "type must be one of"},
		{"name", func(w *webhook.Webhook) { w.Name = "  " }, "name is required"},
		{"long name", func(w *webhook.Webhook) { w.Name = strings.Repeat("n", 256) }, "name: at most 255"},
		{"http", func(w *webhook.Webhook) { w.URL = "http://hooks.example.com" }, "url must be https"},
		{"not a URL", func(w *webhook.Webhook) { w.URL = "https://" }, "url is not a valid url"},
		{"method", func(w *webhook.Webhook) { w.Method = "GET" }, "method must be one of POST, PUT, PATCH"},
		{"no CA", func(w *webhook.Webhook) { w.CACertificate = "" }, "ca_certificate (PEM) is required"},
		{"DER CA", func(w *webhook.Webhook) { w.CACertificate = "\x30\x82\x01\x0a" }, "DER"},
		{"no events", func(w *webhook.Webhook) { w.Events = nil }, "at least one event"},
		{"unknown event", func(w *webhook.Webhook) { w.Events = []string{"user.created"} }, "unknown event"},
		{"repeated event", func(w *webhook.Webhook) { w.Events = []string{"units.depleted", "units.depleted"} }, "listed twice"},
		{"criteria on notifications", func(w *webhook.Webhook) { w.Criteria = &webhook.Criteria{} }, "verification_check webhooks only"},
		{"reserved header", func(w *webhook.Webhook) { w.Headers = []webhook.Header{{Name: "user-agent", Value: "x"}} }, "cannot be overridden"},
		{"header name", func(w *webhook.Webhook) { w.Headers = []webhook.Header{{Name: "Bad Name", Value: "x"}} }, "not a header name"},
		{"header injection", func(w *webhook.Webhook) { w.Headers = []webhook.Header{{Name: "X-A", Value: "a\r\nX-B: b"}} }, "one line"},
		{"email", func(w *webhook.Webhook) { w.NotifyEmail = "not-an-address" }, "notify_email is not a valid email"},
		{"secret", func(w *webhook.Webhook) { w.Secret = strings.Repeat("s", 513) }, "secret: at most 512"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := valid()
			tc.change(&w)
			err := w.Normalize()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	bad := webhook.Webhook{Type: webhook.TypeVerificationCheck, Name: "c", URL: "https://c.example.com", CACertificate: string(ca),
		Events: []string{"units.depleted"}, Criteria: &webhook.Criteria{MinThreshold: 1.2}, ResponseSchema: []byte(`[1]`)}
	err = bad.Normalize()
	require.Error(t, err)
	for _, want := range []string{"events apply to event_notification", "outside [0, 1]", "response_schema must be a JSON object"} {
		assert.Contains(t, err.Error(), want)
	}
	for name, tc := range map[string]struct{ schema, want string }{
		"not a schema":  {`{"type":5}`, "not a valid JSON Schema"},
		"file $ref":     {`{"$ref":"file:///etc/passwd"}`, "only references inside the schema"},
		"network $ref":  {`{"$ref":"https://example.com/s.json"}`, "only references inside the schema"},
		"internal $ref": {`{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`, ""},
	} {
		w := webhook.Webhook{Type: webhook.TypeVerificationCheck, Name: "c", URL: "https://c.example.com", CACertificate: string(ca),
			RequestSchema: []byte(tc.schema)}
		err := w.Normalize()
		if tc.want == "" {
			assert.NoError(t, err, name)
			continue
		}
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), tc.want, name)
		}
	}
}
