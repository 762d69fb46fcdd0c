package restore

import (
	"context"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/kafka"
)

// DefaultTopic is the topic restore requests are published to.
const DefaultTopic = "config-restore-requests"

// Kafka publishes each request to Topic keyed by tenant (one tenant's
// requests stay in order on one partition), acknowledged by all in-sync
// replicas. With a Secret, each message carries the restorejob.SignatureHeader
// header over its value, as the webhook does.
type Kafka struct {
	w      *kafka.Writer
	topic  string
	secret []byte
}

// NewKafka returns a publisher to topic; Close releases it.
func NewKafka(brokers []string, topic string, secret []byte) *Kafka {
	return &Kafka{topic: topic, secret: secret,
		w: kafka.NewWriter(kafka.WriterConfig{Brokers: brokers, Topic: topic, WriteTimeout: 10 * time.Second, BatchTimeout: time.Millisecond})}
}

// Send implements Sender.
func (k *Kafka) Send(ctx context.Context, r restorejob.Request, body []byte) error {
	m := kafka.Message{Key: []byte(r.TenantID), Value: body}
	if len(k.secret) > 0 {
		m.Headers = []kafka.Header{{Key: restorejob.SignatureHeader, Value: []byte(restorejob.SignBody(k.secret, body, time.Now()))}}
	}
	return k.w.WriteMessages(ctx, m)
}

// Destination implements Sender.
func (k *Kafka) Destination() string {
	return "kafka topic " + k.topic + " on " + strings.TrimPrefix(k.w.Addr.String(), "tcp://")
}

// Close flushes and closes the writer.
func (k *Kafka) Close() error { return k.w.Close() }
