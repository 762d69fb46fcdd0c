// Package streaming delivers a tenant's stream (stream.Stream): it reads
// the tenant's verifiable log from the stream's cursor, applies the
// stream's filter through the store, sends the batch to the destination
// and moves the cursor only once the destination accepted it (issue 43).
// The state changes are the domain's (stream.Stream's methods); this
// package only runs them.
//
// It also owns what every destination shares: the Batch and its checks,
// the Outcome of an answer (Classify) and the Backoff, the one HTTP
// client (HTTPClient, public addresses only) and Do, which reads a
// bounded answer. Each destination is a package under it (webhook,
// splunk, datadog, sentinel, s3stream) implementing Destination.
package streaming

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// Destination sends one batch and says what the answer means; reason
// names a refusal or a failure (it is shown to the tenant's admins).
type Destination interface {
	Send(ctx context.Context, d stream.Destination, b Batch) (outcome Outcome, retryAfter time.Duration, reason string, err error)
}

// Streamer delivers streams.
type Streamer struct {
	Streams stream.Store
	Log     vlog.Store
	Events  audit.EventReader
	// Dest is the destination of a stream's kind (nil: not built).
	Dest func(kind string) Destination
	// BatchSize is how many leaves a batch covers at most (up to
	// audit.MaxEventIDs).
	BatchSize int
	Now       func() time.Time
	// Records, when set, takes the system records of what the service
	// does to a stream by itself (a pause on refused credentials,
	// stream.PauseRecord), written into the tenant's log and
	// accepted as any event of the service.
	Records audit.EventWriter
	// MaskKey is the deployment's secret the streams' hashes of masked
	// fields are keyed from (at least mask.MinKey bytes; each
	// stream's key is derived from it and the stream's id, and is never
	// sent). A stream that hashes a field is not delivered without it.
	MaskKey []byte
}

// Step delivers the next batch of st, if its log has leaves past the
// cursor, and writes st's new state back. It returns what it did and, on
// Retry, how long to wait. st is updated in place (its Rev too); an
// ECONFLICT means st changed meanwhile (an admin paused or replayed it):
// the caller reads it again, and the batch, if sent, is sent again from
// the stored cursor (at least once).
func (s *Streamer) Step(ctx context.Context, st *stream.Stream) (Result, error) {
	return s.step(ctx, st, &turn{put: s.Streams.PutStream})
}

// putFunc writes a stream: stream.Store's PutStream, or its SaveProgress
// within a Runner's turn.
type putFunc func(context.Context, *stream.Stream) error

// step is Step within t: st written back with t.put, its batch the one
// t read ahead if it starts at the cursor, the next one read ahead while
// it is sent if t says so (ahead.go).
func (s *Streamer) step(ctx context.Context, st *stream.Stream, t *turn) (Result, error) {
	put := t.put
	if st.State == stream.Paused {
		t.drop()
		return Result{Outcome: Idle}, nil
	}
	if p := s.dueParked(st); p != nil {
		t.drop()
		return s.retryParked(ctx, st, *p, put)
	}
	b, ok := t.take(st.Cursor)
	var err error
	if !ok {
		// None read ahead, or it found nothing yet: read now (an empty
		// read ahead would end the turn on leaves sealed while the batch
		// before was sent).
		b, err = s.read(ctx, st, st.Cursor, 0)
	}
	if err != nil || b.To == b.From {
		return Result{Outcome: Idle}, err
	}
	if err := b.Check(st.TenantID, st.Cursor); err != nil {
		return Result{}, err
	}
	if err := s.checkpoint(ctx, &b); err != nil {
		return Result{}, err
	}
	if t.readAhead {
		t.ahead = s.startAhead(ctx, *st, b.To)
	}
	outcome, wait, reason, err := s.send(ctx, st, b)
	if err != nil && outcome != Retry {
		return Result{}, err
	}
	now := s.Now()
	res := Result{Outcome: outcome, Events: len(b.Events), Wait: wait}
	was := st.State
	switch outcome {
	case Accepted:
		err = st.Delivered(b.To, len(b.Events), now)
	case Refused:
		st.Refused(reason, now)
	case Rejected:
		// The destination refuses this batch: newer events go on, the
		// range is retried apart.
		err = st.Park(b.From, b.To, reason, now.Add(retryWait(1, wait)), now)
	default: // a retryable answer, or none (err: the connection failed)
		st.Failed(reason, now)
		err = nil
	}
	if err != nil {
		return res, err
	}
	return res, s.save(ctx, st, was, now, put)
}

