package indexer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/indexer"
	"github.com/auditlog/auditlog/kafka"
)

// TestAConflictInARedeliveredBatchIsDeadLetteredAsItself: on a fresh
// start every message of the first batches may be a redelivery, and the
// indexer looks them up tenant by tenant before writing. The write's
// results must still be matched with their own messages: a batch of
// sixteen tenants' events, the last reusing the first's id with other
// content, dead-letters that last message (its bytes, code conflict) and
// stores the other sixteen. Matched in the lookup's tenant order instead,
// a created event's message was dead-lettered and the conflicting one
// neither stored nor dead-lettered (15 runs in 16, by the map order).
func TestAConflictInARedeliveredBatchIsDeadLetteredAsItself(t *testing.T) {
	e := newEnv(t)
	const tenants = 16
	g := gen.New(gen.Config{Seed: 21, Tenants: tenants, WithIDs: true}, 5000)
	seen := map[string]bool{}
	var msgs []kafka.Message
	var events []audit.Event
	for range 5000 { // the generator's events, until one of each tenant
		if len(events) == tenants {
			break
		}
		ev := g.Next()
		if seen[ev.TenantID] {
			continue
		}
		seen[ev.TenantID] = true
		events = append(events, ev)
		b, _ := json.Marshal(ev)
		// One key: one partition, so one batch in the topic's order.
		msgs = append(msgs, kafka.Message{Key: []byte("k"), Value: b})
	}
	if len(seen) != tenants {
		t.Fatalf("%d tenants generated, want %d", len(seen), tenants)
	}
	reused := events[0]
	reused.Actor.IP = "198.51.100.250"
	conflict, _ := json.Marshal(reused)
	msgs = append(msgs, kafka.Message{Key: []byte("k"), Value: conflict})
	produce(t, e.brokers, e.topic, msgs)
	reg := e.start(t, e.config())

	dlq := kgo.NewReader(kgo.ReaderConfig{Brokers: e.brokers, Topic: e.topic + ".dlq", Partition: partitionOf(msgs[0].Key),
		MaxBytes: 16 << 20, MaxWait: 200 * time.Millisecond})
	defer dlq.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dead, err := dlq.ReadMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if h := headers(dead); !bytes.Equal(dead.Value, conflict) || h[indexer.HeaderCode] != indexer.CodeConflict {
		t.Fatalf("the dead letter is %s (code %q), want the conflicting message", dead.Value, h[indexer.HeaderCode])
	}
	e.waitCount(t, e.store.AllStreamsPattern(), tenants, time.Minute)
	stored := e.scan(t, e.store.AllStreamsPattern())
	for _, ev := range events {
		got, ok := stored[ev.ID]
		if !ok || got.Actor.IP != ev.Actor.IP {
			t.Fatalf("event %s of tenant %s: stored %v (ip %q), want the first sent (ip %q)", ev.ID, ev.TenantID, ok, got.Actor.IP, ev.Actor.IP)
		}
	}
	if v := metric(t, reg, "auditlog_indexer_events_dead_lettered_total"); v != 1 {
		t.Fatalf("dead-lettered counter %v, want 1", v)
	}
}
