package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/kafka"
)

// TestKafkaIsReal proves the broker is a real Kafka and the package's
// pieces work on it: topics are created once, a producer's messages are
// consumed back by a group reader, the group's committed offsets are what
// the driver's own OffsetFetch reads and what LagMeter counts, and a new
// member of the group resumes after them.
func TestKafkaIsReal(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	topic, group := testenv.Name("smoke"), testenv.Name("smoke-group")
	if err := kafka.Ping(ctx, brokers); err != nil {
		t.Fatal(err)
	}
	if n, err := kafka.Partitions(ctx, brokers, topic); err == nil && n > 0 {
		t.Fatalf("a topic not yet created has %d partitions", n)
	}
	for range 2 { // the second call is a no-op
		if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 2}); err != nil {
			t.Fatalf("EnsureTopics: %v", err)
		}
	}
	if err := kafka.WaitTopic(ctx, brokers, topic, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if n, err := kafka.Partitions(ctx, brokers, topic); err != nil || n != 2 {
		t.Fatalf("partitions = %d, %v; want 2", n, err)
	}
	w := kafka.NewWriter(kafka.WriterConfig{Brokers: brokers, Topic: topic, BatchTimeout: time.Millisecond})
	defer w.Close()
	const n = 10
	for i := range n {
		if err := w.WriteMessages(ctx, kafka.Message{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf("m%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	newReader := func() *kafka.Reader {
		return kafka.NewGroupReader(kafka.GroupConfig{Brokers: brokers, Topic: topic, Group: group, MaxWait: 200 * time.Millisecond})
	}
	meter := kafka.NewLagMeter(brokers, topic, group)
	if lags, committed, err := meter.Measure(ctx); err != nil || sum(lags) != n || committed != 0 {
		t.Fatalf("before any commit: lags %v, committed %d, %v; want a lag of %d", lags, committed, err, n)
	}
	r := newReader()
	seen := map[string]bool{}
	for len(seen) < n {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("fetch after %d messages: %v", len(seen), err)
		}
		seen[string(m.Value)] = true
		if err := r.CommitMessages(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	// The committed offsets are stored by the broker's group coordinator,
	// read here with the driver's own request.
	client := &kgo.Client{Addr: kgo.TCP(brokers...)}
	offs, err := client.OffsetFetch(ctx, &kgo.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: {0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var committed int64
	for _, p := range offs.Topics[topic] {
		if p.Error != nil {
			t.Fatal(p.Error)
		}
		committed += p.CommittedOffset
	}
	if committed != n {
		t.Fatalf("committed offsets add up to %d, want %d", committed, n)
	}
	if lags, c, err := meter.Measure(ctx); err != nil || sum(lags) != 0 || c != committed {
		t.Fatalf("after the commits: lags %v, committed %d, %v; want 0 and %d", lags, c, err, committed)
	}
	// A new member of the group starts after the committed offsets.
	if err := w.WriteMessages(ctx, kafka.Message{Key: []byte("x"), Value: []byte("after")}); err != nil {
		t.Fatal(err)
	}
	r2 := newReader()
	defer r2.Close()
	m, err := r2.FetchMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Value) != "after" {
		t.Fatalf("the group resumed at %q, want the first uncommitted message", m.Value)
	}
}

// TestEventMessagesKeepATenantOnOnePartition: events are keyed by their
// tenant, so each tenant's events land on one partition in the order
// written, whatever the number of tenants.
func TestEventMessagesKeepATenantOnOnePartition(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	topic := testenv.Name("keyed")
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	var events []audit.Event
	for i := range 40 {
		events = append(events, audit.Event{TenantID: fmt.Sprintf("tenant-%d", i%8), RequestID: fmt.Sprint(i)})
	}
	msgs, err := kafka.EventMessages(events)
	if err != nil {
		t.Fatal(err)
	}
	w := kafka.NewWriter(kafka.WriterConfig{Brokers: brokers, Topic: topic, BatchTimeout: time.Millisecond})
	defer w.Close()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	r := kafka.NewGroupReader(kafka.GroupConfig{Brokers: brokers, Topic: topic, Group: testenv.Name("keyed-group"), MaxWait: 200 * time.Millisecond})
	defer r.Close()
	partitionOf, order := map[string]int{}, map[string][]string{}
	for range events {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tenant := string(m.Key)
		if p, ok := partitionOf[tenant]; ok && p != m.Partition {
			t.Fatalf("tenant %s on partitions %d and %d", tenant, p, m.Partition)
		}
		partitionOf[tenant] = m.Partition
		var e audit.Event
		if err := json.Unmarshal(m.Value, &e); err != nil || e.TenantID != tenant {
			t.Fatalf("value %s is not the event of key %s: %v", m.Value, tenant, err)
		}
		order[tenant] = append(order[tenant], string(m.Value))
	}
	for _, e := range events {
		got := order[e.TenantID][0]
		order[e.TenantID] = order[e.TenantID][1:]
		if want, _ := json.Marshal(e); got != string(want) {
			t.Fatalf("tenant %s read %s before %s", e.TenantID, got, want)
		}
	}
}

func sum(m map[int]int64) (s int64) {
	for _, v := range m {
		s += v
	}
	return s
}
