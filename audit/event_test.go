package audit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/golden"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// specEvent is the full event of spec §2.1, every field set.
func specEvent() audit.Event {
	return audit.Event{
		ID:        "evt_audit_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f",
		Timestamp: audit.NewTimestamp(time.Date(2026, 11, 21, 9, 30, 12, 345_678_000, time.UTC)),
		TenantID:  "7c9e6679-7425-40de-944b-e07fc1f90ae7",
		Actor: audit.Actor{
			ID:        "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
			Email:     "supervisor@acme-contact.example",
			Role:      "admin",
			IP:        "203.0.113.42",
			UserAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36",
		},
		Action:   audit.ActionUpdate,
		Resource: audit.Resource{Type: "recording_policy", ID: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"},
		Diff: map[string]audit.Change{
			"retentionDays": {From: json.RawMessage(`30`), To: json.RawMessage(`90`)},
			"enabled":       {From: json.RawMessage(`false`), To: json.RawMessage(`true`)},
			"queues":        {From: json.RawMessage(`["sales"]`), To: json.RawMessage(`["sales","support"]`)},
		},
		CrossTenant: false,
		Category:    audit.CategoryConfiguration,
		Outcome:     audit.OutcomeSuccess,
		Before:      json.RawMessage(`{"enabled":false,"queues":["sales"],"retentionDays":30}`),
		After:       json.RawMessage(`{"enabled":true,"queues":["sales","support"],"retentionDays":90}`),
		RequestID:   "req_5d1c9b",
	}
}

func TestEventJSONRoundTripGolden(t *testing.T) {
	e := specEvent()
	if err := e.Validate(now); err != nil {
		t.Fatalf("the spec event must be valid: %v", err)
	}
	golden.AssertJSON(t, "testdata/event_full.golden.json", e)

	raw, err := os.ReadFile("testdata/event_full.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := audit.DecodeEvent(raw, now)
	if err != nil {
		t.Fatalf("decode golden: %v", err)
	}
	// Raw values are compared after compaction: the golden file is indented.
	reenc, _ := json.Marshal(got)
	orig, _ := json.Marshal(e)
	if !bytes.Equal(reenc, orig) {
		t.Fatalf("round trip changed the event\n got %s\nwant %s", reenc, orig)
	}
}

// TestEventFieldNamesMatchSpec checks the wire names against the field
// table of spec §2.1, and the timestamp format.
func TestEventFieldNamesMatchSpec(t *testing.T) {
	b, _ := json.Marshal(audit.Event{Timestamp: audit.NewTimestamp(time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)))})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok && k != "diff" {
			for sk := range sub {
				got = append(got, k+"."+sk)
			}
			continue
		}
		got = append(got, k)
	}
	sort.Strings(got)
	want := []string{"action", "actor.email", "actor.id", "actor.ip", "actor.role", "actor.userAgent",
		"crossTenant", "diff", "id", "resource.id", "resource.type", "tenantId", "timestamp"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("an empty event serializes the fields\n%v\nwant exactly spec §2.1:\n%v", got, want)
	}
	if m["timestamp"] != "2026-01-02T02:04:05.000Z" {
		t.Fatalf("timestamp %v: want UTC with three fraction digits", m["timestamp"])
	}
	if d, ok := m["diff"].(map[string]any); !ok || len(d) != 0 {
		t.Fatalf("empty diff must serialize as {}, got %v", m["diff"])
	}
}

func TestParseTimestamp(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-21T09:30:12.345Z":            "2026-11-21T09:30:12.345Z",
		"2026-11-21T09:30:12Z":                "2026-11-21T09:30:12.000Z",
		"2026-11-21T10:30:12.3456789+01:00":   "2026-11-21T09:30:12.345Z",
		"2026-11-21T09:30:12.1Z":              "2026-11-21T09:30:12.100Z",
		"2026-11-21T09:30:12.999999999-00:30": "2026-11-21T10:00:12.999Z",
	} {
		ts, err := audit.ParseTimestamp(in)
		if err != nil || ts.String() != want {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %s", in, ts, err, want)
		}
	}
	for _, in := range []string{"", "2026-11-21", "2026-11-21 09:30:12Z", "2026-11-21T09:30:12", "1763717412", "21/11/2026 09:30", "2026-11-21t09:30:12.1z", "2026-13-21T09:30:12Z"} {
		if _, err := audit.ParseTimestamp(in); audit.ErrorCode(err) != audit.EINVALID {
			t.Errorf("ParseTimestamp(%q) = %v; want EINVALID", in, err)
		}
	}
}

