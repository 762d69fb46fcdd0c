// Package kafka is the audit log's one use of Kafka (segmentio/kafka-go):
// topics (EnsureTopics, WaitTopic, Ping), the producer every writer uses
// (NewWriter: keyed by tenant, acknowledged by all in-sync replicas), the
// group reader (NewGroupReader) and the group's lag (GroupLag). The
// indexer, the restore publisher, the client and `auditlog gen` use it;
// no other production package imports kafka-go (docs/layering_test.go).
package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	kgo "github.com/segmentio/kafka-go"
)

// TopicSpec is a topic to create when missing.
type TopicSpec struct {
	Name              string
	Partitions        int
	ReplicationFactor int
	// Config holds topic configuration entries, e.g. max.message.bytes.
	Config map[string]string
}

// EnsureTopics creates the topics that do not exist yet, through the
// cluster controller. Existing topics are left as they are.
func EnsureTopics(ctx context.Context, brokers []string, topics ...TopicSpec) error {
	conn, err := dial(ctx, brokers)
	if err != nil {
		return err
	}
	defer conn.Close()
	controller, err := conn.Controller()
	if err != nil {
		return fmt.Errorf("kafka: finding the controller: %w", err)
	}
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", net.JoinHostPort(controller.Host, strconv.Itoa(controller.Port)))
	if err != nil {
		return fmt.Errorf("kafka: dialing the controller: %w", err)
	}
	cc := kgo.NewConn(raw, "", 0)
	defer cc.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = cc.SetDeadline(dl)
	}
	configs := make([]kgo.TopicConfig, 0, len(topics))
	for _, t := range topics {
		rf := t.ReplicationFactor
		if rf == 0 {
			rf = 1
		}
		tc := kgo.TopicConfig{Topic: t.Name, NumPartitions: t.Partitions, ReplicationFactor: rf}
		for k, v := range t.Config {
			tc.ConfigEntries = append(tc.ConfigEntries, kgo.ConfigEntry{ConfigName: k, ConfigValue: v})
		}
		configs = append(configs, tc)
	}
	if err := cc.CreateTopics(configs...); err != nil && !errors.Is(err, kgo.TopicAlreadyExists) {
		return fmt.Errorf("kafka: creating topics: %w", err)
	}
	return waitTopics(ctx, conn, topics)
}

// waitTopics returns once every partition of every topic answers on its
// leader. Metadata names a leader before the leader hosts the partition,
// and a produce in between fails with UnknownTopicOrPartition, so each
// partition is asked for its last offset.
func waitTopics(ctx context.Context, conn *kgo.Conn, topics []TopicSpec) error {
	ready := func(t TopicSpec) bool {
		parts, err := conn.ReadPartitions(t.Name)
		if err != nil || len(parts) == 0 {
			return false
		}
		for _, p := range parts {
			if p.Leader.Host == "" {
				return false
			}
			lc, err := kgo.DialLeader(ctx, "tcp", net.JoinHostPort(p.Leader.Host, strconv.Itoa(p.Leader.Port)), t.Name, p.ID)
			if err != nil {
				return false
			}
			_, err = lc.ReadLastOffset()
			lc.Close()
			if err != nil {
				return false
			}
		}
		return true
	}
	for _, t := range topics {
		for !ready(t) {
			select {
			case <-ctx.Done():
				return fmt.Errorf("kafka: topic %s not ready: %w", t.Name, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// dial connects to the first broker that answers.
func dial(ctx context.Context, brokers []string) (*kgo.Conn, error) {
	var errs []error
	for _, b := range brokers {
		conn, err := kgo.DialContext(ctx, "tcp", b)
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("kafka: no broker of %v answers: %w", brokers, errors.Join(errs...))
}

// Ping checks that a broker answers and the cluster has a controller. It
// backs /readyz.
func Ping(ctx context.Context, brokers []string) error {
	conn, err := dial(ctx, brokers)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	_, err = conn.Controller()
	return err
}

// WaitTopic returns once topic has partitions, asking every interval, or
// ctx's error. A consumer that joins its group before the topic exists
// would be assigned no partitions and wait forever.
func WaitTopic(ctx context.Context, brokers []string, topic string, interval time.Duration) error {
	for {
		if n, err := Partitions(ctx, brokers, topic); err == nil && n > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// Partitions returns how many partitions topic has, as the first broker
// that answers knows it.
func Partitions(ctx context.Context, brokers []string, topic string) (int, error) {
	conn, err := dial(ctx, brokers)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	ps, err := conn.ReadPartitions(topic)
	if err != nil {
		return 0, err
	}
	return len(ps), nil
}
