package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/auditlog/auditlog/indexer"
	"github.com/auditlog/auditlog/kafka"
)

// kafkaFloor is the CPU per 1,000 events of this process reading the
// whole topic with the indexer's Kafka reader (kafka.NewGroupReader with
// the indexer's fetch size and queue, a new group) and committing every
// benchBatch messages, as the indexer commits after each batch, with no
// other work: what the Kafka client alone costs the indexer.
func kafkaFloor(ctx context.Context, topic string, brokers []string, n int) (float64, error) {
	defer indexGC()()
	r := kafka.NewGroupReader(kafka.GroupConfig{Brokers: brokers, Topic: topic, Group: uniq("bench-floor"),
		MaxBytes: indexer.MaxFetchBytes, QueueCapacity: benchBatch})
	defer r.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var start time.Duration
	batch := make([]kafka.Message, 0, benchBatch)
	for i := 0; i < n; i++ {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			return 0, fmt.Errorf("kafka floor: %w", err)
		}
		if i == 0 { // the group join is not the client's cost per event
			start = cpuTime(0)
		}
		if batch = append(batch, m); len(batch) == benchBatch || i == n-1 {
			if err := r.CommitMessages(ctx, batch...); err != nil {
				return 0, fmt.Errorf("kafka floor: %w", err)
			}
			batch = batch[:0]
		}
	}
	return perThousand(cpuTime(0)-start, n), nil
}

// indexGC runs the collector at indexer.GCPercent, as `auditlog index`
// runs it, until the function it returns is called.
func indexGC() (restore func()) {
	prev := debug.SetGCPercent(indexer.GCPercent)
	return func() { debug.SetGCPercent(prev) }
}

func perThousand(cpu time.Duration, n int) float64 {
	return float64(cpu.Microseconds()) / 1000 / float64(n) * 1000
}

// indexerFloor is the row of what the indexer's CPU per 1,000 events
// cannot go below with its Kafka client and its HTTP transport: the Kafka
// floor above plus the ceiling loader's CPU for the same documents' _bulk
// requests, run by run.
func indexerFloor(kafkaMs, bulkMs []float64, n int) result {
	sums := make([]float64, len(kafkaMs))
	for i := range sums {
		sums[i] = kafkaMs[i] + bulkMs[i]
	}
	k, b := median(kafkaMs), median(bulkMs)
	return result{Name: "Indexer CPU floor per 1,000 events: Kafka client and `_bulk` requests alone", Unit: "ms", Samples: sums,
		Target: "reported (the CPU row above has the target)",
		Method: fmt.Sprintf("In each run of the indexer row, the same %d messages read again by this process with the indexer's Kafka reader (`kafka.NewGroupReader` with the indexer's fetch size and queue, a new consumer group) and committed every %d, with the collector at `indexer.GCPercent` as in the indexer run, with no decoding and no writes (Kafka: median %.1f ms per 1,000 events), "+
			"plus the CPU this process spent sending the ceiling's pre-encoded `_bulk` bodies of the same events, their encoding left out (`_bulk`: median %.1f ms per 1,000; the ceiling asks for `filter_path=errors`, so this part reads a shorter answer than the indexer, which reads every item's); the sum, run by run. "+
			"Neither part decodes, validates, masks or encodes an event, so the indexer's CPU per 1,000 events minus this floor is its own work per event. "+
			"At the 6 ms target, that work has %.1f µs per event left.", n, benchBatch, k, b, 6-k-b),
	}
}
