package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/cursor"
	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/sqlite"
)

// restoreBackend is what the restore endpoints need of a store.
type restoreBackend interface {
	api.Reader
	audit.EventWriter
	restorejob.Store
	audit.TenantDirectory
}

func TestRestoreOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testRestore(t, s, func() {})
}

func TestRestoreOnElasticsearch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	testRestore(t, h.store, func() { h.refresh(t) })
}

const (
	restoreTenant = "6d7e8f9a-0b1c-4d2e-8f3a-4b5c6d7e8f9a"
	restoredID    = "7e8f9a0b-1c2d-4e3f-9a4b-5c6d7e8f9a0b"
)

// The five states of a recording policy whose integration holds a
// clientSecret three levels deep (changed in version 3).
var restoreStates = []string{
	`{"mode":"all","integration":{"auth":{"clientSecret":"first-secret-1","user":"u1"}},"rules":[{"id":"r1","mode":"all"}]}`,
	`{"mode":"some","integration":{"auth":{"clientSecret":"first-secret-1","user":"u1"}},"rules":[{"id":"r1","mode":"all"}]}`,
	`{"mode":"some","integration":{"auth":{"clientSecret":"second-secret-2","user":"u2"}},"rules":[{"id":"r1","mode":"none"}]}`,
	`{"mode":"none","integration":{"auth":{"clientSecret":"second-secret-2","user":"u2"}},"rules":[{"id":"r1","mode":"none"},{"id":"r2","mode":"all"}]}`,
	`{"mode":"none","integration":{"auth":{"clientSecret":"second-secret-2","user":"u2"}},"rules":[{"id":"r2","mode":"all"}]}`,
}

func restoreEventID(n int) string {
	return fmt.Sprintf("evt_audit_8f9a0b1c-2d3e-4f4a-8b5c-6d7e8f9a0b%02d", n)
}

// restoreEvent is version n of the policy (n from 1), or an owner's
// event when extra says so.
func restoreEvent(n int, ts time.Time, action, before, after, extra string) string {
	state := ""
	if before != "" {
		state += `,"before":` + before
	}
	if after != "" {
		state += `,"after":` + after
	}
	return fmt.Sprintf(`{"id":"%s","timestamp":"%s","tenantId":"%s","actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"owner@x.example","role":"admin"},`+
		`"action":"%s","resource":{"type":"recording_policy","id":"%s"}%s%s}`, restoreEventID(n), ts.UTC().Format(audit.TimestampLayout), restoreTenant, action, restoredID, state, extra)
}

// restoreHarness serves the API with the restore endpoints on b; writer
// records the service's own events (b unless a test breaks it).
func restoreHarness(t *testing.T, b restoreBackend, writer audit.EventWriter, def audit.Plan) *harness {
	t.Helper()
	v, _ := api.NewVerifier(api.AuthConfig{Secret: secret})
	srv := httptest.NewServer(api.NewServer(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Read:    api.ReadDeps{Reader: b, Writer: writer, Verifier: v, Cursors: cursor.NewCodec([]byte("k"))},
		Ingest:  api.IngestDeps{Writer: b, StaticToken: ingestToken, Verifier: v},
		Restore: api.RestoreDeps{Store: b, Tenants: b, DefaultPlan: def},
	}).Handler())
	t.Cleanup(srv.Close)
	return &harness{srv: srv}
}

func ingestLines(t *testing.T, h *harness, lines ...string) {
	t.Helper()
	code, out := post(t, h.srv.URL, ingestToken, "application/x-ndjson", []byte(strings.Join(lines, "\n")))
	var ir api.IngestResponse
	if err := json.Unmarshal(out, &ir); err != nil || code != 200 || ir.Accepted != len(lines) {
		t.Fatalf("ingest: %d %s", code, out)
	}
}

// restoreAsk posts a restore of event id with body, under key.
func restoreAsk(t *testing.T, h *harness, tok, id, key, body string, headers ...string) response {
	t.Helper()
	if key != "" {
		headers = append(headers, api.IdempotencyKeyHeader, key)
	}
	return h.do(t, "POST", "/api/audit-logs/"+id+"/restore", tok, []byte(body), append(headers, "Content-Type", "application/json")...)
}

