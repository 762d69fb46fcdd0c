// Package indexer is the Kafka side of the pipeline: a consumer group
// (through package kafka) that reads audit events, validates them, hands
// them to the store in batches, dead-letters what cannot be stored, and
// commits offsets only behind what is durably written.
package indexer

import (
	"cmp"
	"context"
	"errors"
	"github.com/auditlog/auditlog/audit/mask"
	"github.com/auditlog/auditlog/audit/retention"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/backoff"
	"github.com/auditlog/auditlog/kafka"
)

// Config is the indexer's section of the configuration.
type Config struct {
	Brokers  []string
	Topic    string
	DLQTopic string
	Group    string
	// Partitions is the partition count of topics created at start.
	Partitions int
	// A batch is flushed at BatchSize messages, BatchBytes of payload, or
	// Linger after its first message, whichever comes first.
	BatchSize  int
	BatchBytes int
	Linger     time.Duration
	// MinBackoff and MaxBackoff bound the jittered exponential backoff of
	// retries (store or Kafka unavailable). Retries go on for as long as
	// it takes; consumption pauses meanwhile.
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// DrainTimeout bounds the flush on shutdown; what is not durable by
	// then is not committed and is redelivered.
	DrainTimeout time.Duration
	// The consumer group's timings. SessionTimeout is how long the broker
	// waits for a silent member (a killed process) before it gives its
	// partitions to others: a restarted indexer waits about that long for
	// its old self to leave. Shorter means a faster restart, but a member
	// whose heartbeats stall that long (a long GC pause, a network blip)
	// is dropped and causes a rebalance. The broker bounds it with
	// group.min.session.timeout.ms (6s by default). HeartbeatInterval must
	// be well under it; RebalanceTimeout bounds how long a rebalance waits
	// for members to rejoin; JoinBackoff is the wait after a failed join.
	SessionTimeout    time.Duration
	HeartbeatInterval time.Duration
	RebalanceTimeout  time.Duration
	JoinBackoff       time.Duration
	// LagInterval is how often the group's lag is measured from Kafka;
	// StallAfter is how long messages may wait with no commit before
	// Ready reports the indexer as not making progress.
	LagInterval time.Duration
	StallAfter  time.Duration
}

func (c *Config) defaults() {
	if c.DLQTopic == "" {
		c.DLQTopic = c.Topic + ".dlq"
	}
	if c.Group == "" {
		c.Group = "auditlog-indexer"
	}
	if c.Partitions == 0 {
		c.Partitions = 6
	}
	if c.BatchSize == 0 {
		c.BatchSize = 1000
	}
	if c.BatchBytes == 0 {
		c.BatchBytes = 8 << 20
	}
	if c.Linger == 0 {
		c.Linger = 200 * time.Millisecond
	}
	if c.MinBackoff == 0 {
		c.MinBackoff = 100 * time.Millisecond
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = 15 * time.Second
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = 15 * time.Second
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = 6 * time.Second
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = time.Second
	}
	if c.RebalanceTimeout == 0 {
		c.RebalanceTimeout = 10 * time.Second
	}
	if c.JoinBackoff == 0 {
		c.JoinBackoff = time.Second
	}
	if c.LagInterval == 0 {
		c.LagInterval = 10 * time.Second
	}
	if c.StallAfter == 0 {
		c.StallAfter = 2 * time.Minute
	}
}

// Deps are what the indexer needs from the rest of the program.
type Deps struct {
	Store    audit.EventWriter
	Logger   *slog.Logger
	Registry prometheus.Registerer
	Now      func() time.Time
	// Sensitive is the sensitive-change policy (nil: the defaults).
	Sensitive *mask.Policy
	// Retention refuses events older than their tenant's retention (nil:
	// none refused).
	Retention *retention.Gate
}

// Indexer consumes the audit topic with a consumer group and writes the
// events to the store.
//
// Delivery: at least once into the store, exactly once as stored, since
// the event id is the idempotency key. A partition's offset is committed
// only after every message up to it is durably written, is a duplicate,
// or is in the dead-letter topic. Partitions are processed concurrently,
// each by its own worker that handles its batches in order, so a commit
// never passes a message still pending.
type Indexer struct {
	stats   Stats
	cfg     Config
	deps    Deps
	log     *slog.Logger
	m       *metrics
	reader  *kafka.Reader
	dlq     *kafka.Writer
	procCtx context.Context
	stop    context.CancelFunc
	prog    progress
}

