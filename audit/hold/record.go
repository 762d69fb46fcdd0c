package hold

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// record is the event that writes one step of a hold into its tenant's
// log: the hold before (nil when placed) and after, by p. Its id derives
// from the step (a write retried records it once).
func record(p audit.Principal, action audit.Action, before, after *Hold, now time.Time, reason string) audit.Event {
	now = now.Truncate(time.Millisecond)
	e := audit.Event{Timestamp: audit.NewTimestamp(now), TenantID: after.TenantID,
		Actor: audit.Actor{ID: p.UserID, Email: p.Email, Role: p.Role}, Action: action,
		Resource: audit.Resource{Type: ResourceType, ID: after.ID}, Category: audit.CategoryConfiguration, Outcome: audit.OutcomeSuccess,
		Reason: reason} // a matter of at most MaxMatterBytes: far below audit.MaxReasonBytes
	if before != nil {
		e.Before, _ = json.Marshal(before)
	}
	e.After, _ = json.Marshal(after)
	e.ID = audit.DeriveID(e.Timestamp, append([]byte("hold:"+after.ID+":"+string(action)+":"), e.After...))
	return e
}

// Of reads the hold a record leaves (ok false for any other event).
func Of(e *audit.Event) (Hold, bool) {
	if e.Resource.Type != ResourceType || len(e.After) == 0 {
		return Hold{}, false
	}
	var h Hold
	if json.Unmarshal(e.After, &h) != nil || h.ID != e.Resource.ID || h.TenantID != e.TenantID {
		return Hold{}, false
	}
	return h, true
}

// Fold returns the holds a tenant's records leave, in the order they were
// placed: each record (in the order the service accepted them, each the
// service's own: the caller checked each with vlog.Acceptor.Authentic)
// replaces its hold. A record of no hold is skipped.
func Fold(records []audit.Event) []Hold {
	var order []string
	last := map[string]Hold{}
	for i := range records {
		h, ok := Of(&records[i])
		if !ok {
			continue
		}
		if _, seen := last[h.ID]; !seen {
			order = append(order, h.ID)
		}
		last[h.ID] = h
	}
	out := make([]Hold, 0, len(order))
	for _, id := range order {
		out = append(out, last[id])
	}
	return out
}

// InForce returns the holds of hs that keep their events at now.
func InForce(hs []Hold, now time.Time) []Hold {
	return slices.DeleteFunc(slices.Clone(hs), func(h Hold) bool { return !h.InForce(now) })
}

// IDs returns the ids of hs, in order: what a retention record names
// (retention.Deletion.Holds).
func IDs(hs []Hold) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}
