package indexer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/mask"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/kafka"
	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/indexer"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestEveryEventIndexedExactlyOnce produces 20,000 events of 50 tenants
// on all three plans; each becomes searchable in its tenant's stream,
// exactly once, with its fields intact. Then the same events are produced
// again: still one document per id, and one leaf of its tenant's log.
func TestEveryEventIndexedExactlyOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const n = 20000
	// The last 29 days: within the retention of every plan, Starter's
	// included (an older event would be refused as expired).
	g := gen.New(gen.Config{Seed: 42, Tenants: 50, Skew: 1.1, WithIDs: true, Start: time.Now().AddDate(0, 0, -29), End: time.Now().Add(-time.Hour)}, n)
	for _, tn := range g.Tenants() {
		if err := e.store.SetPlan(ctx, tn.ID, tn.Plan); err != nil {
			t.Fatal(err)
		}
	}
	events := make([]audit.Event, n)
	want := map[string]int{}
	for i := range events {
		events[i] = g.Next()
		want[events[i].TenantID]++
	}
	msgs := eventMessages(t, events)
	produce(t, e.brokers, e.topic, msgs)
	logged := e.loggedStore(t)
	_, reg := e.startOn(t, e.config(), logged)

	all := e.store.AllStreamsPattern()
	e.waitCount(t, all, n, 3*time.Minute)
	for _, tn := range g.Tenants() {
		if got := e.count(t, e.store.StreamName(tn.Plan, tn.ID)); got != want[tn.ID] {
			t.Fatalf("tenant %s (%s) has %d events in its stream, want %d", tn.ID, tn.Plan, got, want[tn.ID])
		}
	}
	stored := e.scan(t, all)
	for _, ev := range events {
		got, ok := stored[ev.ID]
		if !ok {
			t.Fatalf("event %s missing", ev.ID)
		}
		a, _ := json.Marshal(ev)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("event %s changed on the way\n got %s\nwant %s", ev.ID, b, a)
		}
	}

	// The same events once more: all duplicates, nothing new.
	produce(t, e.brokers, e.topic, msgs)
	dup := func() float64 { return metric(t, reg, "auditlog_indexer_events_duplicate_total") }
	testenv.Eventually(t, 3*time.Minute, func() error {
		if d := dup(); d != n {
			return fmt.Errorf("%v of %d redelivered events seen as duplicates", d, n)
		}
		return nil
	})
	if got := e.count(t, all); got != n {
		t.Fatalf("after producing every event twice there are %d documents, want %d", got, n)
	}
	if v := metric(t, reg, "auditlog_indexer_events_indexed_total"); v != n {
		t.Fatalf("indexed counter %v, want %d", v, n)
	}
	// Each stored event is one leaf of its tenant's log, the redelivered
	// copies none.
	storetest.EveryStoredEventOneLeaf(t, logged, stored)
}

