package streaming

import (
	"context"

	"github.com/auditlog/auditlog/audit/stream"
)

// A runner's turn sends up to its budget of batches of one stream, one
// after another: each step read its batch (the log's leaves, the events
// from the store, encoded), then sent it, then saved the cursor. Read
// one after the other, a stream's batches took the sum of the two: the
// largest tenant's stream, which a catch-up waits for last, held each
// batch for its read while the destination was idle and for its send
// while the store was. Within a turn, a step now reads the next batch
// while its own is sent (ahead): the turn's next step takes it when the
// cursor moved to where it starts (the batch was accepted), and any
// other step, or the turn's end, drops it. One batch read ahead a
// stream at most, and only within a turn: the stream's state the read
// used (its filter, format and masks) cannot change under it without
// the turn's next write failing with ECONFLICT.

// turn is what one step of a runner's turn hands the next.
type turn struct {
	put putFunc
	// readAhead: read the batch after this step's while it is sent.
	readAhead bool
	ahead     *ahead
}

// ahead is a batch being read ahead, from leaf index from.
type ahead struct {
	from   uint64
	cancel context.CancelFunc
	done   chan struct{}
	b      Batch
	err    error
}

// startAhead starts reading st's batch from leaf index from (st a copy:
// the step goes on changing its own).
func (s *Streamer) startAhead(ctx context.Context, st stream.Stream, from uint64) *ahead {
	ctx, cancel := context.WithCancel(ctx)
	a := &ahead{from: from, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.b, a.err = s.read(ctx, &st, from, 0)
	}()
	return a
}

// take is the batch read ahead from leaf index from, ok false when none
// was, or its read failed or found no leaf yet (the step reads again:
// the log may have grown since). Any other read ahead is dropped.
func (t *turn) take(from uint64) (b Batch, ok bool) {
	a := t.ahead
	if a == nil || a.from != from {
		t.drop()
		return Batch{}, false
	}
	<-a.done
	a.cancel()
	t.ahead = nil
	return a.b, a.err == nil && a.b.To > a.b.From
}

// drop stops the read ahead, if any, and waits for it.
func (t *turn) drop() {
	if a := t.ahead; a != nil {
		a.cancel()
		<-a.done
		t.ahead = nil
	}
}