func restoreView(t *testing.T, r response, status int) api.RestoreView {
	t.Helper()
	var v api.RestoreView
	if r.status != status {
		t.Fatalf("%d %s, want %d", r.status, r.body, status)
	}
	r.json(t, &v)
	return v
}

// testRestore: the restore endpoints on one store, from the five
// versions of a policy.
func testRestore(t *testing.T, b restoreBackend, visible func()) {
	h := restoreHarness(t, b, b, audit.PlanEnterprise)
	start := time.Now().Add(-time.Hour)
	lines := []string{restoreEvent(1, start, "create", "", restoreStates[0], "")}
	for v := 2; v <= 5; v++ {
		lines = append(lines, restoreEvent(v, start.Add(time.Duration(v)*time.Minute), "update", restoreStates[v-2], restoreStates[v-1], ""))
	}
	lines = append(lines, restoreEvent(6, start.Add(6*time.Minute), "access", "", "", ""))
	ingestLines(t, h, lines...)
	visible()
	admin := token(t, restoreTenant, audit.RoleAdmin, "")

	first := testRestoreVersion(t, h, admin)
	forced := testRestoreConflicts(t, h, admin)
	testRestoreRoles(t, h, visible)
	testRestoreIsolation(t, h, first.RequestID)
	testRestoreOutcome(t, h, visible, admin, first.RequestID, forced.RequestID)
	testRestoreRecordFirst(t, b)
	testRestoreRaces(t, h, b, visible, admin)
	testUpperCaseIDs(t, h, admin)
	testRestoreRetention(t, h, b, visible, admin)
}

// testRestoreVersion: restoring version 2 asks for exactly version 2's
// state, without the masked secret; the same key answers the same
// request; a per-field undo puts back only its fields.
func testRestoreVersion(t *testing.T, h *harness, admin string) api.RestoreView {
	res := restoreAsk(t, h, admin, restoreEventID(2), "key-1", `{"version":"after","latestSeen":"`+restoreEventID(5)+`"}`)
	v := restoreView(t, res, 202)
	want := `{"integration":{"auth":{"user":"u1"}},"mode":"some","rules":[{"id":"r1","mode":"all"}]}`
	if compact(v.State) != want || !slices.Equal(v.OmittedFields, []string{"integration.auth.clientSecret"}) {
		t.Fatalf("state %s omitted %v, want %s without the masked secret", v.State, v.OmittedFields, want)
	}
	if v.ExpectedEventID != restoreEventID(5) || v.SourceEventID != restoreEventID(2) || v.Status != restorejob.Pending ||
		v.TenantID != restoreTenant || v.Resource.ID != restoredID || v.RequestedBy.Role != audit.RoleAdmin || res.header.Get("Location") != v.StatusURL {
		t.Fatalf("request %+v", v)
	}
	if strings.Contains(string(res.body), "secret-1") || strings.Contains(string(res.body), "secret-2") {
		t.Fatalf("a secret in clear in the answer: %s", res.body)
	}
	again := restoreView(t, restoreAsk(t, h, admin, restoreEventID(2), "key-1", `{"version":"after","latestSeen":"`+restoreEventID(5)+`"}`), 202)
	if again.RequestID != v.RequestID || !again.CreatedAt.Equal(v.CreatedAt.Time) {
		t.Fatalf("the same key made another request: %s then %s", v.RequestID, again.RequestID)
	}
	if res := restoreAsk(t, h, admin, restoreEventID(3), "key-1", `{"latestSeen":"`+restoreEventID(5)+`"}`); res.status != 409 {
		t.Fatalf("the key reused for another restore: %d %s", res.status, res.body)
	}
	// Undo the mode of version 4 (before = version 3): the current state
	// with mode put back; the current secret is left out and named.
	undo := restoreView(t, restoreAsk(t, h, admin, restoreEventID(4), "key-2",
		`{"fields":["mode"],"latestSeen":"`+restoreEventID(5)+`"}`), 202)
	if compact(undo.State) != `{"integration":{"auth":{"user":"u2"}},"mode":"some","rules":[{"id":"r2","mode":"all"}]}` ||
		!slices.Equal(undo.OmittedFields, []string{"integration.auth.clientSecret"}) {
		t.Fatalf("per-field undo: %s omitted %v", undo.State, undo.OmittedFields)
	}
	if !strings.Contains(string(undo.ExpectedState), audit.MaskPrefix) {
		t.Fatalf("the expected state shows the secret as changed/unchanged, masked: %s", undo.ExpectedState)
	}
	return v
}

