package main

import "fmt"

// rows are the rows that put the shipped indexer beside the copier.
func (p *peerSamples) rows(n, size int) []result {
	method := fmt.Sprintf("The %d events (about %d bytes each) of the indexer row, produced to a topic of %d partitions (what `auditlog index` creates by default), read by four programs as users run them, each as its own process on a new consumer group, timed from the process's start: "+
		"`auditlog index` (the shipped binary, built by `go build ./cmd/auditlog`, its default configuration: batches of up to 1,000 events, 200 ms linger, one worker per partition; it validates, masks, computes diffs and queues every event for sealing) until its log (at debug level, one line a batch) says the last event is acknowledged by Elasticsearch, its CPU read from /proc then (the whole process: the Kafka client, decoding, validation, the `_bulk` requests, the collector); "+
		"and the plain copier (`cmd/auditbench/copier`, a module of its own: kafka-go's Reader and go-elasticsearch's `esutil.BulkIndexer` with %d workers, each message indexed as it is with `create` and the event's id, read with encoding/json, as its _id, its offset committed once acknowledged, nothing validated) until it reports every message acknowledged, its CPU read from /proc then. "+
		"From the first event: `auditlog index` from its first batch written to its last (the events after the first batch), the copier from its first message fetched to its last acknowledged; both leave out the start-up and the consumer group's join. "+
		"The copier writes one plain index with the events' own mapping (timestamp a date instead of an alias), the indexer its plans' data streams. "+
		"The third program is the same copier given, on a second topic of as many partitions, the document the indexer writes for each event (the event decoded and masked with the default policy, then `Store.StoredDocument`: the words free text searches, the diff, the acceptance tag; a test holds it byte for byte to the _source the store writes), copied into one plain index (where the indexer writes a stream per plan) with the settings and mappings of the indexer's streams (`Store.StreamEventsIndex`: index sorting, best_compression; a test holds them to a stream's backing index), so that the cluster does for its documents what it does for the indexer's; the fourth is that copier of the same documents into an index of the streams' mappings and default settings (no index sorting, the default codec). Before each program, the benchmark waits until Elasticsearch is idle (under 0.15 of a core over a second, at most 30 s), so that no run pays for the merges of the one before. One warm-up, then %d runs, the order of the four rotating.",
		n, size, shippedPartitions, benchPartitions, len(p.ixRate))
	profile := ""
	if p.top != "" {
		profile = "Where the CPU goes: `auditlog index`'s own CPU profile of the last run (`AUDITLOG_CPU_PROFILE`, the whole process from start to stop, `go tool pprof -top`; flat is the function itself, cum with what it calls):\n\n```\n" + p.top + "```"
	}
	return []result{
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: events/s from start", Unit: "events/s", Samples: p.ixRate, Ceiling: p.cpRate,
			Target: "(peer: reported)", Method: method,
			Notes: fmt.Sprintf("Start-up of `auditlog index` to its first batch written (in the rate), per run: %s s.", fmtSeconds(p.ixStart))},
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: events/s from the first event", Unit: "events/s", Samples: p.ixFirst, Ceiling: p.cpFirst,
			Target: "≥ 0.80 of the copier's rate", MinRatio: 0.8, Method: method},
		{Name: "Indexer as shipped (`auditlog index`) vs the copier of its own documents into its streams' settings: events/s from the first event", Unit: "events/s", Samples: p.ixFirst, Ceiling: p.dcFirst,
			Target: "≥ 0.90 of that copier's rate (the cluster's work held equal)", MinRatio: 0.9, Method: method},
		{Name: "The copier of the indexer's documents into an index of default settings vs the plain copier: events/s from the first event", Unit: "events/s", Samples: p.dpFirst, Ceiling: p.cpFirst,
			Target: "(what the documents' words, diff and tag cost the cluster: reported)", Method: method},
		{Name: "The copier of the indexer's documents into its streams' settings vs into default settings: events/s from the first event", Unit: "events/s", Samples: p.dcFirst, Ceiling: p.dpFirst,
			Target: "(what index sorting and compression cost the cluster: reported)", Method: method},
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: CPU per 1,000 events", Unit: "ms", Samples: p.ixCPU, Ceiling: p.cpCPU,
			Target: "≤ 12 ms per 1,000 events (and reported against the copier's)", Max: 12, Method: method, Notes: profile},
	}
}
