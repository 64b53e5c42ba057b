// Package webhook owns Tambua's outbound HTTP: event notification
// deliveries and verification check calls to customer endpoints.
//
// Events are written to the outbox by the change that causes them (in the
// same transaction). A Dispatcher fans each event out to one Delivery per
// subscribed, active (or paused: held) webhook and sends it with mutual
// TLS (the service's client certificate, trusting only the webhook's CA),
// signed with X-Service-Signature, through a dialer that refuses private,
// loopback, link-local, CGNAT and metadata addresses at connect time.
// Failed attempts are retried after 2 s and 4 s; 4xx and TLS failures are
// not retried; the third failure makes the delivery failed_permanent and
// emits webhook.delivery.failed; ten consecutive failed deliveries pause
// the webhook and send an email. All state is in the Store, so a killed
// process resumes its deliveries when the next one starts.
//
// Receivers check signatures with Verify over the raw body:
//
//	body, _ := io.ReadAll(r.Body)
//	if err := webhook.Verify(secret, body, r.Header.Get(webhook.HeaderSignature)); err != nil {
//		http.Error(w, "bad signature", http.StatusUnauthorized)
//		return
//	}
//
// and deduplicate on the envelope's event_id. See docs/webhooks.md and
// examples/webhook-receiver.
package webhook
