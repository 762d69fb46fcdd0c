package stream

import (
	"fmt"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// A stream's state changes, each a rule of the domain: transports and the
// delivery loop call these, never set State or Cursor themselves.

// Pause stops s: an admin's pause, or a destination that refused the
// credentials (reason says which and why). Errors: ECONFLICT when s is
// paused already.
func (s *Stream) Pause(reason string, now time.Time) error {
	if s.State == Paused {
		return audit.Errorf(audit.ECONFLICT, "the stream is paused already")
	}
	s.State, s.Reason, s.UpdatedAt = Paused, reason, now
	return nil
}

// Resume starts a paused s again from its cursor. Errors: ECONFLICT when
// s is not paused.
func (s *Stream) Resume(now time.Time) error {
	if s.State != Paused {
		return audit.Errorf(audit.ECONFLICT, "the stream is %s, not paused", s.State)
	}
	s.State, s.Reason, s.UpdatedAt = Active, "", now
	return nil
}

// Failed records that the latest attempt failed for a reason the delivery
// retries (429, 5xx, a timeout): s keeps delivering, and says so. A
// paused s stays paused.
func (s *Stream) Failed(reason string, now time.Time) {
	s.Health.failure(reason, now)
	if s.State == Paused {
		return
	}
	s.State, s.Reason, s.UpdatedAt = Failing, reason, now
}

// Refused records that the destination refused the credentials (401,
// 403): s pauses with the reason, until an admin resumes it.
func (s *Stream) Refused(reason string, now time.Time) {
	s.Health.failure(reason, now)
	if s.State != Paused {
		s.State, s.Reason, s.UpdatedAt = Paused, reason, now
	}
}

// Delivered moves s's cursor to next, the leaf index after the last one
// the destination accepted in a batch of events events, and ends a
// failing state unless ranges are still parked. Errors: ECONFLICT when
// next is not after the cursor (only Replay moves it back).
func (s *Stream) Delivered(next uint64, events int, now time.Time) error {
	if next <= s.Cursor {
		return audit.Errorf(audit.ECONFLICT, "the stream's cursor is %d; a delivery moves it forward only", s.Cursor)
	}
	s.Cursor, s.UpdatedAt = next, now
	s.Health.success(events, len(s.Parked), now)
	switch {
	case s.State != Failing:
	case len(s.Parked) == 0:
		s.State, s.Reason = Active, ""
	default:
		s.Reason = fmt.Sprintf("%d ranges rejected by the destination, retried apart; the first: %s", len(s.Parked), s.Parked[0].Reason)
	}
	return nil
}

// Park records that the destination rejected the range [from, to) at
// the cursor: the cursor moves past it and the range is retried apart at
// next. With MaxParked ranges parked already, s pauses instead (the
// cursor stays), since its destination needs its admin. Errors: ECONFLICT
// when from is not the cursor.
func (s *Stream) Park(from, to uint64, reason string, next, now time.Time) error {
	if from != s.Cursor || to <= from {
		return audit.Errorf(audit.ECONFLICT, "the stream's cursor is %d; a range parked from %d", s.Cursor, from)
	}
	if len(s.Parked) >= MaxParked {
		return s.Pause(fmt.Sprintf("%d ranges rejected by the destination; the latest: %s", len(s.Parked), reason), now)
	}
	s.Health.failure(reason, now)
	s.Parked = append(s.Parked, ParkedRange{From: from, To: to, Reason: reason, Attempts: 1, NextAt: next})
	s.Cursor, s.State, s.Reason, s.UpdatedAt = to, Failing, reason, now
	return nil
}

// Unpark records the outcome of a parked range's retry: accepted, it
// leaves the list (and a failing s whose last parked range went is
// active again); else it is tried again at next. Errors: ENOTFOUND when
// no parked range starts at from.
func (s *Stream) Unpark(from uint64, accepted bool, events int, reason string, next, now time.Time) error {
	i := slices.IndexFunc(s.Parked, func(p ParkedRange) bool { return p.From == from })
	if i < 0 {
		return audit.Errorf(audit.ENOTFOUND, "no parked range from %d", from)
	}
	s.UpdatedAt = now
	if !accepted {
		s.Health.failure(reason, now)
		p := &s.Parked[i]
		p.Attempts, p.Reason, p.NextAt = p.Attempts+1, reason, next
		return nil
	}
	s.Parked = slices.Delete(s.Parked, i, i+1)
	s.Health.success(events, len(s.Parked), now)
	if len(s.Parked) == 0 && s.State == Failing {
		s.State, s.Reason = Active, ""
	}
	return nil
}

// Replay moves s's cursor back to from, so that the events from that leaf
// index on are delivered again (a receiver deduplicates by index).
// Errors: EINVALID when from is after the cursor (nothing there was
// delivered yet).
func (s *Stream) Replay(from uint64, now time.Time) error {
	if from > s.Cursor {
		return &audit.Error{Code: audit.EINVALID, Message: "invalid replay", Fields: []audit.FieldError{{Field: "from",
			Message: fmt.Sprintf("is after what the stream delivered (its cursor is %d): a replay goes back", s.Cursor)}}}
	}
	s.Cursor, s.UpdatedAt = from, now
	return nil
}
