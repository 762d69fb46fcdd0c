package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/kafka"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/indexer"
)

const (
	benchBatch      = 1000
	benchPartitions = 4
	// shippedPartitions is AUDITLOG_KAFKA_PARTITIONS's default: the
	// partitions `auditlog index` creates its topic with.
	shippedPartitions = 6
)

func uniq(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// freshStore is a store under a new prefix, bootstrapped, with every
// tenant already in the directory, so both paths start alike.
func freshStore(ctx context.Context, e *env, tenants []gen.Tenant) (*elasticsearch.Store, error) {
	return freshStoreWith(ctx, e, tenants, elasticsearch.StoreConfig{Accept: benchAccept})
}

// freshStoreWith is freshStore with the store configuration sc.
func freshStoreWith(ctx context.Context, e *env, tenants []gen.Tenant, sc elasticsearch.StoreConfig) (*elasticsearch.Store, error) {
	return benchStoreWithPlans(ctx, e, uniq("bench"), tenants, sc)
}

// enterprise puts tenants on the Enterprise plan. The datasets of the
// query, export and periodic benchmarks lie on fixed dates (the same
// events on every machine and every day), and the server reads each
// tenant within its plan's retention (audit.Retained): on a 30-day
// Starter plan they would fade out of the served results day by day, and
// the server's figures would no longer be those of the same events as
// the direct reads beside them. Seven years keeps every event visible.
func enterprise(tenants []gen.Tenant) []gen.Tenant {
	for i := range tenants {
		tenants[i].Plan = audit.PlanEnterprise
	}
	return tenants
}

// benchIndexer compares the Kafka → Elasticsearch indexer end to end with
// the raw _bulk ceiling: the same documents, the same batch size and
// concurrency, sent straight to Elasticsearch with no Kafka and no
// validation.
func benchIndexer(ctx context.Context, e *env) ([]result, error) {
	n := max(2000, int(200000*e.scale))
	topic, size, tenants, err := produceIndexerTopic(ctx, e, n)
	if err != nil {
		return nil, err
	}

	dir, err := os.MkdirTemp("", "auditbench-peers")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bins, err := buildPeers(ctx, dir)
	if err != nil {
		return nil, err
	}
	peerTopic, peers, err := newPeers(ctx, e, n, dir)
	if err != nil {
		return nil, err
	}
	var ceil, ix, cpuPer1000, kafkaMs, bulkMs []float64
	cpuCeil, cpuIx := map[string][]float64{}, map[string][]float64{}
	for run := 0; run <= e.runs; run++ { // run 0 is the warm-up
		if err := peers.run(ctx, e, bins, tenants, peerTopic, n, run, run == e.runs); err != nil {
			return nil, err
		}
		events, _ := indexerEvents(n) // before the meter: generating them is no loader's work
		settleCluster(e)
		meter := newCPUMeter(e.pids)
		c, sendCPU, err := bulkCeiling(ctx, e, tenants, events)
		if err != nil {
			return nil, err
		}
		cc := meter.cores()
		// The ceiling's events and bodies are garbage now: collected here,
		// not by the collector while the indexer's CPU is metered.
		events = nil
		runtime.GC()
		settleCluster(e)
		meter = newCPUMeter(e.pids)
		r, err := indexerRun(ctx, e, tenants, topic, n)
		if err != nil {
			return nil, err
		}
		ci := meter.cores()
		perK := perThousand(meter.used("auditbench"), n)
		k, err := kafkaFloor(ctx, topic, e.brokers, n)
		if err != nil {
			return nil, err
		}
		log.Printf("  run %d: ceiling %.0f ev/s (cores %s), indexer %.0f ev/s (cores %s)", run, c, fmtCores(cc), r, fmtCores(ci))
		if run > 0 {
			ceil, ix, cpuPer1000 = append(ceil, c), append(ix, r), append(cpuPer1000, perK)
			kafkaMs, bulkMs = append(kafkaMs, k), append(bulkMs, perThousand(sendCPU, n))
			for k, v := range cc {
				cpuCeil[k] = append(cpuCeil[k], v)
			}
			for k, v := range ci {
				cpuIx[k] = append(cpuIx[k], v)
			}
		}
	}
	return append(append(append(peers.rows(n, size), indexerCPU(cpuPer1000, n, size), indexerFloor(kafkaMs, bulkMs, n)), indexerEventWork(e.runs)...), result{
		Name: "Indexer: Kafka → Elasticsearch", Unit: "events/s", Samples: ix, Ceiling: ceil,
		Target: "≥ 85% of the _bulk ceiling", MinRatio: 0.85,
		Notes: fmt.Sprintf("Consumer-group join before the first message (not in the rate), per run: %s s.\n\n"+
			"CPU use, median cores over each run (the machine has %d; `auditbench` is the loader during the ceiling and the indexer during the indexer run): ceiling %s; indexer %s. "+
			"Elasticsearch is CPU-bound here: whatever the indexer and the Kafka broker use on the same two cores is taken from it, which is what separates the two figures on this machine. "+
			"In production the indexer and Kafka run on their own machines.", fmtSeconds(joins), runtime.NumCPU(), fmtCores(medians(cpuCeil)), fmtCores(medians(cpuIx))),
		Method: fmt.Sprintf("%d generated events of 10 tenants (all plans, skewed sizes), about %d bytes each, pre-produced to a %d-partition topic. "+
			"Indexer: `indexer.Indexer` in-process with batch size %d, linger 50 ms, the collector at `indexer.GCPercent` as `auditlog index` runs it, one worker per partition (so up to %d concurrent `_bulk` requests), timed from the first message consumed until every event is acknowledged by Elasticsearch (its own counter), a new consumer group and a new index prefix per run. "+
			"Ceiling: the same documents encoded as the same `_bulk` create bodies beforehand, sent by %d concurrent loaders in batches of %d, no Kafka, no decoding, no validation, into a new prefix. "+
			"Before each of the two, the benchmark waits until Elasticsearch is idle (under 0.15 of a core over a second, at most 30 s), so that neither pays for the merges the other left. One warm-up pair, then %d alternating pairs.", n, size, benchPartitions, benchBatch, benchPartitions, benchPartitions, benchBatch, e.runs),
	}), nil
}

// indexerEnd is where the indexer benchmark's events end: today, fixed
// once per process. The events span the 20 days before it, within every
// plan's retention, so that `auditlog index`, which refuses an event its
// tenant's plan would delete at once (the retention gate), takes all of
// them as the in-process indexer does.
var indexerEnd = time.Now().UTC().Truncate(24 * time.Hour)

// indexerEvents returns the n events of the indexer benchmark, the same
// on every call, and their tenants.
func indexerEvents(n int) ([]audit.Event, []gen.Tenant) {
	g := gen.New(gen.Config{Seed: 1, Tenants: 10, Skew: 1.1, WithIDs: true, Start: indexerEnd.Add(-20 * 24 * time.Hour), End: indexerEnd}, n)
	events := make([]audit.Event, n)
	for i := range events {
		events[i] = g.Next()
	}
	return events, g.Tenants()
}

// produceIndexerTopic writes the n events of indexerEvents to a new topic
// and returns it, the messages' average size and the events' tenants.
// Neither the events nor the messages are kept: the indexer runs in this
// process, and its collector should see a heap of its own size, not one
// the benchmark's data inflates (the ceiling generates the events again
// each run).
func produceIndexerTopic(ctx context.Context, e *env, n int) (string, int, []gen.Tenant, error) {
	return produceTopic(ctx, e, n, benchPartitions)
}

// produceTopic is produceIndexerTopic with the topic's partitions.
func produceTopic(ctx context.Context, e *env, n, partitions int) (string, int, []gen.Tenant, error) {
	events, tenants := indexerEvents(n)
	msgs, err := kafka.EventMessages(events)
	if err != nil {
		return "", 0, nil, err
	}
	topic, err := writeTopic(ctx, e, "bench-events", partitions, msgs)
	if err != nil {
		return "", 0, nil, err
	}
	return topic, avgSize(msgs), tenants, nil
}

// writeTopic produces msgs to a new topic of the given partitions, named
// after prefix, and returns its name.
func writeTopic(ctx context.Context, e *env, prefix string, partitions int, msgs []kafka.Message) (string, error) {
	topic := uniq(prefix)
	if err := kafka.EnsureTopics(ctx, e.brokers, kafka.TopicSpec{Name: topic, Partitions: partitions}); err != nil {
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

// indexerCPU is the row of the indexer's own CPU per 1,000 events.
func indexerCPU(samples []float64, n, size int) result {
	return result{Name: "Indexer CPU per 1,000 events", Unit: "ms", Samples: samples, Target: "≤ 6 ms of indexer CPU per 1,000 events", Max: 6,
		Method: fmt.Sprintf("The CPU time (user + system, from getrusage) of the benchmark's process while its in-process `indexer.Indexer` (the collector at `indexer.GCPercent`, as `auditlog index` runs it) consumes the %d events (about %d bytes each) of the indexer row's runs, from the consumer's start to the last acknowledgement, per 1,000 events: Kafka fetches, decoding, validation, masking, the `_bulk` bodies and their answers, commits. The store queues nothing for sealing, as in the indexer row; the next two rows time the per-event part with the event digest a sealing store adds.", n, size)}
}

func medians(m map[string][]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		out[k] = median(v)
	}
	return out
}

func fmtCores(m map[string]float64) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %.2f", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func fmtSeconds(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(parts, ", ")
}

func avgSize(msgs []kafka.Message) int {
	total := 0
	for _, m := range msgs {
		total += len(m.Value)
	}
	return total / len(msgs)
}

// bulkCeiling sends pre-encoded _bulk bodies with benchPartitions
// concurrent loaders and returns events per second and the CPU this
// process spent sending them (encoding them beforehand left out).
func bulkCeiling(ctx context.Context, e *env, tenants []gen.Tenant, events []audit.Event) (float64, time.Duration, error) {
	s, err := freshStore(ctx, e, tenants)
	if err != nil {
		return 0, 0, err
	}
	plans := map[string]audit.Plan{}
	for _, t := range tenants {
		plans[t.ID] = t.Plan
	}
	var bodies [][]byte
	for i := 0; i < len(events); i += benchBatch {
		var buf bytes.Buffer
		for j := i; j < min(i+benchBatch, len(events)); j++ {
			if err := elasticsearch.AppendBulkCreate(&buf, s.StreamName(plans[events[j].TenantID], events[j].TenantID), &events[j]); err != nil {
				return 0, 0, err
			}
		}
		bodies = append(bodies, buf.Bytes())
	}
	cpu0 := cpuTime(0)
	elapsed, err := timeParallel(ctx, bodies, benchPartitions, func(b []byte) error {
		res, err := s.Client().Do(ctx, http.MethodPost, "/_bulk?filter_path=errors", b)
		if err == nil && (res.Status != http.StatusOK || bytes.Contains(res.Body, []byte(`"errors":true`))) {
			err = fmt.Errorf("bulk: %d %s", res.Status, res.Body)
		}
		return err
	})
	sendCPU := cpuTime(0) - cpu0
	if err != nil {
		return 0, 0, err
	}
	return float64(len(events)) / elapsed.Seconds(), sendCPU, nil
}

// joins collects the group-join times of the indexer runs.
var joins []float64

// timeParallel sends every body with the given number of concurrent
// workers and returns the wall time, or the first error.
func timeParallel(ctx context.Context, bodies [][]byte, workers int, send func([]byte) error) (time.Duration, error) {
	work := make(chan []byte, len(bodies))
	for _, b := range bodies {
		work <- b
	}
	close(work)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				if err := send(b); err != nil {
					errs <- err
					return
				}
				if ctx.Err() != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return elapsed, ctx.Err()
}

// indexerRun consumes the whole topic with a new group into a new prefix
// and returns events per second.
func indexerRun(ctx context.Context, e *env, tenants []gen.Tenant, topic string, n int) (float64, error) {
	s, err := freshStore(ctx, e, tenants)
	if err != nil {
		return 0, err
	}
	return indexerRunOn(ctx, e, s, topic, n)
}

// indexerRunOn is indexerRun into the store s.
func indexerRunOn(ctx context.Context, e *env, s *elasticsearch.Store, topic string, n int) (float64, error) {
	defer indexGC()()
	ix := indexer.New(indexer.Config{Brokers: e.brokers, Topic: topic, Group: uniq("bench-group"), Partitions: benchPartitions,
		BatchSize: benchBatch, Linger: 50 * time.Millisecond},
		indexer.Deps{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := ix.Setup(ctx); err != nil {
		return 0, err
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	launched := time.Now()
	go func() { done <- ix.Run(rctx) }()
	deadline := time.After(10 * time.Minute)
	// The clock starts at the first message consumed: joining the consumer
	// group is a one-off start-up cost, reported apart.
	var start time.Time
	for {
		st := ix.Stats()
		if start.IsZero() && st.Consumed.Load() > 0 {
			start = time.Now()
			joins = append(joins, start.Sub(launched).Seconds())
		}
		if st.Indexed.Load()+st.Duplicates.Load() >= int64(n) {
			break
		}
		if st.DeadLettered.Load() > 0 {
			cancel()
			return 0, fmt.Errorf("%d events dead-lettered", st.DeadLettered.Load())
		}
		select {
		case <-deadline:
			cancel()
			return 0, fmt.Errorf("indexer stuck at %d of %d", st.Indexed.Load(), n)
		case <-time.After(20 * time.Millisecond):
		}
	}
	elapsed := time.Since(start)
	cancel()
	if err := <-done; err != nil {
		return 0, err
	}
	return float64(n) / elapsed.Seconds(), nil
}

// benchStore is a bootstrapped store on the benchmark's cluster with the
// client configuration cc (its URLs set here) and the store configuration
// sc; it records the cluster's version for the report.
func benchStore(ctx context.Context, e *env, cc elasticsearch.Config, sc elasticsearch.StoreConfig) (*elasticsearch.Store, error) {
	cc.URLs = []string{e.esURL}
	c, err := elasticsearch.New(cc)
	if err != nil {
		return nil, err
	}
	caps, err := c.Detect(ctx)
	if err != nil {
		return nil, err
	}
	e.esVersion = caps.Version
	s, err := elasticsearch.NewStore(c, caps, sc)
	if err != nil {
		return nil, err
	}
	return s, s.Bootstrap(ctx)
}
