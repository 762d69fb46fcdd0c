package streaming

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// Runner delivers every tenant's streams: each pass walks the streams
// (stream.Store.StreamsAfter) and, for each one with leaves to
// deliver, takes its lease and steps it until it is idle, waits, or
// pauses, several streams at a time.
//
// Replicas share the streams by lease, as they share the periodic export
// (decision, issue 43): a lease is a field of the stream written at its
// revision, so two replicas never deliver one stream at once, and a dead
// replica's streams are taken over from their stored cursors once its
// leases end. Kafka partition ownership was the other way; it would tie
// delivery to the topic's partitions, which carry unsealed events in
// another order than the log's, and would not exist on the embedded
// store. One Runner serves both: inside serve on SQLite, as `auditlog
// stream` on Elasticsearch.
type Runner struct {
	Streamer *Streamer
	// Owner names this replica in leases, each held for Lease.
	Owner string
	Lease time.Duration
	// Workers bounds the streams delivered at once (DefaultWorkers when
	// 0).
	Workers int
	// Budget bounds the batches one stream sends in a turn while every
	// worker is busy (DefaultBudget when 0): a stream that always has
	// more to send (a steady load) would otherwise hold its worker while
	// others wait for one. With a worker free nobody waits, and the turn
	// goes on: each turn's end costs a refreshed write, a pass (the
	// list, every stream's log state) and the next turn's claim, which
	// held the largest tenant's stream, the last one a catch-up waits
	// for, about a batch's time every three batches. A turn that ends
	// starts the next pass at once.
	Budget int
	Log    *slog.Logger
	// Alert, when set, tells a stream's admins it has failed for
	// AlertAfter (failing true) or recovered.
	Alert func(ctx context.Context, st stream.Stream, failing bool) error
	// AlertAfter is how long a stream fails before Alert is told
	// (stream.AlertAfter when 0).
	AlertAfter time.Duration
	// Observed, when set, is told each stream's state and lag every pass.
	Observed func(st stream.Stream, lag stream.Lag)
	// Metrics, when set, are kept up to date.
	Metrics *Metrics
	// S3Every is how long an S3 stream gathers leaves for an object
	// (DefaultS3Every when 0).
	S3Every time.Duration

	wake chan struct{} // a turn ended: pass again now

	mu      sync.Mutex
	behind  map[stream.Key]time.Time // when each S3 stream was first seen behind
	running map[stream.Key]bool
	waiting map[stream.Key]waitState
	wg      sync.WaitGroup
}

// waitState is a stream's wait after failed attempts in a row.
type waitState struct {
	attempts int
	until    time.Time
}

// Defaults of a Runner.
const (
	DefaultWorkers = 16
	DefaultBudget  = 3
)

// Run runs a pass every interval, and at once when a stream's turn ends
// (so that a stream waiting for a worker gets it then), until ctx ends;
// then it waits for the deliveries under way.
func (r *Runner) Run(ctx context.Context, every time.Duration) {
	r.init()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := r.Pass(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn("streams: a pass failed; retried next pass", "err", err)
		}
		select {
		case <-ctx.Done():
			r.wg.Wait()
			return
		case <-t.C:
		case <-r.wake:
		}
	}
}

// Wait waits for the deliveries a pass started.
func (r *Runner) Wait() { r.wg.Wait() }

// Pass walks every stream once: observes it, gives its alerts, and starts
// the delivery of each one that has work and is not delivered elsewhere.
func (r *Runner) Pass(ctx context.Context) error {
	r.init()
	var after stream.Key
	seen := map[stream.Key]bool{}
	for {
		page, err := r.Streamer.Streams.StreamsAfter(ctx, after, 500)
		if err != nil {
			return err
		}
		for i := range page {
			seen[page[i].Key()] = true
			if err := r.consider(ctx, page[i]); err != nil {
				r.Log.Warn("streams: a stream's turn failed", "tenant", page[i].TenantID, "stream", page[i].ID, "err", err)
			}
		}
		if len(page) < 500 {
			if r.Metrics != nil {
				r.Metrics.Forget(seen)
			}
			return nil
		}
		after = page[len(page)-1].Key()
	}
}

func (r *Runner) init() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running == nil {
		r.running, r.waiting, r.behind = map[stream.Key]bool{}, map[stream.Key]waitState{}, map[stream.Key]time.Time{}
		r.wake = make(chan struct{}, 1)
	}
}

