// Package schematest holds every encoder and decoder of the audit event to
// the one description of its fields: the Go type audit.Event. Leaves lists
// the type's fields by reflection, so a field added to the type is a leaf
// at once; Full is an event with every leaf set to a value no other leaf
// has; Check finds each leaf's value where an encoding's placement table
// says it lands. A leaf an encoding's table does not name fails that
// encoding's test by name, so a new field cannot be dropped or misrouted
// silently (docs/changing.md, "Add a field to the audit event").
package schematest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Leaf is one field of the event: its dotted JSON path (actor.email) and
// its value as encoding/json decodes the field's JSON (a string, a bool,
// a map for diff, before and after).
type Leaf struct {
	Path  string
	Value any
}

// Leaves lists every field of e by reflection on audit.Event: a nested
// struct (actor, resource) is walked, anything else (the timestamp, diff,
// raw JSON) is one leaf.
func Leaves(e audit.Event) []Leaf {
	var out []Leaf
	walk(reflect.ValueOf(e), "", &out)
	return out
}

var timestampType = reflect.TypeOf(audit.Timestamp{})

func walk(v reflect.Value, prefix string, out *[]Leaf) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			panic(fmt.Sprintf("audit.Event field %s%s has no JSON name", prefix, f.Name))
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && fv.Type() != timestampType {
			walk(fv, prefix+name+".", out)
			continue
		}
		b, err := json.Marshal(fv.Interface())
		if err != nil {
			panic(err)
		}
		var val any
		if err := json.Unmarshal(b, &val); err != nil {
			panic(err)
		}
		*out = append(*out, Leaf{Path: prefix + name, Value: val})
	}
}

// Now is the instant Full is valid at.
var Now = time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)

// Full returns a valid, normalized event with every leaf set, each to a
// value no other leaf has (so a value written under another field's name
// is caught). It fails t, naming the field, when a leaf is unset or
// shares its value: a field added to audit.Event must be set here first.
func Full(t testing.TB) audit.Event {
	t.Helper()
	e := audit.Event{
		ID: "evt_audit_1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a", Timestamp: audit.NewTimestamp(time.Date(2026, 11, 22, 9, 30, 12, 345e6, time.UTC)),
		TenantID: "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d",
		Actor: audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "owner@x.example", Role: "support_lead", IP: "2001:db8::7",
			UserAgent: "Mozilla/5.0 Firefox/133.0"},
		Action: audit.ActionUpdate, Resource: audit.Resource{Type: "ivr", ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"},
		Diff:        map[string]audit.Change{"greeting": {From: json.RawMessage(`"hi"`), To: json.RawMessage(`"hello"`)}},
		CrossTenant: true, Category: audit.CategoryCrossTenant, Outcome: audit.OutcomeFailure, Reason: "ticket INC-7 <&>",
		Before:    json.RawMessage(`{"greeting":"hi","menu":[{"id":"m1","key":1}]}`),
		After:     json.RawMessage(`{"greeting":"hello","menu":[{"id":"m1","key":2}]}`),
		RequestID: "req-42", RestoredFrom: "9b0c1d2e-3f4a-4b5c-8d6e-7f8091a2b3c4",
	}
	e.Normalize()
	if err := e.Validate(Now); err != nil {
		t.Fatalf("schematest.Full is not valid: %v", err)
	}
	seen := map[string]string{}
	for _, l := range Leaves(e) {
		if reflect.ValueOf(l.Value).IsZero() {
			t.Fatalf("schematest.Full leaves %s unset: set it to a value no other field has, so every encoder is seen to carry it", l.Path)
		}
		k := fmt.Sprint(l.Value)
		if other, dup := seen[k]; dup && l.Path != "crossTenant" {
			t.Fatalf("schematest.Full: %s and %s share the value %v; give each its own", other, l.Path, l.Value)
		}
		seen[k] = l.Path
	}
	return e
}

// Omit marks a leaf an encoding leaves out on purpose; the reason is
// part of the table, so the choice is written where it is checked.
func Omit(reason string) string { return "-" + reason }

// Place says where each leaf lands in one encoding: a path in its output
// (see Check), or Omit(reason).
type Place map[string]string

// Check finds every leaf of e in out, an encoding's output as a lookup
// from a path to the decoded value there (JSONLookup, or a CSV row). A
// leaf place does not name fails the test by name, and so does a place
// naming a field the type does not have.
func Check(t testing.TB, encoding string, e audit.Event, place Place, lookup func(path string) (any, bool)) {
	t.Helper()
	leaves := map[string]bool{}
	for _, l := range Leaves(e) {
		leaves[l.Path] = true
		where, ok := place[l.Path]
		switch {
		case !ok:
			t.Errorf("%s: audit.Event's field %s has no place in it: write it in the encoder, then name where it lands (or Omit with the reason) in this test's table", encoding, l.Path)
			continue
		case strings.HasPrefix(where, "-"):
			continue
		}
		got, found := lookup(where)
		if !found {
			t.Errorf("%s: field %s is missing (want it at %s)", encoding, l.Path, where)
			continue
		}
		if !reflect.DeepEqual(normal(got), normal(l.Value)) {
			t.Errorf("%s: field %s at %s is %#v, want %#v", encoding, l.Path, where, got, l.Value)
		}
	}
	for p := range place {
		if !leaves[p] {
			t.Errorf("%s: the table names %s, which audit.Event does not have", encoding, p)
		}
	}
}

