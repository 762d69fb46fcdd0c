package indexer

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
)

// progress is what the lag monitor last saw: the group's lag per
// partition, measured from Kafka itself (end offsets against the group's
// committed offsets), independently of whether writes succeed, and when
// the committed offsets last moved.
type progress struct {
	mu        sync.Mutex
	lag       int64
	committed int64
	moved     time.Time // the last time the committed total changed, or lag was 0
	measured  time.Time
	err       error
	// full is the reason the store last gave for being out of capacity,
	// "" once a write went through.
	full string
}

// monitorLag measures the group's lag every LagInterval until ctx ends,
// and publishes it in auditlog_indexer_consumer_lag. During a store
// outage nothing is committed, so the lag grows and the gauge shows it.
func (ix *Indexer) monitorLag(ctx context.Context) {
	client := &kafka.Client{Addr: kafka.TCP(ix.cfg.Brokers...), Timeout: 10 * time.Second, Transport: &kafka.Transport{}}
	t := time.NewTicker(ix.cfg.LagInterval)
	defer t.Stop()
	for {
		lag, committed, err := ix.measureLag(ctx, client)
		now := ix.deps.Now()
		ix.prog.mu.Lock()
		ix.prog.measured, ix.prog.err = now, err
		if err == nil {
			if committed != ix.prog.committed || lag == 0 || ix.prog.moved.IsZero() {
				ix.prog.moved = now
			}
			ix.prog.lag, ix.prog.committed = lag, committed
		}
		ix.prog.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// measureLag returns the total lag and committed offset of the group on
// the topic, and sets the per-partition gauge.
func (ix *Indexer) measureLag(ctx context.Context, client *kafka.Client) (lag, committed int64, err error) {
	md, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{ix.cfg.Topic}})
	if err != nil || len(md.Topics) != 1 || md.Topics[0].Error != nil {
		return 0, 0, fmt.Errorf("topic metadata: %v", firstErr(err, md))
	}
	var parts []int
	var reqs []kafka.OffsetRequest
	for _, p := range md.Topics[0].Partitions {
		parts = append(parts, p.ID)
		reqs = append(reqs, kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
	}
	ends, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{ix.cfg.Topic: reqs}})
	if err != nil {
		return 0, 0, fmt.Errorf("end offsets: %w", err)
	}
	offs, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: ix.cfg.Group, Topics: map[string][]int{ix.cfg.Topic: parts}})
	if err != nil {
		return 0, 0, fmt.Errorf("committed offsets: %w", err)
	}
	first, last := map[int]int64{}, map[int]int64{}
	for _, po := range ends.Topics[ix.cfg.Topic] {
		if po.Error != nil {
			return 0, 0, fmt.Errorf("end offset of partition %d: %w", po.Partition, po.Error)
		}
		first[po.Partition], last[po.Partition] = max(first[po.Partition], po.FirstOffset), max(last[po.Partition], po.LastOffset)
	}
	for _, p := range offs.Topics[ix.cfg.Topic] {
		c := p.CommittedOffset
		if c < 0 { // nothing committed yet: the group starts at the first offset
			c = first[p.Partition]
		}
		l := max(0, last[p.Partition]-c)
		ix.m.lag.WithLabelValues(strconv.Itoa(p.Partition)).Set(float64(l))
		lag += l
		committed += c
	}
	return lag, committed, nil
}

func firstErr(err error, md *kafka.MetadataResponse) any {
	if err != nil {
		return err
	}
	if md == nil || len(md.Topics) != 1 {
		return "topic not found"
	}
	return md.Topics[0].Error
}

// Ready reports whether the indexer makes progress: it returns an error
// while the store says it is out of capacity, when its lag could not be
// measured, or when messages are waiting and no offset has been committed
// for StallAfter (the store refuses writes, or the consumer is stuck).
// /readyz shows it.
func (ix *Indexer) Ready(context.Context) error {
	ix.prog.mu.Lock()
	defer ix.prog.mu.Unlock()
	now := ix.deps.Now()
	switch {
	case ix.prog.full != "":
		return fmt.Errorf("the store is out of capacity; events wait, retried, never dead-lettered: %s", ix.prog.full)
	case ix.prog.measured.IsZero():
		return nil // not measured yet: starting
	case ix.prog.err != nil:
		return fmt.Errorf("consumer lag unknown: %v", ix.prog.err)
	case ix.prog.lag > 0 && now.Sub(ix.prog.moved) > ix.cfg.StallAfter:
		return fmt.Errorf("not making progress: %d messages waiting and no offset committed for %s", ix.prog.lag, now.Sub(ix.prog.moved).Round(time.Second))
	}
	return nil
}

// noteFull records whether the store's last answer said it is out of
// capacity (r.Full), for Ready and auditlog_indexer_store_full.
func (ix *Indexer) noteFull(r audit.WriteResult) {
	ix.prog.mu.Lock()
	defer ix.prog.mu.Unlock()
	switch {
	case r.Full:
		ix.prog.full = r.Reason
		ix.m.storeFull.Set(1)
	case ix.prog.full != "":
		ix.prog.full = ""
		ix.m.storeFull.Set(0)
	}
}
