package restore

import (
	"context"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/indexer"
)

// DefaultTopic is the topic restore requests are published to.
const DefaultTopic = "config-restore-requests"

// Kafka publishes each request to Topic keyed by tenant (one tenant's
// requests stay in order on one partition), acknowledged by all in-sync
// replicas. With a Secret, each message carries the audit.SignatureHeader
// header over its value, as the webhook does.
type Kafka struct {
	w      *kafka.Writer
	topic  string
	secret []byte
}

// NewKafka returns a publisher to topic; Close releases it.
func NewKafka(brokers []string, topic string, secret []byte) *Kafka {
	return &Kafka{topic: topic, secret: secret, w: &kafka.Writer{
		Addr: kafka.TCP(brokers...), Topic: topic, Balancer: &kafka.Hash{}, RequiredAcks: kafka.RequireAll,
		WriteTimeout: 10 * time.Second, BatchTimeout: time.Millisecond, AllowAutoTopicCreation: false,
		// Its own transport: metadata of its own, not the process-wide
		// cache that may predate the topic.
		Transport: &kafka.Transport{},
	}}
}

// EnsureTopic creates the topic when it is missing.
func EnsureTopic(ctx context.Context, brokers []string, topic string, partitions int) error {
	return indexer.EnsureTopics(ctx, brokers, indexer.TopicSpec{Name: topic, Partitions: partitions})
}

// Send implements Sender.
func (k *Kafka) Send(ctx context.Context, r audit.RestoreRequest, body []byte) error {
	m := kafka.Message{Key: []byte(r.TenantID), Value: body}
	if len(k.secret) > 0 {
		m.Headers = []kafka.Header{{Key: audit.SignatureHeader, Value: []byte(audit.SignBody(k.secret, body, time.Now()))}}
	}
	return k.w.WriteMessages(ctx, m)
}

// Destination implements Sender.
func (k *Kafka) Destination() string {
	return "kafka topic " + k.topic + " on " + strings.TrimPrefix(k.w.Addr.String(), "tcp://")
}

// Close flushes and closes the writer.
func (k *Kafka) Close() error { return k.w.Close() }
