package streaming_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/streaming"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// runner is a replica's Runner over s's store and destinations.
func runner(s *streaming.Streamer, owner string, lease time.Duration) *streaming.Runner {
	return &streaming.Runner{Streamer: s, Owner: owner, Lease: lease, Workers: 4, Budget: 3, Log: slog.New(slog.DiscardHandler)}
}

// TestRunnerSharesStreamsByLease: two replicas pass over one store; only
// the lease holder delivers, one batch at a time; when it dies (its
// context ends, its lease stays) the other takes the stream over once
// the lease ends, from the stored cursor: every leaf arrives, in order,
// any repeat is a leaf index seen before, and the lag ends at 0.
func TestRunnerSharesStreamsByLease(t *testing.T) {
	s, st, rc, d := setup(t)
	var inFlight, overlap atomic.Int32
	rc.answer = func(http.ResponseWriter) bool {
		if inFlight.Add(1) > 1 {
			overlap.Add(1)
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		return false
	}
	ctxA, dieA := context.WithCancel(context.Background())
	a, b := runner(s, "replica-a", time.Hour), runner(s, "replica-b", time.Hour)
	a.Workers = 1 // its one worker busy: a's turn gives way after its budget
	if err := a.Pass(ctxA); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	if err := b.Pass(context.Background()); err != nil { // a holds the lease: b leaves the stream alone
		t.Fatal(err)
	}
	b.Wait()
	dieA()
	stored, err := s.Streams.Stream(context.Background(), st.TenantID, st.ID)
	if err != nil || stored.LeaseOwner != "replica-a" || stored.Cursor == 0 {
		t.Fatalf("after a's first pass: lease %q, cursor %d, %v", stored.LeaseOwner, stored.Cursor, err)
	}
	ls, _ := s.Log.LogState(context.Background(), d.A)
	if stored.Cursor >= uint64(ls.Size) {
		t.Fatalf("the budget should stop a's pass short of the log's %d leaves; cursor %d", ls.Size, stored.Cursor)
	}
	clk := &clock{}
	s.Now = clk.Now
	clk.Add(2 * time.Hour) // a's lease ends
	var lag stream.Lag
	b.Observed = func(_ stream.Stream, l stream.Lag) { lag = l }
	for i := 0; i < 100; i++ {
		if err := b.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		b.Wait()
		if stored, _ = s.Streams.Stream(context.Background(), st.TenantID, st.ID); stored.Cursor == uint64(ls.Size) && stored.Health.BehindSince.IsZero() {
			break
		}
	}
	_ = b.Pass(context.Background())
	b.Wait()
	if stored.Cursor != uint64(ls.Size) || stored.LeaseOwner != "replica-b" || lag != (stream.Lag{}) || overlap.Load() != 0 {
		t.Fatalf("b: cursor %d of %d, lease %q, lag %+v, %d overlapping requests", stored.Cursor, ls.Size, stored.LeaseOwner, lag, overlap.Load())
	}
	next := uint64(0)
	for _, bt := range rc.batches {
		if bt.From != next || bt.Checkpoint == "" {
			t.Fatalf("a batch [%d, %d) after %d (checkpoint %q)", bt.From, bt.To, next, bt.Checkpoint)
		}
		next = bt.To
	}
	if h := stored.Health; h.DeliveredBatches != int64(len(rc.batches)) || h.LastSuccessAt.IsZero() {
		t.Fatalf("health %+v after %d batches", h, len(rc.batches))
	}
}

// TestRunnerBacksOffAndAlerts: a destination answering 503 is not called
// again before its backoff; after an hour of failures the admins are told
// once, and once again when it recovers.
func TestRunnerBacksOffAndAlerts(t *testing.T) {
	s, st, rc, _ := setup(t)
	clk := &clock{}
	s.Now = clk.Now
	var calls atomic.Int32
	failing := atomic.Bool{}
	failing.Store(true)
	rc.answer = func(w http.ResponseWriter) bool {
		calls.Add(1)
		if failing.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	var alerts []bool
	r := runner(s, "replica-a", time.Minute)
	r.Alert = func(_ context.Context, got stream.Stream, f bool) error {
		if got.ID != st.ID {
			t.Errorf("an alert for %s", got.ID)
		}
		alerts = append(alerts, f)
		return nil
	}
	pass := func() {
		t.Helper()
		if err := r.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.Wait()
	}
	pass()
	pass() // inside the backoff: no call
	if calls.Load() != 1 {
		t.Fatalf("%d calls during the backoff, want 1", calls.Load())
	}
	clk.Add(2 * time.Second)
	pass()
	if calls.Load() != 2 {
		t.Fatalf("%d calls after the backoff, want 2", calls.Load())
	}
	clk.Add(61 * time.Minute)
	pass()
	pass()
	failing.Store(false)
	clk.Add(10 * time.Minute)
	for range 20 {
		pass()
	}
	stored, _ := s.Streams.Stream(context.Background(), st.TenantID, st.ID)
	if len(alerts) != 2 || !alerts[0] || alerts[1] || stored.State != stream.Active || stored.Health.FailedAttempts < 3 {
		t.Fatalf("alerts %v, stream %s, %d failed attempts", alerts, stored.State, stored.Health.FailedAttempts)
	}
}