// Stats are running totals since New.
type Stats struct {
	Consumed, Indexed, Duplicates, DeadLettered, Retried atomic.Int64
}

// Stats returns the running totals (for benchmarks and tests; the same
// figures are Prometheus metrics).
func (ix *Indexer) Stats() *Stats { return &ix.stats }

// New returns an indexer; Run starts it.
func New(cfg Config, deps Deps) *Indexer {
	cfg.defaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Registry == nil {
		deps.Registry = prometheus.NewRegistry()
	}
	ix := &Indexer{cfg: cfg, deps: deps, log: deps.Logger.With("component", "indexer")}
	ix.m = newMetrics(deps.Registry)
	return ix
}

// Setup creates the topics when missing (the dead-letter topic accepts
// larger messages than the source, so an oversized event still fits
// there), retrying while Kafka is unreachable.
func (ix *Indexer) Setup(ctx context.Context) error {
	return ix.retry(ctx, "creating topics", func() error {
		return kafka.EnsureTopics(ctx, ix.cfg.Brokers,
			kafka.TopicSpec{Name: ix.cfg.Topic, Partitions: ix.cfg.Partitions},
			kafka.TopicSpec{Name: ix.cfg.DLQTopic, Partitions: ix.cfg.Partitions, Config: map[string]string{"max.message.bytes": strconv.Itoa(dlqMaxMessageBytes)}})
	})
}

// GCPercent is the garbage collector's target that `auditlog index` runs
// with unless GOGC is set: a new cycle once the heap has grown by 200% of
// what the last one left live, where Go's default is 100%. The indexer's
// live heap is small (about 30 MB at 4 partitions and batches of 1,000)
// and its garbage large (every message is copied and decoded), so
// collecting half as often saves about a tenth of its CPU per event for
// about 30 MB more heap; at 800% the CPU rose again (docs/indexer.md,
// "CPU per event").
// GOMEMLIMIT bounds the heap, as for any Go program.
const GCPercent = 200

const (
	// dlqMaxMessageBytes is the dead-letter topic's message limit.
	dlqMaxMessageBytes = 16 << 20
	// MaxFetchBytes bounds one fetch from the source topic.
	MaxFetchBytes = 16 << 20
)

// Run consumes until ctx is cancelled, then stops fetching, flushes what
// it holds (bounded by DrainTimeout), commits and returns. It returns nil
// on a clean stop.
func (ix *Indexer) Run(ctx context.Context) error {
	ix.openClients()
	// Processing outlives ctx by at most DrainTimeout: batches in hand are
	// flushed and committed after the fetch loop stops.
	procCtx, cancelProc := context.WithCancel(context.WithoutCancel(ctx))
	ix.procCtx, ix.stop = procCtx, cancelProc
	defer cancelProc()

	lagCtx, stopLag := context.WithCancel(ctx)
	lagDone := make(chan struct{})
	go func() { defer close(lagDone); ix.monitorLag(lagCtx) }()
	defer func() { stopLag(); <-lagDone }()

	workers := map[int]*worker{}
	var wg sync.WaitGroup
	ix.fetchLoop(ctx, workers, &wg)
	ix.log.Info("draining", "partitions", len(workers), "timeout", ix.cfg.DrainTimeout)
	for _, w := range workers {
		close(w.in)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(ix.cfg.DrainTimeout):
		ix.log.Warn("drain timed out; uncommitted messages will be redelivered")
		cancelProc()
		<-done
	}
	// Every commit is done by now. Leaving the group can block while a
	// join is in progress (a restart right after a crash waits for the old
	// member's session to expire): it is given a bound, past which the
	// broker drops the member by its session timeout anyway.
	errs := []error{closeWithin(ix.reader.Close, 3*time.Second, ix.log), ix.dlq.Close()}
	ix.log.Info("stopped")
	return errors.Join(errs...)
}

