package audit_test

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/vlog"
	"reflect"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// The every-field test of the domain's encoders and decoders (the stores,
// CSV, JSON lines, the data line, the OpenAPI schema and the
// Elasticsearch document have theirs in their packages): each field of
// audit.Event, found by reflection, arrives where it belongs.

func TestEveryFieldInTheAPIAnswer(t *testing.T) {
	e := schematest.Full(t)
	b, err := json.Marshal(e) // Event.MarshalJSON, the answer of the API
	if err != nil {
		t.Fatal(err)
	}
	schematest.Check(t, "the API answer (Event.MarshalJSON)", e, schematest.Same(e), schematest.JSONLookup(t, b))
}

func TestEveryFieldInTheLeaf(t *testing.T) {
	e := schematest.Full(t)
	schematest.Check(t, "the verifiable log's leaf (LeafData)", e, schematest.Same(e), schematest.JSONLookup(t, vlog.LeafData(e)))
	// Each field changes the leaf: none is left out of what the log proves.
	for path, m := range schematest.Mutations(e) {
		if reflect.DeepEqual(vlog.LeafData(m), vlog.LeafData(e)) {
			t.Errorf("changing %s leaves the leaf as it was: the log would not cover it", path)
		}
	}
}

func TestEveryFieldThroughTheWireDecoder(t *testing.T) {
	e := schematest.Full(t)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := audit.DecodeEvent(b, schematest.Now)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("DecodeEvent(MarshalJSON(e)):\n%+v\nwant\n%+v", got, e)
	}
	// Each field, alone, decodes into its own field: the decoder routes
	// by name, never by position or by a fallback.
	for path, m := range schematest.Mutations(e) {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var want audit.Event
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got, _ := audit.DecodeEvent(raw, schematest.Now) // a mutation may break a rule; the decoding is what counts
		want.Normalize()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("with %s changed, DecodeEvent gave\n%+v\nwant\n%+v", path, got, want)
		}
	}
}

// TestSameEventComparesEveryField: a redelivery that differs in any one
// field is a conflict, not a duplicate.
func TestSameEventComparesEveryField(t *testing.T) {
	e := schematest.Full(t)
	for path, m := range schematest.Mutations(e) {
		if audit.SameEvent(&m, &e) || audit.SameEvent(&e, &m) {
			t.Errorf("SameEvent does not see a change of %s", path)
		}
	}
}

// TestEveryFieldIsKnownToTheMessagePass: an event refused for one unknown
// key is refused for that key alone; the field-by-field pass that names
// the problems (audit/decode.go) knows every field of the type.
func TestEveryFieldIsKnownToTheMessagePass(t *testing.T) {
	b, err := json.Marshal(schematest.Full(t))
	if err != nil {
		t.Fatal(err)
	}
	b = append(b[:len(b)-1], `,"zzUnknown":1}`...)
	_, err = audit.DecodeEvent(b, schematest.Now)
	fields := audit.ErrorFields(err)
	if len(fields) != 1 || fields[0].Field != "zzUnknown" {
		t.Fatalf("want only zzUnknown named, got %+v", fields)
	}
}

// TestEveryFieldThroughTheStoredRowDecoder: the verifier's reading of a
// stored row (DecodeStoredRow) gives back every field.
func TestEveryFieldThroughTheStoredRowDecoder(t *testing.T) {
	e := schematest.Full(t)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	r := vlog.DecodeStoredRow(e.ID, e.TenantID, b)
	if r.Err != nil || !reflect.DeepEqual(r.Event, e) {
		t.Fatalf("DecodeStoredRow(MarshalJSON(e)): %v\n%+v\nwant\n%+v", r.Err, r.Event, e)
	}
	for path, m := range schematest.Mutations(e) {
		b, _ := json.Marshal(m)
		if r := vlog.DecodeStoredRow(m.ID, m.TenantID, b); r.Err == nil && !reflect.DeepEqual(r.Event, m) {
			t.Errorf("with %s changed, DecodeStoredRow gave\n%+v\nwant\n%+v", path, r.Event, m)
		}
	}
}
