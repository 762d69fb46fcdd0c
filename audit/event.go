// Package audit is the domain of the audit log: events, their validation,
// the event catalog, query filters, cursors, export jobs and the store
// interfaces. It imports no transport or backend: HTTP, Kafka,
// Elasticsearch and SQLite depend on this package, never the reverse.
package audit

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"
)

// Action is what was done to the resource (spec §2.1).
type Action string

// The four actions of spec §2.1; no other value is valid.
const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
	ActionAccess Action = "access"
)

// Actions lists every valid action, in a stable order.
var Actions = []Action{ActionCreate, ActionUpdate, ActionDelete, ActionAccess}

// Valid reports whether a is one of the four actions.
func (a Action) Valid() bool {
	switch a {
	case ActionCreate, ActionUpdate, ActionDelete, ActionAccess:
		return true
	}
	return false
}

// Category groups occurrences as spec §1.1 does (an optional field beyond
// spec §2.1, see shared/DESIGN.md).
type Category string

// The categories of spec §1.1.
const (
	CategoryConfiguration   Category = "configuration"
	CategorySensitiveAccess Category = "sensitive_access"
	CategorySecurity        Category = "security"
	CategoryCrossTenant     Category = "cross_tenant"
	CategoryIntegration     Category = "integration"
)

// Categories lists every valid category.
var Categories = []Category{CategoryConfiguration, CategorySensitiveAccess, CategorySecurity, CategoryCrossTenant, CategoryIntegration}

// Valid reports whether c is a known category.
func (c Category) Valid() bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// Outcome tells whether the action succeeded; failed login attempts need it.
type Outcome string

// The outcomes. An event without one is a success.
const (
	OutcomeSuccess Outcome = "success"
	OutcomeFailure Outcome = "failure"
)

// Valid reports whether o is a known outcome.
func (o Outcome) Valid() bool { return o == OutcomeSuccess || o == OutcomeFailure }

// Roles named by the spec. actor.role is an open set: any lowercase
// snake_case value of at most 64 characters is accepted.
const (
	RoleAdmin      = "admin"
	RoleSuperadmin = "superadmin"
)

// Actor is who performed the action (spec §2.1).
type Actor struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	IP        string `json:"ip"`
	UserAgent string `json:"userAgent"`
}

// Resource is the affected thing (spec §2.1).
type Resource struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Change is one entry of an event's diff: the value before and after. The
// values keep the JSON type of the changed field, so they are raw JSON;
// JSON null stands for "absent" (the "from" of a creation).
type Change struct {
	From json.RawMessage `json:"from"`
	To   json.RawMessage `json:"to"`
}

