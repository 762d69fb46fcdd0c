package audit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SortField is a field results can be sorted by. The event id is always
// the tiebreaker, in the same direction.
type SortField string

// The sortable fields (shared/DESIGN.md, API conventions).
const (
	SortTimestamp    SortField = "timestamp"
	SortActorEmail   SortField = "actor.email"
	SortAction       SortField = "action"
	SortResourceType SortField = "resource.type"
)

// Valid reports whether f is sortable.
func (f SortField) Valid() bool {
	switch f {
	case SortTimestamp, SortActorEmail, SortAction, SortResourceType:
		return true
	}
	return false
}

// Filter selects events of one tenant. Every set field must match (AND);
// the values of a repeatable field are alternatives (OR).
//
// A Filter handed to a store is normalised (Normalize).
type Filter struct {
	// TenantID always comes from the caller's credentials.
	TenantID string
	// From is inclusive, To exclusive.
	From, To      *time.Time
	ActorID       string
	ActorEmail    string // case-insensitive: lower case once normalised
	Actions       []Action
	ResourceTypes []string
	ResourceID    string
	CrossTenant   *bool
	Category      Category
	Outcome       Outcome
	// Q is free text: every word must appear, case-insensitively, as a
	// token of the actor's e-mail, the user agent, the resource id or a
	// changed field name; a word ending in * matches as a prefix.
	Q string
	// Terms are the qualified, negated and ORed terms of the search
	// language (Parse), ANDed with the rest.
	Terms []Term
	// RestoredFrom selects the events that report the outcome of one
	// restore request. It has no query parameter: the restore status
	// endpoint uses it.
	RestoredFrom string
	// EventIDs, when set, selects among these events only (at most
	// MaxEventIDs): a stream applies its filter to the events of a range
	// of its tenant's log through the store, so that a stream's filter
	// means what the same search means in the API, on either store.
	EventIDs []string
	// HideSystem leaves out the service's own records (the resource
	// types of SystemResourceTypes): the panel's default view, so that
	// periodic deliveries do not fill the first screen (issue 42).
	HideSystem bool
}

// ResourcePeriodicExport is the resource type of the record, in a
// tenant's log, of one delivered digest of its periodic export.
const ResourcePeriodicExport = "periodic_export"

// ResourceLogRetention is the resource type of a retention record.
const ResourceLogRetention = "audit_log_retention"

// ResourceTenantPlan is the resource type of the record, in a tenant's
// log, of a change of its plan.
const ResourceTenantPlan = "tenant_plan"

// SystemActor is the actor of the records the service writes of its own
// accord (retention, periodic export deliveries): no user did them.
var SystemActor = Actor{ID: "00000000-0000-7000-8000-000000000000", Email: "system@auditlog.invalid", Role: "system"}

// SystemResourceTypes are the resource types of the records the service
// writes of its own work, as SystemActor: periodic export deliveries,
// retention deletions, plan changes.
var SystemResourceTypes = []string{ResourcePeriodicExport, ResourceLogRetention, ResourceTenantPlan}

// Sort orders results.
type Sort struct {
	Field SortField
	Desc  bool
}

// DefaultSort is newest first.
var DefaultSort = Sort{Field: SortTimestamp, Desc: true}

// MaxEventIDs bounds Filter.EventIDs.
const MaxEventIDs = 1000

// Page limits.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
	// MaxWindow is how deep page numbers reach (from + size); past it the
	// cursor must be used.
	MaxWindow = 10000
)

// Position is where a page ended in the sort order: the sort key of the
// last event and its id (the tiebreaker). For timestamp the key is epoch
// milliseconds; for the keyword fields it is the (lowercased for e-mail)
// string.
type Position struct {
	Millis int64  `json:"m,omitempty"`
	Key    string `json:"k,omitempty"`
	ID     string `json:"i"`
}

// PositionOf returns the position of e in sort order s.
func PositionOf(e *Event, s Sort) Position {
	p := Position{ID: e.ID}
	switch s.Field {
	case SortTimestamp:
		p.Millis = e.Timestamp.UnixMilli()
	case SortActorEmail:
		p.Key = strings.ToLower(e.Actor.Email)
	case SortAction:
		p.Key = string(e.Action)
	case SortResourceType:
		p.Key = e.Resource.Type
	}
	return p
}

// Query is one page request.
type Query struct {
	Filter   Filter
	Sort     Sort
	PageSize int
	// Page is 1-based; used when After is nil.
	Page int
	// After, when set, starts the page after this position (search_after).
	After *Position
	// ExactTotal asks for an exact total even past MaxWindow.
	ExactTotal bool
	// Counted, with After, is the total the walk's first page counted,
	// carried by its cursor: the store answers it as the total and does
	// not count again (unless ExactTotal), which lets a deep page skip
	// straight to its position.
	Counted *Total
	// NoTotal says the caller shows no total (a resource's history): the
	// store does not count, and answers a zero total.
	NoTotal bool
	// Fresh asks to see every write acknowledged before the call, where
	// the store's searches are near-real-time (Elasticsearch refreshes the
	// tenant's streams first). For the rare reads a decision rests on: a
	// restore's check of the resource's newest version.
	Fresh bool
}

