// Package streaming delivers a tenant's stream (audit.Stream): it reads
// the tenant's verifiable log from the stream's cursor, applies the
// stream's filter through the store, sends the batch to the destination
// and moves the cursor only once the destination accepted it (issue 43).
// The state changes are the domain's (audit.Stream's methods); this
// package only runs them.
package streaming

import (
	"context"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/webhook"
)

// Destination sends one batch and says what the answer means; reason
// names a refusal or a failure (it is shown to the tenant's admins).
type Destination interface {
	Send(ctx context.Context, d audit.StreamDestination, b webhook.Batch) (outcome webhook.Outcome, retryAfter time.Duration, reason string, err error)
}

// Streamer delivers streams.
type Streamer struct {
	Streams audit.StreamStore
	Log     audit.LogStore
	Events  audit.EventReader
	// Dest is the destination of a stream's kind (nil: not built).
	Dest func(kind string) Destination
	// BatchSize is how many leaves a batch covers at most (up to
	// audit.MaxEventIDs).
	BatchSize int
	Now       func() time.Time
}

// Step delivers the next batch of st, if its log has leaves past the
// cursor, and writes st's new state back. It returns what it did and, on
// Retry, how long to wait. st is updated in place (its Rev too); an
// ECONFLICT means st changed meanwhile (an admin paused or replayed it):
// the caller reads it again, and the batch, if sent, is sent again from
// the stored cursor (at least once).
func (s *Streamer) Step(ctx context.Context, st *audit.Stream) (Result, error) {
	if st.State == audit.StreamPaused {
		return Result{Outcome: Idle}, nil
	}
	b, err := s.read(ctx, st)
	if err != nil || b.To == b.From {
		return Result{Outcome: Idle}, err
	}
	if err := b.Check(st.TenantID, st.Cursor); err != nil {
		return Result{}, err
	}
	dest := s.Dest(st.Destination.Kind)
	if dest == nil {
		return Result{}, audit.Errorf(audit.ENOTSUPPORTED, "no %s destination in this build", st.Destination.Kind)
	}
	outcome, wait, reason, _ := dest.Send(ctx, st.Destination, b)
	now := s.Now()
	res := Result{Outcome: Outcome(outcome), Events: len(b.Events), Wait: wait}
	switch outcome {
	case webhook.Accepted:
		if err := st.Delivered(b.To, now); err != nil {
			return res, err
		}
	case webhook.Refused:
		if err := st.Pause(reason, now); err != nil {
			return res, err
		}
	default:
		// Retry and Rejected alike, for now: the range is retried with
		// backoff, the stream failing meanwhile. Parking a rejected range
		// apart, so that newer events go on, is still to be built.
		st.Failed(reason, now)
	}
	return res, s.Streams.PutStream(ctx, st)
}

// Outcome is what one Step did.
type Outcome int

// The outcomes of a step: the webhook package's, and Idle.
const (
	Accepted = Outcome(webhook.Accepted)
	Retry    = Outcome(webhook.Retry)
	Refused  = Outcome(webhook.Refused)
	Rejected = Outcome(webhook.Rejected)
	Idle     = Outcome(-1) // nothing to deliver: the cursor is at the log's last checkpoint, or the stream is paused
)

// Result is what one Step did: its outcome, how many events the batch
// held, and the wait the destination asked for.
type Result struct {
	Outcome Outcome
	Events  int
	Wait    time.Duration
}
