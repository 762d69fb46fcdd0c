//go:build exclusive

// Tests that stop a shared service. They are built only with the
// "exclusive" tag and run by scripts/test.sh after the main run, alone, so
// that no other test sees the outage.

package indexer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestExclusiveElasticsearchOutage stops Elasticsearch for 20 seconds in
// the middle of the stream and starts it again: nothing is lost, nothing
// is duplicated, no offset is committed during the outage, and the retry
// metric moved.
func TestExclusiveElasticsearchOutage(t *testing.T) {
	ctl := testenv.Control(t)
	e := newEnv(t)
	e.logWarnings = true
	ctx := context.Background()
	const n = 30000
	g := gen.New(gen.Config{Seed: 21, Tenants: 10, WithIDs: true}, n)
	events := make([]audit.Event, n)
	for i := range events {
		events[i] = g.Next()
	}
	msgs := eventMessages(t, events)
	// The first third is there at the start; the rest arrives during the
	// outage.
	produce(t, e.brokers, e.topic, msgs[:n/3])
	cfg := e.config()
	ix, reg := e.startOn(t, cfg, e.store)
	all := e.store.AllStreamsPattern()
	testenv.Eventually(t, 2*time.Minute, func() error {
		if c := e.count(t, all); c < 1000 {
			return fmt.Errorf("%d indexed", c)
		}
		return nil
	})

	committed := func() int64 { return testenv.Committed(t, e.brokers, cfg.Group, e.topic, 4) }
	retriedBefore := metric(t, reg, "auditlog_indexer_events_retried_total")
	t0 := time.Now()
	if err := ctl.Stop(ctx); err != nil {
		t.Fatalf("stopping Elasticsearch: %v", err)
	}
	stoppedAt := time.Now()
	t.Logf("Elasticsearch stopped in %s", stoppedAt.Sub(t0).Round(time.Millisecond))
	restarted := false
	defer func() {
		if !restarted {
			_ = ctl.Start(context.Background())
		}
	}()
	// In-flight commits of batches written just before the stop may land
	// in the first instants; from then on nothing may be committed.
	time.Sleep(2 * time.Second)
	before := committed()
	produce(t, e.brokers, e.topic, msgs[n/3:])
	for time.Since(stoppedAt) < 20*time.Second {
		if c := committed(); c != before {
			t.Fatalf("offsets moved from %d to %d while Elasticsearch was down", before, c)
		}
		time.Sleep(time.Second)
	}
	if err := ctl.Start(ctx); err != nil {
		t.Fatalf("starting Elasticsearch: %v", err)
	}
	restarted = true
	restartedAt := time.Now()
	t.Logf("Elasticsearch started again in %s", restartedAt.Sub(stoppedAt.Add(20*time.Second)).Round(time.Millisecond))
	// Waiting, each failure says what the indexer has done so far, so a
	// run that does not catch up tells why.
	testenv.Eventually(t, 4*time.Minute, func() error {
		c := e.count(t, all)
		if c > n {
			t.Fatalf("%d documents stored, more than the %d produced", c, n)
		}
		if c != n {
			s := ix.Stats()
			return fmt.Errorf("%d of %d stored %s after the restart; the indexer consumed %d, indexed %d, found %d duplicates, dead-lettered %d, retried %d",
				c, n, time.Since(restartedAt).Round(time.Second), s.Consumed.Load(), s.Indexed.Load(), s.Duplicates.Load(), s.DeadLettered.Load(), s.Retried.Load())
		}
		return nil
	})
	t.Logf("all %d stored %s after the restart", n, time.Since(restartedAt).Round(time.Second))
	stored := e.scan(t, all)
	for _, ev := range events {
		if _, ok := stored[ev.ID]; !ok {
			t.Fatalf("event %s lost in the outage", ev.ID)
		}
	}
	if r := metric(t, reg, "auditlog_indexer_events_retried_total"); r <= retriedBefore {
		t.Fatalf("retry metric %v did not move during the outage", r)
	}
	testenv.Eventually(t, time.Minute, func() error {
		if c := committed(); c != n {
			return fmt.Errorf("committed %d of %d after recovery", c, n)
		}
		return nil
	})
}
