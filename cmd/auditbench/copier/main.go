// Command copier is the indexer's peer in `make bench`: what a user would
// write instead of `auditlog index`, built only from the design card's
// libraries, kafka-go's Reader and go-elasticsearch's esutil.BulkIndexer.
// It copies each message of a topic, as it is, into one index (create,
// _id the event's id, read with encoding/json, so that a redelivery or a
// producer's retry is a 409 and counts as done) and commits a message's
// offset once Elasticsearch acknowledged it. It validates nothing, masks
// nothing, computes no diff and seals nothing: the benchmark puts the
// indexer's CPU per event and rate beside this floor.
//
// It is a module of its own (go.mod beside this file): go-elasticsearch
// is not a dependency of the product. The benchmark builds and runs it
// (cmd/auditbench/copier.go); it stops, with exit status 0, once -n
// messages are acknowledged and their offsets committed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esutil"
	"github.com/segmentio/kafka-go"
)

// copier is one copy of a topic into an index.
type copier struct {
	r      *kafka.Reader
	bi     esutil.BulkIndexer
	n      int64
	acked  atomic.Int64
	done   chan struct{}
	failed atomic.Value
}

func main() {
	brokers := flag.String("brokers", "", "Kafka brokers, comma-separated")
	topic := flag.String("topic", "", "topic to copy")
	group := flag.String("group", "", "consumer group")
	esURL := flag.String("es", "", "Elasticsearch URL")
	index := flag.String("index", "", "index to write into")
	n := flag.Int64("n", 0, "stop once this many messages are acknowledged")
	workers := flag.Int("workers", 4, "concurrent _bulk requests")
	flushBytes := flag.Int("flush-bytes", 5<<20, "bytes of a _bulk body that start a flush")
	maxBytes := flag.Int("fetch-bytes", 8<<20, "most bytes of one Kafka fetch")
	flag.Parse()
	if *n <= 0 || *topic == "" || *index == "" {
		log.Fatal("copier: -n, -topic and -index are required")
	}
	c := &copier{n: *n, done: make(chan struct{})}
	c.r = kafka.NewReader(kafka.ReaderConfig{Brokers: strings.Split(*brokers, ","), Topic: *topic, GroupID: *group,
		MaxBytes: *maxBytes, CommitInterval: 200 * time.Millisecond})
	es, err := elasticsearch.NewClient(elasticsearch.Config{Addresses: []string{*esURL}})
	if err != nil {
		log.Fatal(err)
	}
	c.bi, err = esutil.NewBulkIndexer(esutil.BulkIndexerConfig{Client: es, Index: *index, NumWorkers: *workers,
		FlushBytes: *flushBytes, FlushInterval: 50 * time.Millisecond,
		OnError: func(_ context.Context, err error) { c.failed.Store(err) }})
	if err != nil {
		log.Fatal(err)
	}
	if err := c.run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// ack commits a message acknowledged by Elasticsearch.
func (c *copier) ack(ctx context.Context, m kafka.Message) {
	if err := c.r.CommitMessages(ctx, m); err != nil {
		c.failed.Store(err)
	}
	if c.acked.Add(1) == c.n {
		close(c.done)
	}
}

// run copies n messages, then says so on stdout and closes the reader.
func (c *copier) run(ctx context.Context) error {
	start := time.Now()
	var firstAt time.Duration
	for fetched := int64(0); fetched < c.n; fetched++ {
		m, err := c.r.FetchMessage(ctx)
		if err != nil {
			return err
		}
		if fetched == 0 {
			firstAt = time.Since(start)
		}
		if err := c.add(ctx, m); err != nil {
			return err
		}
	}
	lastAt := time.Since(start)
	if err := c.bi.Close(ctx); err != nil {
		return err
	}
	if err, _ := c.failed.Load().(error); err != nil {
		return err
	}
	<-c.done
	// The benchmark stops its clock and reads this process's CPU when this
	// line arrives: every message acknowledged (when the first came, the
	// group join, and the last was fetched, for its notes). Closing the
	// reader then commits what is pending and leaves the group, which
	// kafka-go takes seconds to do; the indexer's clock stops at its last
	// acknowledgement too.
	fmt.Printf("first=%.3f last=%.3f acked=%.3f\n", firstAt.Seconds(), lastAt.Seconds(), time.Since(start).Seconds())
	return c.r.Close()
}

// add queues one message for the bulk indexer.
func (c *copier) add(ctx context.Context, m kafka.Message) error {
	// The event's id is its idempotency key (a producer's retry sends it
	// again in another message), so it is the document's _id; a message
	// without one is keyed by where it sits in the topic.
	var key struct {
		ID string `json:"id"`
	}
	id := m.Topic + "-" + strconv.Itoa(m.Partition) + "-" + strconv.FormatInt(m.Offset, 10)
	if json.Unmarshal(m.Value, &key) == nil && key.ID != "" {
		id = key.ID
	}
	return c.bi.Add(ctx, esutil.BulkIndexerItem{
		Action: "create", DocumentID: id,
		Body:      bytes.NewReader(m.Value),
		OnSuccess: func(context.Context, esutil.BulkIndexerItem, esutil.BulkIndexerResponseItem) { c.ack(ctx, m) },
		OnFailure: func(_ context.Context, _ esutil.BulkIndexerItem, res esutil.BulkIndexerResponseItem, err error) {
			if err == nil && res.Status == 409 { // a redelivery: already copied
				c.ack(ctx, m)
				return
			}
			c.failed.Store(fmt.Errorf("item %d: %v %d %s", m.Offset, err, res.Status, res.Error.Reason))
		},
	})
}
