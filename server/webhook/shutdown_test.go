package webhook_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server/webhook"
)

// TestShutdownGrace: when Run's context ends (SIGTERM), attempts under way
// finish within Grace and are recorded; attempts still hanging when Grace
// runs out are cut short and their deliveries handed back, due at once
// for another replica, not held until their leases lapse.
func TestShutdownGrace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		release time.Duration // when the receiver answers, after the stop
		grace   time.Duration
		handed  int // deliveries handed back
	}{
		{"attempts finish within the grace", 100 * time.Millisecond, 10 * time.Second, 0},
		{"attempts cut short are handed back", time.Hour, 300 * time.Millisecond, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			rc := newReceiver(t, always(200))
			hold := make(chan struct{})
			rc.mu.Lock()
			rc.hold = hold
			rc.mu.Unlock()
			w := e.hook(t, rc, "k", webhook.EventVerificationCompleted)
			e.emit(t, webhook.EventVerificationCompleted, map[string]any{"verification_id": "v1"})
			e.emit(t, webhook.EventVerificationCompleted, map[string]any{"verification_id": "v2"})
			e.d.Grace, e.d.Poll = tc.grace, 20*time.Millisecond

			ctx, stop := context.WithCancel(context.Background())
			ran := make(chan error, 1)
			go func() { ran <- e.d.Run(ctx) }()
			require.Eventually(t, func() bool { return len(rc.requests()) == 2 }, 10*time.Second, 5*time.Millisecond, "both attempts under way")
			stop()
			stopped := time.Now()
			if tc.release < time.Minute {
				time.AfterFunc(tc.release, func() { close(hold) })
			} else {
				t.Cleanup(func() { close(hold) })
			}
			select {
			case err := <-ran:
				require.NoError(t, err)
			case <-time.After(tc.grace + 5*time.Second):
				t.Fatal("Run did not return within its grace")
			}
			took := time.Since(stopped)
			assert.Less(t, took, tc.grace+2*time.Second, "Run returns within its grace")

			ctx2 := context.Background()
			ds, err := e.db.Deliveries(ctx2, w.ID, 0)
			require.NoError(t, err)
			require.Len(t, ds, 2)
			succeeded := 0
			for _, d := range ds {
				if d.Status == webhook.DeliverySuccess {
					succeeded++
				}
			}
			assert.Equal(t, 2-tc.handed, succeeded, "attempts that finished are recorded")
			now := e.clock.Now()
			due, err := e.db.ClaimDue(ctx2, webhook.Claim{Now: now, LeaseUntil: now.Add(time.Hour), Limit: 10})
			require.NoError(t, err)
			assert.Len(t, due, tc.handed, "cut attempts are due again at once, for any replica")
		})
	}
}
