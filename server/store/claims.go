package store

import (
	"context"
	"log/slog"
	"time"
)

// ReleaseDeadClaims releases the claims taken before t, which belong to
// verifications that cannot still be running (a process that stopped
// mid-verification), and logs how many: they were never billed, and their
// units and request ids are free again.
func ReleaseDeadClaims(ctx context.Context, st Store, log *slog.Logger, t time.Time) error {
	n, err := st.ReleaseClaimsBefore(ctx, t)
	if err != nil {
		return err
	}
	if n > 0 {
		log.Warn("released claims of verifications interrupted by a stop", "count", n)
	}
	return nil
}

// ReleaseStaleClaims releases, until ctx ends, the claims older than age
// (those of replicas that died mid-verification on a shared database): a
// quarter of age apart (at most a minute), so a dead replica's claims are
// free at most 1.25 times age after it took them.
func ReleaseStaleClaims(ctx context.Context, st Store, log *slog.Logger, age time.Duration) {
	t := time.NewTicker(min(time.Minute, age/4))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := ReleaseDeadClaims(ctx, st, log, time.Now().Add(-age)); err != nil && ctx.Err() == nil {
			log.Error("releasing stale claims", "error", err)
		}
	}
}
