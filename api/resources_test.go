package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/history"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/sqlite"
)

func TestResourceHistoryOnSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testResourceHistory(t, s, s, func() {})
}

func TestResourceHistoryOnElasticsearch(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	testResourceHistory(t, h.store, h.store, func() { h.refresh(t) })
}

// The five states of a recording policy: nested objects, and an array
// of objects with ids that is reordered between versions 3 and 4.
var policyStates = []string{
	`{"retentionDays":30,"rules":[{"id":"r1","mode":"all","channels":["voice"]},{"id":"r2","mode":"none"}],"storage":{"region":"eu","encryption":{"enabled":true}}}`,
	`{"retentionDays":60,"rules":[{"id":"r1","mode":"all","channels":["voice"]},{"id":"r2","mode":"none"}],"storage":{"region":"eu","encryption":{"enabled":true}}}`,
	`{"retentionDays":60,"rules":[{"id":"r1","mode":"all","channels":["voice"]},{"id":"r2","mode":"some"}],"storage":{"region":"eu","encryption":{"enabled":true}}}`,
	`{"retentionDays":60,"rules":[{"id":"r2","mode":"some"},{"id":"r1","mode":"all","channels":["voice"]},{"id":"r3","mode":"all"}],"storage":{"region":"eu","encryption":{"enabled":false}}}`,
	`{"retentionDays":90,"rules":[{"id":"r2","mode":"some"},{"id":"r1","mode":"all","channels":["voice"]},{"id":"r3","mode":"all"}],"storage":{"region":"eu","encryption":{"enabled":false}}}`,
}

const (
	historyTenant = "3a4b5c6d-7e8f-4a0b-8c1d-2e3f4a5b6c7d"
	otherTenant   = "4b5c6d7e-8f9a-4b1c-9d2e-3f4a5b6c7d8e"
	policyID      = "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"
)

func versionID(n int) string {
	return fmt.Sprintf("evt_audit_6d7e8f9a-0b1c-4d3e-9f4a-5b6c7d8e9f%02d", n)
}

// policyEvent is one ingested event of the policy's life: version n.
func policyEvent(n int, action, before, after, extra string) string {
	state := ""
	if before != "" {
		state += `,"before":` + before
	}
	if after != "" {
		state += `,"after":` + after
	}
	return fmt.Sprintf(`{"id":"%s","timestamp":"2026-11-20T10:%02d:00.000Z","tenantId":"%s",`+
		`"actor":{"id":"2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","email":"v%d@x.example","role":"admin"},`+
		`"action":"%s","resource":{"type":"recording_policy","id":"%s"}%s%s}`, versionID(n), n, historyTenant, n, action, policyID, state, extra)
}

