package seal

import (
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Unaccepted is a stored row the sealer refused: its acceptance tag does
// not verify against it (inserted behind the service, or rewritten after
// acceptance), or it is no event.
type Unaccepted struct {
	TenantID string    `json:"tenantId"`
	EventID  string    `json:"eventId"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}

// keepUnaccepted bounds the rows Unaccepted lists (the count goes on).
const keepUnaccepted = 20

// unacceptedLog is what the sealer refused: a counter
// (auditlog_log_unaccepted_events_total, the alert's metric), an error
// line each, and the latest rows for /healthz.
type unacceptedLog struct {
	total  prometheus.Counter
	mu     sync.Mutex
	count  int64
	latest []Unaccepted
}

func newUnacceptedLog() *unacceptedLog {
	return &unacceptedLog{total: prometheus.NewCounter(prometheus.CounterOpts{Name: "auditlog_log_unaccepted_events_total",
		Help: "Stored rows the sealer refused to seal: no valid acceptance tag (inserted or rewritten behind the service), or no event. Any is an alert."})}
}

func (u *unacceptedLog) add(logger *slog.Logger, at time.Time, rows []Unaccepted) {
	if len(rows) == 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, r := range rows {
		r.At = at
		logger.Error("unaccepted event: a stored row the service did not accept is not sealed", "tenant", r.TenantID, "event", r.EventID, "reason", r.Reason)
		u.latest = append(u.latest, r)
	}
	if n := len(u.latest); n > keepUnaccepted {
		u.latest = append([]Unaccepted(nil), u.latest[n-keepUnaccepted:]...)
	}
	u.count += int64(len(rows))
	u.total.Add(float64(len(rows)))
}

func (u *unacceptedLog) snapshot() (int64, []Unaccepted) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.count, append([]Unaccepted(nil), u.latest...)
}
