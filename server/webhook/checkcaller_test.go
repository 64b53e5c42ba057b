package webhook_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/checks/webhookcheck/hookcall"
	"github.com/tambua/tambua/server/webhook"
)

func TestCheckCaller(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rc := newReceiver(t, always(200))
	check := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: e.org, Type: webhook.TypeVerificationCheck,
		Name: "registry", URL: rc.URL + "/check", CACertificate: rc.CAPEM, Secret: "k",
		Criteria: &webhook.Criteria{RequireSuccess: true, RequireScore: false, MinThreshold: 0.7}}
	require.NoError(t, check.Normalize())
	require.NoError(t, e.db.CreateWebhook(ctx, check))
	notify := e.hook(t, rc, "k", webhook.EventWorkflowCreated)

	orgOf := func(_ context.Context, client string) (int64, error) {
		if client == "mine" {
			return e.org, nil
		}
		return e.org + 1, nil
	}
	c := &webhook.CheckCaller{Store: e.db, Sender: e.d.Sender, OrgOf: orgOf, Now: e.clock.Now}
	req := hookcall.Request{WebhookID: check.ID, ClientID: "mine", Body: []byte(`{"check":"custom_webhook"}`)}

	_, err := c.CallCheck(ctx, req)
	require.ErrorIs(t, err, webhook.ErrCheckWebhook, "inactive webhooks are not called")
	require.NoError(t, e.db.SetWebhookStatus(ctx, check.ID, webhook.StatusActive))

	reply, err := c.CallCheck(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 200, reply.StatusCode)
	assert.Equal(t, hookcall.Criteria{RequireSuccess: true, MinThreshold: 0.7}, reply.Criteria)
	reqs := rc.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, webhook.EventVerificationCheck, reqs[0].Header.Get("X-Service-Event"))
	require.NoError(t, webhook.Verify("k", reqs[0].Body, reqs[0].Header.Get("X-Service-Signature")))
	logs, err := e.db.Logs(ctx, check.ID, webhook.LogFilter{})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, webhook.LogSuccess, logs[0].Status)

	for name, r := range map[string]hookcall.Request{
		"other organisation": {WebhookID: check.ID, ClientID: "theirs"},
		"no webhook_id":      {ClientID: "mine"},
		"unknown":            {WebhookID: "wh_nope", ClientID: "mine"},
		"notification type":  {WebhookID: notify.ID, ClientID: "mine"},
	} {
		_, err := c.CallCheck(ctx, r)
		assert.True(t, errors.Is(err, webhook.ErrCheckWebhook), "%s: %v", name, err)
	}
	assert.Len(t, rc.requests(), 1)
}

// TestCheckCallerSchemas: a request outside the webhook's request_schema is
// not sent; a response outside its response_schema errors the call and is
// logged as failed; a response inside it is handed to the criteria.
func TestCheckCallerSchemas(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rc := newReceiver(t, always(200)) // answers {"ok":true}
	mk := func(response string) webhook.Webhook {
		w := webhook.Webhook{ID: webhook.NewWebhookID(), OrganisationID: e.org, Type: webhook.TypeVerificationCheck,
			Name: "schema " + response, URL: rc.URL + "/check", CACertificate: rc.CAPEM,
			RequestSchema:  []byte(`{"type":"object","required":["check"],"properties":{"check":{"type":"string"}}}`),
			ResponseSchema: []byte(`{"type":"object","required":["` + response + `"]}`)}
		require.NoError(t, w.Normalize())
		require.NoError(t, e.db.CreateWebhook(ctx, w))
		require.NoError(t, e.db.SetWebhookStatus(ctx, w.ID, webhook.StatusActive))
		return w
	}
	strict, loose := mk("success"), mk("ok")
	c := &webhook.CheckCaller{Store: e.db, Sender: e.d.Sender, Now: e.clock.Now}
	good := []byte(`{"check":"custom_webhook"}`)

	_, err := c.CallCheck(ctx, hookcall.Request{WebhookID: loose.ID, Body: []byte(`{"check":7}`)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "request_schema")
	assert.Empty(t, rc.requests(), "a request outside the schema is not sent")

	_, err = c.CallCheck(ctx, hookcall.Request{WebhookID: strict.ID, Body: good})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response_schema")
	logs, err := e.db.Logs(ctx, strict.ID, webhook.LogFilter{})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, webhook.LogFailed, logs[0].Status)
	assert.Contains(t, logs[0].Error, "response_schema")

	reply, err := c.CallCheck(ctx, hookcall.Request{WebhookID: loose.ID, Body: good})
	require.NoError(t, err)
	assert.Equal(t, 200, reply.StatusCode)
	assert.Len(t, rc.requests(), 2)
}
