package audit

import (
	"encoding/json"
	"strings"
)

// FieldKind is how a field of the event is written in JSON.
type FieldKind uint8

// The kinds of the event's fields.
const (
	KindString FieldKind = iota // a JSON string
	KindTime                    // the timestamp, a string in TimestampLayout
	KindBool                    // true or false
	KindRaw                     // a raw JSON value (before, after)
	KindDiff                    // the diff: an object of Change by field name
)

// EventField is one field of the event. EventFields is the one
// description of the event's fields (issue 54): the event's JSON (API,
// history, restores, JSON lines, streams), its decoding and validation's
// "is not a known field", the Elasticsearch document and its decoding,
// SQLite's search text, the CSV columns, the personal fields a stream can
// mask and OCSF's leftover are all read from it, and the mapping and the
// OpenAPI document are held to it by tests. docs/changing.md walks adding
// a field.
type EventField struct {
	// Name is the field's JSON path: "actor.email".
	Name string
	Kind FieldKind
	// Optional fields are left out of the event's JSON when empty; the
	// spec's fields are always written.
	Optional bool
	// Text: free text (q) finds the words of its value, on both stores.
	Text bool
	// Personal: a stream can hash or drop it (stream.MaskFields).
	Personal bool
	// Column is its position among the CSV export's columns (1 the
	// first); 0 when it is not one. A new field takes the next position,
	// so every existing column keeps its place.
	Column int

	parent, key string // split from Name once (init)
	member      string // `"key":`
	opening     string // `"parent":{`

	str  func(*Event) *string          // KindString
	raw  func(*Event) *json.RawMessage // KindRaw
	flag func(*Event) *bool            // KindBool
}

// EventFields are the event's fields in the order of its JSON (a nested
// object's fields are consecutive). Adding an optional field: add it to
// Event (or Actor, Resource) and here, run go generate ./..., and
// document it (docs/changing.md).
var EventFields = []EventField{
	{Name: "id", Column: 1, str: func(e *Event) *string { return &e.ID }},
	{Name: "timestamp", Kind: KindTime, Column: 2},
	{Name: "tenantId", Column: 3, str: func(e *Event) *string { return &e.TenantID }},
	{Name: "actor.id", Column: 4, Personal: true, str: func(e *Event) *string { return &e.Actor.ID }},
	{Name: "actor.email", Column: 5, Text: true, Personal: true, str: func(e *Event) *string { return &e.Actor.Email }},
	{Name: "actor.role", Column: 6, str: func(e *Event) *string { return &e.Actor.Role }},
	{Name: "actor.ip", Column: 7, Personal: true, str: func(e *Event) *string { return &e.Actor.IP }},
	{Name: "actor.userAgent", Column: 8, Text: true, Personal: true, str: func(e *Event) *string { return &e.Actor.UserAgent }},
	{Name: "action", Column: 9, str: func(e *Event) *string { return (*string)(&e.Action) }},
	{Name: "resource.type", Column: 10, str: func(e *Event) *string { return &e.Resource.Type }},
	{Name: "resource.id", Column: 11, Text: true, str: func(e *Event) *string { return &e.Resource.ID }},
	{Name: "diff", Kind: KindDiff, Column: 16},
	{Name: "crossTenant", Kind: KindBool, Column: 12, flag: func(e *Event) *bool { return &e.CrossTenant }},
	{Name: "category", Optional: true, Column: 13, str: func(e *Event) *string { return (*string)(&e.Category) }},
	{Name: "outcome", Optional: true, Column: 14, str: func(e *Event) *string { return (*string)(&e.Outcome) }},
	{Name: "reason", Optional: true, Column: 15, str: func(e *Event) *string { return &e.Reason }},
	// Not CSV columns: before and after, the complete state, are for the
	// panel's compare and restore, not a spreadsheet cell (the diff
	// column shows what changed); requestId, a correlation id for the
	// producers' own logs, and restoredFrom, shown in the panel's
	// history. JSON lines carry all four.
	{Name: "before", Kind: KindRaw, Optional: true, raw: func(e *Event) *json.RawMessage { return &e.Before }},
	{Name: "after", Kind: KindRaw, Optional: true, raw: func(e *Event) *json.RawMessage { return &e.After }},
	{Name: "requestId", Optional: true, str: func(e *Event) *string { return &e.RequestID }},
	{Name: "restoredFrom", Optional: true, str: func(e *Event) *string { return &e.RestoredFrom }},
}

// Parent is the object the field is in ("actor" for "actor.email"; ""
// at the top).
func (f *EventField) Parent() string {
	if f.key != "" {
		return f.parent
	}
	p, _ := splitName(f.Name)
	return p
}

// Key is the field's name in its object ("email" for "actor.email").
func (f *EventField) Key() string {
	if f.key != "" {
		return f.key
	}
	_, k := splitName(f.Name)
	return k
}