// openClients makes the group reader and the dead-letter writer.
func (ix *Indexer) openClients() {
	ix.reader = kafka.NewGroupReader(kafka.GroupConfig{
		Brokers: ix.cfg.Brokers, Group: ix.cfg.Group, Topic: ix.cfg.Topic,
		MaxBytes: MaxFetchBytes, QueueCapacity: ix.cfg.BatchSize,
		MinBackoff: ix.cfg.MinBackoff, MaxBackoff: ix.cfg.MaxBackoff,
		// Group timings: see Config.
		SessionTimeout: ix.cfg.SessionTimeout, HeartbeatInterval: ix.cfg.HeartbeatInterval,
		RebalanceTimeout: ix.cfg.RebalanceTimeout, JoinBackoff: ix.cfg.JoinBackoff,
		Log: ix.log,
	})
	ix.dlq = kafka.NewWriter(kafka.WriterConfig{Brokers: ix.cfg.Brokers, Topic: ix.cfg.DLQTopic,
		BatchTimeout: 5 * time.Millisecond, BatchBytes: dlqMaxMessageBytes, MaxAttempts: 3})
}

// fetchLoop hands each fetched message to its partition's worker (started
// on first sight) until ctx ends.
func (ix *Indexer) fetchLoop(ctx context.Context, workers map[int]*worker, wg *sync.WaitGroup) {
	ix.log.Info("consuming", "topic", ix.cfg.Topic, "group", ix.cfg.Group, "dlq", ix.cfg.DLQTopic,
		"batchSize", ix.cfg.BatchSize, "batchBytes", ix.cfg.BatchBytes, "linger", ix.cfg.Linger)
	bo := ix.newBackoff()
	for {
		msg, err := ix.reader.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			ix.m.kafkaErrors.Inc()
			ix.log.Warn("fetch failed; retrying", "err", err)
			if !backoff.Sleep(ctx, bo.Next()) {
				return
			}
			continue
		}
		bo.Reset()
		ix.m.consumed.Inc()
		ix.stats.Consumed.Add(1)
		w, ok := workers[msg.Partition]
		if !ok {
			w = &worker{ix: ix, partition: msg.Partition, in: make(chan kafka.Message, ix.cfg.BatchSize)}
			workers[msg.Partition] = w
			wg.Add(1)
			go func() { defer wg.Done(); w.run() }()
		}
		select {
		case w.in <- msg:
		case <-ctx.Done():
			return // not handed over: not committed, redelivered later
		}
	}
}

// closeWithin runs close, and stops waiting for it after d (logged): the
// process may exit while a group leave is still blocked in the client.
func closeWithin(close func() error, d time.Duration, log *slog.Logger) error {
	done := make(chan error, 1)
	go func() { done <- close() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		log.Warn("leaving the consumer group did not finish; the broker drops the member at its session timeout", "waited", d)
		return nil
	}
}

// worker processes one partition's messages in order.
type worker struct {
	ix        *Indexer
	partition int
	in        chan kafka.Message
	// The redelivery window (see markRedelivered), kept by the decoding
	// stage: the next offset expected, and the end of the window.
	next, windowEnd int64
	tracking        bool
	// lastBatch is the length of the batch collect returned last.
	lastBatch int
}

// redeliveryBatches bounds, in batches, what a member can have written
// but not committed when it dies: the batch being written, one decoded
// batch, the batch being collected and the worker's queue, and up to
// eight delivered batches whose commit is pending. Members of one group
// are assumed to share the batch size.
const redeliveryBatches = 16

// markRedelivered marks the events of d that may be a redelivery: those
// within redeliveryBatches batches of the first offset this worker saw
// after taking the partition over (a start, a rebalance, any jump in the
// offsets), and below the partition's end at that time. Only they can
// have been written by a member that died before committing them.
func (w *worker) markRedelivered(d *decoded) {
	window := int64(redeliveryBatches * w.ix.cfg.BatchSize)
	for _, m := range d.batch {
		if !w.tracking || m.Offset != w.next {
			w.tracking, w.windowEnd = true, min(m.Offset+window, m.HighWaterMark)
		}
		w.next = m.Offset + 1
	}
	d.suspect = make([]bool, len(d.at))
	for i, j := range d.at {
		d.suspect[i] = d.batch[j].Offset < w.windowEnd
	}
}