// Event is one immutable audit record. Its fields are exactly those of
// spec §2.1 plus the optional fields of shared/DESIGN.md (category,
// outcome, reason, before, after, requestId) and restoredFrom.
//
// The spec fields are always serialized, diff as {} when nothing changed;
// the optional ones are omitted when empty. EventFields describes each
// field for every encoder: a field added here is added there too
// (TestEventFieldsDescribeTheType).
type Event struct {
	ID          string            `json:"id"`
	Timestamp   Timestamp         `json:"timestamp"`
	TenantID    string            `json:"tenantId"`
	Actor       Actor             `json:"actor"`
	Action      Action            `json:"action"`
	Resource    Resource          `json:"resource"`
	Diff        map[string]Change `json:"diff"`
	CrossTenant bool              `json:"crossTenant"`

	Category  Category        `json:"category,omitempty"`
	Outcome   Outcome         `json:"outcome,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Before    json.RawMessage `json:"before,omitempty"`
	After     json.RawMessage `json:"after,omitempty"`
	RequestID string          `json:"requestId,omitempty"`
	// RestoredFrom is set by the service that owns the resource on the
	// update that applies (or, with outcome failure, refuses) a restore
	// request: that request's id.
	RestoredFrom string `json:"restoredFrom,omitempty"`
}

// ChangedFields returns the sorted names of the fields in the diff.
func (e *Event) ChangedFields() []string {
	return sortedKeys(e.Diff)
}

// AppendChangedFields appends the sorted names of the fields in the diff
// to dst: with room in dst (a writer's array on its stack), no allocation.
func (e *Event) AppendChangedFields(dst []string) []string {
	n := len(dst)
	for k := range e.Diff {
		dst = append(dst, k)
	}
	slices.Sort(dst[n:])
	return dst
}

// TimestampLayout is the one wire format of a timestamp: UTC with exactly
// three fraction digits, e.g. 2026-11-21T09:30:12.345Z.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp is an instant with millisecond precision, always UTC on the
// wire in TimestampLayout.
type Timestamp struct{ time.Time }

// NewTimestamp truncates t to the millisecond and converts it to UTC.
func NewTimestamp(t time.Time) Timestamp {
	return Timestamp{t.UTC().Truncate(time.Millisecond)}
}

// ParseTimestamp accepts exactly this grammar (RFC 3339, stricter than
// Go's parser, which also takes a comma separator and any number of
// fraction digits):
//
//	YYYY-MM-DD "T" hh:mm:ss [ "." 1*9DIGIT ] ( "Z" | ("+" / "-") hh:mm )
//
// uppercase T and Z only. It normalizes the instant to UTC milliseconds
// (finer digits are truncated) and returns EINVALID for anything else: no
// "T", no zone, a date alone, a number, a comma, ten fraction digits.
func ParseTimestamp(s string) (Timestamp, error) {
	if !timestampGrammar(s) {
		return Timestamp{}, Errorf(EINVALID, "%q is not an ISO 8601 timestamp like 2026-11-21T09:30:12.345Z", s)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return Timestamp{}, Errorf(EINVALID, "%q is not an ISO 8601 timestamp like 2026-11-21T09:30:12.345Z", s)
	}
	return NewTimestamp(t), nil
}

// timestampGrammar checks the shape of ParseTimestamp's grammar; the
// ranges of each number (month 13, hour 25) are time.Parse's to refuse.
func timestampGrammar(s string) bool {
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(head)+1 {
		return false
	}
	for i := 0; i < len(head); i++ {
		if head[i] == 'd' && !isDigit(s[i]) || head[i] != 'd' && s[i] != head[i] {
			return false
		}
	}
	rest := s[len(head):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 || n > 10 {
			return false
		}
		rest = rest[n:]
	}
	if rest == "Z" {
		return true
	}
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && isDigit(rest[1]) && isDigit(rest[2]) &&
		rest[3] == ':' && isDigit(rest[4]) && isDigit(rest[5])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// String formats ts in TimestampLayout.
func (ts Timestamp) String() string { return ts.UTC().Format(TimestampLayout) }

// MarshalJSON writes ts in TimestampLayout.
func (ts Timestamp) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(TimestampLayout)+2)
	b = append(b, '"')
	b = ts.AppendTo(b)
	return append(b, '"'), nil
}

// AppendTo appends ts in TimestampLayout, byte for byte what
// ts.UTC().AppendFormat(b, TimestampLayout) appends, without reading the
// layout at each call: every event's encodings (its JSON, its leaf, its
// Elasticsearch document) write it.
func (ts Timestamp) AppendTo(b []byte) []byte {
	t := ts.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimestampLayout)
	}
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	b = appendDigits(append(b, '.'), t.Nanosecond()/1e6, 3) // truncated, as the layout's .000
	return append(b, 'Z')
}

// appendDigits appends v, 0 ≤ v < 10^n, in n decimal digits.
func appendDigits(b []byte, v, n int) []byte {
	var d [4]byte
	for i := n - 1; i >= 0; i-- {
		d[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, d[:n]...)
}

// UnmarshalJSON reads a timestamp string (see ParseTimestamp).
func (ts *Timestamp) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return Errorf(EINVALID, "timestamp is null")
	}
	var s string
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' && bytes.IndexByte(b[1:n-1], '\\') < 0 && bytes.IndexByte(b[1:n-1], '"') < 0 {
		s = string(b[1 : n-1]) // no escape: its bytes (ParseTimestamp refuses any that are not a timestamp's)
	} else if err := json.Unmarshal(b, &s); err != nil {
		return Errorf(EINVALID, "timestamp must be a string")
	}
	t, err := ParseTimestamp(s)
	if err != nil {
		return err
	}
	*ts = t
	return nil
}