// normal decodes a JSON text held in a string when it is an object, for
// encodings that hold diff, before or after as text (a CSV cell).
func normal(v any) any {
	if s, ok := v.(string); ok && strings.HasPrefix(s, "{") {
		var m any
		if json.Unmarshal([]byte(s), &m) == nil {
			return m
		}
	}
	return v
}

// JSONLookup decodes a JSON object and looks paths up in it: a path is
// its members' names joined by dots (actor.email), or "" for the whole.
func JSONLookup(t testing.TB, out []byte) func(string) (any, bool) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return func(path string) (any, bool) {
		v := doc
		for _, part := range strings.Split(path, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[part]; !ok {
				return nil, false
			}
		}
		return v, true
	}
}

// Same is the place table of an encoding that writes every field under
// its own name (the API answer, JSON lines).
func Same(e audit.Event) Place {
	p := Place{}
	for _, l := range Leaves(e) {
		p[l.Path] = l.Path
	}
	return p
}

// Mutations returns, for every leaf of e, a copy of e with that leaf
// alone changed (found by reflection, so a new field has one too): what
// a comparison of events (audit.SameEvent) must tell apart.
func Mutations(e audit.Event) map[string]audit.Event {
	out := map[string]audit.Event{}
	mutate(reflect.ValueOf(&e).Elem(), "", func(path string, apply func(reflect.Value)) {
		c := copyEvent(e)
		v := reflect.ValueOf(&c).Elem()
		apply(fieldAt(v, path))
		out[path] = c
	})
	return out
}

// copyEvent copies e deeply enough that a mutation of the copy leaves e
// alone (the diff map is the one shared part).
func copyEvent(e audit.Event) audit.Event {
	c := e
	c.Diff = make(map[string]audit.Change, len(e.Diff))
	for k, v := range e.Diff {
		c.Diff[k] = v
	}
	return c
}

func mutate(v reflect.Value, prefix string, emit func(string, func(reflect.Value))) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fv := v.Field(i)
		path := prefix + name
		switch {
		case fv.Type() == timestampType:
			emit(path, func(x reflect.Value) {
				ts := x.Interface().(audit.Timestamp)
				x.Set(reflect.ValueOf(audit.NewTimestamp(ts.Add(time.Millisecond))))
			})
		case fv.Kind() == reflect.Struct:
			mutate(fv, path+".", emit)
		case fv.Kind() == reflect.String:
			emit(path, func(x reflect.Value) { x.SetString(x.String() + "x") })
		case fv.Kind() == reflect.Bool:
			emit(path, func(x reflect.Value) { x.SetBool(!x.Bool()) })
		case fv.Type() == reflect.TypeOf(json.RawMessage(nil)):
			emit(path, func(x reflect.Value) { x.SetBytes([]byte(`{"changed":true}`)) })
		case fv.Kind() == reflect.Map:
			emit(path, func(x reflect.Value) {
				x.SetMapIndex(reflect.ValueOf("changed"), reflect.ValueOf(audit.Change{From: json.RawMessage(`1`), To: json.RawMessage(`2`)}))
			})
		default:
			panic(fmt.Sprintf("schematest: no mutation for %s (%s): add one", path, fv.Type()))
		}
	}
}

// fieldAt is the field of the event v at a dotted JSON path.
func fieldAt(v reflect.Value, path string) reflect.Value {
	for _, part := range strings.Split(path, ".") {
		for i := range v.NumField() {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); name == part {
				v = v.Field(i)
				break
			}
		}
	}
	return v
}

// Corner is a string and a raw JSON value (empty: absent) that encoders
// of the event get wrong: escapes, HTML characters, control characters,
// invalid UTF-8 and lone surrogates, white space, repeated keys, numbers
// in every form, deep nesting.
type Corner struct{ S, Raw string }

// Corners are the cases every encoder of the event is held to.
func Corners() []Corner {
	return []Corner{
		{"", ""}, {"plain", "null"}, {"a<b & c>", `"<&>"`}, {"quote\" back\\slash", `"q\"b\\s\/"`},
		{"\n\r\t\b\f\x00\x1f\x7f", `"\n\r\t\b\f\u0000\u001f"`}, {"\u2028\u2029", `"\u2028 \u2029"`},
		{"bad \xff\xfe utf8 \xe2\x82", "\"\xff\""}, {"é ü 😀", `"\u00e9 \ud83d\ude00 \ud800 \udc00x"`},
		{"k", ` { "z" : 1.50 , "a" : { "y" : true , "b" : [ 3 , 2e10 , -0 , 1E-7 ] } , "z" : [ ] , "m": {} } `},
		{"k", `[{"b":1,"a":2},[],[[null]],"x",false]`}, {"k", `{"é":1,"e":2,"E":3,"":4,"\u0065":5}`},
		{"k", `-12.500e+03`}, {"k", `{"a":{"a":{"a":{"a":"\t"}}}}`},
	}
}

// Raw is raw as a stored event holds it: nil when absent.
func Raw(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	return json.RawMessage(raw)
}
