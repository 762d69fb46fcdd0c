// Package indexer is the Kafka side of the pipeline: a kafka-go consumer
// group that reads audit events, validates them, hands them to the store
// in batches, dead-letters what cannot be stored, and commits offsets only
// behind what is durably written.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/segmentio/kafka-go"
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
	cc := kafka.NewConn(raw, "", 0)
	defer cc.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = cc.SetDeadline(dl)
	}
	configs := make([]kafka.TopicConfig, 0, len(topics))
	for _, t := range topics {
		rf := t.ReplicationFactor
		if rf == 0 {
			rf = 1
		}
		tc := kafka.TopicConfig{Topic: t.Name, NumPartitions: t.Partitions, ReplicationFactor: rf}
		for k, v := range t.Config {
			tc.ConfigEntries = append(tc.ConfigEntries, kafka.ConfigEntry{ConfigName: k, ConfigValue: v})
		}
		configs = append(configs, tc)
	}
	if err := cc.CreateTopics(configs...); err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
		return fmt.Errorf("kafka: creating topics: %w", err)
	}
	return waitTopics(ctx, conn, topics)
}

// waitTopics returns once every partition of every topic answers on its
// leader. Metadata names a leader before the leader hosts the partition,
// and a produce in between fails with UnknownTopicOrPartition, so each
// partition is asked for its last offset.
func waitTopics(ctx context.Context, conn *kafka.Conn, topics []TopicSpec) error {
	ready := func(t TopicSpec) bool {
		parts, err := conn.ReadPartitions(t.Name)
		if err != nil || len(parts) == 0 {
			return false
		}
		for _, p := range parts {
			if p.Leader.Host == "" {
				return false
			}
			lc, err := kafka.DialLeader(ctx, "tcp", net.JoinHostPort(p.Leader.Host, strconv.Itoa(p.Leader.Port)), t.Name, p.ID)
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
func dial(ctx context.Context, brokers []string) (*kafka.Conn, error) {
	var errs []error
	for _, b := range brokers {
		conn, err := kafka.DialContext(ctx, "tcp", b)
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
