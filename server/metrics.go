package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus series, in a registry of its own so
// that two servers in one process (tests) do not collide.
type metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	inflight      *prometheus.GaugeVec
	verifications *prometheus.CounterVec
	checks        *prometheus.HistogramVec
	queueWait     prometheus.Histogram
	replays       prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tambua_http_requests_total", Help: "HTTP requests by endpoint and status code.",
		}, []string{"endpoint", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tambua_http_request_duration_seconds", Help: "HTTP request latency by endpoint.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120},
		}, []string{"endpoint"}),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tambua_http_requests_in_flight", Help: "Requests being served, by endpoint.",
		}, []string{"endpoint"}),
		verifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tambua_verifications_total", Help: "Completed verifications by verdict.",
		}, []string{"verdict"}),
		checks: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tambua_check_duration_seconds", Help: "Duration of each check run, by check and status.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"check", "status"}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tambua_verification_queue_wait_seconds", Help: "Time a verification waited for a free worker.",
			Buckets: []float64{.001, .01, .1, .5, 1, 2.5, 5, 10, 30, 60, 100},
		}),
		replays: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "tambua_verification_replays_total", Help: "Requests answered from a stored verification (same request_id).",
		}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.inflight, m.verifications, m.checks, m.queueWait, m.replays,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// MetricsHandler serves the Prometheus text without any check: mount it on
// a listener only operators reach (tambua serve --metrics-addr).
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }

// handleMetrics is /metrics on the API handler: only with the configured
// token (Config.MetricsToken), else as an unknown path.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	rid := requestIDFrom(r.Context())
	if s.cfg.MetricsToken == "" {
		writeAPIError(w, apiErr(CodeNotFound, "metrics are not served on this address (tambua serve --metrics-addr or --metrics-token)"), rid)
		return
	}
	scheme, raw, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	want := sha256.Sum256([]byte(s.cfg.MetricsToken))
	got := sha256.Sum256([]byte(strings.TrimSpace(raw)))
	if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(want[:], got[:]) != 1 {
		writeAPIError(w, apiErr(CodeUnauthorized, "send Authorization: Bearer <metrics token>"), rid)
		return
	}
	s.metrics.handler().ServeHTTP(w, r)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
