package elasticsearch

import (
	"context"
	"log/slog"
	"time"

	"github.com/auditlog/auditlog/audit/retention"

	"github.com/prometheus/client_golang/prometheus"
)

// LifecycleLoop runs RunLifecycle every interval until ctx ends: the
// retention of a cluster without ILM, and everywhere the tenancy's upkeep
// (promotions, plan changes' copies). onRetention hears what each pass
// would not act on (issue 53).
func (s *Store) LifecycleLoop(ctx context.Context, interval time.Duration, log *slog.Logger, reg prometheus.Registerer, onRetention func(retention.Pass)) {
	runs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_runs_total", Help: "Passes of the built-in lifecycle worker, by result.",
	}, []string{"result"})
	deleted := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_deleted_indices_total", Help: "Backing indices deleted past their plan's retention.",
	})
	rolled := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_rollovers_total", Help: "Data streams rolled over by the lifecycle worker.",
	})
	failed := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "auditlog_lifecycle_failed_streams", Help: "Data streams whose part of the last lifecycle pass failed (the others were handled).",
	})
	hibernated := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "auditlog_lifecycle_hibernated_streams", Help: "Data streams whose data has all expired, their write index closed (no open shard), as of the last pass.",
	})
	promoted := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "auditlog_lifecycle_promoted_tenants_total", Help: "Shared tenants moved to streams of their own for their volume (AUDITLOG_ES_PROMOTE_ABOVE).",
	})
	reg.MustRegister(runs, deleted, rolled, failed, hibernated, promoted)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, err := s.RunLifecycle(ctx)
		// What a pass did counts even where some stream failed.
		deleted.Add(float64(len(rep.Deleted)))
		rolled.Add(float64(len(rep.RolledOver)))
		failed.Set(float64(len(rep.Failed)))
		hibernated.Set(float64(rep.Hibernating + len(rep.Hibernated)))
		promoted.Add(float64(len(rep.Promoted)))
		if onRetention != nil {
			onRetention(rep.Retention)
		}
		if err != nil {
			runs.WithLabelValues("error").Inc()
			if ctx.Err() == nil {
				log.Warn("lifecycle pass failed for some streams; the others were handled, the next pass retries", "failed", rep.Failed,
					"rolledOver", len(rep.RolledOver), "deleted", rep.Deleted, "err", err)
			}
		} else {
			runs.WithLabelValues("ok").Inc()
			log.Info("lifecycle pass", "streams", rep.Streams, "rolledOver", len(rep.RolledOver), "deleted", rep.Deleted,
				"hibernated", rep.Hibernated, "reopened", rep.Reopened, "promoted", rep.Promoted, "rescued", rep.Rescued, "reanalyzed", rep.Reanalyzed)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
