package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/sqlite"
)

// restoreRecords lists the tenant's records of restore attempts, newest
// first.
func restoreRecords(t *testing.T, h *harness, tenant string) []audit.Event {
	t.Helper()
	var page api.ListResponse
	h.get(t, "/api/audit-logs?"+qs("resourceType", audit.ResourceRestoreRequest, "pageSize", "100"), token(t, tenant, audit.RoleAdmin, "")).json(t, &page)
	return page.Data
}

// recordDetails decodes the after of a restore record.
func recordDetails(t *testing.T, e audit.Event) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal(e.After, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// testRestoreRoles: only an admin restores, a superadmin only with a
// declared reason; every attempt, refused or accepted, is in the tenant's
// log before the answer, with who asked, which version and why.
func testRestoreRoles(t *testing.T, h *harness, visible func()) {
	body := `{"latestSeen":"` + restoreEventID(5) + `"}`
	if res := restoreAsk(t, h, token(t, restoreTenant, "agent", ""), restoreEventID(4), "", body); res.status != 403 {
		t.Fatalf("an agent's restore: %d %s", res.status, res.body)
	}
	if res := restoreAsk(t, h, token(t, restoreTenant, audit.RoleSuperadmin, ""), restoreEventID(4), "", body); res.status != 403 {
		t.Fatalf("a superadmin's restore without a reason: %d %s", res.status, res.body)
	}
	ok := restoreView(t, restoreAsk(t, h, token(t, restoreTenant, audit.RoleSuperadmin, ""), restoreEventID(4), "",
		`{"latestSeen":"`+restoreEventID(5)+`","reason":"ticket INC-42"}`), 202)
	if ok.Reason != "ticket INC-42" || ok.RequestedBy.Role != audit.RoleSuperadmin {
		t.Fatalf("superadmin's request: %+v", ok)
	}
	if res := restoreAsk(t, h, ingestToken, restoreEventID(4), "", body); res.status != 401 && res.status != 403 {
		t.Fatalf("the ingest credential: %d %s", res.status, res.body)
	}
	visible()
	records := restoreRecords(t, h, restoreTenant)
	if len(records) < 3 {
		t.Fatalf("%d records", len(records))
	}
	// Newest first: the superadmin's accepted ask, its refused one, the
	// agent's refused one.
	for i, want := range []struct {
		role    string
		outcome audit.Outcome
		refusal string
		reason  string
	}{
		{audit.RoleSuperadmin, audit.OutcomeSuccess, "", "ticket INC-42"},
		{audit.RoleSuperadmin, audit.OutcomeFailure, "must declare its reason", "(no reason declared)"},
		{"agent", audit.OutcomeFailure, "only an admin may restore", ""},
	} {
		e := records[i]
		d := recordDetails(t, e)
		refusal, _ := d["refusal"].(string)
		if e.Actor.Role != want.role || e.Outcome != want.outcome || !strings.Contains(refusal, want.refusal) || (want.refusal == "") != (refusal == "") ||
			e.Reason != want.reason || d["sourceEventId"] != restoreEventID(4) || d["version"] != restorejob.Before || e.Action != audit.ActionCreate {
			t.Fatalf("record %d: %+v %v, want %+v", i, e, d, want)
		}
		if e.CrossTenant != (want.role == audit.RoleSuperadmin) {
			t.Fatalf("record %d: crossTenant %v", i, e.CrossTenant)
		}
	}
	if records[0].Resource.ID != ok.RequestID || records[0].Resource.Type != audit.ResourceRestoreRequest {
		t.Fatalf("the accepted record names %+v, want request %s", records[0].Resource, ok.RequestID)
	}
	// The operator team's access reason header declares it too; a header
	// that cannot be recorded is a 400 naming it.
	sup := token(t, restoreTenant, audit.RoleSuperadmin, "")
	if v := restoreView(t, restoreAsk(t, h, sup, restoreEventID(4), "", body, api.ReasonHeader, "ticket INC-43"), 202); v.Reason != "ticket INC-43" {
		t.Fatalf("reason from the header: %q", v.Reason)
	}
	res := restoreAsk(t, h, sup, restoreEventID(4), "", body, api.ReasonHeader, strings.Repeat("r", audit.MaxReasonBytes+1))
	if p := res.problem(t); res.status != 400 || len(p.Errors) == 0 || p.Errors[0].Field != api.ReasonHeader {
		t.Fatalf("an unrecordable reason header: %d %s", res.status, res.body)
	}
}

// testRestoreIsolation: another tenant's event and request ids are 404,
// and its refused attempt is recorded in its own log, not in ours.
func testRestoreIsolation(t *testing.T, h *harness, requestID string) {
	other := token(t, otherTenant, audit.RoleAdmin, "")
	if res := restoreAsk(t, h, other, restoreEventID(2), "", `{"force":true}`); res.status != 404 {
		t.Fatalf("another tenant's restore: %d %s", res.status, res.body)
	}
	if res := h.get(t, "/api/restores/"+requestID, other); res.status != 404 {
		t.Fatalf("another tenant's status: %d %s", res.status, res.body)
	}
	if res := h.get(t, "/api/restores/not-an-id", other); res.status != 404 {
		t.Fatalf("a malformed id: %d %s", res.status, res.body)
	}
}

// testRestoreOutcome: a request is pending until the owner's update with
// restoredFrom arrives; it is then applied, and the history shows it. An
// owner's failure event makes a request failed, with its reason.
func testRestoreOutcome(t *testing.T, h *harness, visible func(), admin, applied, failed string) {
	status := func(id string) api.RestoreView {
		return restoreView(t, h.get(t, "/api/restores/"+id, admin), 200)
	}
	if v := status(applied); v.Status != restorejob.Pending || v.OutcomeEventID != "" {
		t.Fatalf("before the owner acts: %+v", v)
	}
	now := time.Now().Add(-time.Minute)
	ingestLines(t, h,
		restoreEvent(7, now, "update", restoreStates[4], restoreStates[1], `,"restoredFrom":"`+applied+`"`),
		restoreEvent(8, now.Add(time.Second), "update", restoreStates[1], restoreStates[1], `,"restoredFrom":"`+strings.ToUpper(failed)+`","outcome":"failure","reason":"policy locked by compliance"`))
	visible()
	if v := status(applied); v.Status != restorejob.Applied || v.OutcomeEventID != restoreEventID(7) {
		t.Fatalf("after the owner applied it: %+v", v)
	}
	if v := status(failed); v.Status != restorejob.Failed || v.StatusReason != "policy locked by compliance" || v.OutcomeEventID != restoreEventID(8) {
		t.Fatalf("after the owner refused it: %+v", v)
	}
	var page api.HistoryResponse
	h.get(t, "/api/resources/recording_policy/"+restoredID+"/history?pageSize=2", admin).json(t, &page)
	if len(page.Data) != 2 || page.Data[1].RestoredFrom != applied || page.Data[1].EventID != restoreEventID(7) || page.Data[0].Outcome != audit.OutcomeFailure {
		t.Fatalf("history: %+v", page.Data)
	}
	// A restoredFrom on anything but an update is refused at ingest.
	code, out := post(t, h.srv.URL, ingestToken, "application/x-ndjson",
		[]byte(restoreEvent(9, now, "create", "", restoreStates[0], `,"restoredFrom":"`+applied+`"`)))
	if code != 400 || !strings.Contains(string(out), `"field":"[0].restoredFrom"`) {
		t.Fatalf("restoredFrom on a create: %d %s", code, out)
	}
}

// brokenWriter refuses every write: the store the service records its own
// events in is down.
type brokenWriter struct{}

func (brokenWriter) WriteEvents(context.Context, []audit.Event) ([]audit.WriteResult, error) {
	return nil, audit.Wrap(audit.EUNAVAILABLE, errors.New("disk gone"), "store down")
}

// testRestoreRecordFirst: when the attempt cannot be recorded, the
// restore is refused with 503 and nothing is asked.
func testRestoreRecordFirst(t *testing.T, b restoreBackend) {
	h := restoreHarness(t, b, brokenWriter{}, audit.PlanEnterprise)
	res := restoreAsk(t, h, token(t, restoreTenant, audit.RoleAdmin, ""), restoreEventID(2), "key-503", `{"force":true}`)
	if res.status != 503 {
		t.Fatalf("unrecorded restore: %d %s, want 503", res.status, res.body)
	}
	if _, err := b.GetRestore(context.Background(), restoreTenant, restorejob.RequestID(restoreTenant, "key-503")); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("a request was stored without its record: %v", err)
	}
}