// testRestoreConflicts: a stale restore is 409 naming the newest version;
// force restores anyway. A read is not a version.
func testRestoreConflicts(t *testing.T, h *harness, admin string) api.RestoreView {
	res := restoreAsk(t, h, admin, restoreEventID(3), "key-3", `{"latestSeen":"`+restoreEventID(4)+`"}`)
	p := res.problem(t)
	latest, _ := p.Details.(map[string]any)["latest"].(map[string]any)
	if res.status != 409 || latest["eventId"] != restoreEventID(5) {
		t.Fatalf("stale restore: %d %s, want 409 naming version 5", res.status, res.body)
	}
	forced := restoreView(t, restoreAsk(t, h, admin, restoreEventID(3), "key-3", `{"latestSeen":"`+restoreEventID(4)+`","force":true}`), 202)
	if compact(forced.State) != `{"integration":{"auth":{"user":"u1"}},"mode":"some","rules":[{"id":"r1","mode":"all"}]}` {
		t.Fatalf("forced state %s", forced.State)
	}
	for _, c := range []struct {
		name, id, body string
		status         int
		field          string
	}{
		{"a read", restoreEventID(6), `{"force":true}`, 400, ""},
		{"no latestSeen", restoreEventID(3), `{}`, 400, "latestSeen"},
		{"a bad version", restoreEventID(3), `{"version":"middle","force":true}`, 400, "version"},
		{"an unknown field", restoreEventID(3), `{"forse":true}`, 400, "forse"},
		{"a wrong type", restoreEventID(3), `{"force":"yes"}`, 400, "force"},
		{"force given twice", restoreEventID(3), `{"force":false,"force":true}`, 400, "force"},
		{"a path of a wrong type", restoreEventID(3), `{"force":true,"fields":["a",5]}`, 400, "fields[1]"},
		{"a value after the object", restoreEventID(3), `{"force":true} {"force":true}`, 400, ""},
		{"a bad path", restoreEventID(3), `{"force":true,"fields":["rules["]}`, 400, "fields"},
		{"a control character in the reason", restoreEventID(3), `{"force":true,"reason":"a\u0000b"}`, 400, "reason"},
		{"too many paths", restoreEventID(3), `{"force":true,"fields":[` + strings.Repeat(`"a",`, audit.MaxDiffFields) + `"a"]}`, 400, "fields"},
		{"no before state", restoreEventID(1), `{"force":true}`, 400, "version"},
		{"a secret leaf", restoreEventID(4), `{"force":true,"fields":["integration.auth.clientSecret"]}`, 400, "fields"},
		{"a field neither version has", restoreEventID(4), `{"force":true,"fields":["nope"]}`, 400, "fields"},
		{"below a field neither version has", restoreEventID(4), `{"force":true,"fields":["nope.x"]}`, 400, "fields"},
		{"a latestSeen that is no event id", restoreEventID(3), `{"latestSeen":"garbage"}`, 400, "latestSeen"},
		{"a latestSeen of 0", restoreEventID(3), `{"latestSeen":"0"}`, 400, "latestSeen"},
		{"an unknown event", "evt_audit_00000000-0000-4000-8000-000000000000", `{"force":true}`, 404, ""},
	} {
		res := restoreAsk(t, h, admin, c.id, "", c.body)
		if res.status != c.status {
			t.Fatalf("%s: %d %s, want %d", c.name, res.status, res.body, c.status)
		}
		if p := res.problem(t); c.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != c.field) {
			t.Fatalf("%s: %s, want an error naming %s", c.name, res.body, c.field)
		}
	}
	return forced
}
