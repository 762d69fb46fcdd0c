package kafka

import (
	"encoding/json"
	"errors"
	"time"

	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
)

// The driver's types the users of this package handle; aliases, so that
// only this package imports kafka-go.
type (
	// Message is one Kafka record.
	Message = kgo.Message
	// Header is one record header.
	Header = kgo.Header
	// Writer is a producer made by NewWriter.
	Writer = kgo.Writer
	// Reader is a group consumer made by NewGroupReader.
	Reader = kgo.Reader
)

// WriterConfig is a producer's settings; zero values take kafka-go's
// defaults (batches of 100 messages or 1 MiB, 1 s linger, 10 attempts).
type WriterConfig struct {
	Brokers      []string
	Topic        string
	BatchSize    int
	BatchBytes   int64
	BatchTimeout time.Duration
	WriteTimeout time.Duration
	MaxAttempts  int
}

// NewWriter returns the one kind of producer the audit log uses: messages
// go to the partition of their key's hash (the tenant id, so one tenant's
// messages keep their order), a write returns once every in-sync replica
// has it, and topics are never created implicitly (EnsureTopics does, with
// their settings). It has a transport of its own: the process-wide one
// caches topic metadata that may predate a topic created moments ago.
func NewWriter(c WriterConfig) *Writer {
	return &kgo.Writer{
		Addr: kgo.TCP(c.Brokers...), Topic: c.Topic, Balancer: &kgo.Hash{}, RequiredAcks: kgo.RequireAll,
		BatchSize: c.BatchSize, BatchBytes: c.BatchBytes, BatchTimeout: c.BatchTimeout,
		WriteTimeout: c.WriteTimeout, MaxAttempts: c.MaxAttempts,
		AllowAutoTopicCreation: false, Transport: &kgo.Transport{},
	}
}

// EventMessages returns events as the audit-events topic holds them: each
// event's JSON, keyed by its tenant id.
func EventMessages(events []audit.Event) ([]Message, error) {
	msgs := make([]Message, len(events))
	for i := range events {
		b, err := json.Marshal(events[i])
		if err != nil {
			return nil, err
		}
		msgs[i] = Message{Key: []byte(events[i].TenantID), Value: b}
	}
	return msgs, nil
}

// HeaderValue returns the value of m's header key, "" when it has none.
func HeaderValue(m Message, key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
}

// IsTooLarge reports whether err is a broker or client refusal of a
// message over the topic's max.message.bytes.
func IsTooLarge(err error) bool {
	var tooLarge kgo.MessageTooLargeError
	return errors.As(err, &tooLarge) || errors.Is(err, kgo.MessageSizeTooLarge)
}
