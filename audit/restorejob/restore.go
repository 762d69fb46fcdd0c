package restorejob

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/history"

	"github.com/auditlog/auditlog/audit"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// The versions of an event a restore can put back.
const (
	Before = "before"
	After  = "after"
)

// Request is what the audit log asks the service that owns a
// resource to apply: put State back, provided the resource is still in
// ExpectedState (optimistic concurrency). The audit log owns no
// configuration; it only asks, records that it asked, and follows the
// outcome (shared/DESIGN.md, restore).
type Request struct {
	RequestID string         `json:"requestId"`
	TenantID  string         `json:"tenantId"`
	Resource  audit.Resource `json:"resource"`
	// SourceEventID and Version name the state restored: the event's
	// before or after.
	SourceEventID string `json:"sourceEventId"`
	Version       string `json:"version"`
	// Fields, when set, restricts the restore to these paths (a per-field
	// undo): State is then the current state with only them put back.
	Fields []string        `json:"fields,omitempty"`
	State  json.RawMessage `json:"state"`
	// ExpectedState is the state after the resource's latest event,
	// ExpectedEventID that event: the owner refuses a resource that has
	// changed since.
	ExpectedState   json.RawMessage `json:"expectedState"`
	ExpectedEventID string          `json:"expectedEventId"`
	// OmittedFields are the paths left out because their values are
	// masked secrets: a restore never writes a masked value back.
	OmittedFields []string        `json:"omittedFields"`
	RequestedBy   audit.Actor     `json:"requestedBy"`
	Reason        string          `json:"reason,omitempty"`
	CreatedAt     audit.Timestamp `json:"createdAt"`
}

// Ask is a user's restore of one event's state.
type Ask struct {
	Source *audit.Event
	// Latest is the resource's newest version now; LatestSeen the id of
	// the newest one the user saw. They differ when the resource changed
	// meanwhile: ECONFLICT unless Force.
	Latest     *audit.Event
	LatestSeen string
	Force      bool
	Version    string
	Fields     []string
	By         audit.Principal
	Reason     string
}

// CheckRestoreRole: only an admin restores; an operator-team member
// (superadmin) only with a declared reason. Errors: EFORBIDDEN.
func CheckRestoreRole(p audit.Principal, reason string) error {
	switch {
	case p.Role == audit.RoleAdmin:
		return nil
	case p.Role == audit.RoleSuperadmin && strings.TrimSpace(reason+p.Reason) != "":
		return nil
	case p.Role == audit.RoleSuperadmin:
		return audit.Errorf(audit.EFORBIDDEN, "an operator-team restore must declare its reason")
	}
	return audit.Errorf(audit.EFORBIDDEN, "only an admin may restore a previous state")
}

// PlanRestore checks an ask and builds the request to send (without its
// id, actor and time, which the caller sets). Errors: EFORBIDDEN (role),
// EINVALID naming version, fields or latestSeen, ECONFLICT when the
// resource changed after the version the user saw.
func PlanRestore(a Ask) (Request, error) {
	if err := CheckRestoreRole(a.By, a.Reason); err != nil {
		return Request{}, err
	}
	var fe audit.FieldErrors
	add := func(field, msg string) { fe = append(fe, audit.FieldError{Field: field, Message: msg}) }
	if a.Version == "" {
		a.Version = Before
	}
	if a.Source.Action == audit.ActionAccess {
		return Request{}, audit.Errorf(audit.EINVALID, "event %s records a read, not a version of %s %s: there is nothing to restore", a.Source.ID, a.Source.Resource.Type, a.Source.Resource.ID)
	}
	var raw json.RawMessage
	switch a.Version {
	case Before:
		raw = a.Source.Before
	case After:
		raw = a.Source.After
	default:
		add("version", "must be before or after")
	}
	if len(fe) == 0 && (len(raw) == 0 || jsonenc.IsNull(raw)) {
		add("version", "event "+a.Source.ID+" carries no "+a.Version+" state to restore")
	}
	if a.LatestSeen == "" && !a.Force {
		add("latestSeen", "is required: the id of the newest version you saw (or force)")
	}
	if len(fe) > 0 {
		return Request{}, fe.Err("invalid restore")
	}
	if a.Latest.ID != audit.NormalizeID(a.LatestSeen) && !a.Force {
		err := audit.Errorf(audit.ECONFLICT, "the resource changed after the version you saw: its newest version is event %s (ask again with latestSeen set to it, or force)", a.Latest.ID)
		err.Details = map[string]any{"latest": history.NewEntry(a.Latest)}
		return Request{}, err
	}
	expected, err := history.State(a.Latest)
	if err != nil {
		expected = nil // a diff-only latest version: the owner checks by event id alone
	}
	req := Request{TenantID: a.Source.TenantID, Resource: a.Source.Resource, SourceEventID: a.Source.ID, Version: a.Version,
		Fields: a.Fields, ExpectedState: expected, ExpectedEventID: a.Latest.ID, Reason: strings.TrimSpace(a.Reason)}
	req.State, req.OmittedFields, err = restoredState(raw, expected, a.Fields)
	if err != nil {
		return Request{}, err
	}
	return req, nil
}

// stripMasked removes every masked value from v, recording its path.
func stripMasked(v any, path string, omitted *[]string) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if s, ok := x.(string); ok && audit.IsMarker(s) {
				*omitted = append(*omitted, p)
				delete(t, k)
				continue
			}
			t[k] = stripMasked(x, p, omitted)
		}
	case []any:
		for i, x := range t {
			p := path + "[" + itemKey(x, i) + "]"
			t[i] = stripMasked(x, p, omitted)
		}
	}
	return v
}

// itemKey names an array element in a path: its id, or its index.
func itemKey(x any, i int) string {
	if id, ok := jsonenc.ObjectID(x); ok {
		return id
	}
	return strconv.Itoa(i)
}

// CheckRestorable refuses a source event older than the retention of the
// tenant's plan at now: it is outside the resource's retained history
// even when the store has not deleted it yet. Errors: ENOTFOUND.
func CheckRestorable(source *audit.Event, plan audit.Plan, now time.Time) error {
	if !plan.Valid() || audit.Visible(plan, source.Timestamp.Time, now) {
		return nil
	}
	return audit.Errorf(audit.ENOTFOUND, "event %s is past the retention of the %s plan (%d days): it is no longer in the resource's retained history and cannot be restored",
		source.ID, plan, int(plan.Retention()/(24*time.Hour)))
}

// NotFound is the answer for a source event the tenant does not
// have: never stored, another tenant's, or deleted with its retention.
func NotFound(id string) error {
	return audit.Errorf(audit.ENOTFOUND, "no audit event %s in this tenant's retained history (events past the plan's retention are deleted and cannot be restored)", id)
}
