package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/auditlog/auditlog/kafka"
)

// Headers of a dead-lettered message. The value and key are the original
// bytes; the original headers are kept, and these are added.
const (
	HeaderReason          = "dlq-reason"           // why, human-readable (every offending field)
	HeaderCode            = "dlq-code"             // invalid, too_large, rejected or conflict
	HeaderSourceTopic     = "dlq-source-topic"     // where the message came from
	HeaderSourcePartition = "dlq-source-partition" //
	HeaderSourceOffset    = "dlq-source-offset"    //
	HeaderFailedAt        = "dlq-failed-at"        // RFC 3339 time of the decision
	HeaderTruncated       = "dlq-truncated"        // "true" when the value had to be cut to fit
	HeaderOriginalBytes   = "dlq-original-bytes"   // the original size, when truncated
	HeaderOriginalSHA256  = "dlq-original-sha256"  // the original digest, when truncated
)

// CodeConflict is the dlq-code of an event whose id is already stored in
// its tenant with different content.
const CodeConflict = "conflict"

// truncatedValueBytes is how much of a value too large even for the
// dead-letter topic is kept (with its size and digest in headers).
const truncatedValueBytes = 512 << 10

type deadLetter struct {
	msg    kafka.Message
	code   string
	reason string
}

func (d deadLetter) message(now time.Time) kafka.Message {
	hs := make([]kafka.Header, 0, len(d.msg.Headers)+6)
	hs = append(hs, d.msg.Headers...)
	hs = append(hs,
		kafka.Header{Key: HeaderReason, Value: []byte(d.reason)},
		kafka.Header{Key: HeaderCode, Value: []byte(d.code)},
		kafka.Header{Key: HeaderSourceTopic, Value: []byte(d.msg.Topic)},
		kafka.Header{Key: HeaderSourcePartition, Value: []byte(strconv.Itoa(d.msg.Partition))},
		kafka.Header{Key: HeaderSourceOffset, Value: []byte(strconv.FormatInt(d.msg.Offset, 10))},
		kafka.Header{Key: HeaderFailedAt, Value: []byte(now.UTC().Format(time.RFC3339Nano))},
	)
	return kafka.Message{Key: d.msg.Key, Value: d.msg.Value, Headers: hs}
}

// truncated returns the message cut to fit, saying so in its headers:
// loud, never silent.
func truncated(m kafka.Message) kafka.Message {
	sum := sha256.Sum256(m.Value)
	m.Headers = append(m.Headers,
		kafka.Header{Key: HeaderTruncated, Value: []byte("true")},
		kafka.Header{Key: HeaderOriginalBytes, Value: []byte(strconv.Itoa(len(m.Value)))},
		kafka.Header{Key: HeaderOriginalSHA256, Value: []byte(hex.EncodeToString(sum[:]))},
	)
	m.Value = m.Value[:truncatedValueBytes]
	return m
}

// deadLetter writes the batch's dead letters to the DLQ topic, retrying
// while Kafka is unavailable. Only when it returns nil may the batch be
// committed.
func (ix *Indexer) deadLetter(ctx context.Context, dead []deadLetter) error {
	now := ix.deps.Now()
	msgs := make([]kafka.Message, len(dead))
	for i, d := range dead {
		msgs[i] = d.message(now)
		ix.log.Warn("dead-lettered", "partition", d.msg.Partition, "offset", d.msg.Offset, "code", d.code, "reason", d.reason)
	}
	err := ix.retry(ctx, "writing dead letters", func() error {
		err := ix.dlq.WriteMessages(ctx, msgs...)
		if kafka.IsTooLarge(err) {
			for i := range msgs {
				if len(msgs[i].Value) > truncatedValueBytes {
					msgs[i] = truncated(msgs[i])
				}
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, d := range dead {
		ix.m.deadLettered.WithLabelValues(d.code).Inc()
		ix.stats.DeadLettered.Add(1)
	}
	return nil
}
