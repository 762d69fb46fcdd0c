package vlog_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
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
		if got, want := vlog.LeafData(e), referenceLeafData(t, e); !bytes.Equal(got, want) {
			t.Fatalf("event %s:\n got %s\nwant %s", e.ID, got, want)
		}
	}
	for _, c := range schematest.Corners() {
		e := audit.Event{ID: "evt_audit_x", TenantID: c.S, Timestamp: audit.NewTimestamp(time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)),
			Actor: audit.Actor{Email: c.S, UserAgent: c.S}, Reason: c.S, After: schematest.Raw(c.Raw), Before: schematest.Raw(c.Raw),
			Diff: map[string]audit.Change{c.S: {From: schematest.Raw(c.Raw)}, "a": {To: schematest.Raw(c.Raw)}}}
		if got, want := vlog.LeafData(e), referenceLeafData(t, e); !bytes.Equal(got, want) {
			t.Errorf("%q %q:\n got %s\nwant %s", c.S, c.Raw, got, want)
		}
	}
}

// FuzzLeafData: the direct encoder and the reference agree on any event
// whose raw values are valid JSON.
func FuzzLeafData(f *testing.F) {
	for _, c := range schematest.Corners() {
		f.Add(c.S, c.Raw)
	}
	f.Fuzz(func(t *testing.T, s, raw string) {
		if raw != "" && !json.Valid([]byte(raw)) {
			return
		}
		e := audit.Event{ID: s, TenantID: s, Reason: s, Actor: audit.Actor{IP: s}, After: schematest.Raw(raw),
			Diff: map[string]audit.Change{s: {From: schematest.Raw(raw), To: schematest.Raw(raw)}}}
		if got, want := vlog.LeafData(e), referenceLeafData(t, e); !bytes.Equal(got, want) {
			t.Fatalf("%q %q:\n got %s\nwant %s", s, raw, got, want)
		}
	})
}
