package history

import (
	"encoding/json"
	"sort"

	"github.com/auditlog/auditlog/audit"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// Actions are the actions that make a version of a resource: reads
// (access) are not versions.
var Actions = []audit.Action{audit.ActionCreate, audit.ActionUpdate, audit.ActionDelete}

// Filter selects a resource's versions in a tenant: every change
// event of that type and id, whichever deletions and re-creations came
// between (a resource keeps one history).
func Filter(tenant, resourceType, resourceID string) audit.Filter {
	f := audit.Filter{TenantID: tenant, ResourceTypes: []string{resourceType}, ResourceID: resourceID, Actions: Actions}
	f.Normalize()
	return f
}

// Entry is one version of a resource as the history lists it.
type Entry struct {
	EventID       string          `json:"eventId"`
	Timestamp     audit.Timestamp `json:"timestamp"`
	Actor         audit.Actor     `json:"actor"`
	Action        audit.Action    `json:"action"`
	ChangedFields []string        `json:"changedFields"`
	// HasState tells whether the event carries the complete state after
	// the change (what compare and restore need).
	HasState bool `json:"hasState"`
	// RestoredFrom is the restore request this version applied, if any.
	RestoredFrom string `json:"restoredFrom,omitempty"`
	// Outcome is failure for an owner's refusal of a restore request.
	Outcome audit.Outcome `json:"outcome,omitempty"`
}

// NewEntry is e as a history entry.
func NewEntry(e *audit.Event) Entry {
	fields := e.ChangedFields()
	if fields == nil {
		fields = []string{}
	}
	return Entry{EventID: e.ID, Timestamp: e.Timestamp, Actor: e.Actor, Action: e.Action, ChangedFields: fields,
		HasState: len(e.After) > 0 || e.Action == audit.ActionDelete, RestoredFrom: e.RestoredFrom, Outcome: e.Outcome}
}

// The kinds of a compared field.
const (
	FieldAdded   = "added"
	FieldRemoved = "removed"
	FieldChanged = "changed"
)

// FieldComparison is one path that differs between two states, in the
// shape a side-by-side view renders: null stands for "absent".
type FieldComparison struct {
	Path   string          `json:"path"`
	Base   json.RawMessage `json:"base"`
	Target json.RawMessage `json:"target"`
	Change string          `json:"change"`
}

// Comparison is the field-by-field difference of two versions.
type Comparison struct {
	Base   Entry             `json:"base"`
	Target Entry             `json:"target"`
	Fields []FieldComparison `json:"fields"`
}

// State is the complete state of the resource right after e: its after,
// or the empty object after a deletion. It returns EINVALID when e
// carries no complete state (a change recorded with a diff only).
func State(e *audit.Event) (json.RawMessage, error) {
	switch {
	case e.Action == audit.ActionDelete:
		return json.RawMessage(`{}`), nil
	case len(e.After) > 0 && !jsonenc.IsNull(e.After):
		return e.After, nil
	}
	return nil, audit.Errorf(audit.EINVALID, "event %s carries no complete state of the resource (only its diff)", e.ID)
}

// Compare gives the difference between the states after base and after
// target (DeepDiff's paths), sorted by path. Both must be versions of
// the same resource; errors: EINVALID when either has no complete state.
func Compare(base, target *audit.Event) (Comparison, error) {
	from, err := State(base)
	if err != nil {
		return Comparison{}, err
	}
	to, err := State(target)
	if err != nil {
		return Comparison{}, err
	}
	diff, err := audit.DeepDiff(from, to)
	if err != nil {
		return Comparison{}, audit.Errorf(audit.EINVALID, "the stored states cannot be compared: %v", err)
	}
	out := Comparison{Base: NewEntry(base), Target: NewEntry(target), Fields: make([]FieldComparison, 0, len(diff))}
	for path, c := range diff {
		kind := FieldChanged
		switch {
		case jsonenc.IsNull(c.From):
			kind = FieldAdded
		case jsonenc.IsNull(c.To):
			kind = FieldRemoved
		}
		out.Fields = append(out.Fields, FieldComparison{Path: path, Base: c.From, Target: c.To, Change: kind})
	}
	sort.Slice(out.Fields, func(i, j int) bool { return out.Fields[i].Path < out.Fields[j].Path })
	return out, nil
}