// run pipelines two stages: while one batch is being written, the next is
// collected and decoded, so the store is not idle during decoding. The
// writing stage takes batches in order and commits behind each, so a
// commit never passes a message still pending.
func (w *worker) run() {
	ready := make(chan *decoded, 1)
	decoderDone := make(chan struct{})
	go func() {
		defer close(decoderDone)
		defer close(ready)
		for {
			batch, open := w.collect()
			if len(batch) > 0 {
				d := w.ix.decode(batch)
				w.markRedelivered(d)
				select {
				case ready <- d:
				case <-w.ix.procCtx.Done():
					return
				}
			}
			if !open {
				return
			}
		}
	}()
	defer func() { <-decoderDone }()
	// Commits go to a committer of their own, so the next batch is written
	// while the commit of the last one is in flight. A batch is handed over
	// only once delivered, in order, so commits stay behind durable writes.
	commits := make(chan kafka.Message, 8)
	committerDone := make(chan struct{})
	go w.committer(commits, committerDone)
	defer func() { close(commits); <-committerDone }()
	for d := range ready {
		if err := w.ix.deliver(w.ix.procCtx, d); err != nil {
			// Only a cancelled drain stops delivery: nothing more from
			// this partition is committed.
			w.ix.log.Warn("batch not finished; it will be redelivered", "partition", w.partition, "err", err)
			for range ready { // let the decoder finish
			}
			return
		}
		commits <- d.batch[len(d.batch)-1]
	}
}

// committer commits the offsets handed to it in order; when several are
// waiting, only the newest is committed (it covers the others).
func (w *worker) committer(in <-chan kafka.Message, done chan<- struct{}) {
	defer close(done)
	for m := range in {
		latest := m
	drain:
		for {
			select {
			case next, ok := <-in:
				if !ok {
					break drain
				}
				latest = next
			default:
				break drain
			}
		}
		w.ix.commit(latest)
	}
}

// collect gathers a batch: it waits for a first message, then takes more
// until the batch is full or Linger has passed. open is false once the
// input is closed and empty.
func (w *worker) collect() (batch []kafka.Message, open bool) {
	first, ok := <-w.in
	if !ok {
		return nil, false
	}
	// The last batch's length is the capacity: at a steady rate batches
	// are full, and growing one from nothing copied it ten times.
	batch = append(make([]kafka.Message, 0, max(w.lastBatch, 1)), first)
	size := len(first.Value)
	defer func() { w.lastBatch = len(batch) }()
	timer := time.NewTimer(w.ix.cfg.Linger)
	defer timer.Stop()
	for len(batch) < w.ix.cfg.BatchSize && size < w.ix.cfg.BatchBytes {
		select {
		case m, ok := <-w.in:
			if !ok {
				return batch, false
			}
			batch = append(batch, m)
			size += len(m.Value)
		case <-timer.C:
			return batch, true
		}
	}
	return batch, true
}

// decoded is a batch after decoding: the events to store, the message of
// each, and the messages already known to be dead letters.
type decoded struct {
	batch  []kafka.Message
	events []audit.Event
	// at[i] is the index in batch of events[i]'s message (see source):
	// an index, not a copy of the message, which would be 150 bytes of
	// garbage an event.
	at   []int32
	dead []deadLetter
	// suspect[i]: events[i] may be a redelivery (worker.markRedelivered).
	suspect []bool
}

// decode validates every message of the batch; an event without an id
// gets one derived from its position in the topic.
func (ix *Indexer) decode(batch []kafka.Message) *decoded {
	now := ix.deps.Now()
	d := &decoded{batch: batch, events: make([]audit.Event, 0, len(batch)), at: make([]int32, 0, len(batch))}
	for i, m := range batch {
		// Decoded in its place in events, from the reader's own buffer
		// (never written again): no copy of the event, nor of its text.
		n := len(d.events)
		d.events = d.events[:n+1]
		e := &d.events[n]
		if err := ix.deps.Sensitive.DecodeOwned(e, m.Value, now); err != nil {
			d.events = d.events[:n]
			d.dead = append(d.dead, deadLetter{msg: m, code: audit.ErrorCode(err), reason: err.Error()})
			continue
		}
		if e.ID == "" {
			e.ID = audit.DeriveID(e.Timestamp, audit.KafkaKey(m.Topic, m.Partition, m.Offset))
		}
		d.at = append(d.at, int32(i))
	}
	return d
}

// pendingEvents is the events pending lists (indexes into events, in
// order): all of them when it is as long (the usual case), which need no
// copy; the store's writers and the retention gate read events and never
// change them.
func (d *decoded) pendingEvents(pending []int) []audit.Event {
	if len(pending) == len(d.events) {
		return d.events
	}
	sub := make([]audit.Event, len(pending))
	for j, i := range pending {
		sub[j] = d.events[i]
	}
	return sub
}