// KnownTotal returns the total a cursor page answers without counting:
// Counted, when the query has a position and does not ask for an exact
// count; nothing with NoTotal.
func (q Query) KnownTotal() (Total, bool) {
	if q.NoTotal {
		return Total{}, true
	}
	if q.After == nil || q.Counted == nil || q.ExactTotal {
		return Total{}, false
	}
	return *q.Counted, true
}

// Total is a count of matching events: Relation is TotalExact, or
// TotalAtLeast when it is only a lower bound (past MaxWindow). It is the
// one counting type of every layer: stores, cursors and the API answer.
type Total struct {
	Value    int64  `json:"value"`
	Relation string `json:"relation"`
}

// The relations of a Total.
const (
	TotalExact   = "eq"
	TotalAtLeast = "gte"
)

// Result is one page of events.
type Result struct {
	Events []Event
	// Unreadable are the page's stored rows that are no event (edited
	// behind the service: evidence, named, never a failure of the page),
	// each in the page's order with the events, counted in its size.
	Unreadable []UnreadableEvent
	// Total counts every matching event, exactly or as a lower bound
	// when only that was cheap.
	Total Total
	// HasMore tells whether events follow this page; Next is the position
	// of its last event.
	HasMore bool
	Next    *Position
}

// Span is the time range of the events matching a filter: the first and
// the last timestamp, and whether there is any.
type Span struct {
	First, Last time.Time
	Any         bool
}

// EventReader reads a tenant's events. Aggregations are the stats
// package's Reader.
type EventReader interface {
	// SearchEvents returns one page of q. It returns EUNAVAILABLE when the
	// store cannot be reached.
	SearchEvents(ctx context.Context, q Query) (Result, error)
	// GetEvent returns one event of the tenant, or ENOTFOUND when it does
	// not exist or belongs to another tenant (the two are
	// indistinguishable).
	GetEvent(ctx context.Context, tenantID, id string) (Event, error)
	// EventSpan returns the first and last timestamps of the events of f.
	EventSpan(ctx context.Context, f Filter) (Span, error)
}

func sortString(s Sort) string {
	if s.Desc {
		return string(s.Field) + ":desc"
	}
	return string(s.Field) + ":asc"
}

// String formats the sort as field:direction.
func (s Sort) String() string { return sortString(s) }

// Window returns the from offset of a page-number query, or an EINVALID
// error naming "page" and pointing at the cursor when the page is past
// MaxWindow.
func (q Query) Window() (int, error) {
	from := (q.Page - 1) * q.PageSize
	if from+q.PageSize > MaxWindow {
		return 0, &Error{Code: EINVALID, Message: "page is past the first 10,000 results",
			Fields: []FieldError{{Field: "page", Message: fmt.Sprintf("page %d of size %d reaches past the first %d results; use cursor (the nextCursor of the previous page) to go further", q.Page, q.PageSize, MaxWindow)}}}
	}
	return from, nil
}

// Refresher is implemented by a store whose searches and scans are
// near-real-time (Elasticsearch): Refresh makes every write acknowledged
// before the call visible to them, for the reads a verdict rests on
// (auditlog log verify). Errors: EUNAVAILABLE.
type Refresher interface {
	Refresh(ctx context.Context, tenantID string) error
}

// UnreadableEvent is a stored row a read found to be no event: its id
// (as the store files it), why, and where it sorts (for a cursor past
// it).
type UnreadableEvent struct {
	ID       string   `json:"id"`
	Reason   string   `json:"reason"`
	Position Position `json:"-"`
}

// UnreadableError is the error of a read that met stored rows that are no
// event: ECORRUPT, naming each, the rows in Details. A get answers it for
// its event; an export scan, once every readable event is delivered.
func UnreadableError(rows []UnreadableEvent) error {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	msg := fmt.Sprintf("the stored event %s is no event: %s (edited behind the service; auditlog log verify names it)", ids[0], rows[0].Reason)
	if len(rows) > 1 {
		msg = fmt.Sprintf("%d stored events are no events (edited behind the service; auditlog log verify names them): %s", len(rows), strings.Join(ids, ", "))
	}
	return &Error{Code: ECORRUPT, Message: msg, Details: map[string]any{"unreadable": rows}}
}

// UnreadableOf returns the rows of an UnreadableError (ok false for any
// other error).
func UnreadableOf(err error) ([]UnreadableEvent, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Code != ECORRUPT {
		return nil, false
	}
	d, ok := e.Details.(map[string]any)
	if !ok {
		return nil, false
	}
	rows, ok := d["unreadable"].([]UnreadableEvent)
	return rows, ok
}
