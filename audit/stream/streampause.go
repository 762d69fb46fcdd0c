package stream

import (
	"encoding/json"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// streamStateDetails is a stream pause record's before and after.
type streamStateDetails struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// PauseRecord is the system event that records in the tenant's log
// that the service paused one of its streams by itself: the destination
// refused the stream's credentials (401, 403), and retrying cannot help
// until an admin fixes them and resumes it. An admin's pause, resume or
// replay is recorded by the API as the admin's; this one has no admin, so
// the service records it as SystemActor (issue 54: it went unrecorded).
// st is the stream as paused; was its state before. Its id derives from
// the stream and the time, so a write retried records it once.
func PauseRecord(st Stream, was string, now time.Time) audit.Event {
	before, _ := json.Marshal(streamStateDetails{State: was})
	after, _ := json.Marshal(streamStateDetails{State: st.State, Reason: st.Reason})
	now = now.Truncate(time.Millisecond)
	e := audit.Event{Timestamp: audit.NewTimestamp(now), TenantID: st.TenantID, Actor: audit.SystemActor, Action: audit.ActionUpdate,
		Resource: audit.Resource{Type: audit.ResourceAuditStream, ID: st.ID}, Category: audit.CategoryConfiguration, Outcome: audit.OutcomeSuccess,
		Reason: "stream " + st.Name + " paused by the service: " + st.Reason,
		Before: before, After: after}
	e.ID = audit.DeriveID(e.Timestamp, []byte("stream-paused:"+st.TenantID+":"+st.ID))
	return e
}
