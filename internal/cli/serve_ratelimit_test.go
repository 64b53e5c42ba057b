package cli

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/pgtest"
	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server"
)

// TestServeRateLimitsAcrossReplicas: on PostgreSQL the replicas share
// their rate-limit buckets, so wrong secrets sent alternately to two
// replicas meet one limit (a burst of 20, refilled at 1 a second), not
// one per replica (40 and more).
func TestServeRateLimitsAcrossReplicas(t *testing.T) {
	pg := pgtest.Shared(t)
	gw := s3test.Shared(t)
	gw.Env(t)
	dsn, bucket := pg.NewDatabase(t), gw.NewBucketURL()
	flags := append([]string{"--db", dsn, "--files", bucket}, sharedIdentity(t)...)
	addrA, out, stopA := serve(t, t.TempDir(), flags...)
	defer stopA()
	addrB, _, stopB := serve(t, t.TempDir(), flags...)
	defer stopB()
	id := field(t, out.String(), "client_id")

	burst, rate := server.DefaultLimits.TokenBurst, server.DefaultLimits.TokenRate
	limitedAt := 0
	start := time.Now()
	for i := 1; i <= 3*burst && limitedAt == 0; i++ {
		addr := addrA
		if i%2 == 0 {
			addr = addrB
		}
		resp, err := http.PostForm("http://"+addr+"/oauth/token", map[string][]string{
			"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {"wrong"}})
		require.NoError(t, err)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusUnauthorized:
		case http.StatusTooManyRequests:
			limitedAt = i
			assert.NotEmpty(t, resp.Header.Get("Retry-After"))
		default:
			t.Fatalf("attempt %d: status %d", i, resp.StatusCode)
		}
	}
	elapsed := time.Since(start)
	require.NotZero(t, limitedAt, "no limit within %d failures over two replicas", 3*burst)
	// One bucket: the burst plus what refilled meanwhile. A bucket per
	// replica would allow twice the burst plus twice the refill.
	refilled := int(math.Ceil(elapsed.Seconds() * rate))
	assert.Greater(t, limitedAt, burst, "the whole burst is allowed")
	assert.LessOrEqual(t, limitedAt, burst+refilled+1, "one limit across the replicas, not one each")
	t.Logf("failure %d over two replicas was refused after %v (burst %d, %d refilled)", limitedAt, elapsed.Round(time.Millisecond), burst, refilled)
}
