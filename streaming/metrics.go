package streaming

import (
	"sync"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the streams' Prometheus metrics: per stream, its lag and
// state as the latest pass saw them (every replica reports every stream:
// take the max across replicas), and what this replica delivered and
// failed (sum across replicas). Streams are few (opt-in, per plan), so a
// label per stream is affordable.
type Metrics struct {
	delivered *prometheus.CounterVec
	failed    *prometheus.CounterVec
	batches   *prometheus.CounterVec

	mu   sync.Mutex
	seen map[stream.Key]observation
}

type observation struct {
	state string
	lag   stream.Lag
}

var (
	lagEventsDesc  = prometheus.NewDesc("auditlog_stream_lag_events", "Leaves of the tenant's log a stream has not delivered yet.", []string{"tenant", "stream"}, nil)
	lagSecondsDesc = prometheus.NewDesc("auditlog_stream_lag_seconds", "How long a stream has been behind its tenant's log (0 when caught up).", []string{"tenant", "stream"}, nil)
	stateDesc      = prometheus.NewDesc("auditlog_stream_state", "1 for the state a stream is in (active, failing, paused).", []string{"tenant", "stream", "state"}, nil)
)

// NewMetrics registers the streams' metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{seen: map[stream.Key]observation{},
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_stream_delivered_events_total",
			Help: "Events this replica delivered, by stream (a replay counts again)."}, []string{"tenant", "stream"}),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_stream_batches_total",
			Help: "Batches this replica sent, by stream and outcome (accepted, retry, refused, rejected)."}, []string{"tenant", "stream", "outcome"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_stream_failed_attempts_total",
			Help: "Batches the destination did not accept, by stream."}, []string{"tenant", "stream"}),
	}
	reg.MustRegister(m, m.delivered, m.failed, m.batches)
	return m
}

// Observe keeps st's state and lag for the next scrape.
func (m *Metrics) Observe(st stream.Stream, lag stream.Lag) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seen[st.Key()] = observation{state: st.State, lag: lag}
}

// Forget drops the streams not in keep (deleted ones) after a pass.
func (m *Metrics) Forget(keep map[stream.Key]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.seen {
		if !keep[k] {
			delete(m.seen, k)
		}
	}
}

// Count records one step's result.
func (m *Metrics) Count(st *stream.Stream, res Result) {
	if res.Outcome == Idle {
		return
	}
	m.batches.WithLabelValues(st.TenantID, st.ID, res.Outcome.String()).Inc()
	if res.Outcome == Accepted {
		m.delivered.WithLabelValues(st.TenantID, st.ID).Add(float64(res.Events))
	} else {
		m.failed.WithLabelValues(st.TenantID, st.ID).Inc()
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- lagEventsDesc
	ch <- lagSecondsDesc
	ch <- stateDesc
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, o := range m.seen {
		ch <- prometheus.MustNewConstMetric(lagEventsDesc, prometheus.GaugeValue, float64(o.lag.Events), k.TenantID, k.ID)
		ch <- prometheus.MustNewConstMetric(lagSecondsDesc, prometheus.GaugeValue, o.lag.Seconds, k.TenantID, k.ID)
		for _, s := range []string{stream.Active, stream.Failing, stream.Paused} {
			v := 0.0
			if o.state == s {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, k.TenantID, k.ID, s)
		}
	}
}
