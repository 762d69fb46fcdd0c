package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/kafka"
)

// benchLogElasticsearch: the indexer with sealing on against off, sealing
// against the indexer's write rate, acceptance to checkpoint, and proofs
// and storage at the query benchmark's 1M events.
func benchLogElasticsearch(ctx context.Context, e *env) ([]result, error) {
	n := max(2000, int(100000*e.scale))
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, Skew: 1.1, WithIDs: true}, n)
	events := make([]audit.Event, n)
	for i := range events {
		events[i] = g.Next()
	}
	topic, err := produceBench(ctx, e, events)
	if err != nil {
		return nil, err
	}
	var on, off, sealed, written, p50, p99 []float64
	for run := 0; run <= e.runs; run++ {
		rOff, rOn, rQueued, rSeal, err := logIndexerRun(ctx, e, g.Tenants(), topic, n)
		if err != nil {
			return nil, err
		}
		ls, err := freshStoreWith(ctx, e, enterprise(gen.New(gen.Config{Seed: 5, Tenants: 1}, 1).Tenants()), elasticsearch.StoreConfig{Accept: benchAccept, Log: true})
		if err != nil {
			return nil, err
		}
		batches := max(20, int(100*e.scale))
		lat, err := latencyRun(ctx, ls, ls, gen.New(gen.Config{Seed: 5, Tenants: 1, WithIDs: true}, batches*100), batches, 100, 100*time.Millisecond)
		if err != nil {
			return nil, err
		}
		log.Printf("  run %d: indexer %.0f ev/s sealing, %.0f not; %.0f ev/s queued, then sealed at %.0f ev/s; acceptance → checkpoint p50 %.0f ms p99 %.0f ms",
			run, rOn, rOff, rQueued, rSeal, percentile(lat, 50), percentile(lat, 99))
		if run > 0 {
			on, off, written, sealed = append(on, rOn), append(off, rOff), append(written, rQueued), append(sealed, rSeal)
			p50, p99 = append(p50, percentile(lat, 50)), append(p99, percentile(lat, 99))
		}
	}
	out := []result{
		{Name: "Indexer, sealing on vs off", Unit: "events/s", Samples: on, Ceiling: off, Target: "≥ 90% of sealing off", MinRatio: 0.9,
			Method: fmt.Sprintf("The indexer benchmark's run (%d events of 10 tenants pre-produced to a %d-partition topic, `indexer.Indexer` in-process, batches of %d) into a store that queues its writes for sealing "+
				"(one ticket per `_bulk`) with a sealer running on it as `serve` runs one, next to the same run into a store that queues nothing. One warm-up pair, then %d pairs.", n, benchPartitions, benchBatch, e.runs)},
		{Name: "Elasticsearch sealing vs the indexer's write rate", Unit: "events/s", Samples: sealed, Ceiling: written, Target: "≥ 1.5× the write rate", MinRatio: 1.5,
			Method: fmt.Sprintf("The same %d events indexed into a store that queues them with no sealer running (the ceiling: that indexer's rate), then sealed from the first ticket to the last by "+
				"`seal.Sealer.Round` with rounds of 5,000 events (real-time reads of the events, the check against the log, one compare-and-set and one tile write per tenant and round). A ratio above 1 means sealing keeps up with the indexer.", n), Notes: entryFormatNote[1:]},
	}
	out = append(out, latencyRows("Elasticsearch", p50, p99, e)...)
	proofs, err := esProofs(ctx, e)
	if err != nil {
		return nil, err
	}
	return append(out, proofs...), nil
}

// produceBench pre-produces events to a new topic.
func produceBench(ctx context.Context, e *env, events []audit.Event) (string, error) {
	msgs, err := kafka.EventMessages(events)
	if err != nil {
		return "", err
	}
	topic := uniq("bench-log-events")
	if err := kafka.EnsureTopics(ctx, e.brokers, kafka.TopicSpec{Name: topic, Partitions: benchPartitions}); err != nil {
		return "", err
	}
	w := kafka.NewWriter(kafka.WriterConfig{Brokers: e.brokers, Topic: topic, BatchSize: 1000, BatchBytes: 8 << 20, BatchTimeout: 10 * time.Millisecond})
	defer w.Close()
	for i := 0; i < len(msgs); i += 5000 {
		if err := w.WriteMessages(ctx, msgs[i:min(i+5000, len(msgs))]...); err != nil {
			return "", fmt.Errorf("producing: %w", err)
		}
	}
	return topic, nil
}

