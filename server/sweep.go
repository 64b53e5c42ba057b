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

func trimSlash(s string) string {
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
