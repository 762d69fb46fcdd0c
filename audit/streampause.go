package audit

import (
	"encoding/json"
	"time"
)

// streamStateDetails is a stream pause record's before and after.
type streamStateDetails struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// StreamPauseRecord is the system event that records in the tenant's log
// that the service paused one of its streams by itself: the destination
// refused the stream's credentials (401, 403), and retrying cannot help
// until an admin fixes them and resumes it. An admin's pause, resume or
// replay is recorded by the API as the admin's; this one has no admin, so
// the service records it as SystemActor (issue 54: it went unrecorded).
// st is the stream as paused; was its state before. Its id derives from
// the stream and the time, so a write retried records it once.
func StreamPauseRecord(st Stream, was string, now time.Time) Event {
	before, _ := json.Marshal(streamStateDetails{State: was})
	after, _ := json.Marshal(streamStateDetails{State: st.State, Reason: st.Reason})
	now = now.Truncate(time.Millisecond)
	e := Event{Timestamp: NewTimestamp(now), TenantID: st.TenantID, Actor: SystemActor, Action: ActionUpdate,
		Resource: Resource{Type: ResourceAuditStream, ID: st.ID}, Category: CategoryConfiguration, Outcome: OutcomeSuccess,
		Reason: "stream " + st.Name + " paused by the service: " + st.Reason,
		Before: before, After: after}
	e.ID = DeriveID(e.Timestamp, []byte("stream-paused:"+st.TenantID+":"+st.ID))
	return e
}