func splitName(name string) (parent, key string) {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// The parent and key of each field are split once: the encoders ask for
// them for every field of every event.
func init() {
	for i := range EventFields {
		f := &EventFields[i]
		f.parent, f.key = splitName(f.Name)
		f.member = `"` + f.key + `":`
		f.opening = `"` + f.parent + `":{`
	}
}

// String returns a KindString field's value in e.
func (f *EventField) String(e *Event) string { return *f.str(e) }

// Raw returns a KindRaw field's value in e.
func (f *EventField) Raw(e *Event) json.RawMessage { return *f.raw(e) }

// Bool returns a KindBool field's value in e.
func (f *EventField) Bool(e *Event) bool { return *f.flag(e) }

// Ptr returns a pointer to the field in e, for decoding into: *string,
// *Timestamp, *bool, *json.RawMessage or *map[string]Change.
func (f *EventField) Ptr(e *Event) any {
	switch f.Kind {
	case KindTime:
		return &e.Timestamp
	case KindBool:
		return f.flag(e)
	case KindRaw:
		return f.raw(e)
	case KindDiff:
		return &e.Diff
	}
	return f.str(e)
}

// IsEmpty reports whether the field has no value in e (an optional one
// is then left out).
func (f *EventField) IsEmpty(e *Event) bool {
	switch f.Kind {
	case KindTime:
		return e.Timestamp.IsZero()
	case KindBool:
		return !f.Bool(e)
	case KindRaw:
		return len(f.Raw(e)) == 0
	case KindDiff:
		return len(e.Diff) == 0
	}
	return f.String(e) == ""
}

// LookupEventField returns the field named name ("actor.email"), or nil.
func LookupEventField(name string) *EventField {
	for i := range EventFields {
		if EventFields[i].Name == name {
			return &EventFields[i]
		}
	}
	return nil
}

// TextFields are the names of the fields free text finds the words of
// (Text), in order; the diff's field names and the values of
// SearchValues come on top.
var TextFields = fieldNames(func(f *EventField) bool { return f.Text })

// TextValues returns e's values of TextFields, in order; an empty
// optional one is left out, so that adding an optional text field leaves
// the search text of every event written before it as it was (SQLite's
// text index is checked against it).
func (e *Event) TextValues() []string {
	return e.AppendTextValues(make([]string, 0, len(textFields)))
}

// AppendTextValues appends the values of TextValues to dst.
func (e *Event) AppendTextValues(dst []string) []string {
	for _, f := range textFields {
		if v := f.String(e); v != "" || !f.Optional {
			dst = append(dst, v)
		}
	}
	return dst
}

var textFields = fieldsWhere(func(f *EventField) bool { return f.Text })

func fieldsWhere(keep func(*EventField) bool) []*EventField {
	var out []*EventField
	for i := range EventFields {
		if keep(&EventFields[i]) {
			out = append(out, &EventFields[i])
		}
	}
	return out
}

func fieldNames(keep func(*EventField) bool) []string {
	var out []string
	for _, f := range fieldsWhere(keep) {
		out = append(out, f.Name)
	}
	return out
}

// ExportFields are the fields with a Column, in column order.
var ExportFields = exportFields()

func exportFields() []*EventField {
	var cols []*EventField
	for i := range EventFields {
		if c := EventFields[i].Column; c > 0 {
			for len(cols) < c {
				cols = append(cols, nil)
			}
			cols[c-1] = &EventFields[i]
		}
	}
	return cols
}

func exportColumns() []string {
	out := make([]string, len(ExportFields))
	for i, f := range ExportFields {
		out[i] = f.Name
	}
	return out
}

// Members writes the members of one of the event's JSON objects in a
// given order of fields, opening and closing the nested objects (actor,
// resource) as their fields come and go: the caller writes the outer
// braces, calls Next before each value and Close before the outer '}'.
// The fields of a nested object must be consecutive in the order.
type Members struct {
	parent       string
	outer, inner int // members written at the top, and in the open nested object
}

// Next appends the separator and `"key":` of the member that f, a field
// of EventFields, is, first closing or opening its nested object.
func (m *Members) Next(b []byte, f *EventField) []byte {
	if f.parent != m.parent {
		b = m.enter(b, f.parent, f.opening)
	}
	if m.parent == "" {
		return member(b, &m.outer, f.member)
	}
	return member(b, &m.inner, f.member)
}

// NextAs is Next for a member the form names otherwise ("@timestamp"),
// or one of its own at the top (name plain ASCII).
func (m *Members) NextAs(b []byte, f *EventField, name string) []byte {
	if p := f.Parent(); p != m.parent {
		b = m.enter(b, p, `"`+p+`":{`)
	}
	if m.parent == "" {
		return member(b, &m.outer, `"`+name+`":`)
	}
	return member(b, &m.inner, `"`+name+`":`)
}

// enter closes the nested object left open and opens p's (none at the
// top) with opening, `"p":{`.
func (m *Members) enter(b []byte, p, opening string) []byte {
	b = m.Close(b)
	m.parent, m.inner = p, 0
	if p != "" {
		b = member(b, &m.outer, opening)
	}
	return b
}

// Close closes the nested object left open, if any; the members written
// after it are the outer object's.
func (m *Members) Close(b []byte) []byte {
	if m.parent != "" {
		b = append(b, '}')
		m.parent = ""
	}
	return b
}

// member appends a separator unless it is the object's first member,
// and name, `"key":`.
func member(b []byte, n *int, name string) []byte {
	if *n > 0 {
		b = append(b, ',')
	}
	*n++
	return append(b, name...)
}
