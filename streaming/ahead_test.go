package streaming_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
	"github.com/auditlog/auditlog/audit/vlog"
	"github.com/auditlog/auditlog/streaming"
)

// leafReads records where each read of a log's leaves started.
type leafReads struct {
	vlog.Store
	mu    sync.Mutex
	from  []int64
	moved chan struct{}
}

func (l *leafReads) Leaves(ctx context.Context, tenant string, start int64, n int) ([]vlog.Leaf, error) {
	l.mu.Lock()
	l.from = append(l.from, start)
	l.mu.Unlock()
	select {
	case l.moved <- struct{}{}:
	default:
	}
	return l.Store.Leaves(ctx, tenant, start, n)
}

func (l *leafReads) started(from uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.from {
		if f == int64(from) {
			return true
		}
	}
	return false
}

// waiting is a destination that, before sending a batch, waits (up to
// two seconds) for a read of the log's leaves from the batch's end: the
// next batch read while this one is being sent.
type waiting struct {
	streaming.Destination
	log  *leafReads
	mu   sync.Mutex
	seen []bool
}

func (w *waiting) Send(ctx context.Context, d stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	deadline := time.After(2 * time.Second)
	seen := w.log.started(b.To)
	for !seen {
		select {
		case <-w.log.moved:
			seen = w.log.started(b.To)
		case <-deadline:
			seen = w.log.started(b.To)
			goto send
		}
	}
send:
	w.mu.Lock()
	w.seen = append(w.seen, seen)
	w.mu.Unlock()
	return w.Destination.Send(ctx, d, b)
}

// TestATurnReadsTheNextBatchWhileOneIsSent: within a runner's turn of
// three batches, the second and third batches' leaves are read while
// the batch before is being sent, and not the one after the turn's last
// (the next turn reads its own); every leaf arrives once, in order.
func TestATurnReadsTheNextBatchWhileOneIsSent(t *testing.T) {
	s, st, rc, _ := setup(t)
	log := &leafReads{Store: s.Log, moved: make(chan struct{}, 1)}
	s.Log = log
	dest := s.Dest
	w := &waiting{Destination: dest(st.Destination.Kind), log: log}
	s.Dest = func(kind string) streaming.Destination {
		if kind == st.Destination.Kind {
			return w
		}
		return dest(kind)
	}
	r := runner(s, "replica-a", 0) // Budget 3
	r.Workers = 1                  // its one worker busy: the turn ends after three batches
	if err := r.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Wait()
	if len(rc.batches) != 3 || len(w.seen) != 3 || !w.seen[0] || !w.seen[1] || w.seen[2] {
		t.Fatalf("%d batches; the next batch read while one was sent: %v, want [true true false]", len(rc.batches), w.seen)
	}
	for i := 1; i < 3; i++ {
		if rc.batches[i].From != rc.batches[i-1].To {
			t.Fatalf("batch %d covers [%d, %d), the one before ended at %d", i, rc.batches[i].From, rc.batches[i].To, rc.batches[i-1].To)
		}
	}
	if rc.batches[0].From != 0 || st.Cursor != 0 {
		t.Fatalf("the first batch starts at %d", rc.batches[0].From)
	}
}
