package webhook_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambua/tambua/server/webhook"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestWriteCSVGolden(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	entries := []webhook.LogEntry{
		{Timestamp: at.Add(6 * time.Second), Event: "verification.completed", Status: "Failed", Attempt: 3, ResponseCode: 503, ResponseTimeMS: 41, Error: "HTTP 503", EventID: "evt_1", DeliveryID: "dlv_1"},
		{Timestamp: at.Add(2 * time.Second), Event: "verification.completed", Status: "Retrying", Attempt: 2, ResponseTimeMS: 30000, Error: "timeout: context deadline exceeded", EventID: "evt_1", DeliveryID: "dlv_1"},
		{Timestamp: at, Event: "units.low_balance", Status: "Success", Attempt: 1, ResponseCode: 200, ResponseTimeMS: 12, EventID: "evt_2", DeliveryID: "dlv_2"},
		{Timestamp: at, Event: "workflow.created", Status: "Failed", Attempt: 1, ResponseCode: 400, Error: `=HYPERLINK("x"), "quoted"`, EventID: "evt_3", DeliveryID: "dlv_3"},
	}
	var b bytes.Buffer
	require.NoError(t, webhook.WriteCSV(&b, entries))
	golden := filepath.Join("testdata", "logs.csv")
	if *update {
		require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 5)
	assert.Equal(t, webhook.CSVHeader, rows[0])
}

func TestLogFiltersAndStats(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rc := newReceiver(t, func(n int) int {
		if n%2 == 0 {
			return 500
		}
		return 200
	})
	w := e.hook(t, rc, "k", webhook.EventVerificationCompleted, webhook.EventUnitsDepleted)
	t0 := e.clock.Now()
	e.emit(t, webhook.EventVerificationCompleted, map[string]any{}) // n=1: 200
	e.step(t)
	e.clock.Advance(time.Minute)
	e.emit(t, webhook.EventUnitsDepleted, map[string]any{}) // n=2: 500, retried at +2 s: 200
	e.step(t)
	e.clock.Advance(2 * time.Second)
	e.step(t)

	all, err := e.db.Logs(ctx, w.ID, webhook.LogFilter{})
	require.NoError(t, err)
	require.Len(t, all, 3)
	tests := []struct {
		name string
		f    webhook.LogFilter
		want int
	}{
		{"status Retrying", webhook.LogFilter{Status: webhook.LogRetrying}, 1},
		{"status Success", webhook.LogFilter{Status: webhook.LogSuccess}, 2},
		{"event", webhook.LogFilter{Event: webhook.EventUnitsDepleted}, 2},
		{"from", webhook.LogFilter{From: t0.Add(time.Second)}, 2},
		{"to", webhook.LogFilter{To: t0.Add(time.Second)}, 1},
		{"range and status", webhook.LogFilter{From: t0.Add(time.Second), To: t0.Add(time.Hour), Status: webhook.LogSuccess}, 1},
		{"limit", webhook.LogFilter{Limit: 1}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.db.Logs(ctx, w.ID, tc.f)
			require.NoError(t, err)
			assert.Len(t, got, tc.want)
		})
	}
	st, err := e.db.Stats(ctx, w.ID)
	require.NoError(t, err)
	assert.Equal(t, int64(3), st.Total)
	assert.Equal(t, int64(2), st.Successful)
	assert.Equal(t, int64(1), st.Failed)
	assert.InDelta(t, 2.0/3, st.SuccessRate, 1e-9)
	require.NotNil(t, st.LastSuccess)
	require.NotNil(t, st.LastFailure)
	assert.True(t, st.LastSuccess.After(*st.LastFailure))

	// Delete removes the webhook and its log.
	require.NoError(t, e.db.DeleteWebhook(ctx, w.ID))
	_, err = e.db.Webhook(ctx, w.ID)
	require.ErrorIs(t, err, webhook.ErrNotFound)
	logs, err := e.db.Logs(ctx, w.ID, webhook.LogFilter{})
	require.NoError(t, err)
	assert.Empty(t, logs)
}