// testResourceHistory: a recording policy goes through five versions
// (ingested over HTTP, so the service computes each diff), is read once,
// deleted and re-created. The history lists the seven versions newest
// first, page by page; compare between versions 2 and 4 gives exactly the
// changed nested fields, arrays of objects matched by id; another tenant
// sees none of it.
func testResourceHistory(t *testing.T, w audit.EventWriter, r api.Reader, visible func()) {
	srv := ingestServer(t, w, r, prometheus.NewRegistry())
	lines := []string{policyEvent(1, "create", "", policyStates[0], "")}
	for v := 2; v <= 5; v++ {
		lines = append(lines, policyEvent(v, "update", policyStates[v-2], policyStates[v-1], ""))
	}
	lines = append(lines, policyEvent(6, "access", "", "", ""), policyEvent(7, "delete", policyStates[4], "", ""),
		// Re-created, recorded with its diff only: a version without state.
		policyEvent(8, "create", "", "", `,"diff":{"retentionDays":{"from":null,"to":45}}`))
	code, out := post(t, srv.URL, ingestToken, "application/x-ndjson", []byte(strings.Join(lines, "\n")))
	var ir api.IngestResponse
	if err := json.Unmarshal(out, &ir); err != nil || code != 200 || ir.Accepted != len(lines) {
		t.Fatalf("ingest: %d %s", code, out)
	}
	visible()
	h := &harness{srv: srv}
	admin := token(t, historyTenant, audit.RoleAdmin, "")
	base := "/api/resources/recording_policy/" + policyID

	// The whole history, three entries a page.
	var got []history.Entry
	path := base + "/history?pageSize=3"
	for pages := 0; path != ""; pages++ {
		if pages > 5 {
			t.Fatal("the history does not end")
		}
		res := h.get(t, path, admin)
		var page api.HistoryResponse
		if res.status != 200 || json.Unmarshal(res.body, &page) != nil {
			t.Fatalf("%s: %d %s", path, res.status, res.body)
		}
		got = append(got, page.Data...)
		path = ""
		if page.HasMore {
			path = base + "/history?pageSize=3&cursor=" + *page.NextCursor
		}
	}
	var ids []string
	for _, e := range got {
		ids = append(ids, e.EventID)
	}
	want := []string{versionID(8), versionID(7), versionID(5), versionID(4), versionID(3), versionID(2), versionID(1)}
	if !slices.Equal(ids, want) {
		t.Fatalf("history %v, want %v (newest first, reads left out)", ids, want)
	}
	if e := got[4]; e.Action != audit.ActionUpdate || e.Actor.Email != "v3@x.example" || !slices.Equal(e.ChangedFields, []string{"rules[r2].mode"}) || !e.HasState {
		t.Fatalf("version 3: %+v", e)
	}
	if got[0].HasState || !got[1].HasState {
		t.Fatalf("hasState: a diff-only change has none, a deletion has the empty state: %+v %+v", got[0], got[1])
	}

	// Compare versions 2 and 4: exactly the changed nested fields.
	res := h.get(t, base+"/compare?"+qs("base", versionID(2), "target", versionID(4)), admin)
	var cmp history.Comparison
	if res.status != 200 || json.Unmarshal(res.body, &cmp) != nil {
		t.Fatalf("compare: %d %s", res.status, res.body)
	}
	wantFields := []string{
		`rules[r2].mode "none" "some" changed`,
		`rules[r3] null {"id":"r3","mode":"all"} added`,
		`storage.encryption.enabled true false changed`,
	}
	var fields []string
	for _, f := range cmp.Fields {
		fields = append(fields, fmt.Sprintf("%s %s %s %s", f.Path, compact(f.Base), compact(f.Target), f.Change))
	}
	if !slices.Equal(fields, wantFields) || cmp.Base.EventID != versionID(2) || cmp.Target.EventID != versionID(4) {
		t.Fatalf("compare 2 → 4:\n%s\nwant\n%s", strings.Join(fields, "\n"), strings.Join(wantFields, "\n"))
	}
	// After the deletion every field is removed.
	res = h.get(t, base+"/compare?"+qs("base", versionID(5), "target", versionID(7)), admin)
	if res.status != 200 || json.Unmarshal(res.body, &cmp) != nil || len(cmp.Fields) != 3 || cmp.Fields[0].Change != history.FieldRemoved {
		t.Fatalf("compare 5 → deleted: %d %s", res.status, res.body)
	}
	testHistoryRefusals(t, h, admin, base)
}

// testHistoryRefusals: what compare and history refuse, and tenant
// isolation (another tenant's resource and event ids are 404).
func testHistoryRefusals(t *testing.T, h *harness, admin, base string) {
	other := token(t, otherTenant, audit.RoleAdmin, "")
	for _, c := range []struct {
		name, path, tok string
		status          int
		field           string
	}{
		{"another tenant's history", base + "/history", other, 404, ""},
		{"another tenant's compare", base + "/compare?" + qs("base", versionID(2), "target", versionID(4)), other, 404, ""},
		{"an unknown resource", "/api/resources/recording_policy/nope/history", admin, 404, ""},
		{"a malformed type", "/api/resources/Recording%20Policy/" + policyID + "/history", admin, 404, ""},
		{"a read is not a version", base + "/compare?" + qs("base", versionID(6), "target", versionID(4)), admin, 404, ""},
		{"an event of another resource", "/api/resources/ivr/" + policyID + "/compare?" + qs("base", versionID(2), "target", versionID(4)), admin, 404, ""},
		{"missing target", base + "/compare?" + qs("base", versionID(2)), admin, 400, "target"},
		{"unknown parameter", base + "/history?" + qs("sort", "action"), admin, 400, "sort"},
		{"a version without state", base + "/compare?" + qs("base", versionID(8), "target", versionID(4)), admin, 400, ""},
		{"a cursor of another resource", "/api/resources/ivr/" + policyID + "/history?" + qs("cursor", historyCursor(t, h, admin, base)), admin, 400, "cursor"},
	} {
		res := h.get(t, c.path, c.tok)
		if res.status != c.status {
			t.Fatalf("%s: %d %s, want %d", c.name, res.status, res.body, c.status)
		}
		if c.field != "" {
			if p := res.problem(t); len(p.Errors) == 0 || p.Errors[0].Field != c.field {
				t.Fatalf("%s: %s, want an error naming %s", c.name, res.body, c.field)
			}
		}
	}
}

func historyCursor(t *testing.T, h *harness, tok, base string) string {
	var page api.HistoryResponse
	res := h.get(t, base+"/history?pageSize=1", tok)
	if json.Unmarshal(res.body, &page) != nil || page.NextCursor == nil {
		t.Fatalf("no cursor: %s", res.body)
	}
	return *page.NextCursor
}

func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