// source is the message of events[i].
func (d *decoded) source(i int) kafka.Message { return d.batch[d.at[i]] }

// deliver makes every message of a decoded batch durable: stored, or
// dead-lettered. It returns an error only when ctx ends first.
func (ix *Indexer) deliver(ctx context.Context, d *decoded) error {
	pending, err := ix.settleRedelivered(ctx, d)
	if err != nil {
		return err
	}
	if pending, err = ix.dropExpired(ctx, d, pending); err != nil {
		return err
	}
	sub := d.pendingEvents(pending)
	bo := ix.newBackoff()
	results, err := audit.WriteSettled(ctx, ix.deps.Store, sub, audit.Retrier{
		Wait: func(ctx context.Context) bool { return backoff.Sleep(ctx, bo.Next()) },
		BatchFailed: func(err error, n int) bool {
			ix.countRetried(n)
			ix.log.Warn("store write failed; retrying", "events", n, "err", err)
			return true // for as long as it takes: nothing is dropped
		},
		ItemsRetried: func(n int, last audit.WriteResult) {
			ix.countRetried(n)
			ix.noteFull(last)
			ix.log.Warn("some events must be retried", "events", n, "reason", last.Reason, "storeFull", last.Full)
		},
		Wrote: func(took time.Duration) { ix.m.bulkLatency.Observe(took.Seconds()) },
	})
	if err != nil {
		return err
	}
	ix.noteFull(audit.WriteResult{Status: audit.WriteCreated})
	dead := d.dead
	var created, duplicates int
	for j, r := range results {
		src := d.source(pending[j])
		switch r.Status {
		case audit.WriteCreated:
			created++
			ix.m.indexed.Inc()
			ix.stats.Indexed.Add(1)
		case audit.WriteDuplicate:
			duplicates++
			ix.m.duplicate.Inc()
			ix.stats.Duplicates.Add(1)
		case audit.WriteConflict:
			// First wins; the second is dead-lettered with the reason,
			// so it is neither stored nor lost.
			ix.m.conflict.Inc()
			dead = append(dead, deadLetter{msg: src, code: CodeConflict, reason: r.Reason})
		case audit.WriteRejected:
			dead = append(dead, deadLetter{msg: src, code: "rejected", reason: r.Reason})
		}
	}
	// One line a batch at debug level: what an operator tracing the
	// indexer reads, and how the benchmark sees the last event written
	// without scraping /metrics (a scrape costs the process CPU).
	ix.log.Debug("batch written", "created", created, "duplicates", duplicates, "deadLettered", len(dead))
	if len(dead) > 0 {
		// Rejections found at write time (conflicts, mapping errors) join
		// those of decoding: the dead-letter topic keeps the source order.
		slices.SortStableFunc(dead, func(a, b deadLetter) int {
			return cmp.Or(cmp.Compare(a.msg.Partition, b.msg.Partition), cmp.Compare(a.msg.Offset, b.msg.Offset))
		})
		if err := ix.deadLetter(ctx, dead); err != nil {
			return err
		}
	}
	return nil
}

// commit commits the offset after m. A failed commit (a rebalance took
// the partition away) is logged: the new owner redelivers from the last
// committed offset, and the ids make the redelivery harmless.
func (ix *Indexer) commit(m kafka.Message) {
	if err := ix.reader.CommitMessages(ix.procCtx, m); err != nil {
		ix.m.kafkaErrors.Inc()
		ix.log.Warn("commit failed; the messages will be redelivered", "partition", m.Partition, "offset", m.Offset, "err", err)
		return
	}
	ix.m.commits.Inc()
}

// retry runs f until it succeeds or ctx ends, with jittered backoff.
func (ix *Indexer) retry(ctx context.Context, what string, f func() error) error {
	return backoff.Retry(ctx, ix.newBackoff(), func(err error) { ix.log.Warn(what+" failed; retrying", "err", err) }, f)
}

// countRetried counts n events whose write is retried.
func (ix *Indexer) countRetried(n int) {
	ix.m.retried.Add(float64(n))
	ix.stats.Retried.Add(int64(n))
}

func (ix *Indexer) newBackoff() *backoff.Backoff {
	return backoff.New(ix.cfg.MinBackoff, ix.cfg.MaxBackoff)
}
