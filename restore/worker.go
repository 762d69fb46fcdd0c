// Package restore delivers restore requests to the services that own the
// resources: to a Kafka topic, to an HMAC-signed webhook, or (the
// embedded default with neither) to an outbox directory. A request stays
// in the store until it is delivered, retried with backoff for as long as
// it takes (restorejob.Backoff); one replica delivers it at a time.
package restore

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/audit"
)

// Sender hands one restore request (body is its JSON) to its owner. It
// returns nil only once the owner's side has it: Kafka acknowledged the
// write, the webhook answered 2xx, the file is synced.
type Sender interface {
	Send(ctx context.Context, r restorejob.Request, body []byte) error
	// Destination names where requests go, for logs (no secret in it).
	Destination() string
}

// Worker delivers the due requests of a store through a Sender.
type Worker struct {
	store restorejob.Store
	send  Sender
	log   *slog.Logger
	now   func() time.Time
	wake  chan struct{}
	// Poll is how often the store is checked for due requests when
	// nothing wakes the worker (another replica's requests, retries).
	Poll time.Duration

	delivered, failed prometheus.Counter
}

// NewWorker returns a worker; its metrics go on reg.
func NewWorker(store restorejob.Store, send Sender, log *slog.Logger, reg prometheus.Registerer) *Worker {
	w := &Worker{store: store, send: send, log: log, now: time.Now, wake: make(chan struct{}, 1), Poll: time.Second,
		delivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "auditlog_restore_deliveries_total",
			Help: "Restore requests delivered to the owning service."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{Name: "auditlog_restore_delivery_failures_total",
			Help: "Failed delivery attempts of restore requests (each is retried with backoff)."}),
	}
	reg.MustRegister(w.delivered, w.failed)
	return w
}

// Notify wakes the worker: a request was just stored.
func (w *Worker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		for w.deliverDue(ctx) {
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
		}
	}
}

// deliverDue delivers one page of due requests; it reports whether a
// full page was found (there may be more).
func (w *Worker) deliverDue(ctx context.Context) bool {
	const page = 50
	due, err := w.store.DueRestores(ctx, w.now(), page)
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("restore requests: listing the due ones failed; retrying", "err", err)
		}
		return false
	}
	for i := range due {
		if ctx.Err() != nil {
			return false
		}
		w.deliver(ctx, &due[i])
	}
	return len(due) == page
}

// deliver claims r (another replica may have it), sends it and stores the
// result.
func (w *Worker) deliver(ctx context.Context, r *restorejob.Record) {
	r.Claim(w.now())
	if err := w.store.UpdateRestore(ctx, r); err != nil {
		if audit.ErrorCode(err) != audit.ECONFLICT {
			w.log.Warn("restore request: claiming failed", "request", r.RequestID, "err", err)
		}
		return
	}
	body, err := json.Marshal(r.Request)
	if err == nil {
		sctx, cancel := context.WithTimeout(ctx, restorejob.ClaimLease/2)
		err = w.send.Send(sctx, r.Request, body)
		cancel()
	}
	if err != nil {
		w.failed.Inc()
		r.DeliveryFailed(w.now(), err)
		w.log.Warn("restore request: delivery failed; retrying", "request", r.RequestID, "tenant", r.TenantID, "attempts", r.Attempts,
			"next", r.NextAttemptAt, "to", w.send.Destination(), "err", err)
	} else {
		w.delivered.Inc()
		r.Delivered(w.now())
		w.log.Info("restore request delivered", "request", r.RequestID, "tenant", r.TenantID, "to", w.send.Destination(), "attempts", r.Attempts)
	}
	w.save(ctx, r)
}

// save stores the result of an attempt. A conflict means the request was
// settled meanwhile (its owner already reported the outcome): the result
// is applied to the stored record and saved again.
func (w *Worker) save(ctx context.Context, r *restorejob.Record) {
	for try := 0; try < 3; try++ {
		err := w.store.UpdateRestore(ctx, r)
		if audit.ErrorCode(err) != audit.ECONFLICT {
			if err != nil {
				w.log.Warn("restore request: saving the attempt failed; it will be sent again", "request", r.RequestID, "err", err)
			}
			return
		}
		cur, gerr := w.store.GetRestore(ctx, r.TenantID, r.RequestID)
		if gerr != nil {
			w.log.Warn("restore request: rereading failed", "request", r.RequestID, "err", gerr)
			return
		}
		cur.Attempts, cur.NextAttemptAt, cur.DeliveredAt, cur.LastError = r.Attempts, r.NextAttemptAt, r.DeliveredAt, r.LastError
		*r = cur
	}
}
