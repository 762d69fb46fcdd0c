package audit_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// TestEventFieldsDescribeTheType (issue 54): audit.EventFields, the one
// description every encoder reads, names each field of the Go type
// (found by reflection), in the type's order, each once, with the kind
// of its JSON value and a pointer to that very field; the nested
// objects' fields are consecutive (Members needs it), and the CSV
// columns are numbered 1 to n without a gap.
func TestEventFieldsDescribeTheType(t *testing.T) {
	e := schematest.Full(t)
	leaves := schematest.Leaves(e)
	if len(leaves) != len(audit.EventFields) {
		t.Errorf("the type has %d fields, EventFields %d", len(leaves), len(audit.EventFields))
	}
	for i, l := range leaves {
		if i >= len(audit.EventFields) || audit.EventFields[i].Name != l.Path {
			t.Fatalf("field %d of the type is %s; EventFields has %v there: add it, in the type's order", i, l.Path, nameAt(i))
		}
		f := &audit.EventFields[i]
		// The pointer is the field's: its value is the leaf's.
		raw, _ := json.Marshal(reflect.ValueOf(f.Ptr(&e)).Elem().Interface())
		var got any
		_ = json.Unmarshal(raw, &got)
		if !reflect.DeepEqual(got, l.Value) {
			t.Errorf("%s: EventFields reads %v, the field holds %v", f.Name, got, l.Value)
		}
		want := map[string]audit.FieldKind{"timestamp": audit.KindTime, "diff": audit.KindDiff}[f.Name]
		switch l.Value.(type) {
		case bool:
			want = audit.KindBool
		case map[string]any, []any:
			if f.Name != "diff" {
				want = audit.KindRaw
			}
		}
		if f.Kind != want {
			t.Errorf("%s: kind %d, want %d", f.Name, f.Kind, want)
		}
	}
	closed := map[string]bool{}
	prev := ""
	for _, f := range audit.EventFields {
		if p := f.Parent(); p != prev {
			if p != "" && closed[p] {
				t.Errorf("the fields of %s are not consecutive (%s)", p, f.Name)
			}
			closed[prev], prev = true, p
		}
	}
	for i, f := range audit.ExportFields {
		if f == nil {
			t.Fatalf("no field has CSV column %d", i+1)
		}
		if f.Column != i+1 {
			t.Errorf("%s: column %d at position %d (two fields share a column?)", f.Name, f.Column, i+1)
		}
	}
}

func nameAt(i int) string {
	if i < len(audit.EventFields) {
		return audit.EventFields[i].Name
	}
	return "nothing"
}

// TestOptionalIsOmitempty: a field is Optional in EventFields exactly
// when its JSON name says omitempty, so the hand-written encoders and
// encoding/json agree on what is left out.
func TestOptionalIsOmitempty(t *testing.T) {
	for _, f := range audit.EventFields {
		empty := audit.Event{}
		raw, err := json.Marshal(reflectEvent(empty))
		if err != nil {
			t.Fatal(err)
		}
		present := schematest.JSONLookup(t, raw)
		if _, ok := present(f.Name); ok == f.Optional {
			t.Errorf("%s: Optional %v, but encoding/json of the type writes it when empty: %v", f.Name, f.Optional, ok)
		}
	}
}

// reflectEvent is e as encoding/json writes the type by reflection,
// without Event.MarshalJSON.
func reflectEvent(e audit.Event) any {
	type plain audit.Event
	return plain(e)
}
