package stream

import (
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Health is what a stream's admins see of its delivery: counts,
// the last success and error, since when it fails, and since when it is
// behind the log. The delivery loop keeps it through the stream's state
// changes (Delivered, Failed, Refused, Park, Unpark, Behind).
type Health struct {
	// DeliveredEvents and DeliveredBatches count what the destination
	// accepted (a replay counts again); FailedAttempts counts the batches
	// it refused, rejected or failed.
	DeliveredEvents  int64 `json:"deliveredEvents"`
	DeliveredBatches int64 `json:"deliveredBatches"`
	FailedAttempts   int64 `json:"failedAttempts"`
	// LastSuccessAt is when the destination last accepted a batch;
	// LastErrorAt and LastError when and why it last did not.
	LastSuccessAt time.Time `json:"lastSuccessAt,omitzero"`
	LastErrorAt   time.Time `json:"lastErrorAt,omitzero"`
	LastError     string    `json:"lastError,omitempty"`
	// FailingSince is when the current run of failures began (zero while
	// batches go through): a stream failing for AlertAfter is
	// reported to the tenant's admins.
	FailingSince time.Time `json:"failingSince,omitzero"`
	// BehindSince is when the delivery loop first saw the log hold leaves
	// past the cursor (zero when caught up): the lag in seconds.
	BehindSince time.Time `json:"behindSince,omitzero"`
	// Alerted is when the admins were told the stream fails (zero when
	// not, or once told it recovered).
	Alerted time.Time `json:"alerted,omitzero"`
}

// AlertAfter is how long a stream fails before its tenant's admins
// are told (and told again when it recovers).
const AlertAfter = time.Hour

// failure records a failed attempt at now.
func (h *Health) failure(reason string, now time.Time) {
	h.FailedAttempts++
	h.LastErrorAt, h.LastError = now, reason
	if h.FailingSince.IsZero() {
		h.FailingSince = now
	}
}

// success records an accepted batch of n events at now; a stream with no
// range parked any more is failing no longer.
func (h *Health) success(n int, parked int, now time.Time) {
	h.DeliveredBatches++
	h.DeliveredEvents += int64(n)
	h.LastSuccessAt = now
	if parked == 0 {
		h.FailingSince = time.Time{}
	}
}

// Behind records whether s is behind a log of size leaves at now: it
// starts BehindSince when s's cursor is short of size, and clears it when
// not. It reports whether it changed anything (the loop then writes s).
func (s *Stream) Behind(size uint64, now time.Time) bool {
	h := &s.Health
	switch {
	case s.Cursor >= size && !h.BehindSince.IsZero():
		h.BehindSince = time.Time{}
		return true
	case s.Cursor < size && h.BehindSince.IsZero():
		h.BehindSince = now
		return true
	}
	return false
}

// Lag is how far a stream is behind its tenant's log: the leaves
// not delivered yet (whether or not its filter keeps their events), and
// for how long it has been behind.
type Lag struct {
	Events  uint64  `json:"events"`
	Seconds float64 `json:"seconds"`
}

// Lag is s's lag behind a log of size leaves at now.
func (s *Stream) Lag(size uint64, now time.Time) Lag {
	if s.Cursor >= size {
		return Lag{}
	}
	l := Lag{Events: size - s.Cursor}
	if since := s.Health.BehindSince; !since.IsZero() && now.After(since) {
		l.Seconds = now.Sub(since).Seconds()
	}
	return l
}

// Claim takes the delivery of s for owner until now+d, unless another
// owner holds it past now: then ECONFLICT naming the holder. A replica
// delivers only the streams it holds, so that one stream's batches go out
// in order from one place; a dead replica's streams are taken over when
// its leases end, from their stored cursors.
func (s *Stream) Claim(owner string, now time.Time, d time.Duration) error {
	if s.LeaseOwner != "" && s.LeaseOwner != owner && s.LeaseUntil.After(now) {
		return audit.Errorf(audit.ECONFLICT, "stream %s is delivered by %s until %s", s.ID, s.LeaseOwner, s.LeaseUntil.Format(time.RFC3339))
	}
	s.LeaseOwner, s.LeaseUntil = owner, now.Add(d)
	return nil
}

// Alert reports whether s's admins should now be told it fails (true,
// failing) or that it recovered (true, recovered): failing for after
// (AlertAfter when 0) and not told yet, or told and delivering
// again. It marks the alert as given; the caller writes s, then sends the
// mail.
func (s *Stream) Alert(now time.Time, after time.Duration) (send, failing bool) {
	h := &s.Health
	if after <= 0 {
		after = AlertAfter
	}
	switch {
	case h.Alerted.IsZero() && !h.FailingSince.IsZero() && now.Sub(h.FailingSince) >= after:
		h.Alerted = now
		return true, true
	case !h.Alerted.IsZero() && h.FailingSince.IsZero() && s.State != Paused:
		h.Alerted = time.Time{}
		return true, false
	}
	return false, false
}
