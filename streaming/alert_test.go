package streaming_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
)

// TestAnAlertNeverMakesABatchGoAgain (issue 54): a stream that was failing
// and told its admins recovers; the recovery alert falls due while this
// replica has a batch in flight. The alert waits for the delivery (its
// write would have changed the stream under the in-flight step, whose
// cursor write then conflicted and sent the batch again); every leaf
// arrives once, and the recovery is told once.
func TestAnAlertNeverMakesABatchGoAgain(t *testing.T) {
	s, st, rc, _ := setup(t)
	ctx := context.Background()
	now := time.Now()
	st.State, st.Health.FailingSince, st.Health.Alerted = stream.Failing, now.Add(-2*time.Hour), now.Add(-time.Hour)
	if err := s.Streams.PutStream(ctx, st); err != nil {
		t.Fatal(err)
	}
	blocked, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	rc.answer = func(http.ResponseWriter) bool {
		if calls.Add(1) == 2 { // the second batch waits, in flight
			close(blocked)
			<-release
		}
		return false
	}
	var alerts []bool
	r := runner(s, "replica-a", time.Minute)
	r.Alert = func(_ context.Context, _ stream.Stream, failing bool) error {
		alerts = append(alerts, failing)
		return nil
	}
	if err := r.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-blocked:
	case <-time.After(30 * time.Second):
		t.Fatal("the second batch never went out")
	}
	// The first batch was accepted: the stream recovered, and a pass now
	// finds the recovery alert due while the second batch is in flight.
	if err := r.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	close(release)
	r.Wait()
	for range 30 {
		if err := r.Pass(ctx); err != nil {
			t.Fatal(err)
		}
		r.Wait()
	}
	seen := map[uint64]int{}
	for _, b := range rc.batches {
		for _, e := range b.Events {
			if seen[e.LeafIndex]++; seen[e.LeafIndex] > 1 {
				t.Fatalf("leaf %d sent again (%d batches in all)", e.LeafIndex, len(rc.batches))
			}
		}
	}
	stored, _ := s.Streams.Stream(ctx, st.TenantID, st.ID)
	ls, _ := s.Log.LogState(ctx, st.TenantID)
	if len(alerts) != 1 || alerts[0] || stored.Cursor != uint64(ls.Size) {
		t.Fatalf("alerts %v, cursor %d of %d", alerts, stored.Cursor, ls.Size)
	}
}
