//go:build exclusive

package indexer_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestExclusiveShardLimit: with the cluster at its shard limit, a new
// tenant's events cannot get a stream. They are retried, never
// dead-lettered, no offset is committed past them, and /readyz (Ready)
// and auditlog_indexer_store_full say why; once the limit is raised they
// are written, once each. It changes a cluster-wide setting, so it runs
// in the exclusive phase, alone.
func TestExclusiveShardLimit(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.store.Client()
	limit := func(v any) {
		t.Helper()
		body := map[string]any{"persistent": map[string]any{"cluster.max_shards_per_node": v}}
		if err := c.DoJSON(ctx, http.MethodPut, "/_cluster/settings", body, nil); err != nil {
			t.Fatal(err)
		}
	}
	// One shard per node: every existing index already exceeds it, so no
	// new one can open.
	limit(1)
	restored := false
	defer func() {
		if !restored {
			limit(nil)
		}
	}()
	const n = 200
	g := gen.New(gen.Config{Seed: 31, Tenants: 1, WithIDs: true}, n)
	events := make([]audit.Event, n)
	for i := range events {
		events[i] = g.Next()
	}
	cfg := e.config()
	ix, reg := e.startOn(t, cfg, e.store)
	produce(t, e.brokers, e.topic, eventMessages(t, events))
	testenv.Eventually(t, time.Minute, func() error {
		if metric(t, reg, "auditlog_indexer_store_full") != 1 {
			return fmt.Errorf("auditlog_indexer_store_full is not 1")
		}
		if err := ix.Ready(ctx); err == nil || !strings.Contains(err.Error(), "shard limit") {
			return fmt.Errorf("Ready: %v", err)
		}
		return nil
	})
	time.Sleep(3 * time.Second) // retries go on: still nothing dead-lettered or committed
	if d := metric(t, reg, "auditlog_indexer_events_dead_lettered_total"); d != 0 {
		t.Fatalf("%v events dead-lettered at the shard limit", d)
	}
	if got := testenv.Committed(t, e.brokers, cfg.Group, e.topic, 4); got != 0 {
		t.Fatalf("%d offsets committed while no event could be written", got)
	}
	limit(nil)
	restored = true
	all := e.store.AllStreamsPattern()
	e.waitCount(t, all, n, 2*time.Minute)
	if stored := e.scan(t, all); len(stored) != n {
		t.Fatalf("%d events stored, want %d", len(stored), n)
	}
	testenv.Eventually(t, time.Minute, func() error {
		if metric(t, reg, "auditlog_indexer_store_full") != 0 || ix.Ready(ctx) != nil {
			return fmt.Errorf("still full: %v", ix.Ready(ctx))
		}
		if got := testenv.Committed(t, e.brokers, cfg.Group, e.topic, 4); got != n {
			return fmt.Errorf("committed %d of %d", got, n)
		}
		return nil
	})
	if d := metric(t, reg, "auditlog_indexer_events_dead_lettered_total"); d != 0 {
		t.Fatalf("%v events dead-lettered", d)
	}
}