// logIndexerRun indexes the topic three times: into a store that queues
// nothing (off), into one that queues with a sealer running (on), and into
// one that queues with none, then seals it (queued, and the sealing rate).
func logIndexerRun(ctx context.Context, e *env, tenants []gen.Tenant, topic string, n int) (off, on, queued, sealRate float64, err error) {
	index := func(log bool, sealing bool) (*elasticsearch.Store, float64, error) {
		s, err := freshStoreWith(ctx, e, tenants, elasticsearch.StoreConfig{Accept: benchAccept, Log: log})
		if err != nil {
			return nil, 0, err
		}
		if sealing {
			stop, err := runSealer(ctx, s)
			if err != nil {
				return nil, 0, err
			}
			defer stop()
		}
		r, err := indexerRunOn(ctx, e, s, topic, n)
		return s, r, err
	}
	if _, off, err = index(false, false); err != nil {
		return
	}
	if _, on, err = index(true, true); err != nil {
		return
	}
	s, queued, err := index(true, false)
	if err != nil {
		return
	}
	// The log holds the n events and, before them, each tenant's record
	// of its plan (benchStoreWithPlans, retention.ChangePlan).
	k, took, err := sealAll(ctx, s, 5000)
	if want := n + len(tenants); err == nil && k != want {
		err = fmt.Errorf("sealed %d of %d (%d events, %d plan records)", k, want, n, len(tenants))
	}
	return off, on, queued, float64(k) / took.Seconds(), err
}

// esProofs seals the query benchmark's 1M events (queued as they were
// loaded) and measures proofs and the tree's storage; without that store
// (-only) it loads its own.
func esProofs(ctx context.Context, e *env) ([]result, error) {
	s, tenant, qn := e.queryStore, e.queryTenant, e.queryN
	if s == nil {
		qn = max(20000, int(1000000*e.scale))
		g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, qn)
		var err error
		if s, err = freshStoreWith(ctx, e, enterprise(g.Tenants()), elasticsearch.StoreConfig{Accept: benchAccept, Log: true}); err != nil {
			return nil, err
		}
		if err := loadEvents(ctx, s, g, qn, 4); err != nil {
			return nil, err
		}
		tenant = g.Tenants()[0].ID
	}
	// The export benchmark's serve (sealing on, as by default) may have
	// sealed them already: the log must hold them all, whoever sealed.
	k, took, err := sealAll(ctx, s, 5000)
	if err != nil {
		return nil, err
	}
	if ls, err := s.LogState(ctx, tenant); err != nil || ls.Size < int64(qn) {
		return nil, fmt.Errorf("the log of %d events holds %d leaves (%d sealed here): %v", qn, ls.Size, k, err)
	}
	log.Printf("  sealed %d Elasticsearch events in %s (the rest of the %d before)", k, took.Round(time.Second), qn)
	var incl, cons []float64
	for run := 0; run <= e.runs; run++ {
		in, co, err := proofTimes(ctx, s, tenant, 200)
		if err != nil {
			return nil, err
		}
		if run > 0 {
			incl, cons = append(incl, percentile(in, 99)), append(cons, percentile(co, 99))
		}
	}
	tree, events, err := s.LogFootprint(ctx)
	if err != nil {
		return nil, err
	}
	live, superseded, err := docCounts(ctx, s, s.TlogIndex())
	if err != nil {
		return nil, err
	}
	treeWhat := fmt.Sprintf("the log index (states, tiles, id bundles; the sealing queue, whose tickets live seconds, left out; %d documents and %d superseded versions "+
		"Elasticsearch had not merged away 90 s after the last round: it reclaims a segment's deletes by their count, and each round supersedes its tenant's state document, "+
		"which holds the round's leaves)", live, superseded)
	return proofRows("Elasticsearch", qn, k, took, incl, cons, tree, events, treeWhat, "the tenant's data streams", e), nil
}

// docCounts are the live and the deleted documents of index's primaries.
func docCounts(ctx context.Context, s *elasticsearch.Store, index string) (live, deleted int64, err error) {
	var out struct {
		All struct {
			Primaries struct {
				Docs struct {
					Count   int64 `json:"count"`
					Deleted int64 `json:"deleted"`
				} `json:"docs"`
			} `json:"primaries"`
		} `json:"_all"`
	}
	err = s.Client().DoJSON(ctx, http.MethodGet, "/"+index+"/_stats/docs", nil, &out)
	return out.All.Primaries.Docs.Count, out.All.Primaries.Docs.Deleted, err
}