// save writes st back and, when this step paused it (refused
// credentials), records the pause in the tenant's log: after the write,
// so that a pause another writer's change undid (ECONFLICT) is not
// recorded. Errors: the store's, and the record writer's.
func (s *Streamer) save(ctx context.Context, st *stream.Stream, was string, now time.Time, put putFunc) error {
	if err := put(ctx, st); err != nil {
		return err
	}
	if s.Records == nil || was == stream.Paused || st.State != stream.Paused {
		return nil
	}
	res, err := s.Records.WriteEvents(ctx, []audit.Event{stream.PauseRecord(*st, was, now)})
	if err == nil && len(res) == 1 && res[0].Status != audit.WriteCreated && res[0].Status != audit.WriteDuplicate {
		err = audit.Errorf(audit.EINTERNAL, "the record of stream %s's pause was not stored: %s", st.ID, res[0].Reason)
	}
	return err
}

// checkpoint gives b the tenant's latest signed checkpoint, which covers
// its whole range (the log's leaves are read up to the last checkpoint
// only): a receiver proves the batch's events against it.
func (s *Streamer) checkpoint(ctx context.Context, b *Batch) error {
	ls, err := s.Log.LogState(ctx, b.TenantID)
	if err == nil && uint64(ls.Size) < b.To {
		err = audit.Errorf(audit.EINTERNAL, "the log of tenant %s holds %d leaves, a batch covers [%d, %d)", b.TenantID, ls.Size, b.From, b.To)
	}
	b.Checkpoint = ls.Checkpoint
	return err
}

// MaxBackoff bounds the wait between two attempts of a batch: a minute,
// so that a stream whose destination comes back after a long outage
// resumes within a minute (one attempt a minute costs the destination
// nothing), not after a wait that grew with the outage.
const MaxBackoff = time.Minute

// MaxRetryAfter bounds the wait a destination's Retry-After asks for:
// honoured up to 10 minutes (a longer one is taken as 10).
const MaxRetryAfter = 10 * time.Minute

// retryWait is the wait before attempt n of a batch: the destination's
// Retry-After when it gave one, else 1 s doubling to MaxBackoff.
func retryWait(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, MaxRetryAfter)
	}
	return Backoff(n, MaxBackoff)
}

// send gives b to the destination of st's kind.
func (s *Streamer) send(ctx context.Context, st *stream.Stream, b Batch) (Outcome, time.Duration, string, error) {
	dest := s.Dest(st.Destination.Kind)
	if dest == nil {
		return Rejected, 0, "", audit.Errorf(audit.ENOTSUPPORTED, "no %s destination in this build", st.Destination.Kind)
	}
	return dest.Send(ctx, st.Destination, b)
}

// dueParked is the first parked range of st whose retry is due.
func (s *Streamer) dueParked(st *stream.Stream) *stream.ParkedRange {
	now := s.Now()
	for i := range st.Parked {
		if !st.Parked[i].NextAt.After(now) {
			return &st.Parked[i]
		}
	}
	return nil
}

// retryParked sends a parked range again, read as it was (the same leaves,
// the stream's filter of now), and records the outcome: accepted, the
// range goes; refused, the stream pauses; else it waits longer.
func (s *Streamer) retryParked(ctx context.Context, st *stream.Stream, p stream.ParkedRange, put putFunc) (Result, error) {
	b, err := s.read(ctx, st, p.From, p.To)
	if err == nil {
		err = s.checkpoint(ctx, &b)
	}
	if err != nil {
		return Result{}, err
	}
	outcome, wait, reason, err := s.send(ctx, st, b)
	if err != nil && outcome != Retry {
		return Result{}, err
	}
	now := s.Now()
	was := st.State
	switch outcome {
	case Refused:
		st.Refused(reason, now)
	default:
		err = st.Unpark(p.From, outcome == Accepted, len(b.Events), reason, now.Add(retryWait(p.Attempts+1, wait)), now)
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Outcome: outcome, Events: len(b.Events), Wait: wait, Parked: true}, s.save(ctx, st, was, now, put)
}

// Result is what one Step did: its outcome, how many events the batch
// held, and the wait the destination asked for.
type Result struct {
	Outcome Outcome
	Events  int
	Wait    time.Duration
	// Parked says the batch was a parked range's retry.
	Parked bool
}
