package elasticsearch

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LifecycleLoop runs RunLifecycle every interval until ctx ends. It is the
// retention of a cluster without ILM; where ILM exists it is not started.
func (s *Store) LifecycleLoop(ctx context.Context, interval time.Duration, log *slog.Logger, reg prometheus.Registerer) {
	runs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_runs_total", Help: "Passes of the built-in lifecycle worker, by result.",
	}, []string{"result"})
	deleted := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_deleted_indices_total", Help: "Backing indices deleted past their plan's retention.",
	})
	rolled := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_rollovers_total", Help: "Data streams rolled over by the lifecycle worker.",
	})
	reg.MustRegister(runs, deleted, rolled)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, err := s.RunLifecycle(ctx)
		if err != nil {
			runs.WithLabelValues("error").Inc()
			if ctx.Err() == nil {
				log.Warn("lifecycle pass failed; next pass will retry", "err", err)
			}
		} else {
			runs.WithLabelValues("ok").Inc()
			deleted.Add(float64(len(rep.Deleted)))
			rolled.Add(float64(len(rep.RolledOver)))
			log.Info("lifecycle pass", "streams", rep.Streams, "rolledOver", len(rep.RolledOver), "deleted", rep.Deleted)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
