package stream_test

import (
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// TestStreamHealthFollowsDeliveries: the counts, last success and error,
// the failing run, and the alerts a run of failures gives: one after an
// hour, one at recovery, none twice.
func TestStreamHealthFollowsDeliveries(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s := stream.Stream{ID: "s1", State: stream.Active}
	if err := s.Delivered(10, 7, t0); err != nil {
		t.Fatal(err)
	}
	s.Failed("503 from the destination", t0.Add(time.Minute))
	s.Failed("503 again", t0.Add(2*time.Minute))
	h := s.Health
	if h.DeliveredEvents != 7 || h.DeliveredBatches != 1 || h.FailedAttempts != 2 || !h.LastSuccessAt.Equal(t0) ||
		h.LastError != "503 again" || !h.LastErrorAt.Equal(t0.Add(2*time.Minute)) || !h.FailingSince.Equal(t0.Add(time.Minute)) {
		t.Fatalf("health after a success and two failures: %+v", h)
	}
	if send, _ := s.Alert(t0.Add(59*time.Minute), 0); send {
		t.Fatal("an alert before the stream failed for an hour")
	}
	if send, failing := s.Alert(t0.Add(61*time.Minute), 0); !send || !failing {
		t.Fatal("no alert after an hour of failures")
	}
	if send, _ := s.Alert(t0.Add(90*time.Minute), 0); send {
		t.Fatal("a second failing alert")
	}
	if err := s.Delivered(20, 3, t0.Add(91*time.Minute)); err != nil || !s.Health.FailingSince.IsZero() || s.State != stream.Active {
		t.Fatalf("a success after failures: %v %+v", err, s)
	}
	if send, failing := s.Alert(t0.Add(92*time.Minute), 0); !send || failing {
		t.Fatal("no recovery alert")
	}
	if send, _ := s.Alert(t0.Add(93*time.Minute), 0); send {
		t.Fatal("a second recovery alert")
	}
	s.Refused("401 from the destination", t0.Add(94*time.Minute))
	if s.State != stream.Paused || s.Reason != "401 from the destination" || s.Health.FailedAttempts != 3 {
		t.Fatalf("refused: %+v", s)
	}
}

// TestStreamParkedFailuresKeepFailing: newer batches going through do not
// end the failing run while a range stays parked; its acceptance does.
func TestStreamParkedFailuresKeepFailing(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s := stream.Stream{ID: "s1", State: stream.Active}
	if err := s.Park(0, 5, "400 too large", t0.Add(time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	if err := s.Delivered(9, 4, t0.Add(time.Second)); err != nil || !s.Health.FailingSince.Equal(t0) {
		t.Fatalf("a newer batch with a range parked: %v, failing since %v", err, s.Health.FailingSince)
	}
	if err := s.Unpark(0, true, 5, "", t0, t0.Add(2*time.Minute)); err != nil || !s.Health.FailingSince.IsZero() || s.Health.DeliveredEvents != 9 {
		t.Fatalf("the parked range accepted: %v %+v", err, s.Health)
	}
}

// TestStreamLagAndLease: the lag counts leaves and the time since the
// loop saw the stream fall behind; a lease held by another replica is
// refused until it ends.
func TestStreamLagAndLease(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s := stream.Stream{ID: "s1", State: stream.Active, Cursor: 10}
	if s.Behind(10, t0) || s.Lag(10, t0) != (stream.Lag{}) {
		t.Fatal("a caught-up stream is behind")
	}
	if !s.Behind(15, t0) || s.Behind(20, t0.Add(time.Second)) {
		t.Fatal("Behind should change once")
	}
	if l := s.Lag(20, t0.Add(30*time.Second)); l.Events != 10 || l.Seconds != 30 {
		t.Fatalf("lag %+v, want 10 events, 30 s", l)
	}
	if err := s.Delivered(20, 10, t0); err != nil || !s.Behind(20, t0) || !s.Health.BehindSince.IsZero() {
		t.Fatal("caught up: BehindSince should clear")
	}
	if err := s.Claim("a", t0, 30*time.Second); err != nil || s.LeaseOwner != "a" {
		t.Fatal(err)
	}
	if err := s.Claim("b", t0.Add(29*time.Second), 30*time.Second); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("b took a's lease: %v", err)
	}
	if err := s.Claim("a", t0.Add(29*time.Second), 30*time.Second); err != nil || !s.LeaseUntil.Equal(t0.Add(59*time.Second)) {
		t.Fatalf("a renews: %v %v", err, s.LeaseUntil)
	}
	if err := s.Claim("b", t0.Add(60*time.Second), 30*time.Second); err != nil || s.LeaseOwner != "b" {
		t.Fatalf("b after a's lease ended: %v", err)
	}
}
