package webhook

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the dispatcher's Prometheus series.
type Metrics struct {
	attempts *prometheus.CounterVec
	latency  prometheus.Histogram
	final    *prometheus.CounterVec
	paused   prometheus.Counter
}

// NewMetrics registers the webhook series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tambua_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome (success, http_error, tls_error, timeout, connection_error, refused)."}, []string{"outcome"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "tambua_webhook_attempt_seconds",
			Help: "Duration of webhook delivery attempts.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}),
		final: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tambua_webhook_deliveries_total",
			Help: "Deliveries that reached a final status (success, failed_permanent)."}, []string{"status"}),
		paused: prometheus.NewCounter(prometheus.CounterOpts{Name: "tambua_webhook_auto_pauses_total",
			Help: "Webhooks paused after consecutive failures."}),
	}
	reg.MustRegister(m.attempts, m.latency, m.final, m.paused)
	return m
}

func (m *Metrics) observe(a Attempt, status string, paused bool) {
	if m == nil {
		return
	}
	m.attempts.WithLabelValues(a.Kind).Inc()
	m.latency.Observe(a.Duration.Seconds())
	if status == DeliverySuccess || status == DeliveryFailedPermanent {
		m.final.WithLabelValues(status).Inc()
	}
	if paused {
		m.paused.Inc()
	}
}
