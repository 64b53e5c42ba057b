package server

import (
	"context"
	"errors"
	"time"
)

// Swept counts what a sweep removed.
type Swept struct {
	// StoreOnly are files of no_adapter and single-file uploads whose
	// URLs have expired.
	StoreOnly int
	// Temp are temporary files of writes a crash interrupted.
	Temp int
	// Orphans are folders of verifications that have no stored record
	// (a crash between storing the captures and completing).
	Orphans int
}

// tempAge is how old a temporary file must be before a periodic sweep
// removes it: a Put writes a few MB and renames within seconds, so an
// hour-old one belongs to a write that will never finish.
const tempAge = time.Hour

// SweepFiles expires store-only uploads whose URLs have expired (older
// than the file URL lifetime: nobody can fetch them any more) and removes
// stale temporary files. tambua serve runs it at start and every hour.
func (s *Server) SweepFiles(ctx context.Context) (Swept, error) {
	var sw Swept
	fs, ok := s.files.(FileSweeper)
	if !ok {
		return sw, nil
	}
	now := s.cfg.Now()
	var err1, err2 error
	sw.StoreOnly, err1 = fs.RemoveOlder(ctx, trimSlash(StoreOnlyPrefix), now.Add(-s.cfg.FileURLTTL))
	sw.Temp, err2 = fs.RemoveTemp(ctx, now.Add(-tempAge))
	return sw, errors.Join(err1, err2)
}

// SweepOrphans removes the stored captures of verifications that have no
// record, and every temporary file: what a crash between storing and
// completing leaves. Call it at start, after releasing the pending claims
// and before serving, when no verification is running.
func (s *Server) SweepOrphans(ctx context.Context) (Swept, error) {
	var sw Swept
	fs, ok := s.files.(FileSweeper)
	finder, ok2 := s.store.(VerificationFinder)
	if !ok || !ok2 {
		return sw, nil
	}
	var err error
	if sw.Temp, err = fs.RemoveTemp(ctx, s.cfg.Now().Add(time.Minute)); err != nil {
		return sw, err
	}
	ids, err := fs.List(ctx, "v")
	if err != nil {
		return sw, err
	}
	for _, id := range ids {
		stored, err := finder.VerificationStored(ctx, id)
		if err != nil {
			return sw, err
		}
		if stored {
			continue
		}
		if err := fs.RemoveAll(ctx, "v/"+id); err != nil {
			return sw, err
		}
		sw.Orphans++
	}
	return sw, nil
}

// SweepDeadCaptures is the start-up sweep for replicas sharing a
// database, where other replicas are running verifications: it removes
// the capture folders that have no verification row at all (a claim is
// written before its captures, so a live verification always has one;
// a dead replica's claims are released after --stale-claim-age) and the
// temporary files older than an hour, never younger ones, which may be
// another replica's writes under way.
func (s *Server) SweepDeadCaptures(ctx context.Context) (Swept, error) {
	var sw Swept
	fs, ok := s.files.(FileSweeper)
	finder, ok2 := s.store.(ClaimFinder)
	if !ok || !ok2 {
		return sw, nil
	}
	var err error
	if sw.Temp, err = fs.RemoveTemp(ctx, s.cfg.Now().Add(-tempAge)); err != nil {
		return sw, err
	}
	ids, err := fs.List(ctx, "v")
	if err != nil {
		return sw, err
	}
	for _, id := range ids {
		known, err := finder.VerificationKnown(ctx, id)
		if err != nil {
			return sw, err
		}
		if known {
			continue
		}
		if err := fs.RemoveAll(ctx, "v/"+id); err != nil {
			return sw, err
		}
		sw.Orphans++
	}
	return sw, nil
}

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}

// retentionBatch is how many expired verifications one query returns; the
// sweep repeats until none is left.
const retentionBatch = 500

// SweepRetention erases the images and personal fields of verifications
// completed longer ago than their organisation's retention (docs/reviews.md),
// each as DELETE /v1/verifications/{id} would, with the actor "retention".
// tambua serve runs it at start and every hour with SweepFiles. It returns
// how many it erased.
func (s *Server) SweepRetention(ctx context.Context) (int, error) {
	au, ok := s.store.(Audit)
	rv, ok2 := s.store.(Reviews)
	if !ok || !ok2 {
		return 0, nil
	}
	n := 0
	for {
		expired, err := au.ExpiredVerifications(ctx, s.cfg.Now(), retentionBatch)
		if err != nil || len(expired) == 0 {
			return n, err
		}
		for _, e := range expired {
			if err := s.erase(ctx, rv, e.OrganisationID, e.VerificationID, ReviewAction{Actor: "retention"}); err != nil {
				return n, err
			}
			n++
		}
	}
}

// SweepLeftovers removes, before serving, what a crash left: captures of
// verifications never completed and temporary files. On a database of its
// own (shared false: SQLite) no verification is running yet, so every
// capture without a completed record and every temporary file goes
// (SweepOrphans). On a shared database other replicas' verifications are
// running: only capture folders with no row at all (a released dead
// claim's) and temporary files over an hour old go (SweepDeadCaptures;
// docs/server.md, File sweeps).
func (s *Server) SweepLeftovers(ctx context.Context, shared bool) error {
	sweep, what := s.SweepOrphans, "removed files left by the previous stop"
	if shared {
		sweep, what = s.SweepDeadCaptures, "removed files of verifications that died with a replica"
	}
	sw, err := sweep(ctx)
	if err != nil {
		return err
	}
	if sw.Orphans+sw.Temp > 0 {
		s.log.Warn(what, "orphan_verifications", sw.Orphans, "temp_files", sw.Temp)
	}
	return nil
}

// SweepExpired runs SweepFiles and SweepRetention and logs what they
// removed or why they failed: tambua serve's sweep at start and every
// hour (SweepExpiredEvery).
func (s *Server) SweepExpired(ctx context.Context) {
	sw, err := s.SweepFiles(ctx)
	if err != nil {
		s.log.Error("file sweep", "error", err)
	} else if sw.StoreOnly+sw.Temp > 0 {
		s.log.Info("expired files removed", "store_only", sw.StoreOnly, "temp_files", sw.Temp)
	}
	if n, err := s.SweepRetention(ctx); err != nil {
		s.log.Error("retention sweep", "error", err)
	} else if n > 0 {
		s.log.Info("verifications erased by retention", "count", n)
	}
}

// SweepExpiredEvery runs SweepExpired every interval until ctx ends.
func (s *Server) SweepExpiredEvery(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.SweepExpired(ctx)
		}
	}
}
