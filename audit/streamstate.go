package audit

import (
	"fmt"
	"time"
)

// A stream's state changes, each a rule of the domain: transports and the
// delivery loop call these, never set State or Cursor themselves.

// Pause stops s: an admin's pause, or a destination that refused the
// credentials (reason says which and why). Errors: ECONFLICT when s is
// paused already.
func (s *Stream) Pause(reason string, now time.Time) error {
	if s.State == StreamPaused {
		return Errorf(ECONFLICT, "the stream is paused already")
	}
	s.State, s.Reason, s.UpdatedAt = StreamPaused, reason, now
	return nil
}

// Resume starts a paused s again from its cursor. Errors: ECONFLICT when
// s is not paused.
func (s *Stream) Resume(now time.Time) error {
	if s.State != StreamPaused {
		return Errorf(ECONFLICT, "the stream is %s, not paused", s.State)
	}
	s.State, s.Reason, s.UpdatedAt = StreamActive, "", now
	return nil
}

// Failed records that the latest attempt failed for a reason the delivery
// retries (429, 5xx, a timeout): s keeps delivering, and says so. A
// paused s stays paused.
func (s *Stream) Failed(reason string, now time.Time) {
	if s.State == StreamPaused {
		return
	}
	s.State, s.Reason, s.UpdatedAt = StreamFailing, reason, now
}

// Delivered moves s's cursor to next, the leaf index after the last one
// the destination accepted, and ends a failing state. Errors: ECONFLICT
// when next is not after the cursor (only Replay moves it back).
func (s *Stream) Delivered(next uint64, now time.Time) error {
	if next <= s.Cursor {
		return Errorf(ECONFLICT, "the stream's cursor is %d; a delivery moves it forward only", s.Cursor)
	}
	s.Cursor, s.UpdatedAt = next, now
	if s.State == StreamFailing {
		s.State, s.Reason = StreamActive, ""
	}
	return nil
}

// Replay moves s's cursor back to from, so that the events from that leaf
// index on are delivered again (a receiver deduplicates by index).
// Errors: EINVALID when from is after the cursor (nothing there was
// delivered yet).
func (s *Stream) Replay(from uint64, now time.Time) error {
	if from > s.Cursor {
		return &Error{Code: EINVALID, Message: "invalid replay", Fields: []FieldError{{Field: "from",
			Message: fmt.Sprintf("is after what the stream delivered (its cursor is %d): a replay goes back", s.Cursor)}}}
	}
	s.Cursor, s.UpdatedAt = from, now
	return nil
}