// TestPoisonMessagesGoToTheDeadLetterTopic: each bad message lands in the
// DLQ with its original bytes and a reason, while the good ones around
// them are indexed.
func TestPoisonMessagesGoToTheDeadLetterTopic(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	g := gen.New(gen.Config{Seed: 9, Tenants: 2, WithIDs: true}, 100)
	good := func() []byte {
		ev := g.Next()
		b, _ := json.Marshal(ev)
		return b
	}
	mutate := func(f func(m map[string]any)) []byte {
		var m map[string]any
		_ = json.Unmarshal(good(), &m)
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	// A tenant whose stream has a conflicting mapping (someone changed
	// it): Elasticsearch itself rejects the event.
	conflictTenant := "5f0c3a1e-2b4d-4c6e-8f10-a2b3c4d5e6f7"
	stream := e.store.StreamName(audit.PlanEnterprise, conflictTenant)
	if err := e.store.Client().DoJSON(ctx, http.MethodPut, "/_index_template/"+stream, map[string]any{
		"index_patterns": []string{stream}, "data_stream": map[string]any{}, "priority": 300,
		"template": map[string]any{"mappings": map[string]any{"properties": map[string]any{
			"@timestamp": map[string]any{"type": "date"}, "actor": map[string]any{"properties": map[string]any{"role": map[string]any{"type": "long"}}}}}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	// The first good message, and an event that reuses its id with other
	// content: first wins, the second is dead-lettered as a conflict.
	first := good()
	var reused map[string]any
	_ = json.Unmarshal(first, &reused)
	reused["actor"].(map[string]any)["ip"] = "198.51.100.250"
	conflict, _ := json.Marshal(reused)
	// A producer's UUIDv4 id is as good as the service's v7.
	v4 := mutate(func(m map[string]any) { m["id"] = "evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7" })
	poison := []struct {
		name, code, reason string
		value              []byte
	}{
		{"same id, other content", indexer.CodeConflict, "different content", conflict},
		{"escaped NUL in after", audit.EINVALID, "after: must not hold control characters", []byte(strings.Replace(string(good()), `"tenantId"`, `"after":{"note":"a\u0000b"},"tenantId"`, 1))},
		{"escape in userAgent", audit.EINVALID, "actor.userAgent: must be UTF-8 text without control characters", mutate(func(m map[string]any) { m["actor"].(map[string]any)["userAgent"] = "x\x1b[2J" })},
		{"comma in timestamp", audit.EINVALID, "timestamp", mutate(func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12,345Z" })},
		{"ten fraction digits", audit.EINVALID, "timestamp", mutate(func(m map[string]any) { m["timestamp"] = "2026-11-21T09:30:12.1234567890Z" })},
		{"not JSON", audit.EINVALID, "must be one JSON object", []byte("\x00\x01 this is not json")},
		{"missing tenantId", audit.EINVALID, "tenantId: is required", mutate(func(m map[string]any) { delete(m, "tenantId") })},
		{"unknown action", audit.EINVALID, "action: must be one of", mutate(func(m map[string]any) { m["action"] = "publish" })},
		{"2 MB event", audit.ETOOLARGE, "the limit is", mutate(func(m map[string]any) { m["after"] = map[string]any{"blob": strings.Repeat("x", 2<<20)} })},
		{"type conflict", audit.EINVALID, "crossTenant: must be a boolean", mutate(func(m map[string]any) { m["crossTenant"] = "yes" })},
		{"duplicate key", audit.EINVALID, "action: is given more than once", []byte(strings.Replace(string(good()), `"action":`, `"action":"delete","action":`, 1))},
		{"case-folded key", audit.EINVALID, "TenantID: is not a known field", []byte(strings.Replace(string(good()), `"tenantId"`, `"TenantID"`, 1))},
		{"invalid UTF-8", audit.EINVALID, "actor.userAgent: must be valid UTF-8", []byte(strings.Replace(string(good()), `"userAgent":"`, "\"userAgent\":\"\xff", 1))},
		{"mapping rejection", "rejected", "elasticsearch rejected the event", mutate(func(m map[string]any) { m["tenantId"] = conflictTenant })},
		{"sensitive update without before/after", audit.EINVALID, "before: an update of ivr must carry the complete state", mutate(func(m map[string]any) {
			m["action"], m["resource"], m["diff"] = "update", map[string]any{"type": "ivr", "id": "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a61"}, map[string]any{}
			delete(m, "before")
			delete(m, "after")
		})},
		{"older than its tenant's retention", audit.EINVALID, "timestamp: 2000-01-01T00:00:00.000Z is older than the 2557-day retention", mutate(func(m map[string]any) {
			m["timestamp"] = "2000-01-01T00:00:00.000Z"
		})},
		{"diff disagreeing with before/after", audit.EINVALID, `diff: diff disagrees with before and after at "retentionDays"`, mutate(func(m map[string]any) {
			m["action"], m["resource"] = "update", map[string]any{"type": "recording_policy", "id": "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a62"}
			m["before"], m["after"] = map[string]any{"retentionDays": 30}, map[string]any{"retentionDays": 90}
			m["diff"] = map[string]any{"retentionDays": map[string]any{"from": 30, "to": 365}}
		})},
	}
	var msgs []kafka.Message
	goodCount := 0
	for i, p := range poison {
		v := good()
		switch i {
		case 0:
			v = first
		case 1:
			v = v4
		}
		msgs = append(msgs, kafka.Message{Key: []byte("k"), Value: v}, kafka.Message{Key: []byte("k"), Value: p.value,
			Headers: []kafka.Header{{Key: "producer", Value: []byte("test")}}})
		goodCount++
	}
	// A good IVR update holding a client secret three levels deep.
	withSecret := mutate(func(m map[string]any) {
		m["action"], m["resource"], m["diff"] = "update", map[string]any{"type": "ivr", "id": "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a63"}, map[string]any{}
		m["before"], m["after"] = secretVariants("kafka-secret-old"), secretVariants("kafka-secret-new")
	})
	msgs = append(msgs, kafka.Message{Key: []byte("k"), Value: withSecret})
	goodCount++
	produce(t, e.brokers, e.topic, msgs)
	reg := e.start(t, e.config())

	// Every message has the same key, and both topics hash keys over the
	// same partition count: the letters are in one partition, in order.
	dlq := kgo.NewReader(kgo.ReaderConfig{Brokers: e.brokers, Topic: e.topic + ".dlq", Partition: partitionOf(msgs[0].Key),
		MaxBytes: 16 << 20, MaxWait: 200 * time.Millisecond})
	defer dlq.Close()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var dead []kafka.Message
	for len(dead) < len(poison) {
		m, err := dlq.ReadMessage(rctx)
		if err != nil {
			t.Fatalf("after %d dead letters: %v", len(dead), err)
		}
		dead = append(dead, m)
	}
	if len(dead) != len(poison) {
		t.Fatalf("%d dead letters, want %d", len(dead), len(poison))
	}
	for i, p := range poison {
		d := dead[i]
		h := headers(d)
		if !bytes.Equal(d.Value, p.value) {
			t.Errorf("%s: the dead letter does not carry the original bytes", p.name)
		}
		if h[indexer.HeaderCode] != p.code || !strings.Contains(h[indexer.HeaderReason], p.reason) {
			t.Errorf("%s: code %q reason %q; want %q containing %q", p.name, h[indexer.HeaderCode], h[indexer.HeaderReason], p.code, p.reason)
		}
		if h[indexer.HeaderSourceTopic] != e.topic || h[indexer.HeaderSourceOffset] == "" || h[indexer.HeaderSourcePartition] == "" || h["producer"] != "test" {
			t.Errorf("%s: headers %v", p.name, h)
		}
	}
	e.waitCount(t, e.store.AllStreamsPattern(), goodCount, time.Minute)
	if v := metric(t, reg, "auditlog_indexer_events_dead_lettered_total"); v != float64(len(poison)) {
		t.Fatalf("dead-lettered counter %v", v)
	}
	if v := metric(t, reg, "auditlog_indexer_events_conflict_total"); v != 1 {
		t.Fatalf("conflict counter %v, want 1", v)
	}
	stored := e.scan(t, e.store.AllStreamsPattern())
	checkSecretMasked(t, stored, withSecret)
	var firstEv audit.Event
	_ = json.Unmarshal(first, &firstEv)
	if got, ok := stored[firstEv.ID]; !ok || got.Actor.IP != firstEv.Actor.IP {
		t.Fatalf("the first event with the reused id must be the one stored: %+v", got)
	}
	if _, ok := stored["evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7"]; !ok {
		t.Fatal("the event with a UUIDv4 id was not indexed")
	}
}

func partitionOf(key []byte) int {
	return (&kgo.Hash{}).Balance(kafka.Message{Key: key}, 0, 1, 2, 3)
}

func headers(m kafka.Message) map[string]string {
	out := map[string]string{}
	for _, h := range m.Headers {
		out[h.Key] = string(h.Value)
	}
	return out
}

// secretVariants is a state holding value under every spelling of a
// secret name, at depth 1 and 3 and inside an array.
func secretVariants(value string) map[string]any {
	out := map[string]any{"integration": map[string]any{"crm": map[string]any{"auth": map[string]any{"clientSecret": value}}}}
	for i, name := range []string{"client_secret", "client-secret", "Client_Secret", "api_key", "privateKeyPem"} {
		out[fmt.Sprintf("d1_%d", i)] = map[string]any{name: value}
		out[fmt.Sprintf("d3_%d", i)] = map[string]any{"a": map[string]any{"b": map[string]any{name: value}}}
		out[fmt.Sprintf("arr_%d", i)] = []any{map[string]any{"id": "x", name: value}}
	}
	return out
}

// checkSecretMasked: the event sent with a client secret is stored with
// the secret masked everywhere, and its change still visible.
func checkSecretMasked(t *testing.T, stored map[string]audit.Event, sent []byte) {
	t.Helper()
	var ev audit.Event
	_ = json.Unmarshal(sent, &ev)
	got, ok := stored[ev.ID]
	if !ok {
		t.Fatal("the event with a secret was not stored")
	}
	whole, _ := json.Marshal(got)
	if strings.Contains(string(whole), "kafka-secret") {
		t.Fatalf("a secret is stored in clear: %s", whole)
	}
	c, ok := got.Diff["integration.crm.auth.clientSecret"]
	if !ok || !mask.Masked(c.From) || !mask.Masked(c.To) || bytes.Equal(c.From, c.To) {
		t.Fatalf("the secret's change is not visible as changed: %s", whole)
	}
}
