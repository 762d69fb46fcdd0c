package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
)

// plainEvent has the event's fields and no MarshalJSON: encoding/json
// marshals it by reflection, as Event's MarshalJSON did before it was
// written by hand.
type plainEvent audit.Event

func referenceJSON(t testing.TB, e audit.Event) ([]byte, error) {
	t.Helper()
	p := plainEvent(e)
	if p.Diff == nil {
		p.Diff = map[string]audit.Change{}
	}
	return json.Marshal(p)
}

func checkEventJSON(t testing.TB, e audit.Event) {
	t.Helper()
	got, err := json.Marshal(e)
	want, werr := referenceJSON(t, e)
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("%+v:\n got %s %v\nwant %s %v", e, got, err, want, werr)
	}
}

// TestEventJSONIsTheReflectionEncoding: the hand-written encoding is byte
// for byte what encoding/json writes of the struct, for generated events
// and the corners of strings and raw values (white space inside and
// outside strings, HTML characters, U+2028, invalid UTF-8, escapes).
func TestEventJSONIsTheReflectionEncoding(t *testing.T) {
	g := gen.New(gen.Config{Seed: 8, Tenants: 3, WithIDs: true}, 300)
	for range 300 {
		checkEventJSON(t, g.Next())
	}
	for _, c := range schematest.Corners() {
		checkEventJSON(t, audit.Event{ID: c.S, Reason: c.S, Actor: audit.Actor{UserAgent: c.S}, Timestamp: audit.NewTimestamp(time.Unix(1, 2e6)),
			Before: schematest.Raw(c.Raw), After: schematest.Raw(c.Raw), Diff: map[string]audit.Change{c.S: {From: schematest.Raw(c.Raw)}, "<": {To: schematest.Raw(c.Raw)}}})
	}
	checkEventJSON(t, audit.Event{After: json.RawMessage(`{"a": "x y", "b":"\t<"}`)})
	checkEventJSON(t, audit.Event{After: json.RawMessage(`{"a":`)}) // invalid: both refuse
}

func FuzzEventJSON(f *testing.F) {
	for _, c := range schematest.Corners() {
		f.Add(c.S, c.Raw)
	}
	f.Fuzz(func(t *testing.T, s, raw string) {
		checkEventJSON(t, audit.Event{ID: s, TenantID: s, Actor: audit.Actor{Email: s}, Reason: s, After: schematest.Raw(raw),
			Diff: map[string]audit.Change{s: {From: schematest.Raw(raw), To: schematest.Raw(raw)}}})
	})
}
