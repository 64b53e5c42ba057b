package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tambua/tambua/server/store"
)

// readyTimeout bounds each dependency's answer to /readyz: a load
// balancer probes every few seconds, and a database that takes longer
// than this to answer SELECT 1 is not one to send requests to.
const readyTimeout = 2 * time.Second

// Drain marks the server as shutting down: /readyz answers 503 from now
// on, so load balancers stop sending it requests, while the requests it
// has (and any that arrive before the balancer notices) are still
// served. tambua serve calls it on SIGTERM, before http.Server.Shutdown.
func (s *Server) Drain() { s.draining.Store(true) }

// Readiness is the answer of /readyz: each dependency "ok" or what is
// wrong with it, never an error text (the endpoint is public, and a
// driver's error may name hosts).
type Readiness struct {
	Status     string `json:"status"` // ready, unavailable or draining
	Database   string `json:"database"`
	Files      string `json:"files"`
	Migrations string `json:"migrations"`
}

// Ready checks what a replica needs to serve: the database answers and is
// at the migrations this build expects, and the image store answers.
func (s *Server) Ready(ctx context.Context) Readiness {
	r := Readiness{Status: "ready", Database: "ok", Files: "ok", Migrations: "ok"}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		if err := s.store.Ping(ctx); err != nil {
			r.Database, r.Migrations = "unreachable", "unknown"
			return
		}
		if m, ok := s.store.(store.Migrator); ok {
			pending, err := m.PendingMigrations(ctx)
			switch {
			case err != nil:
				r.Migrations = "unknown"
			case len(pending) > 0:
				r.Migrations = "pending: " + strings.Join(pending, ",")
			}
		}
	}()
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(ctx, readyTimeout)
		defer cancel()
		if p, ok := s.files.(store.Pinger); ok {
			if err := p.Ping(ctx); err != nil {
				r.Files = "unreachable"
			}
		}
	}()
	wg.Wait()
	switch {
	case s.draining.Load():
		r.Status = "draining"
	case r.Database != "ok" || r.Files != "ok" || r.Migrations != "ok":
		r.Status = "unavailable"
	}
	return r
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	rd := s.Ready(r.Context())
	code := http.StatusOK
	if rd.Status != "ready" {
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, code, rd)
}

// handleHealth is liveness: the process serves HTTP. It asks nothing of
// the database or the image store (that is /readyz), so an orchestrator
// restarting unhealthy replicas does not restart them all when the
// database is down, which would not bring it back.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "workers": cap(s.workers), "busy": len(s.workers)})
}