func TestIDs(t *testing.T) {
	id := audit.NewID()
	if !audit.ValidID(id) || !strings.HasPrefix(id, "evt_audit_") {
		t.Fatalf("NewID() = %q is not evt_audit_ + UUIDv7", id)
	}
	if audit.NewID() == id {
		t.Fatal("NewID repeated itself")
	}
	ts := audit.NewTimestamp(time.Date(2026, 11, 21, 9, 30, 12, 345e6, time.UTC))
	a := audit.DeriveID(ts, audit.KafkaKey("audit-events", 3, 42))
	b := audit.DeriveID(ts, audit.KafkaKey("audit-events", 3, 42))
	c := audit.DeriveID(ts, audit.KafkaKey("audit-events", 3, 43))
	if a != b || a == c || !audit.ValidID(a) || !audit.ValidID(c) {
		t.Fatalf("DeriveID must be deterministic, distinct per key and a valid v7 id: %s %s %s", a, b, c)
	}
	// The UUIDv7 time field carries the event time, so derived ids sort by time.
	later := audit.DeriveID(audit.NewTimestamp(ts.Add(time.Millisecond)), audit.KafkaKey("audit-events", 3, 42))
	if !(later > a) {
		t.Fatalf("derived id of a later event must sort after: %s <= %s", later, a)
	}
	// Any RFC 9562 UUID after the prefix (spec §2.1: "a unique identifier").
	for _, good := range []string{
		"evt_audit_7c9e6679-7425-40de-944b-e07fc1f90ae7", // v4
		"evt_audit_6ba7b810-9dad-11d1-80b4-00c04fd430c8", // v1
		"evt_audit_886313e1-3b8a-5372-9b90-0c9aee199e5d", // v5
		"evt_audit_1ec9414c-232a-6b00-b3c8-9e6bdeced846", // v6
		"evt_audit_320c3d4d-cc00-875b-8ec9-32d5f69181c0", // v8
	} {
		if !audit.ValidID(good) {
			t.Errorf("ValidID(%q) = false; any RFC 9562 UUID is accepted", good)
		}
	}
	for _, bad := range []string{"", "evt_audit_", "019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f",
		"evt_audit_00000000-0000-0000-0000-000000000000", // nil UUID
		"evt_audit_ffffffff-ffff-ffff-ffff-ffffffffffff", // max UUID
		"evt_audit_7c9e6679-7425-90de-944b-e07fc1f90ae7", // version 9
		"evt_audit_7c9e6679-7425-40de-c44b-e07fc1f90ae7", // Microsoft variant
		"evt_audit_019A8F4E-3C2B-7D10-8A3E-5F6B7C8D9E0F", // not canonical lowercase
		"evt_audit_7c9e6679-7425-40de-944b-e07fc1f90aE7", // one capital
		"evt_audit_7c9e6679+7425-40de-944b-e07fc1f90ae7", // not a hyphen
		"EVT_AUDIT_019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f", // prefix case
		"evt_audit_019a8f4e3c2b7d108a3e5f6b7c8d9e0f",     // no hyphens
		"evt_audit_{019a8f4e-3c2b-7d10-8a3e-5f6b7c8d9e0f}"} {
		if audit.ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
	e1, e2 := specEvent(), specEvent()
	e2.ID = "evt_audit_019a8f4e-3c2b-7d10-8a3e-000000000000"
	if !bytes.Equal(audit.CanonicalKey(e1), audit.CanonicalKey(e2)) {
		t.Fatal("CanonicalKey must ignore the id")
	}
	e2.Actor.IP = "203.0.113.43"
	if bytes.Equal(audit.CanonicalKey(e1), audit.CanonicalKey(e2)) {
		t.Fatal("CanonicalKey must change with the content")
	}
}

func TestNormalize(t *testing.T) {
	e := specEvent()
	e.Category, e.Outcome = "", ""
	e.Normalize()
	if e.Category != audit.CategoryConfiguration || e.Outcome != audit.OutcomeSuccess {
		t.Fatalf("defaults: category %q outcome %q", e.Category, e.Outcome)
	}
	e = specEvent()
	e.Actor.Role, e.Category, e.Reason = audit.RoleSuperadmin, "", "ticket CS-1234"
	e.Normalize()
	if !e.CrossTenant || e.Category != audit.CategoryCrossTenant {
		t.Fatalf("a superadmin event must be flagged crossTenant with category cross_tenant: %+v", e)
	}
}

func TestErrorHelpers(t *testing.T) {
	cause := errors.New("dial tcp: connection refused")
	err := audit.Wrap(audit.EUNAVAILABLE, cause, "store unavailable")
	if audit.ErrorCode(err) != audit.EUNAVAILABLE || audit.ErrorMessage(err) != "store unavailable" || !errors.Is(err, cause) {
		t.Fatalf("Wrap: %v", err)
	}
	plain := errors.New("secret internals")
	if audit.ErrorCode(plain) != audit.EINTERNAL || audit.ErrorMessage(plain) != "internal error" {
		t.Fatal("a foreign error must read as EINTERNAL with a masked message")
	}
	if audit.ErrorCode(nil) != "" {
		t.Fatal("nil has no code")
	}
}

// TestTimestampAppendToIsTheLayout: AppendTo writes what time's own
// formatting of TimestampLayout writes, over random instants of every
// year the fast path takes, its bounds and the years past them.
func TestTimestampAppendToIsTheLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(58, 1))
	instants := []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), time.Unix(0, 0)}
	lo, hi := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for range 100000 {
		instants = append(instants, time.Unix(lo+rng.Int64N(hi-lo), rng.Int64N(1e9)).In(time.FixedZone("x", 3600*(rng.IntN(27)-13))))
	}
	for _, at := range instants {
		ts := audit.Timestamp{Time: at}
		if got, want := string(ts.AppendTo([]byte("x"))), "x"+at.UTC().Format("2006-01-02T15:04:05.000Z"); got != want {
			t.Fatalf("AppendTo(%v) = %q, want %q", at, got, want)
		}
	}
}