// consider observes st and starts its delivery when it has leaves or a
// parked range due, is active, not backing off, not held by another
// replica, and a worker is free.
func (r *Runner) consider(ctx context.Context, st stream.Stream) error {
	now := r.Streamer.Now()
	ls, err := r.Streamer.Log.LogState(ctx, st.TenantID)
	if err != nil {
		return err
	}
	size := uint64(ls.Size)
	lag := st.Lag(size, now)
	if r.Observed != nil {
		r.Observed(st, lag)
	}
	if r.Metrics != nil {
		r.Metrics.Observe(st, lag)
	}
	key := st.Key()
	r.mu.Lock()
	delivering := r.running[key] || st.LeaseOwner != "" && st.LeaseOwner != r.Owner && st.LeaseUntil.After(now)
	r.mu.Unlock()
	if !delivering { // a delivery in flight gives way to no write: its alert waits for a pass after it
		if err := r.alert(ctx, &st, now); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.running[key], st.State == stream.Paused, r.waiting[key].until.After(now), r.gathering(&st, size, now),
		st.LeaseOwner != "" && st.LeaseOwner != r.Owner && st.LeaseUntil.After(now),
		st.Cursor >= size && st.Health.BehindSince.IsZero() && r.Streamer.dueParked(&st) == nil,
		len(r.running) >= cmp.Or(r.Workers, DefaultWorkers):
		return nil
	}
	r.running[key] = true
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := r.deliver(ctx, st, size)
		r.mu.Lock()
		delete(r.running, key)
		r.mu.Unlock()
		select {
		case r.wake <- struct{}{}:
		default: // a pass is due already
		}
		if err != nil && ctx.Err() == nil && audit.ErrorCode(err) != audit.ECONFLICT {
			r.Log.Warn("streams: delivery stopped; retried next pass", "tenant", st.TenantID, "stream", st.ID, "err", err)
		}
	}()
	return nil
}

// DefaultS3Every is how long an S3 stream gathers leaves before it
// writes an object, unless it has audit.MaxEventIDs of them: each batch
// is an object and an entry of the hour's manifest, which is written
// again with each, so objects of a minute or of 1,000 leaves keep both in
// bounds.
const DefaultS3Every = time.Minute

// gathering reports whether st is a stream of a Gatherer (S3) that waits for more
// leaves before its next object (r.mu held).
func (r *Runner) gathering(st *stream.Stream, size uint64, now time.Time) bool {
	key := st.Key()
	if !r.Streamer.gathers(st.Destination.Kind) || st.Cursor >= size {
		delete(r.behind, key)
		return false
	}
	since := st.Health.BehindSince
	if since.IsZero() {
		if _, ok := r.behind[key]; !ok {
			r.behind[key] = now
		}
		since = r.behind[key]
	}
	return size-st.Cursor < audit.MaxEventIDs && now.Sub(since) < cmp.Or(r.S3Every, DefaultS3Every) && r.Streamer.dueParked(st) == nil
}

// alert gives st's alert when one is due, once: the write at st's
// revision decides which replica sends it. It is never given while st
// is being delivered (here, or under another replica's lease): the write
// would change st under the delivery in flight, whose cursor write would
// then conflict and send its batch again.
func (r *Runner) alert(ctx context.Context, st *stream.Stream, now time.Time) error {
	if r.Alert == nil {
		return nil
	}
	send, failing := st.Alert(now, r.AlertAfter)
	if !send {
		return nil
	}
	if err := r.Streamer.Streams.PutStream(ctx, st); err != nil {
		if audit.ErrorCode(err) == audit.ECONFLICT {
			return nil // another replica, or a delivery, wrote it: the next pass decides again
		}
		return err
	}
	return r.Alert(ctx, *st, failing)
}

// deliver runs a turn of st: it takes st's lease and steps it until it is
// idle, must wait, is paused, has used its budget with every worker busy
// (Budget), or ctx ends. Its writes
// within the turn (the claim, each batch's cursor and health) are saved
// as progress; its last write is a PutStream, which the lists show at
// once. Errors: the store's, ECONFLICT when st changed meanwhile.
func (r *Runner) deliver(ctx context.Context, st stream.Stream, size uint64) (err error) {
	s := r.Streamer
	if err := st.Claim(r.Owner, s.Now(), r.Lease); err != nil {
		return err
	}
	if err := s.Streams.SaveProgress(ctx, &st); err != nil {
		return err
	}
	published := false // the turn's last write was a PutStream
	defer func() {
		if err == nil && !published {
			err = s.Streams.PutStream(ctx, &st)
		}
	}()
	budget := cmp.Or(r.Budget, DefaultBudget)
	t := &turn{}
	defer t.drop()
	for i := 0; ctx.Err() == nil; i++ {
		now := s.Now()
		if err := st.Claim(r.Owner, now, r.Lease); err != nil { // renewed with the step's write
			return err
		}
		st.Behind(size, now)
		last := (i+1)%budget == 0 && r.full() // the turn gives way after this step
		t.put, t.readAhead = s.Streams.SaveProgress, !last
		if last {
			t.put = s.Streams.PutStream
		}
		res, err := s.step(ctx, &st, t)
		if err != nil {
			return err
		}
		published = last && res.Outcome != Idle // an idle step writes nothing
		if r.Metrics != nil {
			r.Metrics.Count(&st, res)
		}
		switch res.Outcome {
		case Idle:
			return nil
		case Retry:
			r.backOff(st.Key(), res.Wait)
			return nil
		case Refused:
			return nil
		case Accepted:
			r.clearBackoff(st.Key())
		}
		if last {
			return nil
		}
		if st.Cursor >= size {
			ls, err := s.Log.LogState(ctx, st.TenantID)
			if err != nil {
				return err
			}
			size = uint64(ls.Size)
		}
	}
	return nil
}

// full reports whether every worker is busy: a stream may be waiting for
// one.
func (r *Runner) full() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.running) >= cmp.Or(r.Workers, DefaultWorkers)
}

func (r *Runner) backOff(key stream.Key, wait time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.waiting[key]
	b.attempts++
	b.until = r.Streamer.Now().Add(retryWait(b.attempts, wait))
	r.waiting[key] = b
}

func (r *Runner) clearBackoff(key stream.Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.waiting, key)
}
