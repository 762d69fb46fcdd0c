package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
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
	for _, c := range leafCorners() {
		checkEventJSON(t, audit.Event{ID: c.s, Reason: c.s, Actor: audit.Actor{UserAgent: c.s}, Timestamp: audit.NewTimestamp(time.Unix(1, 2e6)),
			Before: rawOf(c.raw), After: rawOf(c.raw), Diff: map[string]audit.Change{c.s: {From: rawOf(c.raw)}, "<": {To: rawOf(c.raw)}}})
	}
	checkEventJSON(t, audit.Event{After: json.RawMessage(`{"a": "x y", "b":"\t<"}`)})
	checkEventJSON(t, audit.Event{After: json.RawMessage(`{"a":`)}) // invalid: both refuse
}

func FuzzEventJSON(f *testing.F) {
	for _, c := range leafCorners() {
		f.Add(c.s, c.raw)
	}
	f.Fuzz(func(t *testing.T, s, raw string) {
		checkEventJSON(t, audit.Event{ID: s, TenantID: s, Actor: audit.Actor{Email: s}, Reason: s, After: rawOf(raw),
			Diff: map[string]audit.Change{s: {From: rawOf(raw), To: rawOf(raw)}}})
	})
}
