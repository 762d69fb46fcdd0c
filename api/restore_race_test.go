package api_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
)

// testRestoreRaces: ten parallel asks with one Idempotency-Key make one
// request and write one record, and all ten are answered that request; a
// key reused for another restore is refused and the refusal recorded,
// once however often it is repeated; the status shows the last delivery
// error.
func testRestoreRaces(t *testing.T, h *harness, b restoreBackend, visible func(), admin string) {
	const n, key = 10, "race-key"
	body := `{"version":"after","fields":["mode"],"force":true}`
	views := make([]api.RestoreView, n)
	statuses, bodies := make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := restoreAsk(t, h, admin, restoreEventID(5), key, body)
			statuses[i], bodies[i] = res.status, string(res.body)
			if res.status == 202 {
				res.json(t, &views[i])
			}
		}()
	}
	wg.Wait()
	reqID := restorejob.RequestID(restoreTenant, key)
	for i := range n {
		if statuses[i] != 202 || views[i].RequestID != reqID {
			t.Fatalf("ask %d: %d %s, want 202 for request %s", i, statuses[i], bodies[i], reqID)
		}
	}
	reused := `{"force":true}`
	for range 3 {
		if res := restoreAsk(t, h, admin, restoreEventID(4), key, reused); res.status != 409 {
			t.Fatalf("the key reused for another restore: %d %s", res.status, res.body)
		}
	}
	visible()
	var accepted, refused int
	for _, e := range restoreRecords(t, h, restoreTenant) {
		if e.Resource.ID != reqID {
			continue
		}
		if e.Outcome == audit.OutcomeFailure {
			refused++
		} else {
			accepted++
		}
	}
	if accepted != 1 || refused != 1 {
		t.Fatalf("records of request %s: %d accepted and %d refused, want 1 and 1", reqID, accepted, refused)
	}
	// A failed delivery shows in the status until one succeeds.
	ctx := context.Background()
	r, err := b.GetRestore(ctx, restoreTenant, reqID)
	if err != nil {
		t.Fatal(err)
	}
	r.DeliveryFailed(r.NextAttemptAt, errors.New("webhook answered 502"))
	if err := b.UpdateRestore(ctx, &r); err != nil {
		t.Fatal(err)
	}
	var v api.RestoreView
	h.get(t, "/api/restores/"+reqID, admin).json(t, &v)
	if v.LastError != "webhook answered 502" || v.NextAttemptAt == nil || v.DeliveredAt != nil {
		t.Fatalf("status after a failed delivery: %+v", v)
	}
	// Delivered at an instant with nanoseconds: shown to the millisecond,
	// like every time the API answers (the document's pattern, checked by
	// h.get, says so too).
	if r, err = b.GetRestore(ctx, restoreTenant, reqID); err != nil {
		t.Fatal(err)
	}
	r.Delivered(time.Date(2026, 11, 25, 10, 0, 0, 123456789, time.UTC))
	if err := b.UpdateRestore(ctx, &r); err != nil {
		t.Fatal(err)
	}
	res := h.get(t, "/api/restores/"+reqID, admin)
	if !strings.Contains(string(res.body), `"deliveredAt":"2026-11-25T10:00:00.123Z"`) || strings.Contains(string(res.body), "lastError") {
		t.Fatalf("status after delivery: %s", res.body)
	}
}

// testUpperCaseIDs: an event id is a UUID, case-insensitive, on every
// path that takes one: the detail, compare's base and target, the
// restore's path, latestSeen and the restore status.
func testUpperCaseIDs(t *testing.T, h *harness, admin string) {
	up := func(id string) string { return "evt_audit_" + strings.ToUpper(strings.TrimPrefix(id, "evt_audit_")) }
	if res := h.get(t, "/api/audit-logs/"+up(restoreEventID(3)), admin); res.status != 200 || !strings.Contains(string(res.body), restoreEventID(3)) {
		t.Fatalf("detail by an upper-case id: %d %s", res.status, res.body)
	}
	if res := h.get(t, "/api/resources/recording_policy/"+strings.ToUpper(restoredID)+"/compare?"+qs("base", up(restoreEventID(2)), "target", up(restoreEventID(4))), admin); res.status != 200 {
		t.Fatalf("compare by upper-case ids: %d %s", res.status, res.body)
	}
	res := restoreAsk(t, h, admin, up(restoreEventID(4)), "upper-key", `{"version":"after","fields":["mode"],"force":true}`)
	v := restoreView(t, res, 202)
	if v.SourceEventID != restoreEventID(4) {
		t.Fatalf("restore by an upper-case id names %s", v.SourceEventID)
	}
	if res := h.get(t, "/api/restores/"+strings.ToUpper(v.RequestID), admin); res.status != 200 {
		t.Fatalf("restore status by an upper-case id: %d %s", res.status, res.body)
	}
}
