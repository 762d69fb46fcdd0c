package elasticsearch

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// TestDocEncodingIsTheDocument: the hand-written document (appendDoc)
// decodes to exactly what encoding/json makes of the doc struct, for
// generated events (masked by the policy, as the writers store them) and
// for corner cases: HTML characters, control characters, invalid UTF-8,
// an empty diff, absent optional fields, raw values of every kind.
func TestDocEncodingIsTheDocument(t *testing.T) {
	var events []audit.Event
	g := gen.New(gen.Config{Seed: 4, Tenants: 3, WithIDs: true}, 300)
	var policy audit.SensitivePolicy
	for range 300 {
		raw, _ := json.Marshal(g.Next())
		e, err := policy.Decode(raw, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	ts := audit.NewTimestamp(time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC))
	events = append(events,
		audit.Event{ID: "evt_audit_x", Timestamp: ts},
		audit.Event{ID: "<&>\u2028", Timestamp: ts, Reason: "a <b> & \"c\"\n\x01 \xff", Actor: audit.Actor{IP: "::1", UserAgent: "ua\t"},
			Diff:   map[string]audit.Change{"b": {To: json.RawMessage(`{"x":[1,"<"]}`)}, "a": {From: json.RawMessage(`"s"`)}, "<": {}},
			Before: json.RawMessage(`null`), After: json.RawMessage(`{"k":1.50}`), CrossTenant: true, Category: "c", Outcome: "o", RequestID: "r", RestoredFrom: "f"})
	for _, e := range events {
		want, err := json.Marshal(toDoc(&e))
		if err != nil {
			t.Fatal(err)
		}
		got := appendDoc(nil, &e, nil)
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", e.ID, err, got)
		}
		dec := json.NewDecoder(bytes.NewReader(want))
		if err := dec.Decode(&b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s:\n got %s\nwant %s", e.ID, got, want)
		}
	}
}
