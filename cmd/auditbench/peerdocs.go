package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/auditlog/auditlog/audit/mask"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/kafka"
)

// The copier of the indexer's own documents (issue 58). The plain copier
// writes each message as it came into an index of default settings; the
// indexer writes a longer document (the words free text searches, the
// diff, the acceptance tag) into streams whose index sorting and
// compression the cluster pays for on every write. On two cores that
// Elasticsearch shares with both programs, that work sets the indexer's
// rate. The same copier, given the documents the indexer writes and an
// index with its streams' settings, measures what the cluster's side
// allows: what is left between that and the indexer is the indexer's.

// newPeers produces the peer programs' two topics of the n events and
// returns the events' topic and the samples to fill, whose profile goes
// into dir. The shipped binary runs as users run it: its default
// configuration, on a topic with the partitions it creates by default.
func newPeers(ctx context.Context, e *env, n int, dir string) (string, *peerSamples, error) {
	topic, _, _, err := produceTopic(ctx, e, n, shippedPartitions)
	if err != nil {
		return "", nil, err
	}
	docTopic, err := produceDocTopic(ctx, e, n)
	if err != nil {
		return "", nil, err
	}
	return topic, &peerSamples{profile: filepath.Join(dir, "index.pprof"), docTopic: docTopic}, nil
}

// produceDocTopic writes, for each of the n events of indexerEvents, the
// document the store writes for it (the event decoded and masked as
// `auditlog index` does with its default policy, then
// Store.StoredDocument with the acceptance tag) to a new topic of the
// shipped partitions, and returns the topic.
func produceDocTopic(ctx context.Context, e *env, n int) (string, error) {
	s, err := benchStore(ctx, e, elasticsearch.Config{IndexPrefix: uniq("bench-docs")}, elasticsearch.StoreConfig{Accept: benchAccept, Log: true})
	if err != nil {
		return "", err
	}
	events, _ := indexerEvents(n)
	msgs, err := kafka.EventMessages(events)
	if err != nil {
		return "", err
	}
	policy := &mask.Policy{Key: mask.NewKey()}
	now := time.Now()
	for i := range msgs {
		ev, err := policy.Decode(msgs[i].Value, now)
		if err != nil {
			return "", fmt.Errorf("event %d: %w", i, err)
		}
		msgs[i].Value = s.StoredDocument(&ev)
	}
	return writeTopic(ctx, e, "bench-docs", shippedPartitions, msgs)
}

// docsCopierRun is copierRun of the documents' topic into a new index
// with the mappings of the store's streams, and with their settings too
// when streams is set (else one shard, no replica, the defaults).
func docsCopierRun(ctx context.Context, e *env, bin, topic string, n int, streams bool) (processRun, error) {
	s, err := freshStore(ctx, e, nil)
	if err != nil {
		return processRun{}, err
	}
	body := s.StreamEventsIndex()
	if !streams {
		body["settings"] = map[string]any{"number_of_shards": 1, "number_of_replicas": 0}
	}
	return copyInto(ctx, e, s, bin, topic, n, body)
}
