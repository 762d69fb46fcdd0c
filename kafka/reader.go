package kafka

import (
	"fmt"
	"log/slog"
	"time"

	kgo "github.com/segmentio/kafka-go"
)

// GroupConfig is a group consumer's settings; zero durations take
// kafka-go's defaults.
type GroupConfig struct {
	Brokers []string
	Topic   string
	Group   string
	// MaxBytes bounds one fetch (kafka-go's default: 1 MB).
	MaxBytes int
	// QueueCapacity is how many fetched messages wait to be read.
	QueueCapacity int
	// MaxWait is how long a fetch waits for data (default 250 ms).
	MaxWait                       time.Duration
	MinBackoff, MaxBackoff        time.Duration
	SessionTimeout                time.Duration
	HeartbeatInterval             time.Duration
	RebalanceTimeout, JoinBackoff time.Duration
	// WatchPartitions makes the reader notice partitions added later.
	WatchPartitions bool
	// Log receives the driver's errors as warnings; nil: not logged.
	Log *slog.Logger
}

// NewGroupReader returns a consumer in cfg.Group that starts where the
// group committed, or at the first offset when it never did, and whose
// CommitMessages returns once the commit is done (no background commits:
// an offset is committed only behind what is durably written).
func NewGroupReader(cfg GroupConfig) *Reader {
	wait := cfg.MaxWait
	if wait == 0 {
		wait = 250 * time.Millisecond
	}
	maxBytes := cfg.MaxBytes
	if maxBytes == 0 {
		maxBytes = 1e6
	}
	rc := kgo.ReaderConfig{
		Brokers: cfg.Brokers, GroupID: cfg.Group, Topic: cfg.Topic,
		MinBytes: 1, MaxBytes: maxBytes, MaxWait: wait,
		CommitInterval: 0, StartOffset: kgo.FirstOffset, QueueCapacity: cfg.QueueCapacity,
		ReadBackoffMin: cfg.MinBackoff, ReadBackoffMax: cfg.MaxBackoff,
		SessionTimeout: cfg.SessionTimeout, HeartbeatInterval: cfg.HeartbeatInterval,
		RebalanceTimeout: cfg.RebalanceTimeout, JoinGroupBackoff: cfg.JoinBackoff,
	}
	if cfg.WatchPartitions {
		rc.WatchPartitionChanges, rc.PartitionWatchInterval = true, 5*time.Second
	}
	if cfg.Log != nil {
		log := cfg.Log
		rc.ErrorLogger = kgo.LoggerFunc(func(msg string, args ...any) { log.Warn("kafka reader", "msg", fmt.Sprintf(msg, args...)) })
	}
	return kgo.NewReader(rc)
}
