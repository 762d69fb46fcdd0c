package indexer_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestRedeliveryAfterARolloverIsNotStoredTwice reproduces what a crash
// between a durable bulk write and its offset commit leaves behind, with
// a rollover before the restart: the events are stored, the offsets are
// not committed, and each tenant's stream has a new write index. The
// restarted indexer redelivers every message; op_type create alone would
// store each again in the new backing index (2,000 of 120,000 were, in a
// review). Each must be found in the older index and settled as a
// duplicate: every id stored exactly once, every offset committed, and
// every stored event one leaf of its tenant's verifiable log.
func TestRedeliveryAfterARolloverIsNotStoredTwice(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const n = 3000
	g := gen.New(gen.Config{Seed: 8, Tenants: 5, WithIDs: true}, n)
	events := make([]audit.Event, n)
	tenants := map[string]bool{}
	for i := range events {
		events[i] = g.Next()
		tenants[events[i].TenantID] = true
	}
	// What the dead indexer had written (durably) but not committed.
	res, err := e.store.WriteEvents(ctx, events)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Status != audit.WriteCreated {
			t.Fatalf("event %d: %v", i, r.Status)
		}
	}
	for tenant := range tenants {
		plan, err := e.store.Plan(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Client().DoJSON(ctx, http.MethodPost, "/"+e.store.StreamName(plan, tenant)+"/_rollover", nil, nil); err != nil {
			t.Fatalf("rollover: %v", err)
		}
	}
	produce(t, e.brokers, e.topic, eventMessages(t, events))
	cfg := e.config()
	// The dead indexer (e.store) queued nothing for sealing; the restarted
	// one queues the events it finds stored, so each is still sealed once.
	logged := e.loggedStore(t)
	_, reg := e.startOn(t, cfg, logged)
	testenv.Eventually(t, 3*time.Minute, func() error {
		if c := testenv.Committed(t, e.brokers, cfg.Group, e.topic, 4); c != n {
			return fmt.Errorf("%d of %d offsets committed", c, n)
		}
		return nil
	})
	if c := e.count(t, e.store.AllStreamsPattern()); c != n {
		t.Fatalf("%d documents stored after the redelivery, want %d (one per id)", c, n)
	}
	if got := len(e.scan(t, e.store.AllStreamsPattern())); got != n { // fails on a repeated id
		t.Fatalf("%d distinct ids", got)
	}
	if d := metric(t, reg, "auditlog_indexer_events_duplicate_total"); d != n {
		t.Fatalf("duplicates counted %v, want %d", d, n)
	}
	if c := metric(t, reg, "auditlog_indexer_events_redelivery_checked_total"); c != n {
		t.Fatalf("redelivery lookups %v, want %d", c, n)
	}
	storetest.EveryStoredEventOneLeaf(t, logged, e.scan(t, e.store.AllStreamsPattern()))
}
