package indexer

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/kafka"
)

// progress is what the lag monitor last saw: the group's lag per
// partition, measured from Kafka itself (end offsets against the group's
// committed offsets), independently of whether writes succeed, and when
// the committed offsets last moved.
type progress struct {
	mu        sync.Mutex
	lag       int64
	committed int64
	moved     time.Time // the last time the committed total changed, or lag was 0
	measured  time.Time
	err       error
	// full is the reason the store last gave for being out of capacity,
	// "" once a write went through.
	full string
}

// monitorLag measures the group's lag every LagInterval until ctx ends,
// and publishes it in auditlog_indexer_consumer_lag. During a store
// outage nothing is committed, so the lag grows and the gauge shows it.
func (ix *Indexer) monitorLag(ctx context.Context) {
	meter := kafka.NewLagMeter(ix.cfg.Brokers, ix.cfg.Topic, ix.cfg.Group)
	t := time.NewTicker(ix.cfg.LagInterval)
	defer t.Stop()
	for {
		lags, committed, err := meter.Measure(ctx)
		var lag int64
		for p, l := range lags {
			ix.m.lag.WithLabelValues(strconv.Itoa(p)).Set(float64(l))
			lag += l
		}
		now := ix.deps.Now()
		ix.prog.mu.Lock()
		ix.prog.measured, ix.prog.err = now, err
		if err == nil {
			if committed != ix.prog.committed || lag == 0 || ix.prog.moved.IsZero() {
				ix.prog.moved = now
			}
			ix.prog.lag, ix.prog.committed = lag, committed
		}
		ix.prog.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Ready reports whether the indexer makes progress: it returns an error
// while the store says it is out of capacity, when its lag could not be
// measured, or when messages are waiting and no offset has been committed
// for StallAfter (the store refuses writes, or the consumer is stuck).
// /readyz shows it.
func (ix *Indexer) Ready(context.Context) error {
	ix.prog.mu.Lock()
	defer ix.prog.mu.Unlock()
	now := ix.deps.Now()
	switch {
	case ix.prog.full != "":
		return fmt.Errorf("the store is out of capacity; events wait, retried, never dead-lettered: %s", ix.prog.full)
	case ix.prog.measured.IsZero():
		return nil // not measured yet: starting
	case ix.prog.err != nil:
		return fmt.Errorf("consumer lag unknown: %v", ix.prog.err)
	case ix.prog.lag > 0 && now.Sub(ix.prog.moved) > ix.cfg.StallAfter:
		return fmt.Errorf("not making progress: %d messages waiting and no offset committed for %s", ix.prog.lag, now.Sub(ix.prog.moved).Round(time.Second))
	}
	return nil
}

// noteFull records whether the store's last answer said it is out of
// capacity (r.Full), for Ready and auditlog_indexer_store_full.
func (ix *Indexer) noteFull(r audit.WriteResult) {
	ix.prog.mu.Lock()
	defer ix.prog.mu.Unlock()
	switch {
	case r.Full:
		ix.prog.full = r.Reason
		ix.m.storeFull.Set(1)
	case ix.prog.full != "":
		ix.prog.full = ""
		ix.m.storeFull.Set(0)
	}
}
