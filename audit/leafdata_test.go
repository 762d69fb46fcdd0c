package audit_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// referenceLeafData is the leaf encoding as docs/event.md defines it, computed
// the slow way (storetest.CanonicalJSON of the event's JSON).
func referenceLeafData(t testing.TB, e audit.Event) []byte {
	t.Helper()
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("not an encodable event: %v", err)
	}
	return storetest.CanonicalJSON(t, raw)
}

// TestLeafDataMatchesTheReference: the direct encoder writes, byte for
// byte, what the reference writes, for generated events and for the
// corners of JSON: escapes, control characters, U+2028, invalid UTF-8,
// HTML characters, surrogates, repeated keys, nesting, numbers as written,
// empty and absent values.
func TestLeafDataMatchesTheReference(t *testing.T) {
	g := gen.New(gen.Config{Seed: 3, Tenants: 3, WithIDs: true}, 500)
	for range 500 {
		e := g.Next()
		if got, want := audit.LeafData(e), referenceLeafData(t, e); !bytes.Equal(got, want) {
			t.Fatalf("event %s:\n got %s\nwant %s", e.ID, got, want)
		}
	}
	for _, c := range leafCorners() {
		e := audit.Event{ID: "evt_audit_x", TenantID: c.s, Timestamp: audit.NewTimestamp(time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)),
			Actor: audit.Actor{Email: c.s, UserAgent: c.s}, Reason: c.s, After: rawOf(c.raw), Before: rawOf(c.raw),
			Diff: map[string]audit.Change{c.s: {From: rawOf(c.raw)}, "a": {To: rawOf(c.raw)}}}
		if got, want := audit.LeafData(e), referenceLeafData(t, e); !bytes.Equal(got, want) {
			t.Errorf("%q %q:\n got %s\nwant %s", c.s, c.raw, got, want)
		}
	}
}

// rawOf is raw as a stored event holds it: nil when absent.
func rawOf(raw string) json.RawMessage {
	if raw == "" {
		return nil
	}
	return json.RawMessage(raw)
}

type leafCorner struct{ s, raw string }

func leafCorners() []leafCorner {
	return []leafCorner{
		{"", ""}, {"plain", "null"}, {"a<b & c>", `"<&>"`}, {"quote\" back\\slash", `"q\"b\\s\/"`},
		{"\n\r\t\b\f\x00\x1f\x7f", `"\n\r\t\b\f\u0000\u001f"`}, {"\u2028\u2029", `"\u2028 \u2029"`},
		{"bad \xff\xfe utf8 \xe2\x82", "\"\xff\""}, {"é ü 😀", `"\u00e9 \ud83d\ude00 \ud800 \udc00x"`},
		{"k", ` { "z" : 1.50 , "a" : { "y" : true , "b" : [ 3 , 2e10 , -0 , 1E-7 ] } , "z" : [ ] , "m": {} } `},
		{"k", `[{"b":1,"a":2},[],[[null]],"x",false]`}, {"k", `{"é":1,"e":2,"E":3,"":4,"\u0065":5}`},
		{"k", `-12.500e+03`}, {"k", `{"a":{"a":{"a":{"a":"\t"}}}}`},
	}
}

// FuzzLeafData: the direct encoder and the reference agree on any event
// whose raw values are valid JSON.
func FuzzLeafData(f *testing.F) {
	for _, c := range leafCorners() {
		f.Add(c.s, c.raw)
	}
	f.Fuzz(func(t *testing.T, s, raw string) {
		if raw != "" && !json.Valid([]byte(raw)) {
			return
		}
		e := audit.Event{ID: s, TenantID: s, Reason: s, Actor: audit.Actor{IP: s}, After: rawOf(raw),
			Diff: map[string]audit.Change{s: {From: rawOf(raw), To: rawOf(raw)}}}
		if got, want := audit.LeafData(e), referenceLeafData(t, e); !bytes.Equal(got, want) {
			t.Fatalf("%q %q:\n got %s\nwant %s", s, raw, got, want)
		}
	})
}
