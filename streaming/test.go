package streaming

import (
	"context"
	"encoding/json"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
)

// TestEvent is the one event of a test delivery: it says what it is, and
// carries the tenant and stream, no log position (it is not in the log).
type TestEvent struct {
	Test      bool      `json:"test"`
	Timestamp time.Time `json:"timestamp"`
	TenantID  string    `json:"tenantId"`
	StreamID  string    `json:"streamId"`
	Message   string    `json:"message"`
}

// Test sends a test delivery to st's destination: a batch marked Test,
// with no range (From = To = the cursor) and one TestEvent. It says what
// the destination's answer means and why; st does not change.
func (s *Streamer) Test(ctx context.Context, st stream.Stream) (outcome, reason string) {
	now := s.Now().UTC()
	raw, _ := json.Marshal(TestEvent{Test: true, Timestamp: now, TenantID: st.TenantID, StreamID: st.ID,
		Message: "a test delivery of stream " + st.Name + ": not an event of the audit log"})
	b := Batch{TenantID: st.TenantID, StreamID: st.ID, Format: st.Format, From: st.Cursor, To: st.Cursor, Test: true,
		Events: []Entry{{LeafIndex: st.Cursor, Event: raw}}}
	o, _, reason, err := s.send(ctx, &st, b)
	if err != nil && reason == "" {
		reason = audit.ErrorMessage(err)
	}
	return o.String(), reason
}
