package elasticsearch

import (
	"encoding/json"
	"github.com/auditlog/auditlog/audit/mask"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// TestDocEncodingIsTheDocument: the document (appendDoc) is valid JSON
// that decodes strictly (no member the doc struct lacks) back to the same
// event, with the derived fields toDoc computes, for generated events
// (masked by the policy, as the writers store them), for an event with
// every field set (schematest.Full) and for corner cases: HTML
// characters, control characters, invalid UTF-8, an empty diff, absent
// optional fields, raw values of every kind.
func TestDocEncodingIsTheDocument(t *testing.T) {
	var events []audit.Event
	g := gen.New(gen.Config{Seed: 4, Tenants: 3, WithIDs: true}, 300)
	var policy mask.Policy
	for range 300 {
		raw, _ := json.Marshal(g.Next())
		e, err := policy.Decode(raw, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	ts := audit.NewTimestamp(time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC))
	events = append(events, schematest.Full(t),
		audit.Event{ID: "evt_audit_x", Timestamp: ts},
		audit.Event{ID: "<&>\u2028", Timestamp: ts, Reason: "a <b> & \"c\"\n\x01 \xff", Actor: audit.Actor{IP: "::1", UserAgent: "ua\t"},
			Diff:   map[string]audit.Change{"b": {To: json.RawMessage(`{"x":[1,"<"]}`)}, "a": {From: json.RawMessage(`"s"`)}, "<": {}},
			Before: json.RawMessage(`null`), After: json.RawMessage(`{"k":1.50}`), CrossTenant: true, Category: "c", Outcome: "o", RequestID: "r", RestoredFrom: "f"})
	for _, e := range events {
		got := appendDoc(nil, &e, nil)
		if !json.Valid(got) {
			t.Fatalf("%s: not JSON:\n%s", e.ID, got)
		}
		d, err := decodeStoredDoc(got)
		if err != nil {
			t.Fatalf("%s: %v\n%s", e.ID, err, got)
		}
		back, want := d.event(), e
		want.Reason = strings.ToValidUTF8(want.Reason, "\uFFFD") // as encoding/json writes invalid UTF-8
		if want.Diff == nil {
			want.Diff = map[string]audit.Change{}
		}
		if back.Diff == nil {
			back.Diff = map[string]audit.Change{}
		}
		if !audit.SameEvent(&back, &want) {
			t.Fatalf("%s: read back as\n%+v\nwant\n%+v\n%s", e.ID, back, want, got)
		}
		if w := toDoc(&want); !slices.Equal(d.ChangedFields, w.ChangedFields) || d.ReasonWords != w.ReasonWords || !slices.Equal(d.Text, w.Text) {
			t.Fatalf("%s: derived fields %q %q %q, want %q %q %q", e.ID, d.ChangedFields, d.ReasonWords, d.Text,
				w.ChangedFields, w.ReasonWords, w.Text)
		}
	}
}
