package restore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/kafka"
	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/restore"
)

// TestKafkaPublishesSignedKeyedRequests: a request goes to the topic
// keyed by its tenant, with the signature header over the value; a
// consumer reads it from the real broker and verifies it.
func TestKafkaPublishesSignedKeyedRequests(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	topic := testenv.Name("restores")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 3}); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	k := restore.NewKafka(brokers, topic, secret)
	t.Cleanup(func() { k.Close() })
	r := request(t, s, "kafka-1")
	run(t, s, k).Notify()
	waitDelivered(t, s, r, time.Minute)

	rd := kgo.NewReader(kgo.ReaderConfig{Brokers: brokers, Topic: topic, GroupID: testenv.Name("owner"), StartOffset: kgo.FirstOffset})
	defer rd.Close()
	m, err := rd.FetchMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Key) != tenant {
		t.Fatalf("key %q, want the tenant", m.Key)
	}
	var sig string
	for _, h := range m.Headers {
		if h.Key == restorejob.SignatureHeader {
			sig = string(h.Value)
		}
	}
	if err := restorejob.VerifyBody(secret, m.Value, sig, m.Time); err != nil {
		t.Fatalf("signature: %v", err)
	}
	var got restorejob.Request
	if err := json.Unmarshal(m.Value, &got); err != nil || got.RequestID != r.RequestID || string(got.State) != `{"greeting":"hi"}` {
		t.Fatalf("message %s: %v", m.Value, err)
	}
	if err := restorejob.VerifyBody([]byte("another-secret-another-secret-xx"), m.Value, sig, m.Time); err == nil {
		t.Fatal("another secret verified the message")
	}
}
