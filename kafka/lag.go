package kafka

import (
	"context"
	"fmt"
	"time"

	kgo "github.com/segmentio/kafka-go"
)

// LagMeter measures a consumer group's lag on one topic.
type LagMeter struct {
	client       *kgo.Client
	topic, group string
}

// NewLagMeter returns a meter for group on topic.
func NewLagMeter(brokers []string, topic, group string) *LagMeter {
	return &LagMeter{topic: topic, group: group,
		client: &kgo.Client{Addr: kgo.TCP(brokers...), Timeout: 10 * time.Second, Transport: &kgo.Transport{}}}
}

// Measure returns each partition's lag (its last offset less the group's
// committed offset; a partition the group never committed counts from its
// first offset) and the sum of the committed offsets, which grows exactly
// when the group makes progress.
func (m *LagMeter) Measure(ctx context.Context) (lags map[int]int64, committed int64, err error) {
	md, err := m.client.Metadata(ctx, &kgo.MetadataRequest{Topics: []string{m.topic}})
	if err != nil || len(md.Topics) != 1 || md.Topics[0].Error != nil {
		return nil, 0, fmt.Errorf("topic metadata: %v", firstErr(err, md))
	}
	var parts []int
	var reqs []kgo.OffsetRequest
	for _, p := range md.Topics[0].Partitions {
		parts = append(parts, p.ID)
		reqs = append(reqs, kgo.FirstOffsetOf(p.ID), kgo.LastOffsetOf(p.ID))
	}
	ends, err := m.client.ListOffsets(ctx, &kgo.ListOffsetsRequest{Topics: map[string][]kgo.OffsetRequest{m.topic: reqs}})
	if err != nil {
		return nil, 0, fmt.Errorf("end offsets: %w", err)
	}
	offs, err := m.client.OffsetFetch(ctx, &kgo.OffsetFetchRequest{GroupID: m.group, Topics: map[string][]int{m.topic: parts}})
	if err != nil {
		return nil, 0, fmt.Errorf("committed offsets: %w", err)
	}
	first, last := map[int]int64{}, map[int]int64{}
	for _, po := range ends.Topics[m.topic] {
		if po.Error != nil {
			return nil, 0, fmt.Errorf("end offset of partition %d: %w", po.Partition, po.Error)
		}
		first[po.Partition], last[po.Partition] = max(first[po.Partition], po.FirstOffset), max(last[po.Partition], po.LastOffset)
	}
	lags = make(map[int]int64, len(parts))
	for _, p := range offs.Topics[m.topic] {
		c := p.CommittedOffset
		if c < 0 { // nothing committed yet: the group starts at the first offset
			c = first[p.Partition]
		}
		lags[p.Partition] = max(0, last[p.Partition]-c)
		committed += c
	}
	return lags, committed, nil
}

func firstErr(err error, md *kgo.MetadataResponse) any {
	if err != nil {
		return err
	}
	if md == nil || len(md.Topics) != 1 {
		return "topic not found"
	}
	return md.Topics[0].Error
}