// testRestoreRetention: an event past the plan's retention is outside the
// resource's retained history: 404 saying so. It runs last: it changes
// the tenant's plan.
func testRestoreRetention(t *testing.T, h *harness, b restoreBackend, visible func(), admin string) {
	if err := b.SetPlan(context.Background(), restoreTenant, audit.PlanStarter); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-31 * 24 * time.Hour)
	ingestLines(t, h, restoreEvent(10, old, "update", restoreStates[0], restoreStates[1], ""))
	visible()
	res := restoreAsk(t, h, admin, restoreEventID(10), "", `{"force":true}`)
	if res.status != 404 || !strings.Contains(res.problem(t).Detail, "past the retention") {
		t.Fatalf("a restore past retention: %d %s", res.status, res.body)
	}
	// Inside retention the same tenant restores (event 3's after differs
	// from the state now; its before is that state, a restore of nothing).
	if res := restoreAsk(t, h, admin, restoreEventID(3), "", `{"force":true,"version":"after"}`); res.status != 202 {
		t.Fatalf("a restore inside retention: %d %s", res.status, res.body)
	}
}

// TestRestoreFollowsThePlan: the tenant's plan at the time of the ask
// bounds the restore, through a plan change.
func TestRestoreFollowsThePlan(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db"), DefaultPlan: audit.PlanStarter})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	admin := token(t, restoreTenant, audit.RoleAdmin, "")
	h := restoreHarness(t, s, s, audit.PlanEnterprise)
	ingestLines(t, h,
		restoreEvent(2, time.Now().Add(-40*24*time.Hour), "update", restoreStates[0], restoreStates[1], ""),
		restoreEvent(3, time.Now().Add(-20*24*time.Hour), "update", restoreStates[1], restoreStates[2], ""))
	for _, c := range []struct {
		plan   audit.Plan
		id     string
		status int
	}{{audit.PlanStarter, restoreEventID(2), 404}, {audit.PlanStarter, restoreEventID(3), 202}, {audit.PlanPro, restoreEventID(2), 202}} {
		if err := s.SetPlan(context.Background(), restoreTenant, c.plan); err != nil {
			t.Fatal(err)
		}
		if res := restoreAsk(t, h, admin, c.id, "", `{"force":true}`); res.status != c.status {
			t.Fatalf("plan %s, event %s: %d %s, want %d", c.plan, c.id, res.status, res.body, c.status)
		}
	}
}
