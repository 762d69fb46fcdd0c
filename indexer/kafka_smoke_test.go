package indexer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/indexer"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestKafkaIsReal proves the broker is a real Kafka: a message produced to
// a new topic is consumed back by a consumer group, and the group's
// committed offset is visible to a new consumer of the same group.
func TestKafkaIsReal(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	topic, group := testenv.Name("smoke"), testenv.Name("smoke-group")
	if err := indexer.EnsureTopics(ctx, brokers, indexer.TopicSpec{Name: topic, Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	// A second call is a no-op.
	if err := indexer.EnsureTopics(ctx, brokers, indexer.TopicSpec{Name: topic, Partitions: 2}); err != nil {
		t.Fatalf("EnsureTopics is not idempotent: %v", err)
	}
	// Its own transport: the shared one caches topic metadata for seconds
	// and would not know the topic just created.
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: topic, RequiredAcks: kafka.RequireAll, Balancer: &kafka.Hash{}, Transport: &kafka.Transport{}}
	defer w.Close()
	const n = 10
	for i := 0; i < n; i++ {
		if err := w.WriteMessages(ctx, kafka.Message{Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf("m%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	newReader := func() *kafka.Reader {
		return kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: topic, GroupID: group,
			StartOffset: kafka.FirstOffset, MaxWait: 200 * time.Millisecond})
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
	// The committed offsets are stored by the broker's group coordinator:
	// a client reading the group's offsets sees the end of each partition.
	client := &kafka.Client{Addr: kafka.TCP(brokers...)}
	offs, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: {0, 1}}})
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
